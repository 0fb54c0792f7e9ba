//! Vertical and spatial predicates: collisions, texture, register, crossing.

use super::pc_names;
use crate::domain::TwelveTone;
use crate::event::{Location, ToneEvent};
use crate::gate::Rule;
use crate::state::{CrossingTally, ToneState};
use cantus_framework::{CheckContext, Domain, Predicate, RuleId, Violation};
use cantus_music::{Time, time_text};

type Out = Vec<Violation<Location>>;

fn at(ctx: &CheckContext<'_, TwelveTone>, e: &ToneEvent) -> Location {
    ctx.domain.locate(ctx.section, e)
}

/// `TT-COLLISION`: vertical pitch-class non-collision.
pub struct NoCollision;

impl Predicate<TwelveTone> for NoCollision {
    fn id(&self) -> RuleId {
        Rule::Collision.into()
    }
    fn description(&self) -> &'static str {
        "events of different voices that overlap in time by any positive amount share no pitch class"
    }
    fn check(&self, ctx: CheckContext<'_, TwelveTone>, e: &ToneEvent, out: &mut Out) {
        let mine = e.pc_set();
        for (u, line) in ctx.state.voices.iter().enumerate() {
            if u == e.voice {
                continue;
            }
            for other in line.overlapping(e.onset, e.end()) {
                let shared = mine & other.pc_set();
                if shared != 0 {
                    let name = ctx
                        .spec
                        .limits
                        .voices
                        .get(u)
                        .map_or("another voice", |v| v.name.as_str());
                    out.push(Violation::hard(
                        self.id(),
                        at(&ctx, e),
                        format!(
                            "{} also sounds in {name} (its note at {} overlaps this one)",
                            pc_names(shared),
                            time_text::format(other.onset)
                        ),
                    ));
                }
            }
        }
    }
}

/// `TT-TEXTURE`: chord size, pitches sounding at once, one line per voice.
pub struct TextureBounds;

impl Predicate<TwelveTone> for TextureBounds {
    fn id(&self) -> RuleId {
        Rule::Texture.into()
    }
    fn description(&self) -> &'static str {
        "an event has at most max_chord pitches, at most max_sounding pitches sound at once, and a voice's events do not overlap"
    }
    fn check(&self, ctx: CheckContext<'_, TwelveTone>, e: &ToneEvent, out: &mut Out) {
        let limits = &ctx.spec.limits;
        if e.pitches.len() > usize::from(limits.max_chord) {
            out.push(Violation::hard(
                self.id(),
                at(&ctx, e),
                format!(
                    "{} pitches in one event; the texture allows {}",
                    e.pitches.len(),
                    limits.max_chord
                ),
            ));
        }
        if let Some(line) = ctx.state.voices.get(e.voice)
            && let Some(prev) = line.overlapping(e.onset, e.end()).next()
        {
            out.push(Violation::hard(
                self.id(),
                at(&ctx, e),
                format!(
                    "overlaps the voice's own note at {} (a voice is one line; write a chord as one event)",
                    time_text::format(prev.onset)
                ),
            ));
        }
        let peak = peak_sounding(ctx.state, e);
        if peak > usize::from(limits.max_sounding) {
            out.push(Violation::hard(
                self.id(),
                at(&ctx, e),
                format!(
                    "{peak} pitches would sound at once; the texture allows {}",
                    limits.max_sounding
                ),
            ));
        }
    }
}

/// The most distinct pitches sounding at one instant during `e`, counting `e`
/// (shared with the embedded proposer's cost model, so both count alike).
pub(crate) fn peak_sounding(state: &ToneState, e: &ToneEvent) -> usize {
    let others: Vec<&ToneEvent> = state
        .voices
        .iter()
        .enumerate()
        .filter(|(u, _)| *u != e.voice)
        .flat_map(|(_, l)| l.overlapping(e.onset, e.end()))
        .collect();
    let mine: u128 = e.pitches.iter().fold(0, |m, &p| m | 1 << (p & 127));
    // The count can only rise at the candidate's onset or at another note's onset.
    let cuts =
        std::iter::once(e.onset).chain(others.iter().map(|o| o.onset).filter(|&t| t > e.onset));
    cuts.map(|t| {
        others
            .iter()
            .filter(|o| o.onset <= t && t < o.end())
            .fold(mine, |m, o| {
                o.pitches.iter().fold(m, |m, &p| m | 1 << (p & 127))
            })
            .count_ones() as usize
    })
    .max()
    .unwrap_or(0)
}

/// `TT-REGISTER`: every pitch inside the voice's register.
pub struct InRegister;

impl Predicate<TwelveTone> for InRegister {
    fn id(&self) -> RuleId {
        Rule::Register.into()
    }
    fn description(&self) -> &'static str {
        "every pitch lies inside its voice's register"
    }
    fn check(&self, ctx: CheckContext<'_, TwelveTone>, e: &ToneEvent, out: &mut Out) {
        let Some(v) = ctx.spec.limits.voices.get(e.voice) else {
            return;
        };
        let outside: Vec<u8> = e
            .pitches
            .iter()
            .copied()
            .filter(|p| *p < v.low || *p > v.high)
            .collect();
        if !outside.is_empty() {
            out.push(Violation::hard(
                self.id(),
                at(&ctx, e),
                format!(
                    "MIDI {outside:?} outside {}'s register {}–{}",
                    v.name, v.low, v.high
                ),
            ));
        }
    }
}

/// `TT-CROSSING`: the running share of crossed time stays within the limit.
pub struct LimitedCrossing;

impl Predicate<TwelveTone> for LimitedCrossing {
    fn id(&self) -> RuleId {
        Rule::Crossing.into()
    }
    fn description(&self) -> &'static str {
        "voices are crossed for at most max_crossing of the time they sound together (checked on the running total)"
    }
    fn check(&self, ctx: CheckContext<'_, TwelveTone>, e: &ToneEvent, out: &mut Out) {
        let add = CrossingTally::contribution(&ctx.state.voices, e.voice, e);
        if add.crossed == Time::default() {
            return;
        }
        let mut total = ctx.state.crossing;
        total.add(add);
        let limit = ctx.spec.limits.max_crossing;
        if total.share() > limit {
            out.push(Violation::hard(
                self.id(),
                at(&ctx, e),
                format!(
                    "crosses an adjacent voice; voices would be crossed {} of their time together, above the limit {}",
                    time_text::format(total.share()),
                    time_text::format(limit)
                ),
            ));
        }
    }
}
