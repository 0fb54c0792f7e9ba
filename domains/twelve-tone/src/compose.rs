//! The main job end to end: spec → blueprint → engine run → released piece or an
//! explicit failure. The CLI, the brief bank and the tests all go through here.
//!
//! One [`Composer`] (an engine with its budget and gate mode) serves any number of
//! pieces: each run plans its spec into a [`Blueprint`] once and hands it to the
//! engine by reference, which passes it on to every predicate, proposer and to the
//! gate. Nothing copies it.

use crate::blueprint::{Blueprint, BlueprintError};
use crate::domain::TwelveTone;
use crate::gate::{GateMode, PlanGate};
use crate::spec::Spec;
use crate::{predicates, rungs};
use cantus_framework::{Budget, Engine, Ladder, Measure, Outcome, Progress, Proposer, Revise};

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
        reopen_drops: false,
        backtracks: 0,
    }
}

/// `budget` as a model run uses it: a dropped trailing note is asked for again by a
/// continue request ([`Budget::reopen_drops`]), since a model's section request is
/// dear; the embedded planner replans with a fresh layout at no cost and keeps
/// [`budget`] as it is.
pub fn model_budget(budget: Budget) -> Budget {
    Budget {
        reopen_drops: true,
        ..budget
    }
}

/// The twelve-tone engine judging by `mode`, with the default [`budget`].
pub fn engine(mode: GateMode) -> Engine<TwelveTone> {
    Engine::new(
        TwelveTone,
        predicates::verifier(),
        rungs::ladder(),
        PlanGate(mode),
    )
    .with_budget(budget())
}

/// A finished run with the plan it followed.
pub struct Composition {
    pub plan: Blueprint,
    pub outcome: Outcome<TwelveTone>,
}

/// Composes pieces: one engine, reused for every spec and seed.
pub struct Composer {
    engine: Engine<TwelveTone>,
}

impl Composer {
    /// A composer judging by `mode` within `budget`.
    pub fn new(mode: GateMode, budget: Budget) -> Composer {
        Composer {
            engine: engine(mode).with_budget(budget),
        }
    }

    /// A composer for a model's runs: judging by `mode` within `budget` (see
    /// [`model_budget`]), repairing with [`rungs::model_ladder`].
    pub fn for_model(mode: GateMode, budget: Budget) -> Composer {
        Composer::with_ladder(mode, budget, rungs::model_ladder())
    }

    /// A composer judging by `mode` within `budget` that repairs with `ladder` (an
    /// ablation: fewer rungs, or none).
    pub fn with_ladder(mode: GateMode, budget: Budget, ladder: Ladder<TwelveTone>) -> Composer {
        Composer {
            engine: Engine::new(TwelveTone, predicates::verifier(), ladder, PlanGate(mode))
                .with_budget(budget),
        }
    }

    /// The same composer, calling `f` as sections finish.
    pub fn with_progress(self, f: impl Fn(Progress) + Send + Sync + 'static) -> Composer {
        Composer {
            engine: self.engine.with_progress(f),
        }
    }

    /// The engine it runs.
    pub fn engine(&self) -> &Engine<TwelveTone> {
        &self.engine
    }

    /// Plans `spec` with `seed` and runs the engine with `proposer`.
    pub async fn compose(
        &self,
        spec: &Spec,
        seed: u64,
        proposer: &dyn Proposer<TwelveTone>,
    ) -> Result<Composition, BlueprintError> {
        let plan = Blueprint::new(spec, seed)?;
        let outcome = self.engine.run(&plan, proposer, seed).await;
        Ok(Composition { plan, outcome })
    }

    /// Plans `spec` with `seed` and runs the generate–measure–revise loop with full
    /// harness rounds, each judged by the gate and by `measure`.
    pub async fn revise(
        &self,
        spec: &Spec,
        seed: u64,
        proposer: &dyn Proposer<TwelveTone>,
        measure: &dyn Measure<TwelveTone>,
        options: Revise,
    ) -> Result<Composition, BlueprintError> {
        let plan = Blueprint::new(spec, seed)?;
        let outcome = self
            .engine
            .revise_harness(&plan, proposer, measure, seed, options)
            .await;
        Ok(Composition { plan, outcome })
    }
}
