//! The repair ladder of the twelve-tone domain.
//!
//! Six rungs, tried in order on a violating event; the engine verifies every result
//! again and drops the event (advancing the row cursor) when all fail. Which rungs a
//! run climbs depends on who proposes: the embedded planner's [`ladder`] is the time
//! rungs and its own patch and rewrite; a model run's [`model_ladder`] is the time
//! rungs and `octave`, and asks the model nothing ([`every_rung`] holds all six, for
//! an experiment condition that names its own):
//!
//! 1. `trim` — shorten the candidate so it ends before a conflicting note of another
//!    voice begins;
//! 2. `yield` — shorten the conflicting notes of other voices that began earlier so
//!    they end where the candidate begins (amendments to accepted material);
//! 3. `retime` — move the candidate within its voice's free window (from the end of
//!    the voice's previous note to the candidate's own end) to a conflict-free place;
//! 4. `octave` — move a crossing candidate by whole octaves, inside its voice's
//!    register, to where it crosses no voice sounding with it;
//! 5. `model-patch` — ask the proposer for this one event again;
//! 6. `rewrite-segment` — ask the proposer to rewrite the rest of the voice's segment.
//!
//! The first three never change a pitch or a tag: they only move time; `octave`
//! changes octaves only, never a pitch class, an onset or a length (a property test
//! holds all four to it). A conflict is an overlapping note of another voice that
//! shares a pitch class with the candidate or crosses it.
//!
//! Why an octave rung: under `freedom = "rules"` the model places each pitch class in
//! any octave of its voice's register, and a third of the events SmolLM2 lost on the
//! bank's five- and six-voice briefs were crossings that no time move could undo
//! (measured on the 2026-12-05 traces of `examples/experiments/freedom-report-*`).
//! The octave is the choice a crossing is about, so it is the one to change.
//!
//! Why a model run asks no rung of the model: its drops are reopened
//! ([`Budget::reopen_drops`](cantus_framework::Budget)) and asked for again in the
//! section's one continue request, where the grammar already holds every other
//! voice's accepted notes, so one call serves every drop of the section; a patch spends
//! a call on one note and a rewrite on one voice. Over the 41 bank briefs, 3 seeds,
//! the null model released 123 of 123 either way at 1.55 proposer calls per section
//! without them against 2.91 with them (2026-12-06); on SmolLM2's five- and six-voice
//! runs patches and rewrites were 60–70% of all calls.

use crate::domain::{Amendment, TwelveTone};
use crate::event::{Location, ToneEvent};
use crate::gate::Rule;
use crate::state::{ToneState, crosses};
use cantus_framework::{
    AskProposer, CheckContext, Ladder, PatchScope, RepairRung, RungAction, RungId, Violation,
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
    AskProposer::new(RungId::new("model-patch"), PatchScope::Event).retiring_after(FRUITLESS_ASKS);

/// The proposer's rewrite of an event and the rest of its segment.
pub const REWRITE_SEGMENT: AskProposer =
    AskProposer::new(RungId::new("rewrite-segment"), PatchScope::Segment)
        .retiring_after(FRUITLESS_ASKS);

/// The ladder of the embedded planner, in order: the time rungs, then its own patch
/// and rewrite. Its patch re-places a crossing note by the register plan (it repairs
/// about a third of what reaches it), and its runs are the golden references (the
/// bank, the traces, Libretto's serial table), so it keeps this ladder.
pub fn ladder() -> Ladder<TwelveTone> {
    time_rungs().then(MODEL_PATCH).then(REWRITE_SEGMENT)
}

/// The ladder of a model run: the time rungs, then [`Octave`], and no rung that asks
/// the model (see the module docs). A model under `freedom = "rules"` chooses every
/// octave itself, so an octave is what a crossing is about; what no deterministic
/// rung repairs is dropped, reopened and asked for again in the section's continue
/// request.
pub fn model_ladder() -> Ladder<TwelveTone> {
    time_rungs().then(Octave)
}

/// Every rung of the domain, in ladder order: what an experiment condition's `rungs`
/// choose from, by id.
pub fn every_rung() -> Ladder<TwelveTone> {
    time_rungs()
        .then(Octave)
        .then(MODEL_PATCH)
        .then(REWRITE_SEGMENT)
}

/// The rungs both ladders begin with: the three that only move time.
fn time_rungs() -> Ladder<TwelveTone> {
    Ladder::new().then(Trim).then(Yield).then(Retime)
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

impl Trim {
    /// This rung's id in traces, totals and conditions.
    pub const ID: RungId = RungId::new("trim");
}

impl RepairRung<TwelveTone> for Trim {
    fn id(&self) -> RungId {
        Self::ID
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

impl Yield {
    /// This rung's id in traces, totals and conditions.
    pub const ID: RungId = RungId::new("yield");
}

impl RepairRung<TwelveTone> for Yield {
    fn id(&self) -> RungId {
        Self::ID
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

impl Retime {
    /// This rung's id in traces, totals and conditions.
    pub const ID: RungId = RungId::new("retime");
}

impl RepairRung<TwelveTone> for Retime {
    fn id(&self) -> RungId {
        Self::ID
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

/// `octave`: the nearest whole-octave move of a crossing candidate, inside its voice's
/// register, after which it crosses no note sounding with it.
///
/// Only crossings: a shared pitch class stays shared in any octave, so a candidate
/// with a collision left after the time rungs is given up on. Moves are tried nearest
/// first (down before up at equal distance), every pitch of a chord by the same
/// octaves, so the chord's voicing and its pitch classes stay as proposed.
pub struct Octave;

/// The farthest an `octave` move goes, in octaves: a voice's register spans about two.
const OCTAVE_MOVES: i16 = 3;

impl Octave {
    /// This rung's id in traces, totals and conditions.
    pub const ID: RungId = RungId::new("octave");
}

impl RepairRung<TwelveTone> for Octave {
    fn id(&self) -> RungId {
        Self::ID
    }
    fn repair(
        &self,
        ctx: CheckContext<'_, TwelveTone>,
        c: &ToneEvent,
        vs: &Vs,
    ) -> RungAction<TwelveTone> {
        if !vs
            .iter()
            .any(|v| Rule::try_from(v.predicate) == Ok(Rule::Crossing))
        {
            return RungAction::give_up("no crossing to move away from");
        }
        let Some(register) = ctx.spec.limits.voices.get(c.voice) else {
            return RungAction::give_up("unknown voice");
        };
        let moves = (1..=OCTAVE_MOVES).flat_map(|k| [-k, k]);
        for k in moves {
            let pitches: Option<Vec<u8>> = c
                .pitches
                .iter()
                .map(|&p| {
                    u8::try_from(i16::from(p) + 12 * k)
                        .ok()
                        .filter(|q| (register.low..=register.high).contains(q))
                })
                .collect();
            let Some(pitches) = pitches else {
                continue;
            };
            let moved = ToneEvent {
                pitches,
                ..c.clone()
            };
            if conflicting(ctx.state, &moved).next().is_none() {
                return RungAction::candidate(moved);
            }
        }
        RungAction::give_up(
            "no octave inside the voice's register is clear of the notes sounding with it",
        )
    }
}
