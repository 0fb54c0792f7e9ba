//! `cantus compose --domain counterpoint`: write a Fux species exercise against a
//! cantus firmus (Fux's own by mode, or one from a file) with the embedded search or
//! a model, and leave it on disk as one run directory.

use crate::report::{ExerciseReport, soft_line};
use crate::{
    Assignment, Cantus, Counterpoint, EmbeddedProposer, ModeName, ModelProposer, Position, Species,
    compose_with,
};
use cantus_framework::{Budget, Outcome, Proposer};
use cantus_registry::summary::{failure_lines, totals_line};
use cantus_registry::{
    Args, Compose, Composed, DomainError, Job, Model, Opt, Request, Run, RunDir, layout,
};
use std::path::Path;

const OPTIONS: &[Opt] = &[
    Opt::text(
        "cantus",
        "MODE|FILE",
        "Counterpoint: the cantus firmus — a mode (dorian, phrygian, lydian, mixolydian, aeolian, ionian) for Fux's own, or a file (.json like the shipped data, or a score whose \"Cantus\" voice has one note per bar).",
    ),
    Opt::number(
        "species",
        "SPECIES",
        1,
        2,
        "Counterpoint: species 1 (note against note) or 2 (two notes against one); default 1.",
    ),
    Opt::flag(
        "above",
        "Counterpoint: write the counterpoint above the cantus (the default).",
    )
    .conflicts_with(&["below"]),
    Opt::flag(
        "below",
        "Counterpoint: write the counterpoint below the cantus.",
    ),
];

/// `cantus compose --domain counterpoint`: `--cantus`, `--species`, `--above`/`--below`.
pub struct ComposeCounterpoint;

/// The position `--above` and `--below` name, if either.
pub(super) fn position(args: &Args) -> Option<Position> {
    match (args.flag("above"), args.flag("below")) {
        (true, _) => Some(Position::Above),
        (_, true) => Some(Position::Below),
        _ => None,
    }
}

/// The species `--species` names, if it does.
pub(super) fn species(args: &Args) -> Option<Species> {
    args.number("species")
        .and_then(|n| u8::try_from(n).ok())
        .and_then(Species::from_number)
}

impl Compose for ComposeCounterpoint {
    fn options(&self) -> &'static [Opt] {
        OPTIONS
    }

    fn prepare(&self, args: &Args, request: Request<'_>) -> Result<Box<dyn Job>, DomainError> {
        let Some(cantus_arg) = args.text("cantus") else {
            return Err(DomainError::new(
                "--domain counterpoint needs --cantus MODE|FILE (dorian, phrygian, lydian, mixolydian, aeolian, ionian, or a file)",
            ));
        };
        let cantus = cantus(cantus_arg).map_err(DomainError::new)?;
        if request.raw {
            return Err(DomainError::new(
                "--raw is not available for --domain counterpoint; the model proposer always runs through the harness",
            ));
        }
        let mut notes = Vec::new();
        if !args.given("species") {
            notes.push("default  species 1 (--species 2 for two notes against one)".to_owned());
        }
        if position(args).is_none() {
            notes.push("default  counterpoint above the cantus (--below for below)".to_owned());
        }
        let assignment = Assignment::new(
            cantus,
            species(args).unwrap_or(Species::First),
            position(args).unwrap_or(Position::Above),
        );
        Ok(Box::new(ExerciseJob {
            assignment,
            notes,
            model: request.model.cloned(),
            constrained: request.constrained,
        }))
    }
}

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

/// A prepared exercise.
struct ExerciseJob {
    assignment: Assignment,
    notes: Vec<String>,
    model: Option<Model>,
    constrained: bool,
}

#[cantus_registry::async_trait(?Send)]
impl Job for ExerciseJob {
    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    async fn run(&self, run: Run) -> Result<Composed, DomainError> {
        let out = run.folder.path().to_owned();
        let composed = compose(
            &self.assignment,
            run.seed,
            self.model.as_ref(),
            self.constrained,
            run.folder,
        )
        .await;
        let trace = composed.outcome.trace();
        let gate = trace
            .gate
            .as_ref()
            .map_or("gate not reached".to_owned(), |g| g.gate.clone());
        let mut lines = Vec::new();
        match &composed.outcome {
            Outcome::Released { .. } => {
                lines.push(format!(
                    "released ({gate}): {}, {} bars → {}",
                    self.assignment.title(),
                    self.assignment.cantus.len(),
                    out.display()
                ));
                if let Some(report) = &trace.gate {
                    lines.push(format!("soft: {}", soft_line(report)));
                }
                lines.push(format!(
                    "check it again with: cantus verify --domain counterpoint {}",
                    out.join(layout::artefact_file(true, "txt")).display()
                ));
            }
            Outcome::Failure { diagnostics, .. } => {
                lines.extend(failure_lines(&gate, diagnostics));
            }
        }
        lines.push(totals_line(&trace.totals));
        Ok(Composed {
            released: composed.released,
            lines,
            write_errors: composed.write_errors,
            dir: composed.dir,
        })
    }
}

/// What an exercise job came to.
pub struct Exercise {
    pub outcome: Outcome<Counterpoint>,
    pub released: bool,
    /// Files that could not be written, and why.
    pub write_errors: Vec<String>,
    /// The run directory (when it was committed).
    pub dir: Option<std::path::PathBuf>,
}

/// Writes `assignment` at `seed` with the model (or the embedded search) into `dir`.
pub async fn compose(
    assignment: &Assignment,
    seed: u64,
    model: Option<&Model>,
    constrained: bool,
    dir: RunDir,
) -> Exercise {
    let (proposer, budget) = self::proposer(model, constrained);
    let outcome = compose_with(assignment.clone(), seed, proposer.as_ref(), budget).await;
    write(dir, assignment, outcome, seed)
}

/// The budget and proposer of an exercise with `model` (or the embedded search).
pub fn proposer(
    model: Option<&Model>,
    constrained: bool,
) -> (Box<dyn Proposer<Counterpoint>>, Budget) {
    let base = crate::compose::budget();
    match model {
        None => (Box::new(EmbeddedProposer), base),
        Some(m) => (
            Box::new(ModelProposer::new(m.backend.clone(), m.ask(constrained))),
            m.budget(base),
        ),
    }
}

/// Writes the exercise in every format, the trace and `report.json`, and commits.
pub fn write(
    dir: RunDir,
    assignment: &Assignment,
    outcome: Outcome<Counterpoint>,
    seed: u64,
) -> Exercise {
    let released = outcome.is_released();
    let mut files = Vec::new();
    let mut write_errors = Vec::new();
    if let Some(score) = outcome.artefact() {
        let (written, errors) = dir.write_artefact(released, score);
        files.extend(written.iter().map(|p| p.display().to_string()));
        write_errors.extend(errors);
    }
    match dir.write_trace(outcome.trace()) {
        Ok(p) => files.push(p.display().to_string()),
        Err(e) => write_errors.push(e.to_string()),
    }
    let report = ExerciseReport::new(assignment, &outcome, seed, files, write_errors.clone());
    if let Err(e) = dir.write_json(layout::REPORT, &report) {
        write_errors.push(e.to_string());
    }
    let dir = match dir.commit() {
        Ok(d) => Some(d),
        Err(e) => {
            write_errors.push(e.to_string());
            None
        }
    };
    Exercise {
        outcome,
        released,
        write_errors,
        dir,
    }
}
