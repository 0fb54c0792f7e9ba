//! The main job end to end: assignment → engine (verifier, ladder, gate) → run with
//! a proposer → released exercise or an explicit failure.

use crate::domain::{Assignment, Counterpoint};
use crate::exercise::Species;
use crate::gate::ExerciseGate;
use crate::{predicates, rungs};
use cantus_framework::{Budget, Engine, Outcome, Proposer};

/// The budget: two ladder passes per note, any drop replans its bar (a dropped
/// note is a hole the gate refuses), three replans per bar.
pub fn budget() -> Budget {
    Budget {
        attempts_per_event: 2,
        replans_per_section: 3,
        drop_threshold: 0.0,
        deadline: None,
        max_proposer_calls: None,
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
