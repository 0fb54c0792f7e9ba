//! The brief bank: every brief of a bank file (one per line, `#` comments) composed by
//! the embedded proposer for seeds `0..seeds`, each into its own run directory
//! `DIR/<line>-s<seed>/`. A run can be stopped and started again: a brief whose
//! `report.json` is already there is counted from it, not composed again.

use crate::twelve_tone::{Composed, Job, Piece, Way, compose};
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::spec::compile_brief;
use serde::Serialize;
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
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(line, l)| {
            let compiled = compile_brief(l).map_err(|e| BankError::Brief {
                path: path.to_owned(),
                line,
                message: e.to_string(),
            })?;
            let piece = Piece {
                spec: compiled.spec.clone(),
                brief: Some((l.to_owned(), compiled)),
            };
            Ok((
                Brief {
                    line,
                    text: l.to_owned(),
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

/// The released flag of an earlier run's report, if there is a readable one.
fn earlier(dir: &Path) -> Option<bool> {
    let text = std::fs::read_to_string(dir.join("report.json")).ok()?;
    let report: serde_json::Value = serde_json::from_str(&text).ok()?;
    report["released"].as_bool()
}

/// Composes `brief` at `seed` into `dir` (or counts an earlier run there, unless `force`).
pub async fn run_one(
    brief: &Brief,
    piece: &Piece,
    seed: u64,
    gate: GateMode,
    dir: &Path,
    force: bool,
) -> Entry {
    let entry = |released, note: String| Entry {
        line: brief.line,
        seed,
        released,
        note,
    };
    if !force && let Some(released) = earlier(dir) {
        return entry(Some(released), "from an earlier run".into());
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
            entry(
                Some(written.released && written.write_errors.is_empty()),
                note,
            )
        }
        Err(e) => entry(None, e.to_string()),
    }
}

/// `summary.json` of a bank run.
#[derive(Debug, Serialize)]
pub struct Summary<'a> {
    pub bank: String,
    pub gate: String,
    pub released: usize,
    pub failed: usize,
    pub errors: usize,
    pub entries: &'a [Entry],
}

impl<'a> Summary<'a> {
    /// The counts of `entries`, from the bank file `bank` judged by `gate`.
    pub fn new(bank: &Path, gate: GateMode, entries: &'a [Entry]) -> Self {
        let released = entries.iter().filter(|e| e.released == Some(true)).count();
        let failed = entries.iter().filter(|e| e.released == Some(false)).count();
        Summary {
            bank: bank.display().to_string(),
            gate: gate.to_string(),
            released,
            failed,
            errors: entries.len() - released - failed,
            entries,
        }
    }
}
