//! The repair ladder of the twelve-tone domain.
//!
//! Five rungs, tried in order on a violating event; the engine verifies every result
//! again and drops the event (advancing the row cursor) when all fail:
//!
//! 1. `trim` — shorten the candidate so it ends before a conflicting note of another
//!    voice begins;
//! 2. `yield` — shorten the conflicting notes of other voices that began earlier so
//!    they end where the candidate begins (amendments to accepted material);
//! 3. `retime` — move the candidate within its voice's free window (from the end of
//!    the voice's previous note to the candidate's own end) to a conflict-free place;
//! 4. `model-patch` — ask the proposer for this one event again;
//! 5. `rewrite-segment` — ask the proposer to rewrite the rest of the voice's segment.
//!
//! The first three never change a pitch or a tag: they only move time (a property test
//! holds them to it). A conflict is an overlapping note of another voice that shares a
//! pitch class with the candidate or crosses it.

use crate::domain::{Amendment, TwelveTone};
use crate::event::{Location, ToneEvent};
use crate::gate::Rule;
use crate::state::{ToneState, crosses};
use cantus_framework::{
    AskProposer, CheckContext, Ladder, PatchScope, RepairRung, RungAction, Violation,
};
use cantus_music::Time;
use num_integer::Integer;
use num_traits::Signed;

type Vs = [Violation<Location>];

/// A model rung is retired for the rest of a run once at least this many of its
/// answers have repaired fewer than 1 in this many. Measured over 38 bank briefs:
/// SmolLM2's 265 patches repaired nothing and its 265 segment rewrites 4 events
/// (64% of all its calls), while the embedded proposer's patches repair 31% and
/// its rewrites 58% (82 bank runs), and stay.
pub const FRUITLESS_ASKS: u32 = 16;

/// The proposer's patch of one event.
pub const MODEL_PATCH: AskProposer =
    AskProposer::new("model-patch", PatchScope::Event).retiring_after(FRUITLESS_ASKS);

/// The proposer's rewrite of an event and the rest of its segment.
pub const REWRITE_SEGMENT: AskProposer =
    AskProposer::new("rewrite-segment", PatchScope::Segment).retiring_after(FRUITLESS_ASKS);

/// The ladder in order.
pub fn ladder() -> Ladder<TwelveTone> {
    Ladder::new()
        .then(Trim)
        .then(Yield)
        .then(Retime)
        .then(MODEL_PATCH)
        .then(REWRITE_SEGMENT)
}

/// Whether `other` (in voice `u`) conflicts with `e`: shares a pitch class or crosses it.
fn conflicts(e: &ToneEvent, u: usize, other: &ToneEvent) -> bool {
    if e.pc_set() & other.pc_set() != 0 {
        return true;
    }
    if u < e.voice {
        crosses(other, e)
    } else {
        crosses(e, other)
    }
}

/// Overlapping notes of other voices that conflict with `e`.
fn conflicting<'s>(
    state: &'s ToneState,
    e: &'s ToneEvent,
) -> impl Iterator<Item = (usize, &'s ToneEvent)> + 's {
    state
        .voices
        .iter()
        .enumerate()
        .filter(move |(u, _)| *u != e.voice)
        .flat_map(move |(u, l)| l.overlapping(e.onset, e.end()).map(move |o| (u, o)))
        .filter(move |(u, o)| conflicts(e, *u, o))
}

/// Whether the vertical problems are ones a time move can address.
fn timing_problem(vs: &Vs) -> bool {
    vs.iter()
        .any(|v| Rule::try_from(v.predicate).is_ok_and(Rule::is_vertical))
}

/// `trim`: cut the candidate's tail at the first conflicting later onset.
pub struct Trim;

impl RepairRung<TwelveTone> for Trim {
    fn name(&self) -> &'static str {
        "trim"
    }
    fn repair(
        &self,
        ctx: CheckContext<'_, TwelveTone>,
        c: &ToneEvent,
        vs: &Vs,
    ) -> RungAction<TwelveTone> {
        if !timing_problem(vs) {
            return RungAction::give_up("no collision, crossing or texture problem to trim away");
        }
        let cut = conflicting(ctx.state, c)
            .map(|(_, o)| o.onset)
            .filter(|&t| t > c.onset)
            .min();
        match cut {
            Some(end) => RungAction::candidate(ToneEvent {
                duration: end - c.onset,
                ..c.clone()
            }),
            None => RungAction::give_up("every conflicting note began at or before the candidate"),
        }
    }
}

/// `yield`: shorten earlier conflicting notes of other voices to end at the candidate.
pub struct Yield;

impl RepairRung<TwelveTone> for Yield {
    fn name(&self) -> &'static str {
        "yield"
    }
    fn repair(
        &self,
        ctx: CheckContext<'_, TwelveTone>,
        c: &ToneEvent,
        vs: &Vs,
    ) -> RungAction<TwelveTone> {
        if !timing_problem(vs) {
            return RungAction::give_up("no collision, crossing or texture problem to yield to");
        }
        let amendments: Vec<Amendment> = conflicting(ctx.state, c)
            .filter(|(_, o)| o.onset < c.onset)
            .map(|(u, o)| Amendment {
                voice: u,
                onset: o.onset,
                duration: c.onset - o.onset,
            })
            .collect();
        if amendments.is_empty() {
            return RungAction::give_up("no conflicting note began before the candidate");
        }
        RungAction::Candidate {
            event: c.clone(),
            amendments,
        }
    }
}

/// `retime`: the nearest conflict-free place in the voice's free window.
///
/// The window runs from just after the onset of the voice's previous note (which is
/// shortened, by an amendment, if the candidate moves into its tail) to the
/// candidate's own end — or to the section's end when the candidate closes its row
/// statement, since the voice has nothing else to sound in the section. At each onset
/// the candidate keeps its length where it fits, or is cut short of the first
/// conflicting note that begins later. Pitches and tag never change.
pub struct Retime;

/// The grid retime moves on: sixteenths, or the candidate's own finer grid; in a
/// triplet bar (a candidate on thirds of a beat) eighths and triplet eighths, so the
/// bar stays on one grid the formats write simply.
fn grid(c: &ToneEvent) -> Time {
    let own = c.onset.denom().lcm(c.duration.denom());
    let denom = if own % 3 == 0 {
        own.lcm(&2)
    } else {
        own.lcm(&4)
    };
    Time::new(1, denom)
}

impl RepairRung<TwelveTone> for Retime {
    fn name(&self) -> &'static str {
        "retime"
    }
    fn repair(
        &self,
        ctx: CheckContext<'_, TwelveTone>,
        c: &ToneEvent,
        vs: &Vs,
    ) -> RungAction<TwelveTone> {
        if !timing_problem(vs) {
            return RungAction::give_up(
                "no collision, crossing or texture problem to retime around",
            );
        }
        let Some(line) = ctx.state.voices.get(c.voice) else {
            return RungAction::give_up("unknown voice");
        };
        let step = grid(c);
        let prev = line.last();
        let lo = prev.map_or(ctx.section.start, |p| {
            (p.onset + step).max(ctx.section.start)
        });
        let closes_statement = c.tag.end() >= 12;
        let hi = if closes_statement {
            ctx.section.end
        } else {
            c.end().min(ctx.section.end)
        };
        if lo >= hi {
            return RungAction::give_up("the voice has no free time before the candidate's end");
        }
        // Grid points in [lo, hi), nearest to the original onset first.
        let first = (lo / step).ceil() * step;
        let mut onsets: Vec<Time> = Vec::new();
        let mut t = first;
        while t < hi && onsets.len() < 4096 {
            onsets.push(t);
            t += step;
        }
        onsets.sort_by_key(|&t| ((t - c.onset).abs(), t));
        for onset in onsets {
            let full = ToneEvent {
                onset,
                duration: c.duration.min(hi - onset),
                ..c.clone()
            };
            // Keep the length, or stop short of the first conflict that begins later.
            let cut = conflicting(ctx.state, &full)
                .map(|(_, o)| o.onset)
                .filter(|&o| o > onset)
                .min();
            let candidates = [
                Some(full.clone()),
                cut.map(|end| ToneEvent {
                    duration: end - onset,
                    ..full.clone()
                }),
            ];
            for moved in candidates.into_iter().flatten() {
                if moved == *c || conflicting(ctx.state, &moved).next().is_some() {
                    continue;
                }
                let amendments = match prev {
                    Some(p) if p.end() > onset => vec![Amendment {
                        voice: c.voice,
                        onset: p.onset,
                        duration: onset - p.onset,
                    }],
                    _ => Vec::new(),
                };
                return RungAction::Candidate {
                    event: moved,
                    amendments,
                };
            }
        }
        RungAction::give_up("no conflict-free place in the voice's free window")
    }
}
