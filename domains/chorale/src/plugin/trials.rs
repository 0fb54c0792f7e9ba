//! The chorale domain in `cantus experiment` (`cantus-registry`'s [`Trials`]): an
//! experiment file with `[tasks] domain = "chorale"` harmonises the soprano of each
//! chorale of a directory through the program's grid of models, conditions and runs,
//! its records, resume, shards and report — the same task set as
//! `examples/harmonise_bach.rs` ([`crate::experiment::tasks`]).
//!
//! ```toml
//! [tasks]
//! domain = "chorale"
//! chorales = "bach_chorales"  # a directory of chorales (.musicxml, .mxl, .mei), relative
//!                             # to the experiment file; default: the shared corpus,
//!                             # $CANTUS_SHARED/data/corpus/bach_chorales
//! count = 40                  # the first N files (by name) that are four-part chorales
//! profile = "strict"          # the rules the gate releases by: strict or lenient
//! ```
//!
//! A task is one chorale (its file's stem), its own family. A trial is the engine
//! with the embedded search or, with a model, the model proposer (constrained as the
//! condition asks: the null model needs `harness-constrained`); the strict gate's
//! verdict lists every rule that is hard in the profile. Agreement with Bach is not a
//! column of the program's report: `harmonise_bach` measures it.

use crate::domain::{ChoraleDomain, Harmonisation};
use crate::gate::HarmonisationGate;
use crate::rules::{CATALOGUE, Profile};
use crate::{EmbeddedProposer, ModelProposer, predicates, rungs};
use cantus_framework::{Engine, Ladder, Proposer, Severity};
use cantus_registry::{
    Attempt, Judgement, TaskTable, TaskTableError, Trial, TrialTask, Trials, Tried,
};
use std::path::PathBuf;
use std::sync::Arc;

/// The chorale domain's task sets.
pub struct ChoraleTrials;

impl Trials for ChoraleTrials {
    fn tasks(&self, table: &mut TaskTable) -> Result<Vec<TrialTask>, TaskTableError> {
        let dir = match table.path("chorales")? {
            Some(dir) => dir,
            None => match std::env::var_os("CANTUS_SHARED") {
                Some(shared) => PathBuf::from(shared).join("data/corpus/bach_chorales"),
                None => {
                    return Err(TaskTableError::at(
                        "chorales",
                        "is not given and CANTUS_SHARED is not set: name a directory of \
                         chorales (relative to the experiment file)",
                    ));
                }
            },
        };
        let count = table
            .number("count", 1, 100_000)?
            .map_or(usize::MAX, |n| n as usize);
        let profile = match table.text("profile")? {
            None => Profile::Strict,
            Some(p) => Profile::parse(&p).ok_or_else(|| {
                TaskTableError::at(
                    "profile",
                    format!("must be `strict` or `lenient`, not `{p}`"),
                )
            })?,
        };
        let (tasks, _skipped) = crate::experiment::tasks(&dir, count)
            .map_err(|e| TaskTableError::at("chorales", format!("{}: {e}", dir.display())))?;
        Ok(tasks
            .into_iter()
            .map(|t| TrialTask {
                family: t.id.clone(),
                brief: format!(
                    "harmonise the soprano of {} ({}, {} beats) under the {profile} profile",
                    t.id,
                    t.spec.melody.key.name(),
                    t.spec.open().total()
                ),
                id: t.id,
                trial: Arc::new(ChoraleTrial {
                    spec: t.spec,
                    profile,
                }),
            })
            .collect())
    }
}

/// Trials of one melody.
struct ChoraleTrial {
    spec: Harmonisation,
    profile: Profile,
}

#[cantus_registry::async_trait(?Send)]
impl Trial for ChoraleTrial {
    async fn run(&self, attempt: Attempt<'_>) -> Tried {
        let profile = self.profile;
        let proposer: Box<dyn Proposer<ChoraleDomain>> = match attempt.model {
            None => Box::new(EmbeddedProposer::default()),
            Some(m) => Box::new(ModelProposer::new(m.backend.clone(), m.ask(false), profile)),
        };
        let ladder = if attempt.repair {
            rungs::ladder(profile)
        } else {
            Ladder::new()
        };
        let engine = Engine::new(
            ChoraleDomain,
            predicates::verifier(profile),
            ladder,
            HarmonisationGate(profile),
        )
        .with_budget(attempt.budget(crate::compose::budget()));
        let outcome = engine
            .run(&self.spec, proposer.as_ref(), attempt.seed)
            .await;
        let hard = CATALOGUE
            .iter()
            .filter(|r| profile.severity(r) == Severity::Hard)
            .map(|r| r.id);
        let judgement = outcome.artefact().map(|score| {
            let report = HarmonisationGate(profile).judge_harmonisation(&self.spec, score);
            Judgement::of(&report, hard)
        });
        Tried::of(&outcome, judgement)
    }
}
