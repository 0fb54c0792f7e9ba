//! The counterpoint jobs of the program: write a Fux species exercise against a
//! cantus firmus (Fux's own by mode, or one from a file) with the embedded search or a
//! model, and leave it on disk as one run directory.

use crate::models::Configured;
use crate::outputs::{OutputError, RunDir};
use cantus_counterpoint::report::ExerciseReport;
use cantus_counterpoint::{
    Assignment, Cantus, Counterpoint, EmbeddedProposer, ModeName, ModelProposer, compose_with,
};
use cantus_framework::{Budget, Outcome, Proposer};
use std::path::{Path, PathBuf};

/// Why the cantus could not be had; bad input.
#[derive(Debug, thiserror::Error)]
pub enum CantusArgError {
    #[error(
        "--cantus {0:?} is neither a mode (dorian, phrygian, lydian, mixolydian, aeolian, ionian) nor an existing file"
    )]
    Unknown(String),
    #[error("{0}")]
    File(String),
}

/// The cantus `arg` names: one of Fux's by mode, or the one in a file.
pub fn cantus(arg: &str) -> Result<Cantus, CantusArgError> {
    if let Some(mode) = ModeName::parse(arg) {
        return Ok(Cantus::fux(mode));
    }
    if Path::new(arg).exists() {
        return Cantus::from_path(Path::new(arg)).map_err(|e| CantusArgError::File(e.to_string()));
    }
    Err(CantusArgError::Unknown(arg.to_owned()))
}

/// What an exercise job came to.
pub struct Composed {
    pub outcome: Outcome<Counterpoint>,
    pub released: bool,
    /// Files that could not be written, and why.
    pub write_errors: Vec<String>,
    /// The run directory (when it was committed).
    pub dir: Option<PathBuf>,
}

/// Writes `assignment` at `seed` with the model (or the embedded search) into `out`.
pub async fn compose(
    assignment: &Assignment,
    seed: u64,
    model: Option<&Configured>,
    constrained: bool,
    out: &Path,
    replace: bool,
) -> Result<Composed, OutputError> {
    let dir = RunDir::create(out, replace)?;
    let (proposer, budget) = self::proposer(model, constrained);
    let outcome = compose_with(assignment.clone(), seed, proposer.as_ref(), budget).await;
    Ok(write(dir, assignment, outcome, seed))
}

/// The budget and proposer of an exercise with `model` (or the embedded search).
pub fn proposer(
    model: Option<&Configured>,
    constrained: bool,
) -> (Box<dyn Proposer<Counterpoint>>, Budget) {
    let base = cantus_counterpoint::compose::budget();
    match model {
        None => (Box::new(EmbeddedProposer), base),
        Some(m) => (
            Box::new(ModelProposer::new(
                m.backend.clone(),
                m.settings.ask(constrained),
            )),
            m.settings.harness.budget(base),
        ),
    }
}

/// Writes the exercise in every format, the trace and `report.json`, and commits.
pub fn write(
    dir: RunDir,
    assignment: &Assignment,
    outcome: Outcome<Counterpoint>,
    seed: u64,
) -> Composed {
    let released = outcome.is_released();
    let mut files = Vec::new();
    let mut write_errors = Vec::new();
    if let Some(score) = outcome.artefact() {
        let (written, errors) = dir.write_piece(released, score);
        files.extend(written.iter().map(|p| p.display().to_string()));
        write_errors.extend(errors);
    }
    match dir.write_with("trace.jsonl", |out| outcome.trace().write_jsonl(out, true)) {
        Ok(p) => files.push(p.display().to_string()),
        Err(e) => write_errors.push(e.to_string()),
    }
    let report = ExerciseReport::new(assignment, &outcome, seed, files, write_errors.clone());
    if let Err(e) = dir.write_json("report.json", &report) {
        write_errors.push(e.to_string());
    }
    let dir = match dir.commit() {
        Ok(d) => Some(d),
        Err(e) => {
            write_errors.push(e.to_string());
            None
        }
    };
    Composed {
        outcome,
        released,
        write_errors,
        dir,
    }
}
