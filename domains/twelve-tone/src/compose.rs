//! The main job end to end: spec → blueprint → engine run → released piece or an
//! explicit failure. The CLI, the brief bank and the tests all go through here.

use crate::blueprint::{Blueprint, BlueprintError};
use crate::domain::TwelveTone;
use crate::gate::{GateMode, SerialGate};
use crate::spec::Spec;
use crate::{predicates, rungs};
use cantus_framework::{Budget, Engine, Outcome, Progress, Proposer};
use std::sync::Arc;

/// The budget the twelve-tone engine runs with. Any drop leaves a row statement
/// short, which the gate refuses, so a section with a drop is replanned (five times
/// at most) rather than kept.
pub fn budget() -> Budget {
    Budget {
        attempts_per_event: 3,
        replans_per_section: 5,
        drop_threshold: 0.0,
        deadline: None,
        max_proposer_calls: None,
    }
}

/// An engine for one planned piece, judged by `mode`.
pub fn engine(plan: Arc<Blueprint>, mode: GateMode) -> Engine<TwelveTone> {
    Engine::new(
        TwelveTone,
        predicates::verifier(),
        rungs::ladder(),
        SerialGate::for_plan(plan, mode),
    )
    .with_budget(budget())
}

/// A finished run with the plan it followed.
pub struct Composition {
    pub plan: Arc<Blueprint>,
    pub outcome: Outcome<TwelveTone>,
}

/// Plans `spec` with `seed` and runs the engine with `proposer`.
pub async fn compose(
    spec: &Spec,
    seed: u64,
    mode: GateMode,
    proposer: &dyn Proposer<TwelveTone>,
    budget: Budget,
    progress: Option<Box<dyn Fn(Progress) + Send + Sync>>,
) -> Result<Composition, BlueprintError> {
    let plan = Arc::new(Blueprint::new(spec, seed)?);
    let mut engine = engine(plan.clone(), mode).with_budget(budget);
    if let Some(p) = progress {
        engine = engine.with_progress(p);
    }
    let outcome = engine.run(&plan, proposer, seed).await;
    Ok(Composition { plan, outcome })
}
