//! The cycles domain in `cantus experiment` (`cantus-registry`'s [`Trials`]): an
//! experiment file with `[tasks] domain = "cycles"` runs these tasks through the
//! program's grid, records, resume and report, and the program names nothing of
//! this domain.
//!
//! ```toml
//! [tasks]
//! domain = "cycles"
//! alphabet = [4, 5]     # a number or a list: alphabet sizes (2 to 26); default 5
//! cycles = [2, 4, 8]    # a number or a list: lengths in cycles; default [2, 4, 8]
//! window = 4            # no symbol recurs within this many positions; default 4
//! mistakes = 0.3        # the sloppy proposer's share of spoiled symbols; default 0.3
//! ```
//!
//! One task per (alphabet, length), each its own family (`a5-c8`). A trial is the
//! engine with the sloppy proposer — the domain has no model proposer, so a model's
//! trial is not applicable — and its ladder unless the condition has none; the
//! strict gate's verdict lists every hard rule the gate runs.

use crate::{CycleGate, CycleSpec, Cycles, SloppyProposer, verifier};
use cantus_framework::{Engine, ReleaseGate, RungId, Severity};
use cantus_registry::{
    Attempt, Judgement, TaskTable, TaskTableError, Trial, TrialTask, Trials, Tried,
};
use std::sync::Arc;

/// The cycles domain's task sets.
pub struct CyclesTrials;

impl Trials for CyclesTrials {
    fn tasks(&self, table: &mut TaskTable) -> Result<Vec<TrialTask>, TaskTableError> {
        let alphabets = table.numbers("alphabet", 2, 26)?.unwrap_or(vec![5]);
        let lengths = table.numbers("cycles", 1, 10_000)?.unwrap_or(vec![2, 4, 8]);
        let window = table.number("window", 1, 26)?.unwrap_or(4) as usize;
        let mistakes = table.real("mistakes", 0.0, 1.0)?.unwrap_or(0.3);
        let mut tasks = Vec::new();
        for &alphabet in &alphabets {
            let alphabet = alphabet as usize;
            if window > alphabet {
                return Err(TaskTableError::at(
                    "window",
                    format!("{window} cannot be kept with an alphabet of only {alphabet} symbols"),
                ));
            }
            for &cycles in &lengths {
                let id = format!("a{alphabet}-c{cycles}");
                tasks.push(TrialTask::new(
                    id.clone(),
                    id,
                    format!(
                        "{cycles} cycles of {alphabet} symbols, none recurring within {window}"
                    ),
                    Arc::new(CyclesTrial {
                        spec: CycleSpec {
                            alphabet,
                            window,
                            cycles: cycles as usize,
                        },
                        mistakes,
                    }),
                ));
            }
        }
        Ok(tasks)
    }

    fn rungs(&self) -> Vec<RungId> {
        crate::ladder().ids()
    }
}

/// Trials of one cycles task.
struct CyclesTrial {
    spec: CycleSpec,
    mistakes: f64,
}

#[cantus_registry::async_trait(?Send)]
impl Trial for CyclesTrial {
    fn not_applicable(&self, attempt: &Attempt<'_>) -> Option<String> {
        attempt
            .model
            .is_some()
            .then(|| "the cycles domain has no model proposer".to_owned())
    }

    async fn run(&self, attempt: Attempt<'_>) -> Tried {
        // The runner gives only rungs `Trials::rungs` lists: the selection finds each.
        let ladder = attempt.ladder(crate::ladder()).unwrap_or_default();
        let engine = Engine::new(Cycles, verifier(), ladder, CycleGate)
            .with_budget(attempt.budget(crate::budget()));
        let proposer = SloppyProposer {
            mistakes: self.mistakes,
        };
        let outcome = engine.run(&self.spec, &proposer, attempt.seed).await;
        // Every hard rule the gate runs: the verifier's, and completeness.
        let rules = verifier()
            .predicates()
            .iter()
            .filter(|p| p.severity() == Severity::Hard)
            .map(|p| p.id())
            .chain([crate::predicates::COMPLETE])
            .collect::<Vec<_>>();
        let judgement = outcome
            .artefact()
            .map(|a| Judgement::of(&CycleGate.judge(&self.spec, a), rules));
        Tried::of(&outcome, judgement)
    }
}
