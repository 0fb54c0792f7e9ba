//! One run of one cell: a task, a model, a condition and a run number become one
//! [`Record`]. The task's domain runs the trial (`registered.rs`, its
//! [`cantus_registry::Trial`]); here its outcome, verdicts, cost and files become the
//! record, and its trace is written beside the results. Every failure of a run (the
//! model unreachable, a plugin crashed, the plan impossible) is that run's outcome;
//! nothing here returns an error.

use super::conditions::Condition;
use super::file::{Experiment, Model};
use super::folder;
use super::record::{Cost, Counts, FileCheck, Key, Record, RunOutcome, Verdict};
use super::registered;
use super::tasks::Task;
use cantus_framework::{Choice, Usage};
use cantus_music::Score;
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
    /// A lenient gate's (twelve-tone's relaxed gate, which trusts tags).
    pub relaxed: Option<Verdict>,
    pub released_relaxed: bool,
    pub events_relying_on_tags: Option<u64>,
    /// A degeneracy gate's (twelve-tone's: Libretto's, against the serial reference).
    pub libretto_degeneracy_passed: Option<bool>,
}

impl Made {
    pub(super) fn failed(reason: String) -> Made {
        Made {
            outcome: RunOutcome::Failed,
            reason,
            score: None,
            text: None,
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
    let folder = exp
        .run_folders
        .then_some(registered::Folder { out, key: &key });
    let (made, judged) = registered::run(task, model, condition, seed, folder).await;
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
        domain: task.domain.clone(),
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
            .voices
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

/// Writes `bytes` to `path` whole or not at all (a temporary file, then a rename).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}
