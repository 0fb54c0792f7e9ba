//! `cantus.compose`: a piece through the harness — the embedded proposer by
//! default, the model a `cantus.toml` names otherwise — with the program's own
//! code (the domains' registered units, `cantus_twelve_tone::plugin` and
//! `cantus_counterpoint::plugin`, and `cantus::models`), so a
//! piece composed from Python is the one `cantus compose` writes for the same
//! brief and seed.
//!
//! The run happens with the interpreter released (`Python::detach`): other Python
//! threads go on while it composes. Its files are written only when `out` is given,
//! as `cantus compose --out` writes them (all or none).

use crate::errors::{Place, error};
use crate::judge::located;
use crate::score::NativeScore;
use cantus::models::{Configured, ModelSource};
use cantus_counterpoint::{Assignment, Position, Species};
use cantus_framework::Outcome;
use cantus_registry::RunDir;
use cantus_twelve_tone::compose::Composer;
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::plugin::job::{Piece, PieceError, gate_mode};
use cantus_twelve_tone::report::{BriefReport, ComposeReport};
use pyo3::prelude::*;
use std::path::PathBuf;

/// What `compose` was asked, as Python passes it.
#[derive(FromPyObject)]
pub struct Request {
    domain: String,
    brief: Option<String>,
    spec: Option<PathBuf>,
    seed: u64,
    config: Option<PathBuf>,
    record: Option<PathBuf>,
    replay: Option<PathBuf>,
    mode: Option<String>,
    constrained: bool,
    revise: Option<u32>,
    cantus: Option<String>,
    species: Option<u8>,
    position: Option<String>,
    out: Option<PathBuf>,
    force: bool,
}

/// What a run came to: the piece (released or not, when one was made), the report
/// and the trace as the CLI writes them, and the run folder when one was written.
#[pyclass(frozen, module = "cantus._cantus", name = "Composed")]
pub struct Composed {
    #[pyo3(get)]
    released: bool,
    piece: Option<Py<NativeScore>>,
    #[pyo3(get)]
    report: String,
    #[pyo3(get)]
    trace: String,
    #[pyo3(get)]
    out: Option<PathBuf>,
    #[pyo3(get)]
    write_errors: Vec<String>,
}

#[pymethods]
impl Composed {
    #[getter]
    fn piece(&self, py: Python<'_>) -> Option<Py<NativeScore>> {
        self.piece.as_ref().map(|p| p.clone_ref(py))
    }
}

fn bad(py: Python<'_>, message: impl Into<String>) -> PyErr {
    error(py, "ComposeError", message, Place::default())
}

fn runtime(py: Python<'_>) -> PyResult<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| bad(py, format!("cannot start the async runtime: {e}")))
}

/// Composes what `request` asks for.
#[pyfunction]
pub fn compose(py: Python<'_>, request: Request) -> PyResult<Composed> {
    let source = ModelSource {
        config: request.config.clone(),
        record: request.record.clone(),
        replay: request.replay.clone(),
    };
    let model = source
        .open()
        .map_err(|e| located(py, "ConfigError", e.to_string()))?;
    match request.domain.as_str() {
        "twelve-tone" => twelve_tone(py, &request, model.as_ref()),
        "counterpoint" => counterpoint(py, &request, model.as_ref()),
        other => Err(error(
            py,
            "DomainError",
            format!("unknown domain {other:?}; compose knows twelve-tone and counterpoint"),
            Place::default(),
        )),
    }
}

fn piece_error(py: Python<'_>, e: PieceError) -> PyErr {
    match e {
        PieceError::Spec(s) => {
            let place = Place {
                line: s.line,
                column: s.column,
                path: s.source_name.clone(),
                ..Place::default()
            };
            error(py, "SpecError", s.to_string(), place)
        }
        PieceError::Read(r) => crate::errors::read_error(py, r),
        PieceError::Missing => bad(py, "give a brief or a spec"),
        PieceError::Brief(b) => error(py, "BriefError", b, Place::default()),
    }
}

fn twelve_tone(py: Python<'_>, r: &Request, model: Option<&Configured>) -> PyResult<Composed> {
    if r.cantus.is_some() || r.species.is_some() || r.position.is_some() {
        return Err(bad(
            py,
            "cantus, species and position are counterpoint's (domain=\"counterpoint\")",
        ));
    }
    if r.brief.is_some() && r.spec.is_some() {
        return Err(bad(py, "give a brief or a spec, not both"));
    }
    let piece =
        Piece::load(r.brief.as_deref(), r.spec.as_deref()).map_err(|e| piece_error(py, e))?;
    let flag = match r.mode.as_deref() {
        None => None,
        Some("strict") => Some(GateMode::Strict),
        Some("relaxed") => Some(GateMode::Relaxed),
        Some(other) => {
            return Err(bad(
                py,
                format!("mode {other:?}: use \"strict\" or \"relaxed\""),
            ));
        }
    };
    if r.revise == Some(0) {
        return Err(bad(py, "revise: at least one round"));
    }
    let registered = model.map(Configured::model);
    let model = registered.as_ref();
    let mode = gate_mode(flag, model);
    let dir = match &r.out {
        Some(out) => Some(RunDir::create(out, r.force).map_err(|e| bad(py, e.to_string()))?),
        None => None,
    };
    let rt = runtime(py)?;
    let (seed, constrained, revise) = (r.seed, r.constrained, r.revise);
    let composed = py.detach(|| {
        rt.block_on(async {
            let (proposer, budget) = cantus_twelve_tone::plugin::job::proposer(model, constrained);
            let composer = Composer::new(mode, budget);
            match revise {
                None => composer.compose(&piece.spec, seed, proposer.as_ref()).await,
                Some(rounds) => cantus_twelve_tone::plugin::job::revise(
                    &composer,
                    &piece.spec,
                    seed,
                    proposer.as_ref(),
                    rounds,
                )
                .await
                .map(|(composition, _)| composition),
            }
        })
    });
    let composition = composed.map_err(|e| bad(py, format!("cannot plan this piece: {e}")))?;
    let degeneracy = match (&composition.outcome, model) {
        (Outcome::Released { artefact, .. }, Some(_)) => {
            Some(cantus_twelve_tone::plugin::job::degeneracy(artefact))
        }
        _ => None,
    };
    let outcome = &composition.outcome;
    let mut trace = Vec::new();
    outcome
        .trace()
        .write_jsonl(&mut trace, true)
        .map_err(|e| bad(py, e.to_string()))?;
    let (out, write_errors) = match dir {
        Some(dir) => {
            let written = cantus_twelve_tone::plugin::job::write_composition(
                dir,
                &composition,
                &piece,
                seed,
                degeneracy.clone(),
                None,
            );
            (written.dir, written.write_errors)
        }
        None => (None, Vec::new()),
    };
    let brief = piece
        .brief
        .as_ref()
        .map(|(text, compiled)| BriefReport::of(text, compiled));
    let mut report = ComposeReport::new(
        &composition,
        &piece.spec,
        brief,
        seed,
        Vec::new(),
        Vec::new(),
    );
    report.degeneracy = degeneracy;
    let report = serde_json::to_string(&report).map_err(|e| bad(py, e.to_string()))?;
    finish(
        py,
        outcome.is_released(),
        outcome.artefact().cloned(),
        report,
        trace,
        out,
        write_errors,
    )
}

fn counterpoint(py: Python<'_>, r: &Request, model: Option<&Configured>) -> PyResult<Composed> {
    if r.brief.is_some() || r.spec.is_some() || r.mode.is_some() || r.revise.is_some() {
        return Err(bad(
            py,
            "brief, spec, mode and revise are twelve-tone's; counterpoint takes cantus, species and position",
        ));
    }
    let Some(cantus_arg) = r.cantus.as_deref() else {
        return Err(bad(
            py,
            "counterpoint needs cantus=: a mode (dorian, phrygian, lydian, mixolydian, aeolian, ionian) or a file",
        ));
    };
    let cantus = cantus_counterpoint::plugin::compose::cantus(cantus_arg)
        .map_err(|e| bad(py, e.to_string()))?;
    let species = match r.species {
        None => Species::First,
        Some(n) => {
            Species::from_number(n).ok_or_else(|| bad(py, format!("species {n}: use 1 or 2")))?
        }
    };
    let position = match r.position.as_deref() {
        None | Some("above") => Position::Above,
        Some("below") => Position::Below,
        Some(other) => {
            return Err(bad(
                py,
                format!("position {other:?}: use \"above\" or \"below\""),
            ));
        }
    };
    let assignment = Assignment::new(cantus, species, position);
    let registered = model.map(Configured::model);
    let model = registered.as_ref();
    let rt = runtime(py)?;
    let (seed, constrained) = (r.seed, r.constrained);
    let outcome = py.detach(|| {
        rt.block_on(async {
            let (proposer, budget) =
                cantus_counterpoint::plugin::compose::proposer(model, constrained);
            cantus_counterpoint::compose_with(assignment.clone(), seed, proposer.as_ref(), budget)
                .await
        })
    });
    let mut trace = Vec::new();
    outcome
        .trace()
        .write_jsonl(&mut trace, true)
        .map_err(|e| bad(py, e.to_string()))?;
    let report = cantus_counterpoint::report::ExerciseReport::new(
        &assignment,
        &outcome,
        seed,
        Vec::new(),
        Vec::new(),
    );
    let report = serde_json::to_string(&report).map_err(|e| bad(py, e.to_string()))?;
    let released = outcome.is_released();
    let piece = outcome.artefact().cloned();
    let (out, write_errors) = match &r.out {
        Some(dir) => {
            let dir = RunDir::create(dir, r.force).map_err(|e| bad(py, e.to_string()))?;
            let written =
                cantus_counterpoint::plugin::compose::write(dir, &assignment, outcome, seed);
            (written.dir, written.write_errors)
        }
        None => (None, Vec::new()),
    };
    finish(py, released, piece, report, trace, out, write_errors)
}

fn finish(
    py: Python<'_>,
    released: bool,
    piece: Option<cantus_music::Score>,
    report: String,
    trace: Vec<u8>,
    out: Option<PathBuf>,
    write_errors: Vec<String>,
) -> PyResult<Composed> {
    let piece = piece
        .map(|s| Py::new(py, NativeScore::made(s, "<composed>")))
        .transpose()?;
    Ok(Composed {
        released,
        piece,
        report,
        trace: String::from_utf8_lossy(&trace).into_owned(),
        out,
        write_errors,
    })
}
