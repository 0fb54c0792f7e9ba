//! The embedded proposer: seeded, offline, symbolic. It answers every request by a
//! depth-first search for a whole continuation of the exercise accepted so far, so
//! the notes it proposes for a bar always lead somewhere: to the cadence.
//!
//! The search tries, in order: every rule including the soft ones (a textbook
//! line), the soft moment rules only (line rules such as a single climax relaxed),
//! and the hard rules only. Each level has a node budget. The order in which
//! pitches are tried at a slot is a function of the seed, the attempt, the slot and
//! the previous note only, so asking again from an accepted prefix of a planned
//! line finds the same line: the run is the plan, section after section.

mod grammar;
pub mod model;
mod search;

use crate::domain::{Counterpoint, CpEvent};
use crate::exercise::Beat;
use cantus_framework::{
    Proposal, ProposalRequest, Proposer, ProposerError, RequestKind, async_trait,
};
pub use model::ModelProposer;
pub(crate) use search::range;
pub use search::{Level, complete};

/// The embedded proposer (name `"embedded"`).
#[derive(Clone, Copy, Debug, Default)]
pub struct EmbeddedProposer;

/// The slots a request asks for, in order: a section's remaining slots, the
/// patched slot, the rewritten slot and the pending ones, or all of them.
pub fn request_slots(
    req: &ProposalRequest<'_, Counterpoint>,
) -> Result<Vec<(usize, Beat)>, ProposerError> {
    let slots = req.spec.slots();
    let after = req.state.exercise.moments.last().map(|m| (m.bar, m.beat));
    let from = |place: (usize, Beat)| {
        slots.iter().position(|&s| s == place).ok_or_else(|| {
            ProposerError::BadOutput("the candidate has no slot in this species".into())
        })
    };
    let (start, take) = match &req.kind {
        // A continue request owes the section's slots after the last accepted note:
        // exactly what a section request asks for from the state it is given.
        RequestKind::Section | RequestKind::Continue { .. } => {
            let section = req
                .section()
                .ok_or_else(|| ProposerError::BadOutput("the request names no section".into()))?;
            let start = slots
                .iter()
                .position(|&s| s.0 >= section.bar && after.is_none_or(|a| s > a))
                .unwrap_or(slots.len());
            let n = slots[start..]
                .iter()
                .take_while(|s| s.0 == section.bar)
                .count();
            (start, n)
        }
        RequestKind::Patch { candidate, .. } => (from((candidate.bar, candidate.beat))?, 1),
        RequestKind::Rewrite {
            candidate, pending, ..
        } => (from((candidate.bar, candidate.beat))?, 1 + pending.len()),
        RequestKind::Whole => (0, slots.len()),
    };
    Ok(slots.into_iter().skip(start).take(take).collect())
}

#[async_trait]
impl Proposer<Counterpoint> for EmbeddedProposer {
    fn name(&self) -> &str {
        "embedded"
    }

    async fn propose(
        &self,
        req: ProposalRequest<'_, Counterpoint>,
    ) -> Result<Proposal<CpEvent>, ProposerError> {
        let assignment = req.spec;
        let wanted = request_slots(&req)?;
        let Some(&first) = wanted.first() else {
            return Ok(Proposal::new(Vec::new()));
        };
        let slots = assignment.slots();
        let start = slots
            .iter()
            .position(|&s| s == first)
            .unwrap_or(slots.len());
        let (base, forbid) = match &req.kind {
            RequestKind::Whole => (assignment.empty_exercise(), None),
            RequestKind::Patch { candidate, .. } | RequestKind::Rewrite { candidate, .. } => {
                (req.state.exercise.clone(), Some(candidate.midi))
            }
            RequestKind::Section | RequestKind::Continue { .. } => {
                (req.state.exercise.clone(), None)
            }
        };
        let line = complete(
            &base,
            &slots[start..],
            req.seed,
            u64::from(req.attempt),
            forbid,
        );
        Ok(Proposal::new(line.into_iter().take(wanted.len()).collect()))
    }
}
