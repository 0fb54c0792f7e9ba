//! The main job end to end: assignment → engine (verifier, ladder, gate) → run with
//! a proposer → released exercise or an explicit failure.

use crate::domain::{Assignment, Counterpoint};
use crate::exercise::Species;
use crate::gate::ExerciseGate;
use crate::{predicates, rungs};
use cantus_framework::{Budget, Engine, Outcome, Proposer};

/// The budget: two ladder passes per note, three replans per bar. Drops alone
/// never replan a bar: a dropped note leaves its slot owed, the engine's continue
/// request asks for it, and only a bar still short after that is replanned (every
/// accepted note has passed the moment rules, so a bar that owes nothing is as
/// clean as one written at the first try).
pub fn budget() -> Budget {
    Budget {
        attempts_per_event: 2,
        replans_per_section: 3,
        drop_threshold: 1.0,
        deadline: None,
        max_proposer_calls: None,
        reopen_drops: false,
        backtracks: 0,
    }
}

/// The engine for exercises of one species: reused for any assignment of it (each
/// run's assignment reaches the predicates and the gate as the run's spec).
pub fn engine(species: Species) -> Engine<Counterpoint> {
    Engine::new(
        Counterpoint,
        predicates::verifier(species),
        rungs::ladder(),
        ExerciseGate(species),
    )
    .with_budget(budget())
}

/// Runs the engine on `assignment` with `proposer` and `seed`.
pub async fn compose(
    assignment: Assignment,
    seed: u64,
    proposer: &dyn Proposer<Counterpoint>,
) -> Outcome<Counterpoint> {
    compose_with(assignment, seed, proposer, budget()).await
}

/// As [`compose`], with another budget (e.g. a model backend's harness settings).
pub async fn compose_with(
    assignment: Assignment,
    seed: u64,
    proposer: &dyn Proposer<Counterpoint>,
    budget: Budget,
) -> Outcome<Counterpoint> {
    let engine = engine(assignment.species).with_budget(budget);
    engine.run(&assignment, proposer, seed).await
}
