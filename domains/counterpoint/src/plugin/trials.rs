//! The counterpoint domain in `cantus experiment` (`cantus-registry`'s
//! [`Trials`](cantus_registry::Trials)):
//! Fux's exercises through the program's grid of models, conditions and runs, its
//! records, resume, shards and report.
//!
//! ```toml
//! [tasks.fux]          # or: [tasks] domain = "counterpoint"
//! species = [1, 2]     # 1: note against note, 2: two notes against one (default both)
//! ```
//!
//! The tasks are Fux's cantus firmus in each of the six modes, the counterpoint above
//! and below it, in each species asked for: 24 exercises for species 1 and 2. A task's
//! family is its cantus firmus, so the report resamples the six melodies, not the 24
//! exercises, as independent evidence. A trial is the domain's engine with the
//! embedded search or the model proposer, the counterpoint rungs the condition names
//! (or all of them), judged by the species gate alone: an exercise carries no tags,
//! so there is no relaxed gate to set beside it.

use crate::rules::{Profile, rules_for};
use crate::{
    Assignment, Cantus, Counterpoint, EmbeddedProposer, ExerciseGate, ModeName, ModelProposer,
    Position, Species, SpeciesGate, predicates, rungs,
};
use cantus_framework::{Engine, Proposer, RungId, Severity};
use cantus_registry::{Attempt, Judgement, TaskTable, TaskTableError, Trial, TrialTask, Tried};
use std::sync::Arc;

/// The counterpoint domain's task set: Fux's exercises.
pub struct FuxExercises;

impl cantus_registry::Trials for FuxExercises {
    fn tasks(&self, table: &mut TaskTable) -> Result<Vec<TrialTask>, TaskTableError> {
        let mut species = Vec::new();
        for n in table.numbers("species", 1, 2)?.unwrap_or(vec![1, 2]) {
            let s = if n == 1 {
                Species::First
            } else {
                Species::Second
            };
            if !species.contains(&s) {
                species.push(s);
            }
        }
        let mut out = Vec::new();
        for mode in ModeName::ALL {
            let cantus = Cantus::fux(mode);
            let family = format!("fux-{}", mode.as_str());
            for position in [Position::Above, Position::Below] {
                for &s in &species {
                    out.push(TrialTask::new(
                        format!("{family}-{position}-s{}", s.number()),
                        family.clone(),
                        format!(
                            "species {} counterpoint {position} Fux's {} cantus firmus ({} bars)",
                            s.number(),
                            mode.as_str(),
                            cantus.len()
                        ),
                        Arc::new(Exercise(Assignment::new(cantus.clone(), s, position))),
                    ));
                }
            }
        }
        Ok(out)
    }

    fn rungs(&self) -> Vec<RungId> {
        rungs::ladder().ids()
    }

    fn table_name(&self) -> Option<&'static str> {
        Some("fux")
    }
}

/// Trials of one exercise.
struct Exercise(Assignment);

#[cantus_registry::async_trait(?Send)]
impl Trial for Exercise {
    async fn run(&self, attempt: Attempt<'_>) -> Tried {
        let assignment = &self.0;
        let species = assignment.species;
        // The runner gives only rungs `Trials::rungs` lists, so the selection finds
        // each one.
        let ladder = attempt.ladder(rungs::ladder()).unwrap_or_default();
        let engine = Engine::new(
            Counterpoint,
            predicates::verifier(species),
            ladder,
            ExerciseGate(species),
        )
        .with_budget(attempt.budget(crate::compose::budget()));
        let proposer: Box<dyn Proposer<Counterpoint>> = match attempt.model {
            None => Box::new(EmbeddedProposer),
            Some(m) => Box::new(ModelProposer::new(m.backend.clone(), m.ask(false))),
        };
        let outcome = engine
            .run(assignment, proposer.as_ref(), attempt.seed)
            .await;
        let hard = rules_for(species)
            .filter(|r| Profile::Fux.severity(r) == Severity::Hard)
            .map(|r| r.id);
        let judgement = outcome.artefact().map(|score| {
            Judgement::of(&SpeciesGate::for_assignment(assignment).judge(score), hard)
        });
        Tried::of(&outcome, judgement)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cantus_registry::{DomainId, Trials};

    fn tasks(species: Option<serde_json::Value>) -> Result<Vec<TrialTask>, TaskTableError> {
        let mut values = serde_json::Map::new();
        if let Some(s) = species {
            values.insert("species".into(), s);
        }
        let mut table = TaskTable::new(
            DomainId::new("counterpoint"),
            values,
            std::path::Path::new("."),
        );
        let out = FuxExercises.tasks(&mut table)?;
        assert!(table.unread().is_none());
        Ok(out)
    }

    #[test]
    fn fux_exercises_are_six_cantus_firmi_above_and_below_in_each_species() {
        let both = tasks(None).unwrap();
        assert_eq!(both.len(), 24);
        let families: std::collections::BTreeSet<_> = both.iter().map(|t| &t.family).collect();
        assert_eq!(families.len(), 6, "one family per cantus firmus");
        let ids: std::collections::BTreeSet<_> = both.iter().map(|t| &t.id).collect();
        assert_eq!(ids.len(), 24);
        assert_eq!(both[0].id, "fux-dorian-above-s1");
        assert_eq!(
            both[0].brief,
            "species 1 counterpoint above Fux's dorian cantus firmus (11 bars)"
        );
        let only_first = tasks(Some(serde_json::json!([1]))).unwrap();
        assert_eq!(only_first.len(), 12);
        let err = tasks(Some(serde_json::json!([3]))).err().expect("refused");
        assert_eq!(err.key.as_deref(), Some("species"), "{err}");
    }
}
