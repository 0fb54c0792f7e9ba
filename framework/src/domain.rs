//! The [`Domain`] trait: everything the engine needs to know about one kind of artefact.
//!
//! A domain names its types (spec, section, event, online state, artefact, location,
//! amendment) and gives the engine the few pure functions the loop needs over them. It
//! knows nothing of proposers, repair or traces; the engine knows nothing of music. A
//! new rule domain implements this trait, some [`Predicate`](crate::Predicate)s, some
//! [`RepairRung`](crate::RepairRung)s and a [`ReleaseGate`](crate::ReleaseGate).
//!
//! What only some runs need is a capability of its own: [`Assemble`] (an artefact from
//! one whole proposal) for whole-artefact revise rounds. A domain without it simply
//! cannot be revised that way — the compiler says so, not a panic at run time.

use crate::proposer::Owed;
use serde::Serialize;
use std::fmt::{Debug, Display};

/// One kind of artefact the engine can generate, verify, repair and release.
pub trait Domain: Send + Sync {
    /// What to generate (from a config file, a brief, ...).
    type Spec: Send + Sync;
    /// One piece of the plan (e.g. a span of bars with its row forms per voice).
    type Section: Clone + Debug + Serialize + Send + Sync;
    /// One proposed or accepted symbol.
    type Event: Clone + Debug + Serialize + Send + Sync;
    /// Everything accepted so far, plus the cursors that say what comes next.
    type State: Clone + Send + Sync;
    /// The finished product the release gate judges.
    type Artefact: Send + Sync;
    /// Where a violation is: rendered for people and serialized into traces.
    type Location: Clone + Debug + Display + Serialize + Send + Sync;
    /// An edit a repair rung may make to already accepted material (e.g. shorten
    /// another voice's note), which knows how to apply and undo itself. Domains that
    /// never edit use [`NoAmendment`].
    type Amendment: Amend<Self::State>;

    /// Short stable name, e.g. `"twelve-tone"`.
    fn name(&self) -> &str;

    /// Cuts the spec into the sections the engine fills one after another.
    fn plan(&self, spec: &Self::Spec) -> Result<Vec<Self::Section>, PlanError>;

    /// The state before anything is accepted.
    fn initial_state(&self, spec: &Self::Spec) -> Self::State;

    /// Called before each section is proposed (again after a replan's rollback):
    /// realign cursors with the plan, e.g. when a previous section left a statement
    /// short. Does nothing by default.
    fn begin_section(&self, _state: &mut Self::State, _section: &Self::Section) {}

    /// Records an accepted event and advances the cursors it moves.
    fn accept(&self, state: &mut Self::State, section: &Self::Section, event: &Self::Event);

    /// The lockstep hook: the engine dropped `event`. Advance every cursor exactly
    /// as [`Domain::accept`] would have, without recording the event itself, so the
    /// events after it still line up with the plan.
    fn skip(&self, state: &mut Self::State, section: &Self::Section, event: &Self::Event);

    /// Called once a reply is settled, before the engine asks what is still owed:
    /// take back the cursor moves of dropped events, so [`Domain::owed`] names their
    /// positions again and a continue request asks for them, instead of the section
    /// being replanned for a hole nothing owes. A drop that accepted events of its
    /// part follow can only be asked for again with those events: a domain that
    /// does so takes them out of the state too and returns them in
    /// [`Reopened::withdrawn`], and the engine marks their certificates withdrawn.
    /// Takes nothing back by default.
    fn reopen(
        &self,
        _spec: &Self::Spec,
        _state: &mut Self::State,
        _section: &Self::Section,
    ) -> Reopened<Self::Event> {
        Reopened::default()
    }

    /// The engine is stepping back into `section` because the section after it could
    /// not be filled ([`Budget::backtracks`](crate::Budget)): `state` is as it was
    /// before `section`, `withdrawn` what `section` had accepted. Record them as a
    /// dead end in `state`, so that the section's proposers (its constraint) offer
    /// something else; the state is rolled back past `section` before this is
    /// consulted again, so a dead end is only remembered behind the prefix that
    /// made it one. Records nothing by default (the proposer then sees only the
    /// feedback, [`Feedback::DeadEnd`](crate::Feedback)).
    fn dead_end(
        &self,
        _state: &mut Self::State,
        _section: &Self::Section,
        _withdrawn: &[Self::Event],
    ) {
    }

    /// Where an event sits, for traces and diagnostics.
    fn locate(&self, section: &Self::Section, event: &Self::Event) -> Self::Location;

    /// What each part still owes `section` once its events are settled: empty when
    /// the section is complete. The engine does not move on from a short section: it
    /// asks the proposer for exactly this ([`RequestKind::Continue`](crate::RequestKind)),
    /// then replans naming it, then fails — so a section the loop ends as complete
    /// is one the gate can pass. Nothing is owed by default.
    fn owed(
        &self,
        _spec: &Self::Spec,
        _state: &Self::State,
        _section: &Self::Section,
    ) -> Vec<Owed> {
        Vec::new()
    }

    /// Turns the final state into the artefact.
    fn finish(&self, spec: &Self::Spec, state: Self::State) -> Self::Artefact;
}

/// What [`Domain::reopen`] took back.
#[derive(Clone, Debug)]
pub struct Reopened<E> {
    /// Dropped events whose positions are owed again.
    pub drops: usize,
    /// Accepted events taken out of the state with them (those that followed a
    /// reopened drop in its part), in any order; their positions are owed again too.
    pub withdrawn: Vec<E>,
}

impl<E> Default for Reopened<E> {
    fn default() -> Self {
        Reopened {
            drops: 0,
            withdrawn: Vec::new(),
        }
    }
}

/// A domain that can build an artefact from one whole proposal at once, without the
/// ladder: what the generate–measure–revise loop's whole-artefact rounds need
/// ([`Engine::revise_whole`](crate::Engine::revise_whole)).
pub trait Assemble: Domain {
    /// The artefact of `events`, proposed together for the whole plan.
    fn assemble(&self, spec: &Self::Spec, events: Vec<Self::Event>) -> Self::Artefact;
}

/// An edit of accepted material, and its undoing.
pub trait Amend<S>: Clone + Debug + Serialize + Send + Sync {
    /// Applies the edit to `state` and returns its inverse: applying the inverse
    /// restores the state exactly.
    fn apply(&self, state: &mut S) -> Self;
}

/// The amendment type of domains whose rungs never edit accepted material.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum NoAmendment {}

impl<S> Amend<S> for NoAmendment {
    fn apply(&self, _state: &mut S) -> Self {
        match *self {}
    }
}

/// Why a spec could not be cut into sections.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot plan: {reason}")]
pub struct PlanError {
    /// What is wrong with the spec, in words a user can act on.
    pub reason: String,
}

impl PlanError {
    /// A plan error with this reason.
    pub fn new(reason: impl Into<String>) -> Self {
        PlanError {
            reason: reason.into(),
        }
    }
}
