//! The brief bank: every brief of a bank file (one per line, `#` comments, read as the
//! experiment runner reads bank files) composed by the embedded proposer for seeds
//! `0..seeds`, each into its own run directory `DIR/<line>-s<seed>/`. A run can be
//! stopped and started again: a brief is counted from its earlier run, not composed
//! again, only when every file of that run still has the size and SHA-256 recorded
//! in `DIR/bank-files.jsonl` when it was written (the check the experiment runner
//! makes of its traces) — a file cut short or changed since means the brief runs again.
//!
//! `--jobs N` composes N briefs at once ([`crate::experiment::jobs`]); each writes its
//! own folder, the ledger is appended by the calling thread alone, and the entries
//! come back in the bank's order, so every file but the ledger's line order is the
//! same as one at a time. `--shard i/N` composes only the (brief, seed) pairs whose
//! index in that order is `i` mod `N` ([`crate::experiment::shard`]).

use crate::experiment::jobs::{Jobs, in_flight};
use crate::experiment::record::FileCheck;
use crate::experiment::shard::Shard;
use crate::experiment::tasks::bank_lines;
use crate::twelve_tone::{Composed, Job, Piece, Way, compose};
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::spec::compile_brief;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// One brief of a bank file.
#[derive(Clone, Debug)]
pub struct Brief {
    /// Its line in the file, from 1.
    pub line: usize,
    pub text: String,
}

/// Why a bank could not be run; bad input.
#[derive(Debug, thiserror::Error)]
pub enum BankError {
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}: {message}", path.display())]
    Brief {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

/// The briefs of the bank file at `path`; every one must compile, so a typo is bad
/// input before anything runs rather than a failure half-way through a long run.
pub fn briefs(path: &Path) -> Result<Vec<(Brief, Piece)>, BankError> {
    let text = std::fs::read_to_string(path).map_err(|source| BankError::Read {
        path: path.to_owned(),
        source,
    })?;
    bank_lines(&text)
        .into_iter()
        .map(|l| {
            let compiled = compile_brief(&l.text).map_err(|e| BankError::Brief {
                path: path.to_owned(),
                line: l.line,
                message: e.to_string(),
            })?;
            let piece = Piece {
                spec: compiled.spec.clone(),
                brief: Some((l.text.clone(), compiled)),
            };
            Ok((
                Brief {
                    line: l.line,
                    text: l.text,
                },
                piece,
            ))
        })
        .collect()
}

/// What one brief and seed came to.
#[derive(Clone, Debug, Serialize)]
pub struct Entry {
    pub line: usize,
    pub seed: u64,
    /// `None` when it could not even run.
    pub released: Option<bool>,
    pub note: String,
}

/// One line of `bank-files.jsonl`: the files of one run folder as they were written.
#[derive(Debug, Serialize, Deserialize)]
struct Written {
    /// The run folder's name.
    run: String,
    files: Vec<FileCheck>,
}

/// The ledger of a bank's output directory.
fn ledger_path(out: &Path) -> PathBuf {
    out.join("bank-files.jsonl")
}

/// The last whole entry per run folder of the ledger in `out`.
fn ledger_entries(out: &Path) -> BTreeMap<String, Vec<FileCheck>> {
    let text = std::fs::read_to_string(ledger_path(out)).unwrap_or_default();
    text.split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .filter_map(|l| serde_json::from_str::<Written>(l).ok())
        .map(|w| (w.run, w.files))
        .collect()
}

/// Records every file of the run folder `dir` in the ledger.
fn record_files(dir: &Path) -> std::io::Result<()> {
    let (Some(out), Some(name)) = (dir.parent(), dir.file_name()) else {
        return Ok(());
    };
    let mut files = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for e in entries {
        if e.file_type()?.is_file() {
            let bytes = std::fs::read(e.path())?;
            files.push(FileCheck::of(
                e.file_name().to_string_lossy().into_owned(),
                &bytes,
            ));
        }
    }
    let line = serde_json::to_string(&Written {
        run: name.to_string_lossy().into_owned(),
        files,
    })
    .unwrap_or_default();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(ledger_path(out))?;
    f.write_all(format!("{line}\n").as_bytes())
}

/// The released flag of an earlier run's report, if its files are all as the ledger
/// recorded them.
fn earlier(dir: &Path, ledger: &BTreeMap<String, Vec<FileCheck>>) -> Option<bool> {
    let name = dir.file_name()?.to_string_lossy();
    let files = ledger.get(name.as_ref())?;
    if !files.iter().any(|f| f.path == "report.json") || !files.iter().all(|f| f.holds(dir)) {
        return None;
    }
    let text = std::fs::read_to_string(dir.join("report.json")).ok()?;
    let report: serde_json::Value = serde_json::from_str(&text).ok()?;
    report["released"].as_bool()
}

/// The ledger of the bank output directory `out`, read once per bank run.
struct Ledger(BTreeMap<String, Vec<FileCheck>>);

impl Ledger {
    /// The ledger in `out` (empty when there is none).
    fn read(out: &Path) -> Ledger {
        Ledger(ledger_entries(out))
    }
}

/// How a bank is run.
#[derive(Clone, Copy, Debug)]
pub struct BankRun {
    /// Seeds `0..seeds` for every brief.
    pub seeds: u64,
    pub gate: GateMode,
    /// Compose again even where an earlier run's files are whole.
    pub force: bool,
    pub jobs: Jobs,
    pub shard: Shard,
}

/// Composes every (brief, seed) of `how.shard` into `out`, `how.jobs` at a time,
/// calling `progress(done, total)` after each; the entries in the bank's order.
pub fn run(
    briefs: &[(Brief, Piece)],
    out: &Path,
    how: &BankRun,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<Entry> {
    let ledger = Ledger::read(out);
    let todo: Vec<(&Brief, &Piece, u64)> = briefs
        .iter()
        .flat_map(|(brief, piece)| (0..how.seeds).map(move |seed| (brief, piece, seed)))
        .enumerate()
        .filter(|(position, _)| how.shard.holds(*position))
        .map(|(_, item)| item)
        .collect();
    let total = todo.len();
    progress(0, total);
    let mut entries: Vec<Option<Entry>> = vec![None; total];
    let (mut done, ledger) = (0, &ledger);
    let result: Result<(), std::convert::Infallible> = in_flight(
        how.jobs,
        todo,
        |(brief, piece, seed)| async move {
            let dir = out.join(format!("{:03}-s{seed}", brief.line));
            compose_one(brief, piece, seed, how.gate, &dir, how.force, ledger).await
        },
        |i, (entry, written)| {
            if let Some(d) = written
                && let Err(e) = record_files(&d)
            {
                eprintln!("warning: {}: {e}", ledger_path(out).display());
            }
            entries[i] = Some(entry);
            done += 1;
            progress(done, total);
            Ok(())
        },
    );
    let Ok(()) = result;
    entries.into_iter().flatten().collect()
}

/// Composes `brief` at `seed` into `dir` (or counts an earlier run there, unless
/// `force`); the entry, and the run folder written, for the ledger.
async fn compose_one(
    brief: &Brief,
    piece: &Piece,
    seed: u64,
    gate: GateMode,
    dir: &Path,
    force: bool,
    ledger: &Ledger,
) -> (Entry, Option<PathBuf>) {
    let entry = |released, note: String| Entry {
        line: brief.line,
        seed,
        released,
        note,
    };
    if !force && let Some(released) = earlier(dir, &ledger.0) {
        return (entry(Some(released), "from an earlier run".into()), None);
    }
    let job = Job {
        piece,
        seed,
        mode: gate,
        way: Way::Harness { model: None },
        constrained: false,
        out: dir,
        replace: true,
    };
    match compose(job, None).await {
        Ok(Composed::Harness { written, .. } | Composed::Raw { written, .. }) => {
            let note = match (
                written.released,
                written.write_errors.first(),
                written.diagnostics.first(),
            ) {
                (_, Some(err), _) => format!("could not write {err}"),
                (true, None, _) => "released".to_owned(),
                (false, None, Some(d)) => format!("failed: {d}"),
                (false, None, None) => "failed".to_owned(),
            };
            (
                entry(
                    Some(written.released && written.write_errors.is_empty()),
                    note,
                ),
                written.dir.clone(),
            )
        }
        Err(e) => (entry(None, e.to_string()), None),
    }
}

/// `summary.json` of a bank run.
#[derive(Debug, Serialize)]
pub struct Summary<'a> {
    pub bank: String,
    pub gate: String,
    /// The slice of the bank run (`--shard i/N`), absent for the whole bank.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    pub released: usize,
    pub failed: usize,
    pub errors: usize,
    pub entries: &'a [Entry],
}

impl<'a> Summary<'a> {
    /// The counts of `entries`, from `shard` of the bank file `bank` judged by `gate`.
    pub fn new(bank: &Path, gate: GateMode, shard: Shard, entries: &'a [Entry]) -> Self {
        let released = entries.iter().filter(|e| e.released == Some(true)).count();
        let failed = entries.iter().filter(|e| e.released == Some(false)).count();
        Summary {
            bank: bank.display().to_string(),
            gate: gate.to_string(),
            shard: (!shard.is_whole()).then_some(shard),
            released,
            failed,
            errors: entries.len() - released - failed,
            entries,
        }
    }
}
