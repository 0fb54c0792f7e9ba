//! The repair ladder: the nearest pitch that satisfies the local rules, then the
//! proposer's patch; after that the engine drops the note and replans the bar.
//!
//! 1. `nearest-pitch` — deterministic local search: the pitches of the mode (and the
//!    cadence's ficta in the penultimate bar) one semitone away, then two, up to
//!    an octave; the first that breaks no hard moment rule wins (at equal distance,
//!    the one with fewer soft violations, then the lower). Only the candidate's pitch
//!    changes, never its place.
//! 2. `proposer-patch` — the framework's [`AskProposer`] for this one note.

use crate::domain::{Counterpoint, CpEvent};
use crate::exercise::{Exercise, Location};
use crate::rules;
use cantus_framework::{
    AskProposer, CheckContext, Ladder, PatchScope, RepairRung, RungAction, RungId, Violation,
};

/// The ladder in order.
pub fn ladder() -> Ladder<Counterpoint> {
    Ladder::new().then(NearestPitch).then(
        AskProposer::new(RungId::new("proposer-patch"), PatchScope::Event)
            .retiring_after(FRUITLESS_ASKS),
    )
}

/// The patch rung is retired for the rest of a run once at least this many of its
/// answers have repaired fewer than 1 in this many (as the twelve-tone domain's
/// model rungs).
pub const FRUITLESS_ASKS: u32 = 16;

/// Whether pitch class `pc` may be used in `bar`: the mode's notes, and in the
/// penultimate bar the cadence's ficta (see [`Modality::cadence_ficta`](crate::pitch::Modality::cadence_ficta)).
pub fn usable(ex: &Exercise, bar: usize, pc: u8) -> bool {
    ex.modality.is_diatonic(pc)
        || (ex.is_penultimate_bar(bar) && ex.modality.cadence_ficta().contains(&pc))
}

/// `nearest-pitch`: the closest usable pitch that breaks no hard moment rule.
pub struct NearestPitch;

impl NearestPitch {
    /// This rung's id in traces, totals and conditions.
    pub const ID: RungId = RungId::new("nearest-pitch");
}

impl RepairRung<Counterpoint> for NearestPitch {
    fn id(&self) -> RungId {
        Self::ID
    }

    fn repair(
        &self,
        ctx: CheckContext<'_, Counterpoint>,
        c: &CpEvent,
        vs: &[Violation<Location>],
    ) -> RungAction<Counterpoint> {
        if vs
            .iter()
            .filter(|v| v.is_hard())
            .all(|v| v.predicate == crate::rules::SP_RHYTHM)
        {
            return RungAction::give_up("the problem is the note's place, not its pitch");
        }
        let ex = &ctx.state.exercise;
        for distance in 1..=12i32 {
            let mut best: Option<(usize, CpEvent)> = None;
            for sign in [-1, 1] {
                let midi = i32::from(c.midi) + sign * distance;
                let Ok(midi) = u8::try_from(midi) else {
                    continue;
                };
                if midi > 127 || !usable(ex, c.bar, midi % 12) {
                    continue;
                }
                let candidate = CpEvent {
                    midi,
                    spelling: ex.modality.spell(midi % 12),
                    ..*c
                };
                let Some((trial, i)) = ctx.state.with_candidate(&candidate) else {
                    continue;
                };
                let found = rules::judge_moment(&trial, i);
                if found.iter().any(|v| v.is_hard()) {
                    continue;
                }
                if best.as_ref().is_none_or(|(soft, _)| found.len() < *soft) {
                    best = Some((found.len(), candidate));
                }
            }
            if let Some((_, e)) = best {
                return RungAction::candidate(e);
            }
        }
        RungAction::give_up("no pitch within an octave satisfies the local rules")
    }
}
