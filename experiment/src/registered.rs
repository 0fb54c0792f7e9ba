//! A registered domain's task set and one trial of a task (the third kind of work,
//! `[tasks] domain = "<id>"`). [`tasks`] finds the domain in the registry and has it
//! read the rest of the table. `run` applies the condition — its form (sections,
//! with or without revise rounds, or one reply in a prompt style), the model's
//! backend wrapped with the condition's instruction (sections only: a one-reply
//! prompt is the domain's to write) and asked with its constrained decoding and
//! freedom, the ladder or none, its replans — and the domain runs and judges the
//! trial ([`cantus_registry::Trial`]); what it [`Tried`] becomes the record: outcome,
//! the strict (and any lenient) gate's verdict by rule, the loop's counts, cost,
//! choice, the piece (its first format, as text), the trace, a degeneracy verdict and
//! the domain's own measures. Nothing here knows the domain.
//!
//! A condition's named rungs are the domain's own ([`cantus_registry::Trials::rungs`]):
//! the trial climbs them in the condition's order ([`Attempt::ladder`]).
//!
//! What does not apply, and says so in the record: a form the domain's trials do not
//! run ([`cantus_registry::Trials::forms`]), with the embedded proposer a prompt
//! instruction or constrained decoding, a rung the domain does not have, and whatever
//! the domain's own trial refuses ([`cantus_registry::Trial::not_applicable`]).

use super::cell::{Judged, Made};
use super::conditions::Condition;
use super::file::Model;
use super::folder;
use super::record::{Counts, FileCheck, Key, RunOutcome, Verdict};
use super::tasks::{FamilyId, Task, TaskId};
use cantus_registry::{
    Attempt, DomainId, Form, Judgement, Made as Made_, RunDir, RunFolder, Study, Trials, Tried,
    View, layout,
};
use serde::Serialize;
use std::path::Path;

/// The experiment trials of `domain`, when a domain of that id is linked in and
/// runs experiments.
pub fn trials_of(domain: &DomainId) -> Option<&'static dyn Trials> {
    cantus_registry::find(domain.as_str())
        .ok()
        .and_then(|unit| unit.trial_sets().ok())
}

/// The experiment trials of the one domain of `domains`, when they are all of one
/// domain and it is linked in and runs experiments.
pub fn trials_of_only<'a>(
    mut domains: impl Iterator<Item = &'a DomainId>,
) -> Option<&'static dyn Trials> {
    let first = domains.next()?;
    domains
        .all(|d| d == first)
        .then(|| trials_of(first))
        .flatten()
}

/// The task set of the domain registered as `domain`, read from the experiment
/// file's `[tasks]` table (`values`, without `domain` and `limit`; relative paths
/// from `dir`). An error names the key, when one key is at fault.
pub fn tasks(
    domain: &DomainId,
    values: serde_json::Map<String, serde_json::Value>,
    dir: &Path,
) -> Result<Vec<Task>, cantus_registry::TaskTableError> {
    use cantus_registry::TaskTableError;
    let unit = cantus_registry::find(domain.as_str())
        .map_err(|e| TaskTableError::at("domain", e.to_string()))?;
    let trials = unit
        .trial_sets()
        .map_err(|e| TaskTableError::at("domain", e.to_string()))?;
    let mut table = cantus_registry::TaskTable::new(domain.clone(), values, dir);
    let set = trials.tasks(&mut table)?;
    if let Some(e) = table.unread() {
        return Err(e);
    }
    if set.is_empty() {
        return Err(TaskTableError::table("makes no task"));
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::with_capacity(set.len());
    for t in set {
        if !seen.insert(t.id.clone()) {
            return Err(TaskTableError::table(format!(
                "makes the task `{}` twice (the {domain} domain's task ids must be unique)",
                t.id
            )));
        }
        out.push(Task {
            origin: t
                .origin
                .unwrap_or_else(|| format!("tasks ({domain}): {}", t.id)),
            id: TaskId(t.id),
            family: FamilyId(t.family),
            brief: t.brief,
            domain: domain.clone(),
            voices: t.voices,
            trial: t.trial,
        });
    }
    Ok(out)
}

/// Why `condition` does not apply to a registered domain's task with this model, if
/// it does not: a form its trials do not run ([`cantus_registry::Forms::refuses`]),
/// a rung it lacks, or, for the embedded proposer, a prompt or constrained decoding.
/// (The domain's own refusals come after these: [`cantus_registry::Trial::not_applicable`].)
pub fn not_applicable(
    domain: &str,
    trials: Option<&dyn cantus_registry::Trials>,
    condition: &Condition,
    configured: bool,
) -> Option<String> {
    let forms = trials.map(|t| t.forms()).unwrap_or_default();
    if let Some(why) = forms.refuses(domain, &condition.form()) {
        return Some(why);
    }
    if let Some(why) = condition.not_applicable(configured) {
        return Some(why);
    }
    let rungs = trials.map(|t| t.rungs()).unwrap_or_default();
    condition.lacks_rung(domain, &rungs)
}

/// Where a trial writes its folder (`run_folders = true`).
pub(super) struct Folder<'a> {
    pub out: &'a Path,
    pub key: &'a Key,
}

/// Runs `task` with `model` under `condition` at `seed`.
pub(super) async fn run(
    task: &Task,
    model: &Model,
    condition: &Condition,
    seed: u64,
    folder: Option<Folder<'_>>,
) -> (Made, Judged) {
    let skipped = |why: String| {
        let made = Made {
            outcome: RunOutcome::NotApplicable,
            ..Made::failed(why)
        };
        (made, Judged::default())
    };
    let trials = cantus_registry::find(task.domain.as_str())
        .ok()
        .and_then(|unit| unit.trial_sets().ok());
    let configured = model.configured.is_some();
    if let Some(why) = not_applicable(task.domain.as_str(), trials, condition, configured) {
        return skipped(why);
    }
    let form = condition.form();
    let asked = model.configured.as_ref().map(|m| {
        let mut asked = super::file::registry_model(m);
        // A one-reply prompt is the domain's to write, the instruction its to place.
        if matches!(form, Form::Sections { .. }) {
            asked.backend = condition.backend(&m.backend);
        }
        asked.ask = condition.ask(&asked.ask);
        asked
    });
    let asked_folder = folder.as_ref().map(|f| {
        let path = f.out.join(folder::folder_path(f.key));
        (path, study(f.key))
    });
    let attempt = Attempt {
        seed,
        model: asked.as_ref(),
        rungs: condition.rungs.as_deref(),
        replans: condition.replans,
        form,
        folder: asked_folder
            .as_ref()
            .map(|(path, study)| cantus_registry::Folder { path, study }),
    };
    if let Some(why) = task.trial.not_applicable(&attempt) {
        return skipped(why);
    }
    let tried = task.trial.run(attempt).await;
    let files = folder.map(|f| {
        let relative = folder::folder_path(f.key);
        let checks = match &tried.folder {
            RunFolder::Runner => write(f.out, f.key, &task.domain, &tried, seed),
            RunFolder::Trial(Ok(())) => folder::checks(f.out, &relative, &[]),
            RunFolder::Trial(Err(e)) => Err(e.clone()),
            RunFolder::Skipped => Ok(Vec::new()),
        };
        (f.key, checks)
    });
    let strict = tried.judgement.as_ref().map(verdict);
    let lenient = tried.lenient.as_ref();
    // The lenient gate releases what the strict one released, and also what it
    // refused only on the rules — not what something else (a measure, a budget)
    // held back.
    let held_back = strict.as_ref().is_some_and(|v| v.passed) && !tried.released;
    let judged = Judged {
        relaxed: lenient.map(|l| verdict(&l.judgement)),
        released_relaxed: lenient.is_some_and(|l| l.judgement.passed) && !held_back,
        events_relying_on_tags: lenient.and_then(|l| l.trusted),
        libretto_degeneracy_passed: tried.degeneracy_passed,
        strict,
    };
    let one_reply = matches!(form, Form::Whole(_));
    (
        super::cell::with_folder(made(tried, one_reply), files),
        judged,
    )
}

/// The study cell of `key`, which its folder's `report.json` names so `cantus blind`
/// can pair the folder with others.
fn study(key: &Key) -> Study {
    Study {
        task: key.task.0.clone(),
        model: key.model.clone(),
        condition: key.condition.0.clone(),
        run: key.run,
    }
}

/// A gate's verdict as the record keeps it.
fn verdict(j: &Judgement) -> Verdict {
    Verdict {
        passed: j.passed,
        violations: j
            .violations
            .iter()
            .map(|(rule, n)| (rule.as_str().to_owned(), *n))
            .collect(),
    }
}

/// What the runner records of a trial; `one_reply`: it asked for the whole artefact
/// in one reply, so it has a cost but no loop counts.
fn made(mut tried: Tried, one_reply: bool) -> Made {
    // A score without a note (every proposer call failed) is no piece.
    if let Some(Made_ {
        view: View::Score(s),
        ..
    }) = &tried.artefact
        && s.event_count() == 0
    {
        tried.artefact = None;
    }
    let outcome = match (&tried.artefact, tried.released) {
        (_, true) => RunOutcome::Released,
        (Some(_), false) => RunOutcome::Refused,
        (None, false) => RunOutcome::Failed,
    };
    let (score, text) = match tried.artefact {
        None => (None, None),
        Some(a) => match a.view {
            View::Score(s) => (Some(s), None),
            View::Text(_) => {
                let first = a.files.into_iter().next();
                (
                    None,
                    first.map(|(_, b)| String::from_utf8_lossy(&b).into_owned()),
                )
            }
        },
    };
    let t = tried.totals.unwrap_or_default();
    let ran_loop =
        !one_reply && (t.events_proposed > 0 || t.proposer_calls > 0 || tried.sections > 0);
    Made {
        outcome,
        reason: if outcome == RunOutcome::Released {
            String::new()
        } else {
            tried.reason
        },
        score,
        text,
        counts: ran_loop.then(|| Counts {
            proposed: t.events_proposed,
            accepted_as_proposed: t.accepted,
            repaired: t.repaired,
            repairs_by_rung: t.repairs_by_rung.clone(),
            dropped: t.dropped,
            replans: t.replans,
            rounds: t.rounds,
            sections: tried.sections,
        }),
        calls: t.proposer_calls,
        tokens: t.usage,
        trace: tried.trace,
        files: Vec::new(),
        choice: t.choice,
        measures: tried.measures,
    }
}

/// `report.json` of a registered domain's trial folder.
#[derive(Serialize)]
struct FolderReport<'a> {
    domain: &'a str,
    released: bool,
    reason: &'a str,
    seed: u64,
    /// The study cell, so `cantus blind DIR` can pair folders.
    study: Study,
    violations: Option<std::collections::BTreeMap<&'a str, u64>>,
}

/// Writes `key`'s folder under `out`: the artefact in each of its formats, the trace
/// and a `report.json`, committed whole; the check of every file, or why not.
fn write(
    out: &Path,
    key: &Key,
    domain: &cantus_registry::DomainId,
    tried: &Tried,
    seed: u64,
) -> Result<Vec<FileCheck>, String> {
    let relative = folder::folder_path(key);
    let dir = RunDir::create(&out.join(&relative), true).map_err(|e| e.to_string())?;
    let mut errors = Vec::new();
    if let Some(a) = &tried.artefact {
        for (ext, bytes) in &a.files {
            if let Err(e) = dir.write(&layout::artefact_file(tried.released, ext), bytes) {
                errors.push(e.to_string());
            }
        }
    }
    if let Some(trace) = &tried.trace
        && let Err(e) = dir.write(layout::TRACE, trace)
    {
        errors.push(e.to_string());
    }
    let report = FolderReport {
        domain: domain.as_str(),
        released: tried.released,
        reason: &tried.reason,
        seed,
        study: study(key),
        violations: tried.judgement.as_ref().map(|j| {
            j.violations
                .iter()
                .map(|(rule, n)| (rule.as_str(), *n))
                .collect()
        }),
    };
    if let Err(e) = dir.write_json(layout::REPORT, &report) {
        errors.push(e.to_string());
    }
    if let Some(e) = errors.first() {
        return Err(e.clone());
    }
    dir.commit().map_err(|e| e.to_string())?;
    folder::checks(out, &relative, &errors)
}
