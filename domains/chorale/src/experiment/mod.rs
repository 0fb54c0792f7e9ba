//! The chorale task set: harmonise the soprano lines of Bach's chorales, with his
//! harmonisations as the reference.
//!
//! A task is one chorale file: its soprano (key and phrase ends as the file gives
//! them) is the melody handed to a proposer; the whole file, read as a chorale, is
//! the reference the result is measured against ([`measure`]). A run is one
//! (task, proposer, seed): the engine's outcome under the strict profile, the
//! trace's counts (calls, tokens, repairs, drops), and for a released chorale its
//! agreement with Bach and its degeneracy beside Bach's ([`Record`]). A run's
//! failure is its record, never an error of the experiment.
//!
//! [`report`] sums records into the figures the domain's experiment report shows.
//! `examples/harmonise_bach.rs` runs the set (resumable, one JSON line per run).

pub mod measure;
pub mod report;

use crate::analysis::Analysis;
use crate::domain::{ChoraleDomain, Harmonisation};
use crate::read::{ReadOptions, read_chorale};
use crate::rules::Profile;
use cantus_framework::{Outcome, Proposer};
use measure::{Agreement, Degeneracy};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One chorale to harmonise.
#[derive(Clone, Debug)]
pub struct Task {
    /// The file's stem (`r001_bwv269`).
    pub id: String,
    pub path: PathBuf,
    /// The melody handed to the proposer.
    pub spec: Harmonisation,
    /// Bach's harmonisation, analysed.
    pub bach: Analysis,
}

/// A chorale file that could not be made a task, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: String,
}

/// The task of one chorale file.
pub fn task(path: &Path) -> Result<Task, String> {
    let loaded =
        cantus_music::format::read_path(path, false).map_err(|e| format!("not read: {e}"))?;
    let reading = read_chorale(&loaded.score, &ReadOptions::default())
        .map_err(|e| format!("not a chorale: {e}"))?;
    if reading.voices.len() != 4 {
        return Err("a melody alone, no harmonisation to compare with".into());
    }
    let id = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    Ok(Task {
        spec: Harmonisation::of(id.clone(), &reading.chorale),
        bach: Analysis::new(reading.chorale),
        id,
        path: path.to_owned(),
    })
}

/// The first `n` chorales of `dir` (its `.musicxml`, `.mxl` and `.mei` files in
/// name order) that are tasks, and the files passed over.
pub fn tasks(dir: &Path, n: usize) -> std::io::Result<(Vec<Task>, Vec<Skipped>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x == "musicxml" || x == "mxl" || x == "mei")
        })
        .collect();
    files.sort();
    let (mut out, mut skipped) = (Vec::new(), Vec::new());
    for path in files {
        if out.len() == n {
            break;
        }
        match task(&path) {
            Ok(t) => out.push(t),
            Err(reason) => skipped.push(Skipped { path, reason }),
        }
    }
    Ok((out, skipped))
}

/// One run's record: a line of `results.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub task: String,
    /// The proposer's name (`embedded`, or the model's).
    pub proposer: String,
    pub seed: u64,
    pub beats: usize,
    pub released: bool,
    /// Why it failed (the engine's first diagnostic).
    pub failure: Option<String>,
    pub calls: u64,
    /// Unknown when the backend does not report it.
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    pub repaired: u64,
    pub dropped: u64,
    pub replans: u64,
    /// Soft violations of the released chorale under the strict profile.
    pub soft: Option<usize>,
    pub agreement: Option<Agreement>,
    pub degeneracy: Option<Degeneracy>,
    /// The same measures of Bach's harmonisation.
    pub bach_degeneracy: Degeneracy,
    pub seconds: f64,
}

/// A released chorale, measured.
#[derive(Clone, Debug)]
pub struct Run {
    pub record: Record,
    /// The released score.
    pub score: Option<cantus_music::Score>,
}

/// Harmonises `task` with `proposer` and `seed` under the strict profile and
/// measures the outcome.
pub async fn run(
    task: &Task,
    engine: &cantus_framework::Engine<ChoraleDomain>,
    proposer: &dyn Proposer<ChoraleDomain>,
    proposer_name: &str,
    seed: u64,
) -> Run {
    let start = Instant::now();
    let outcome = engine.run(&task.spec, proposer, seed).await;
    let seconds = start.elapsed().as_secs_f64();
    let t = &outcome.trace().totals;
    let mut record = Record {
        task: task.id.clone(),
        proposer: proposer_name.to_owned(),
        seed,
        beats: task.bach.beats.len(),
        released: false,
        failure: None,
        calls: t.proposer_calls,
        tokens_in: t.usage.tokens_in,
        tokens_out: t.usage.tokens_out,
        repaired: t.repaired,
        dropped: t.dropped,
        replans: t.replans,
        soft: None,
        agreement: None,
        degeneracy: None,
        bach_degeneracy: measure::degeneracy(&task.bach),
        seconds,
    };
    let score = match outcome {
        Outcome::Released { artefact, .. } => {
            let options = ReadOptions {
                key: Some(task.spec.melody.key),
                ..ReadOptions::default()
            };
            match read_chorale(&artefact, &options) {
                Ok(reading) => {
                    let ours = Analysis::new(reading.chorale);
                    let report = crate::gate::HarmonisationGate(Profile::Strict)
                        .judge_harmonisation(&task.spec, &artefact);
                    record.released = report.passed;
                    record.soft = Some(report.violations.iter().filter(|v| !v.is_hard()).count());
                    record.agreement = Some(measure::agreement(&ours, &task.bach));
                    record.degeneracy = Some(measure::degeneracy(&ours));
                    if !report.passed {
                        record.failure =
                            Some("released, but the gate refuses it judged again".into());
                    }
                }
                Err(e) => record.failure = Some(format!("released, but not read back: {e}")),
            }
            Some(artefact)
        }
        Outcome::Failure { diagnostics, .. } => {
            record.failure = Some(
                diagnostics
                    .first()
                    .map_or_else(|| "failed".to_owned(), ToString::to_string),
            );
            None
        }
    };
    Run { record, score }
}
