//! The brief bank: every brief of a bank file (one per line, `#` comments, an
//! optional `[family]`) composed by the embedded proposer's harness for seeds
//! `0..seeds`. There is one way to run a bank, and this is a thin use of it: the bank
//! is an experiment ([`crate::experiment::run`]) with the bank's briefs as its tasks,
//! the embedded proposer as its one model, the `harness` condition, one run per seed
//! and `run_folders = true`, so every run also writes its folder — the piece in every
//! format, `report.json`, `spec.toml`, the trace — to `DIR/runs/<run>/`.
//!
//! Everything else is the runner's: `DIR/results.jsonl` holds one record per run, a
//! rerun keeps every record whose trace and folder are still as written and composes
//! only the rest, `--jobs N` composes N at once, `--shard i/N` one slice, and
//! `cantus experiment report DIR` reads a bank's results like any experiment's. The
//! experiment's text names the bank file, its SHA-256 and the seeds, so results of an
//! edited bank are never taken for this one's.

use crate::experiment::Experiment;
use crate::experiment::file::FileError;
use crate::experiment::folder::folder_path;
use crate::experiment::jobs::Jobs;
use crate::experiment::record::RunOutcome;
use crate::experiment::run::{
    Plan, Quarantined, RunError, grid, read_whole_results, results_path, run as run_grid,
};
use crate::experiment::shard::Shard;
use cantus_bounded as bounded;
use cantus_twelve_tone::plugin::tasks::{TaskError, from_bank};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Why a bank could not be run; bad input, or its results cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum BankError {
    #[error(transparent)]
    Brief(#[from] TaskError),
    #[error(transparent)]
    File(#[from] FileError),
    #[error(
        "{}: these results are of another bank or other seeds (the bank file or --seeds \
         changed since); --force composes everything anew, or give another --out",
        path.display()
    )]
    Changed { path: PathBuf },
    #[error(transparent)]
    Run(RunError),
}

/// The bank file at `bank` as an experiment of `seeds` runs per brief. Every brief
/// must compile, so a typo is bad input before anything runs rather than a failure
/// half-way through a long run.
pub fn experiment(bank: &Path, seeds: u32) -> Result<Experiment, BankError> {
    from_bank(bank)?;
    let bytes = bounded::read(bank, bounded::TEXT_FILE_CAP, "bank file").map_err(|source| {
        TaskError::Read {
            path: bank.to_owned(),
            source,
        }
    })?;
    let name = bank
        .file_name()
        .map_or_else(|| "bank.txt".into(), |n| n.to_string_lossy().into_owned());
    let text = format!(
        "# `cantus bank {name} --seeds {seeds}`: the embedded proposer's harness over\n\
         # every brief of the bank file (SHA-256 {:x}), one run per seed.\n\
         name = \"bank\"\nruns = {seeds}\nconditions = [\"harness\"]\nrun_folders = true\n\n\
         [tasks]\nbank = {}\n\n[[models]]\nname = \"embedded\"\n",
        Sha256::digest(&bytes),
        toml::Value::String(name.clone()),
    );
    let anchor = bank.parent().unwrap_or(Path::new(".")).join(&name);
    Ok(Experiment::from_text(text, &anchor)?)
}

/// What one brief and seed came to.
#[derive(Clone, Debug, Serialize)]
pub struct Entry {
    /// `file:line` of the brief.
    pub brief: String,
    pub seed: u64,
    /// `None` when it could not even run.
    pub released: Option<bool>,
    pub note: String,
    /// Kept from an earlier run, its files all still as they were written.
    pub earlier: bool,
    /// The run's folder, relative to the output directory.
    pub folder: String,
}

/// How a bank is run.
#[derive(Clone, Copy, Debug)]
pub struct BankRun {
    /// Compose again even where an earlier run's files are whole.
    pub force: bool,
    pub jobs: Jobs,
    pub shard: Shard,
}

/// Composes every (brief, seed) of `how.shard` of the bank `exp` into `out`,
/// `how.jobs` at a time (model calls on `io`, as [`run_grid`] takes it), calling
/// `progress(done, total)` after each; the entries in
/// the bank's order, and the lines of an earlier results file that were not records
/// (moved aside, their runs run again).
pub fn run(
    exp: &Experiment,
    out: &Path,
    how: &BankRun,
    io: &tokio::runtime::Handle,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Vec<Entry>, Option<Quarantined>), BankError> {
    let results = results_path(out);
    if how.force {
        match std::fs::remove_file(&results) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(BankError::Run(RunError::Io {
                    path: results,
                    source: e,
                }));
            }
            _ => {}
        }
    }
    let plan = Plan {
        jobs: how.jobs,
        shard: how.shard,
    };
    let ran = run_grid(exp, out, plan, io, progress).map_err(|e| match e {
        RunError::OtherExperiment { path, .. } => BankError::Changed { path },
        other => BankError::Run(other),
    })?;
    let (_, records) = read_whole_results(&results).map_err(BankError::Run)?;
    let origin: HashMap<_, _> = exp.tasks.iter().map(|t| (&t.id, &t.origin)).collect();
    let position: HashMap<_, _> = grid(exp)
        .into_iter()
        .enumerate()
        .map(|(i, cell)| (cell.0, i))
        .collect();
    let mut entries: Vec<(usize, Entry)> = records
        .into_iter()
        .filter_map(|r| {
            let at = *position.get(&r.key)?;
            let (released, note) = match r.outcome {
                RunOutcome::Released => (Some(true), "released".to_owned()),
                RunOutcome::Refused => (Some(false), format!("failed: {}", r.reason)),
                RunOutcome::Failed | RunOutcome::NotApplicable => (None, r.reason.clone()),
            };
            let entry = Entry {
                brief: origin
                    .get(&r.key.task)
                    .map_or_else(String::new, |o| (*o).clone()),
                seed: r.seed,
                released,
                note,
                earlier: !ran.fresh.contains(&r.key),
                folder: folder_path(&r.key),
            };
            Some((at, entry))
        })
        .collect();
    entries.sort_by_key(|(at, _)| *at);
    Ok((
        entries.into_iter().map(|(_, e)| e).collect(),
        ran.quarantined,
    ))
}

/// `summary.json` of a bank run.
#[derive(Debug, Serialize)]
pub struct Summary<'a> {
    pub bank: String,
    /// Every release is the strict gate's.
    pub gate: &'static str,
    /// The slice of the bank run (`--shard i/N`), absent for the whole bank.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    pub released: usize,
    pub failed: usize,
    pub errors: usize,
    pub entries: &'a [Entry],
}

impl<'a> Summary<'a> {
    /// The counts of `entries`, from `shard` of the bank file `bank`.
    pub fn new(bank: &Path, shard: Shard, entries: &'a [Entry]) -> Self {
        let released = entries.iter().filter(|e| e.released == Some(true)).count();
        let failed = entries.iter().filter(|e| e.released == Some(false)).count();
        Summary {
            bank: bank.display().to_string(),
            gate: "strict",
            shard: (!shard.is_whole()).then_some(shard),
            released,
            failed,
            errors: entries.len() - released - failed,
            entries,
        }
    }
}
