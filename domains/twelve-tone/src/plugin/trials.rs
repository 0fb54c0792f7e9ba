//! The domain's experiment part (`cantus experiment`, `cantus bank`): its task sets
//! ([`super::tasks`]: a bank of briefs, or the single-factor generator) and one trial
//! of a brief under each form a condition asks for —
//!
//! * **sections**: the propose–verify–repair harness with the embedded proposer or
//!   the model, the condition's ladder (a model's own four rungs unless it names
//!   others) and replans; with revise rounds, Libretto's generate–measure–revise loop
//!   measured by the degeneracy gate;
//! * **one reply**: the embedded proposer's whole piece (a check of the gate, judged
//!   by it alone), or a model's prompt-only baseline in one of the domain's prompt
//!   styles ([`crate::baselines`]).
//!
//! Whatever piece comes out is judged by both gates — the strict one, which re-derives
//! every row statement, and the relaxed one, which takes the generator's tags on
//! trust, counting what it took so — and by Libretto's degeneracy gate. A run folder,
//! when the experiment asks for one, is written exactly as `cantus compose` (or
//! `compose --raw`) writes one, naming its study cell.

use super::job::{Piece, degeneracy, degeneracy_measure, write_composition, write_raw};
use super::tasks::{Brief, SingleFactor, from_bank};
use crate::baselines::{Baseline, PromptStyle, compose_baseline};
use crate::compose::{Composer, Composition, budget, model_budget};
use crate::gate::{GateMode, Rule, SerialGate};
use crate::proposer::llm::LlmProposer;
use crate::raw::{RawOutcome, RawVerdict};
use crate::rungs::{every_rung, ladder, model_ladder};
use crate::{Blueprint, EmbeddedProposer, Location, TwelveTone};
use cantus_framework::{
    Assessment, GateReport, Ladder, Measure, Outcome, Proposer, Revise, RuleId, RungId, Totals,
};
use cantus_music::Score;
use cantus_registry::{
    Analyser, Attempt, Folder, Form, Forms, Judgement, Lenient, LenientGate, Made, Reference,
    RunDir, RunFolder, TaskTable, TaskTableError, Trial, TrialTask, Trials, Tried, Whole,
};
use std::sync::Arc;

/// The domain's task sets: `[tasks] bank = "FILE"` or `[tasks.single_factor]`.
pub struct TwelveToneTrials;

impl Trials for TwelveToneTrials {
    fn tasks(&self, table: &mut TaskTable) -> Result<Vec<TrialTask>, TaskTableError> {
        let bank = table.path("bank")?;
        let design = table.value::<SingleFactor>("single_factor")?;
        let briefs = match (bank, design) {
            (Some(bank), None) => {
                from_bank(&bank).map_err(|e| TaskTableError::at("bank", e.to_string()))?
            }
            (None, Some(design)) => design
                .briefs()
                .map_err(|e| TaskTableError::at("single_factor", e.to_string()))?,
            _ => {
                return Err(TaskTableError::table(
                    "must give exactly one of `bank` (a file of briefs), `single_factor` (the \
                     twelve-tone generator) and `domain` (a registered domain's own task set)",
                ));
            }
        };
        Ok(briefs.into_iter().map(task).collect())
    }

    fn rungs(&self) -> Vec<RungId> {
        every_rung().ids()
    }

    fn forms(&self) -> Forms {
        super::forms()
    }

    fn conditions(&self) -> Option<&'static str> {
        Some(include_str!("conditions.toml"))
    }

    fn lenient_gate(&self) -> Option<LenientGate> {
        Some(LenientGate {
            strict: "the strict gate (labels re-derived from the pitches)",
            lenient: "the gate that trusts the generator's row tags",
        })
    }

    fn collision_rule(&self) -> Option<RuleId> {
        Some(Rule::Collision.into())
    }

    fn reference(&self) -> Vec<Reference> {
        super::reference::shipped()
    }

    fn explained_share(&self, score: &Score) -> Option<f64> {
        super::reference::explained_share(score)
    }

    fn analyser(&self) -> Analyser {
        super::reference::ANALYSER
    }
}

/// One brief as a task of the experiment.
fn task(brief: Brief) -> TrialTask {
    let voices = brief.compiled.spec.voices.len();
    let trial = PieceTrial {
        piece: Piece {
            spec: brief.compiled.spec.clone(),
            brief: Some((brief.text.clone(), brief.compiled)),
        },
    };
    TrialTask::new(brief.id, brief.family, brief.text, Arc::new(trial))
        .voices(voices)
        .origin(brief.origin)
}

/// Trials of one brief.
struct PieceTrial {
    piece: Piece,
}

#[cantus_registry::async_trait(?Send)]
impl Trial for PieceTrial {
    async fn run(&self, attempt: Attempt<'_>) -> Tried {
        match attempt.form {
            Form::Sections { revise_rounds } => self.sections(&attempt, revise_rounds).await,
            Form::Whole(whole) => self.whole(&attempt, whole).await,
        }
    }
}

impl PieceTrial {
    /// The harness and its ablations (and Libretto's revise loop).
    async fn sections(&self, attempt: &Attempt<'_>, revise_rounds: u32) -> Tried {
        let spec = &self.piece.spec;
        let seed = attempt.seed;
        let budget = match attempt.model {
            None => attempt.budget(budget()),
            Some(_) => model_budget(attempt.budget(budget())),
        };
        let ladder = condition_ladder(attempt.rungs, attempt.model.is_some());
        let composer = Composer::with_ladder(GateMode::Strict, budget, ladder);
        let proposer: Box<dyn Proposer<TwelveTone>> = match attempt.model {
            None => Box::new(EmbeddedProposer),
            Some(m) => Box::new(LlmProposer::new(m.backend.clone(), m.ask.clone())),
        };
        let composition = if revise_rounds > 0 {
            let measure = degeneracy_measure();
            let revise = Revise::measured(revise_rounds);
            composer
                .revise(spec, seed, proposer.as_ref(), &measure, revise)
                .await
        } else {
            composer.compose(spec, seed, proposer.as_ref()).await
        };
        let c = match composition {
            Err(e) => return unplanned(e),
            Ok(c) => c,
        };
        let folder = attempt.folder.map(|f| {
            let measured = attempt.model.is_some();
            RunFolder::Trial(self.write_composition(f, &c, seed, measured))
        });
        let mut tried = judged(Tried::of(&c.outcome, None), &c.plan);
        tried.folder = folder.unwrap_or_default();
        tried
    }

    /// The whole piece in one request: the embedded proposer's whole-piece answer, or
    /// a model's prompt-only baseline.
    async fn whole(&self, attempt: &Attempt<'_>, whole: Whole<'_>) -> Tried {
        let spec = &self.piece.spec;
        let seed = attempt.seed;
        let Some(m) = attempt.model else {
            let composer = Composer::new(GateMode::Strict, budget());
            let plan = match Blueprint::new(spec, seed) {
                Ok(p) => p,
                Err(e) => return unplanned(e),
            };
            let outcome = composer
                .engine()
                .revise_whole(
                    &plan,
                    &EmbeddedProposer,
                    &GateOnly,
                    seed,
                    Revise::gate_only(1),
                )
                .await;
            let mut tried = judged(Tried::of(&outcome, None), &plan);
            // A check of the gate, not a piece anyone asked for: no folder.
            tried.folder = RunFolder::Skipped;
            return tried;
        };
        let Some(style) = PromptStyle::of(whole.prompt) else {
            // The runner refuses a prompt style the domain lacks before it gets here.
            return Tried {
                folder: RunFolder::Skipped,
                ..Tried::failed(format!("no twelve-tone prompt style {}", whole.prompt))
            };
        };
        let baseline = Baseline {
            style,
            instruction: whole.instruction.map(str::to_owned),
            constrained: whole.constrained,
        };
        match compose_baseline(spec, seed, m.backend.as_ref(), &m.ask, &baseline).await {
            Err(e) => unplanned(e),
            Ok(raw) => {
                let folder = attempt.folder.map(|f| {
                    let dir = RunDir::create(f.path, true).map_err(|e| e.to_string());
                    RunFolder::Trial(dir.and_then(|dir| {
                        let written = write_raw(dir, &raw, spec, seed, Some(f.study.clone()));
                        first_error(written.write_errors)
                    }))
                });
                let mut tried = from_raw(&raw);
                tried.folder = folder.unwrap_or_default();
                tried
            }
        }
    }

    /// Writes the folder of `composition` as `cantus compose` does; `measured`: a
    /// model's released piece also gets Libretto's degeneracy verdict.
    fn write_composition(
        &self,
        folder: Folder<'_>,
        composition: &Composition,
        seed: u64,
        measured: bool,
    ) -> Result<(), String> {
        let degeneracy = match &composition.outcome {
            Outcome::Released { artefact, .. } if measured => Some(degeneracy(artefact)),
            _ => None,
        };
        let dir = RunDir::create(folder.path, true).map_err(|e| e.to_string())?;
        let study = Some(folder.study.clone());
        let written = write_composition(dir, composition, &self.piece, seed, degeneracy, study);
        first_error(written.write_errors)
    }
}

/// A piece that could not be planned: a failure before anything was made, with no
/// folder.
fn unplanned(e: crate::blueprint::BlueprintError) -> Tried {
    Tried {
        folder: RunFolder::Skipped,
        ..Tried::failed(format!("cannot plan this piece: {e}"))
    }
}

/// The ladder of a condition naming `rungs` (`None`: none named), for a model's runs
/// (`model`) or the planner's: the whole ladder of the planner, or of a model's runs
/// (its four rungs, none asking the model), when it names none; else the rungs it
/// names, in its order (any of the domain's, the model-asking ones too).
fn condition_ladder(rungs: Option<&[RungId]>, model: bool) -> Ladder<TwelveTone> {
    match rungs {
        None if model => model_ladder(),
        None => ladder(),
        // The runner gives only rungs `Trials::rungs` lists: the selection finds each.
        Some(ids) => every_rung().select(ids).unwrap_or_default(),
    }
}

fn first_error(errors: Vec<String>) -> Result<(), String> {
    errors.into_iter().next().map_or(Ok(()), Err)
}

/// A model's whole-piece reply as what the trial came to (its gates judged).
fn from_raw(raw: &RawOutcome) -> Tried {
    let trace = serde_json::to_vec(&serde_json::json!({
        "kind": "whole-reply",
        "exchange": raw.exchange,
        "reply": raw.text,
        "warnings": raw.warnings,
    }))
    .ok()
    .map(|mut b| {
        b.push(b'\n');
        b
    });
    let score = match &raw.verdict {
        RawVerdict::Released { score, .. } | RawVerdict::Refused { score, .. } => Some(score),
        RawVerdict::Unreadable { .. } | RawVerdict::ModelFailed { .. } => None,
    };
    let tried = Tried {
        released: raw.is_released(),
        reason: if raw.is_released() {
            String::new()
        } else {
            raw.summary()
        },
        artefact: score.map(Made::of),
        totals: Some(Totals {
            proposer_calls: u64::from(raw.calls),
            usage: raw.tokens,
            ..Totals::default()
        }),
        trace,
        ..Tried::default()
    };
    judged(tried, &raw.plan)
}

/// `tried` with its piece judged against `plan` by both serial gates and by
/// Libretto's degeneracy gate.
fn judged(mut tried: Tried, plan: &Blueprint) -> Tried {
    // A piece without a note (every proposer call failed) is no piece: not judged.
    let score = match &tried.artefact {
        Some(Made {
            view: cantus_registry::View::Score(s),
            ..
        }) if s.event_count() > 0 => s,
        _ => return tried,
    };
    let strict = SerialGate::for_plan(plan, GateMode::Strict).judge_score(score);
    let relaxed = SerialGate::for_plan(plan, GateMode::Relaxed).judge_score(score);
    let degeneracy_passed = degeneracy_measure()
        .report(score)
        .gates
        .first()
        .is_some_and(|g| g.passed);
    tried.judgement = Some(judgement(&strict));
    tried.lenient = Some(Lenient {
        judgement: judgement(&relaxed),
        trusted: relaxed
            .facts
            .get("events_relying_on_tags")
            .and_then(serde_json::Value::as_u64),
    });
    tried.degeneracy_passed = Some(degeneracy_passed);
    tried
}

/// A serial gate's verdict by rule, every rule listed: its hard violations, those a
/// long list leaves unlisted counted too (a rule broken only past the list's cap is
/// broken, not held).
fn judgement(report: &GateReport<Location>) -> Judgement {
    Judgement::of(report, Rule::ALL.iter().map(|r| RuleId::from(*r)))
}

/// No soft measure: a whole proposal is judged by the gate alone.
struct GateOnly;

impl Measure<TwelveTone> for GateOnly {
    fn name(&self) -> &str {
        "gate-only"
    }
    fn assess(&self, _: &Score) -> Assessment {
        Assessment {
            converged: true,
            ..Assessment::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rungs::{Octave, Retime, Trim};

    #[test]
    fn a_rule_broken_only_past_the_lists_cap_is_counted_broken() {
        let collision = RuleId::from(Rule::Collision);
        let report = GateReport::<Location>::from_violations("twelve-tone/strict", Vec::new())
            .with_unlisted(vec![cantus_framework::Unlisted {
                predicate: collision,
                severity: cantus_framework::Severity::Hard,
                count: 7,
            }]);
        let j = judgement(&report);
        assert!(!j.passed);
        assert_eq!(j.violations[&collision], 7);
        assert_eq!(j.violations.len(), Rule::ALL.len(), "every rule listed");
        assert_eq!(j.violations[&RuleId::from(Rule::Row)], 0);
    }

    #[test]
    fn the_ladder_is_the_named_rungs_in_order() {
        assert_eq!(
            condition_ladder(Some(&[]), true).names(),
            Vec::<&str>::new()
        );
        assert_eq!(
            condition_ladder(None, false).names(),
            ["trim", "yield", "retime", "model-patch", "rewrite-segment"]
        );
        assert_eq!(
            condition_ladder(None, true).names(),
            ["trim", "yield", "retime", "octave"],
            "a model's runs move crossing notes by octaves and ask the model no rung"
        );
        let asking = [RungId::new("octave"), RungId::new("model-patch")];
        assert_eq!(
            condition_ladder(Some(&asking), true).names(),
            ["octave", "model-patch"],
            "a condition may still name the rungs that ask the model"
        );
        let custom = [Retime::ID, Octave::ID, Trim::ID];
        assert_eq!(
            condition_ladder(Some(&custom), false).names(),
            ["retime", "octave", "trim"]
        );
    }
}
