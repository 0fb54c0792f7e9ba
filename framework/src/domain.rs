//! The [`Domain`] trait: everything the engine needs to know about one kind of artefact.
//!
//! A domain names its types (spec, section, event, online state, artefact, location,
//! amendment) and gives the engine a handful of pure functions over them. It knows
//! nothing of proposers, repair or traces; the engine knows nothing of music. A new
//! rule domain implements this trait, some [`Predicate`](crate::Predicate)s, some
//! [`RepairRung`](crate::RepairRung)s and a [`ReleaseGate`](crate::ReleaseGate).

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
    /// another voice's note). Domains that never edit use [`NoAmendment`].
    type Amendment: Clone + Debug + Serialize + Send + Sync;

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

    /// Where an event sits, for traces and diagnostics.
    fn locate(&self, section: &Self::Section, event: &Self::Event) -> Self::Location;

    /// A short text summary of the state for proposers that read text (LLMs).
    fn summarize(&self, spec: &Self::Spec, state: &Self::State) -> String;

    /// Applies an amendment to the state and returns its inverse (applying the
    /// inverse restores the state exactly).
    fn amend(&self, state: &mut Self::State, amendment: &Self::Amendment) -> Self::Amendment;

    /// Turns the final state into the artefact.
    fn finish(&self, spec: &Self::Spec, state: Self::State) -> Self::Artefact;

    /// Assembles an artefact from a whole proposal at once (used by the
    /// generate–measure–revise loop, which judges whole artefacts).
    fn assemble(&self, spec: &Self::Spec, events: Vec<Self::Event>) -> Self::Artefact;
}

/// The amendment type of domains whose rungs never edit accepted material.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum NoAmendment {}

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
