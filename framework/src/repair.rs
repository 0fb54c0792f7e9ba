//! Repair rungs and the ladder they form.
//!
//! A rung looks at a violating candidate and either offers a new candidate (possibly
//! with amendments to already accepted material), asks the engine to consult the
//! proposer, or gives up. The ladder is data — an ordered list of rungs — so a
//! domain changes its repair strategy by changing a list, not the engine. The engine
//! verifies every rung's result again before accepting it.

use crate::domain::Domain;
use crate::predicate::{CheckContext, Violation};
use serde::Serialize;
use std::fmt;
use std::sync::Arc;

/// The stable id of a repair rung, e.g. `trim`: what traces, totals, reports and an
/// experiment's conditions call it. As with [`RuleId`](crate::RuleId), a domain defines
/// each of its rungs' ids once, as a constant beside the rung, and everything else —
/// the ladder, a condition naming rungs ([`Ladder::select`]), tests — refers to that
/// definition. It serializes as the plain id string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct RungId(&'static str);

impl RungId {
    /// The id `id` (for a domain's rung definitions).
    pub const fn new(id: &'static str) -> RungId {
        RungId(id)
    }

    /// The id as text.
    pub const fn as_str(self) -> &'static str {
        self.0
    }
}

/// Comparing with the published id text (what traces and reports print).
impl PartialEq<str> for RungId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for RungId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl fmt::Display for RungId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// What the engine should ask the proposer for when a rung defers to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PatchScope {
    /// Replace just this one event.
    Event,
    /// Rewrite this event and the rest of its segment (the events still pending in
    /// the section); the first returned event replaces the candidate, the others
    /// replace the pending events.
    Segment,
}

/// The result of one rung on one candidate.
pub enum RungAction<D: Domain> {
    /// A new candidate; `amendments` edit the state before it is verified (they are
    /// undone if the candidate is not kept).
    Candidate {
        event: D::Event,
        amendments: Vec<D::Amendment>,
    },
    /// Ask the proposer for a patch of this scope.
    AskProposer(PatchScope),
    /// This rung cannot help; the reason goes into the trace.
    GiveUp { reason: String },
}

impl<D: Domain> RungAction<D> {
    /// A new candidate without amendments.
    pub fn candidate(event: D::Event) -> Self {
        RungAction::Candidate {
            event,
            amendments: Vec::new(),
        }
    }

    /// Giving up with a reason.
    pub fn give_up(reason: impl Into<String>) -> Self {
        RungAction::GiveUp {
            reason: reason.into(),
        }
    }
}

/// A named, ordered repair.
pub trait RepairRung<D: Domain>: Send + Sync {
    /// Stable id used in traces, summaries and conditions, e.g. `trim`.
    fn id(&self) -> RungId;
    /// Proposes a repair of `candidate`, which violates `violations` (hard ones first).
    fn repair(
        &self,
        ctx: CheckContext<'_, D>,
        candidate: &D::Event,
        violations: &[Violation<D::Location>],
    ) -> RungAction<D>;
    /// `Some(n)`: once the rung has had at least `n` proposer answers in a run and
    /// fewer than 1 in `n` of them repaired the event, it is retired for the rest of
    /// that run (`None`, the default: never). Only a rung that asks the proposer
    /// spends calls, so only such a rung needs a limit: a model that cannot patch a
    /// kind of fault keeps failing at it, and the drop it ends in is better reached
    /// without the calls (the section's continue request or replan asks
    /// differently).
    fn retires_after(&self) -> Option<u32> {
        None
    }
}

/// A rung that always defers to the proposer with a fixed scope: the model-patch
/// and segment-rewrite rungs of any domain.
pub struct AskProposer {
    id: RungId,
    scope: PatchScope,
    retire_after: Option<u32>,
}

impl AskProposer {
    /// A rung with id `id` asking for a patch of `scope`, never retired.
    pub const fn new(id: RungId, scope: PatchScope) -> Self {
        AskProposer {
            id,
            scope,
            retire_after: None,
        }
    }

    /// The same rung, retired for the rest of a run once at least `n` answers have
    /// repaired fewer than 1 in `n` (see [`RepairRung::retires_after`]).
    pub const fn retiring_after(mut self, n: u32) -> Self {
        self.retire_after = Some(n);
        self
    }
}

impl<D: Domain> RepairRung<D> for AskProposer {
    fn id(&self) -> RungId {
        self.id
    }
    fn repair(
        &self,
        _ctx: CheckContext<'_, D>,
        _candidate: &D::Event,
        _violations: &[Violation<D::Location>],
    ) -> RungAction<D> {
        RungAction::AskProposer(self.scope)
    }
    fn retires_after(&self) -> Option<u32> {
        self.retire_after
    }
}

/// The ordered list of rungs tried on a violating candidate. After the last rung the
/// engine drops the event (with the domain's lockstep hook).
pub struct Ladder<D: Domain> {
    rungs: Vec<Arc<dyn RepairRung<D>>>,
}

impl<D: Domain> Clone for Ladder<D> {
    fn clone(&self) -> Self {
        Ladder {
            rungs: self.rungs.clone(),
        }
    }
}

impl<D: Domain> Default for Ladder<D> {
    fn default() -> Self {
        Ladder { rungs: Vec::new() }
    }
}

impl<D: Domain> Ladder<D> {
    /// An empty ladder (every violating event is dropped at once).
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a rung.
    pub fn then(mut self, rung: impl RepairRung<D> + 'static) -> Self {
        self.rungs.push(Arc::new(rung));
        self
    }

    /// The rungs in order.
    pub fn rungs(&self) -> &[Arc<dyn RepairRung<D>>] {
        &self.rungs
    }

    /// Rung ids in order.
    pub fn ids(&self) -> Vec<RungId> {
        self.rungs.iter().map(|r| r.id()).collect()
    }

    /// Rung ids in order, as text (what a trace's header lists).
    pub fn names(&self) -> Vec<&'static str> {
        self.rungs.iter().map(|r| r.id().as_str()).collect()
    }

    /// The ladder of the rungs `ids`, in that order, taken from this one (a
    /// condition's ablation: fewer rungs, or others in another order); `Err` with the
    /// first id this ladder has no rung for.
    pub fn select(&self, ids: &[RungId]) -> Result<Ladder<D>, RungId> {
        let rungs = ids
            .iter()
            .map(|&id| self.rungs.iter().find(|r| r.id() == id).cloned().ok_or(id))
            .collect::<Result<_, _>>()?;
        Ok(Ladder { rungs })
    }
}
