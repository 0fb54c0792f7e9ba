//! One run of one cell: a task, a model, a condition and a run number become one
//! [`Record`]. The condition's fields choose what happens (see `conditions.rs`); the
//! twelve-tone domain's own jobs do the work — `Composer` for the harness and its
//! ablations, `revise_whole` for the embedded proposer's one-reply baseline,
//! `compose_baseline` for a model's prompt-only baselines — and both gates judge
//! whatever piece came out. Every failure of a run (the model unreachable, a plugin
//! crashed, the plan impossible) is that run's outcome; nothing here returns an error.

use super::conditions::{Condition, ProposerMode};
use super::file::{Experiment, Model};
use super::folder;
use super::record::{Cost, Counts, FileCheck, Key, Record, RunOutcome, Verdict};
use super::registered;
use super::tasks::{Task, Work};
use cantus_framework::{
    Assessment, Budget, Choice, Domain, GateReport, Measure, Outcome, Proposer, Revise, Totals,
    Usage,
};
use cantus_music::Score;
use cantus_twelve_tone::baselines::compose_baseline;
use cantus_twelve_tone::compose::{Composer, budget, model_budget};
use cantus_twelve_tone::gate::{GateMode, Rule, SerialGate};
use cantus_twelve_tone::plugin::{self, job::degeneracy_measure};
use cantus_twelve_tone::proposer::llm::LlmProposer;
use cantus_twelve_tone::raw::{RawOutcome, RawVerdict};
use cantus_twelve_tone::rungs::every_rung;
use cantus_twelve_tone::spec::Spec;
use cantus_twelve_tone::{Blueprint, EmbeddedProposer, Location, TwelveTone};
use std::path::Path;
use std::time::Instant;

/// Where a run writes its trace: `traces/<key>.jsonl` under the output directory.
pub fn trace_path(key: &Key) -> String {
    format!("traces/{}.jsonl", key.file_stem())
}

/// What a run made, before it becomes a record.
pub(super) struct Made {
    pub outcome: RunOutcome,
    pub reason: String,
    pub score: Option<Score>,
    /// The artefact as text, when it is not a score (a registered domain's).
    pub text: Option<String>,
    /// The twelve-tone plan the gates judge the piece against (`None` for an exercise).
    pub plan: Option<Blueprint>,
    pub counts: Option<Counts>,
    pub calls: u64,
    pub tokens: Usage,
    pub trace: Option<Vec<u8>>,
    /// The run's folder under `runs/`, when the experiment asks for one.
    pub files: Vec<FileCheck>,
    /// The choice the run's constraints offered (from the trace's totals).
    pub choice: Option<Choice>,
    /// A registered domain's own measures of the piece.
    pub measures: std::collections::BTreeMap<String, f64>,
}

/// The gates' verdicts on what a run made.
#[derive(Default)]
pub(super) struct Judged {
    pub strict: Option<Verdict>,
    /// The gate that trusts tags (twelve-tone only).
    pub relaxed: Option<Verdict>,
    pub released_relaxed: bool,
    pub events_relying_on_tags: Option<u64>,
    /// Libretto's degeneracy gate (serial reference table; twelve-tone only).
    pub libretto_degeneracy_passed: Option<bool>,
}

impl Made {
    pub(super) fn failed(reason: String) -> Made {
        Made {
            outcome: RunOutcome::Failed,
            reason,
            score: None,
            text: None,
            plan: None,
            counts: None,
            calls: 0,
            tokens: Usage::default(),
            trace: None,
            files: Vec::new(),
            choice: None,
            measures: Default::default(),
        }
    }
}

/// Runs `key` of `task` with `model` under `condition` of `exp` and writes its trace
/// (and, if `exp` asks for run folders, its folder) under `out`; the record says how
/// it went.
pub async fn run(
    key: Key,
    task: &Task,
    model: &Model,
    condition: &Condition,
    exp: &Experiment,
    out: &Path,
) -> Record {
    let started = Instant::now();
    let seed = u64::from(key.run);
    let (made, judged) = match &task.work {
        Work::Piece(spec) => {
            let why = condition
                .lacks_rung("twelve-tone", &every_rung().ids())
                .or_else(|| plugin::forms().refuses("twelve-tone", &condition.form()))
                .or_else(|| condition.not_applicable(model.configured.is_some()));
            let made = match why {
                Some(why) => Made {
                    outcome: RunOutcome::NotApplicable,
                    ..Made::failed(why)
                },
                None => {
                    let folder = exp.run_folders.then_some(Folder {
                        out,
                        key: &key,
                        task,
                    });
                    match condition.proposer {
                        ProposerMode::Sections => {
                            sections(spec, model, condition, seed, folder).await
                        }
                        ProposerMode::Whole => whole(spec, model, condition, seed, folder).await,
                    }
                }
            };
            let judged = judge_piece(&made);
            (made, judged)
        }
        Work::Registered(registered) => {
            let folder = exp
                .run_folders
                .then_some(registered::Folder { out, key: &key });
            registered::run(registered, model, condition, seed, folder).await
        }
    };
    let trace = made.trace.as_ref().map(|bytes| {
        let check = FileCheck::of(trace_path(&key), bytes);
        if let Err(e) = write_atomically(&out.join(&check.path), bytes) {
            // The record still says what happened; the missing trace makes a resumed
            // experiment run it again.
            eprintln!("warning: {}: {e}", check.path);
        }
        check
    });
    Record {
        domain: task.domain(),
        family: task.family.clone(),
        experiment: exp.hash.clone(),
        seed,
        outcome: made.outcome,
        reason: made.reason,
        piece: made
            .score
            .as_ref()
            .and_then(|s| cantus_music::grammar::write(s).ok())
            .or(made.text),
        voices: task
            .voices()
            .or_else(|| made.score.as_ref().map(|s| s.voices.len()))
            .unwrap_or(0),
        events_relying_on_tags: judged.events_relying_on_tags,
        strict: judged.strict,
        relaxed: judged.relaxed,
        released_relaxed: judged.released_relaxed,
        libretto_degeneracy_passed: judged.libretto_degeneracy_passed,
        counts: made.counts,
        cost: Cost {
            calls: made.calls,
            tokens: made.tokens,
            seconds: started.elapsed().as_secs_f64(),
        },
        trace,
        files: made.files,
        control: model.control(),
        choice: made.choice,
        measures: made.measures,
        key,
    }
}

/// Both twelve-tone gates and Libretto's degeneracy gate on a piece.
fn judge_piece(made: &Made) -> Judged {
    let strict = made
        .score
        .as_ref()
        .zip(made.plan.as_ref())
        .map(|(s, p)| SerialGate::for_plan(p, GateMode::Strict).judge_score(s));
    let relaxed = made
        .score
        .as_ref()
        .zip(made.plan.as_ref())
        .map(|(s, p)| SerialGate::for_plan(p, GateMode::Relaxed).judge_score(s));
    // The relaxed gate releases what the strict one would have released, and also
    // what it refused only on the rules — not what something else (a measure, a
    // budget) held back.
    let held_back =
        strict.as_ref().is_some_and(|r| r.passed) && made.outcome != RunOutcome::Released;
    let released_relaxed = relaxed.as_ref().is_some_and(|r| r.passed) && !held_back;
    let degeneracy = made.score.as_ref().map(|s| {
        degeneracy_measure()
            .report(s)
            .gates
            .first()
            .is_some_and(|g| g.passed)
    });
    Judged {
        events_relying_on_tags: relaxed
            .as_ref()
            .and_then(|r| r.facts.get("events_relying_on_tags"))
            .and_then(serde_json::Value::as_u64),
        strict: strict.as_ref().map(verdict),
        relaxed: relaxed.as_ref().map(verdict),
        released_relaxed,
        libretto_degeneracy_passed: degeneracy,
    }
}

/// Violations per rule, every rule listed.
fn verdict(report: &GateReport<Location>) -> Verdict {
    let mut violations: std::collections::BTreeMap<String, u64> =
        Rule::ALL.iter().map(|r| (r.id().to_owned(), 0)).collect();
    for v in report.violations.iter().filter(|v| v.is_hard()) {
        *violations
            .entry(v.predicate.as_str().to_owned())
            .or_insert(0) += 1;
    }
    Verdict {
        passed: report.passed,
        violations,
    }
}

/// `made` with the checks of the folder `key`'s run wrote, if it wrote one.
pub(super) fn with_folder(
    mut made: Made,
    files: Option<(&Key, Result<Vec<FileCheck>, String>)>,
) -> Made {
    match files {
        None => {}
        Some((_, Ok(files))) => made.files = files,
        Some((key, Err(e))) => {
            // The record still says what happened, and names the folder as a file
            // that never holds, so a resumed experiment runs it again (and a merge
            // refuses it until then).
            eprintln!("warning: {e}");
            made.files = vec![FileCheck {
                path: folder::folder_path(key),
                bytes: 0,
                sha256: String::new(),
            }];
        }
    }
    made
}

/// Where a run writes its folder (`run_folders = true`).
struct Folder<'a> {
    out: &'a Path,
    key: &'a Key,
    task: &'a Task,
}

/// The harness and its ablations (and Libretto's revise loop).
async fn sections(
    spec: &Spec,
    model: &Model,
    condition: &Condition,
    seed: u64,
    folder: Option<Folder<'_>>,
) -> Made {
    let base = model.configured.as_ref().map_or_else(budget, |m| {
        model_budget(m.settings.harness.budget(budget()))
    });
    let budget = Budget {
        replans_per_section: condition.replans.unwrap_or(base.replans_per_section),
        ..base
    };
    let ladder = condition.ladder(model.configured.is_some());
    let composer = Composer::with_ladder(GateMode::Strict, budget, ladder);
    let proposer: Box<dyn Proposer<TwelveTone>> = match &model.configured {
        None => Box::new(EmbeddedProposer),
        Some(m) => Box::new(LlmProposer::new(
            condition.backend(&m.backend),
            condition.ask(&m.settings.ask(false)),
        )),
    };
    let composition = if condition.revise_rounds > 0 {
        let measure = degeneracy_measure();
        composer
            .revise(
                spec,
                seed,
                proposer.as_ref(),
                &measure,
                Revise::measured(condition.revise_rounds),
            )
            .await
    } else {
        composer.compose(spec, seed, proposer.as_ref()).await
    };
    match composition {
        Err(e) => Made::failed(format!("cannot plan this piece: {e}")),
        Ok(c) => {
            let files = folder.map(|f| {
                let measured = model.configured.is_some();
                (
                    f.key,
                    folder::write(f.out, f.key, f.task, spec, &c, seed, measured),
                )
            });
            with_folder(from_outcome(Some(c.plan), c.outcome), files)
        }
    }
}

/// A run's outcome as what it made (`plan`: the twelve-tone plan, if any).
pub(super) fn from_outcome<D>(plan: Option<Blueprint>, outcome: Outcome<D>) -> Made
where
    D: Domain<Artefact = Score>,
    D::Location: std::fmt::Display + serde::Serialize,
{
    let trace = outcome.trace();
    let mut bytes = Vec::new();
    let trace_bytes = trace.write_jsonl(&mut bytes, false).ok().map(|()| bytes);
    let t: &Totals = &trace.totals;
    let counts = Counts {
        proposed: t.events_proposed,
        accepted_as_proposed: t.accepted,
        repaired: t.repaired,
        repairs_by_rung: t.repairs_by_rung.clone(),
        dropped: t.dropped,
        replans: t.replans,
        rounds: t.rounds,
        sections: trace
            .entries
            .iter()
            .filter_map(|e| match e {
                cantus_framework::Entry::Section(s) => Some(s.section),
                _ => None,
            })
            .collect::<std::collections::BTreeSet<_>>()
            .len() as u64,
    };
    let (calls, tokens) = (t.proposer_calls, t.usage);
    let choice = t.choice;
    let (result, reason, score) = match outcome {
        Outcome::Released { artefact, .. } => (RunOutcome::Released, String::new(), Some(artefact)),
        Outcome::Failure {
            diagnostics,
            artefact,
            ..
        } => {
            let reason = diagnostics
                .iter()
                .take(3)
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ");
            // A piece without a note (every proposer call failed) is no piece.
            match artefact.filter(|a| a.event_count() > 0) {
                Some(a) => (RunOutcome::Refused, reason, Some(a)),
                None => (RunOutcome::Failed, reason, None),
            }
        }
    };
    Made {
        outcome: result,
        reason,
        score,
        text: None,
        plan,
        counts: Some(counts),
        calls,
        tokens,
        trace: trace_bytes,
        files: Vec::new(),
        choice,
        measures: Default::default(),
    }
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

/// The whole piece in one request: the embedded proposer's whole-piece answer, or a
/// model's prompt-only baseline.
async fn whole(
    spec: &Spec,
    model: &Model,
    condition: &Condition,
    seed: u64,
    folder: Option<Folder<'_>>,
) -> Made {
    let Some(m) = &model.configured else {
        let composer = Composer::new(GateMode::Strict, budget());
        let plan = match Blueprint::new(spec, seed) {
            Ok(p) => p,
            Err(e) => return Made::failed(format!("cannot plan this piece: {e}")),
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
        let mut made = from_outcome(Some(plan), outcome);
        made.counts = None;
        return made;
    };
    let options = condition.ask(&m.settings.ask(false));
    let Some(baseline) = condition.baseline() else {
        // `run` refuses a prompt style the domain lacks before it gets here.
        return Made::failed(format!("no twelve-tone prompt style {}", condition.prompt));
    };
    match compose_baseline(spec, seed, m.backend.as_ref(), &options, &baseline).await {
        Err(e) => Made::failed(format!("cannot plan this piece: {e}")),
        Ok(raw) => {
            let files =
                folder.map(|f| (f.key, folder::write_reply(f.out, f.key, spec, &raw, seed)));
            with_folder(from_raw(raw), files)
        }
    }
}

fn from_raw(raw: RawOutcome) -> Made {
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
    let reason = if raw.is_released() {
        String::new()
    } else {
        raw.summary()
    };
    let (outcome, score) = match raw.verdict {
        RawVerdict::Released { score, .. } => (RunOutcome::Released, Some(score)),
        RawVerdict::Refused { score, .. } => (RunOutcome::Refused, Some(score)),
        RawVerdict::Unreadable { .. } | RawVerdict::ModelFailed { .. } => {
            (RunOutcome::Failed, None)
        }
    };
    Made {
        outcome,
        reason,
        score,
        text: None,
        plan: Some(raw.plan),
        counts: None,
        calls: u64::from(raw.calls),
        tokens: raw.tokens,
        trace,
        files: Vec::new(),
        choice: None,
        measures: Default::default(),
    }
}

/// Writes `bytes` to `path` whole or not at all (a temporary file, then a rename).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}
