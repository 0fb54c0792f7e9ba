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
//! verdict lists every rule that is hard in the profile. A released harmonisation is
//! measured against Bach's as `harmonise_bach` measures it ([`crate::experiment::measure`]):
//! agreement of bass and roots per beat, the beats copied (the copy risk), and the
//! degeneracy measures — the report's "domain's measures" columns.

use crate::analysis::Analysis;
use crate::domain::ChoraleDomain;
use crate::experiment::{Task, measure};
use crate::gate::HarmonisationGate;
use crate::read::{ReadOptions, read_chorale};
use crate::rules::{CATALOGUE, Profile};
use crate::{EmbeddedProposer, ModelProposer, predicates, rungs};
use cantus_framework::{Engine, Proposer, RungId, Severity};
use cantus_registry::{
    Attempt, Judgement, TaskTable, TaskTableError, Trial, TrialTask, Trials, Tried,
};
use std::collections::BTreeMap;
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
            .map(|t| {
                let brief = format!(
                    "harmonise the soprano of {} ({}, {} beats) under the {profile} profile",
                    t.id,
                    t.spec.melody.key.name(),
                    t.spec.open().total()
                );
                let id = t.id.clone();
                TrialTask::new(
                    id.clone(),
                    id,
                    brief,
                    Arc::new(ChoraleTrial { task: t, profile }),
                )
            })
            .collect())
    }

    fn rungs(&self) -> Vec<RungId> {
        rungs::ladder(Profile::Strict).ids()
    }
}

/// Trials of one melody (and Bach's harmonisation of it, to measure against).
struct ChoraleTrial {
    task: Task,
    profile: Profile,
}

impl ChoraleTrial {
    /// The released `score` measured against Bach's harmonisation (nothing if it does
    /// not read back as a chorale).
    fn measures(&self, score: &cantus_music::Score) -> BTreeMap<String, f64> {
        let options = ReadOptions {
            key: Some(self.task.spec.melody.key),
            ..ReadOptions::default()
        };
        let Ok(reading) = read_chorale(score, &options) else {
            return BTreeMap::new();
        };
        let ours = Analysis::new(reading.chorale);
        let a = measure::agreement(&ours, &self.task.bach);
        let d = measure::degeneracy(&ours);
        [
            ("bass = Bach", a.share(a.bass)),
            ("root = Bach", a.share(a.root)),
            ("copied beats", a.share(a.copied)),
            ("repeated chord", d.repeated_chord),
            ("chord variety", d.chord_variety),
            ("static lower parts", d.static_lower_parts),
            ("root position", d.root_position),
        ]
        .into_iter()
        .map(|(name, x)| (name.to_owned(), x))
        .collect()
    }
}

#[cantus_registry::async_trait(?Send)]
impl Trial for ChoraleTrial {
    async fn run(&self, attempt: Attempt<'_>) -> Tried {
        let profile = self.profile;
        let proposer: Box<dyn Proposer<ChoraleDomain>> = match attempt.model {
            None => Box::new(EmbeddedProposer::default()),
            Some(m) => Box::new(ModelProposer::new(m.backend.clone(), m.ask(false), profile)),
        };
        // The runner gives only rungs `Trials::rungs` lists (the same under either
        // profile), so the selection finds each one.
        let ladder = attempt.ladder(rungs::ladder(profile)).unwrap_or_default();
        let engine = Engine::new(
            ChoraleDomain,
            predicates::verifier(profile),
            ladder,
            HarmonisationGate(profile),
        )
        .with_budget(attempt.budget(crate::compose::budget()));
        let spec = &self.task.spec;
        let outcome = engine.run(spec, proposer.as_ref(), attempt.seed).await;
        let hard = CATALOGUE
            .iter()
            .filter(|r| profile.severity(r) == Severity::Hard)
            .map(|r| r.id);
        let judgement = outcome.artefact().map(|score| {
            let report = HarmonisationGate(profile).judge_harmonisation(spec, score);
            Judgement::of(&report, hard)
        });
        let mut tried = Tried::of(&outcome, judgement);
        if let cantus_framework::Outcome::Released { artefact, .. } = &outcome {
            tried.measures = self.measures(artefact);
        }
        tried
    }
}
