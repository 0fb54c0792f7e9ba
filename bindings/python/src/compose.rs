//! `cantus.compose`: an artefact through the harness — the embedded proposer by
//! default, the model a `cantus.toml` names otherwise — by the domain's registered
//! composer (`cantus-registry`), the very job `cantus compose --domain NAME` runs,
//! so what Python composes is what the command line writes for the same options
//! and seed, for every domain the program links, with nothing here naming one.
//!
//! The job writes its run folder (the one `out` names, else a temporary one, removed
//! once read); the report, the trace and the artefact are read back from it. The run
//! happens with the interpreter released (`Python::detach`): other Python threads go
//! on while it composes. With `out`, the folder is written as `cantus compose --out`
//! writes it (all or none).

use crate::errors::{Place, error};
use crate::judge::{Given, args, domain_error, located, unit};
use crate::score::NativeScore;
use cantus_backend::ModelSource;
use cantus_registry::{Composed as RunComposed, DomainError, Opt, Run, RunDir, Unit, View, layout};
use pyo3::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// What `compose` was asked, as Python passes it.
#[derive(FromPyObject)]
pub struct Request {
    /// `None`: the program's default domain.
    domain: Option<String>,
    /// The domain's flags by name, `None` for a switch.
    options: Given,
    seed: u64,
    config: Option<PathBuf>,
    record: Option<PathBuf>,
    replay: Option<PathBuf>,
    constrained: bool,
    out: Option<PathBuf>,
    force: bool,
}

/// What a run came to: the artefact (released or not, when one was made) as a
/// score or as text, the report and the trace as the CLI writes them, and the run
/// folder when one was written.
#[pyclass(frozen, module = "cantus._cantus", name = "Composed")]
pub struct Composed {
    #[pyo3(get)]
    released: bool,
    piece: Option<Py<NativeScore>>,
    /// The artefact as text, when it is not a score.
    #[pyo3(get)]
    text: Option<String>,
    #[pyo3(get)]
    report: String,
    #[pyo3(get)]
    trace: String,
    #[pyo3(get)]
    out: Option<PathBuf>,
    #[pyo3(get)]
    write_errors: Vec<String>,
    /// What the job told the user before its work (defaults applied, words not
    /// understood), and its summary after.
    #[pyo3(get)]
    notes: Vec<String>,
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

fn compose_table(unit: &Unit) -> Option<&'static [Opt]> {
    unit.composer().ok().map(|c| c.options())
}

/// Composes what `request` asks for.
#[pyfunction]
pub fn compose(py: Python<'_>, request: Request) -> PyResult<Composed> {
    let unit = unit(py, request.domain.as_deref())?;
    let composer = unit
        .composer()
        .map_err(|e| error(py, "DomainError", e.to_string(), Place::default()))?;
    let args = args(py, unit, request.options, compose_table, "ComposeError")?;
    let source = ModelSource {
        config: request.config.clone(),
        record: request.record.clone(),
        replay: request.replay.clone(),
    };
    let configured = source
        .open()
        .map_err(|e| located(py, "ConfigError", e.to_string()))?;
    let model = configured
        .as_ref()
        .map(cantus::experiment::file::registry_model);
    let (folder, temporary) = match &request.out {
        Some(out) => (out.clone(), false),
        None => (scratch_folder(), true),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| bad(py, format!("cannot start the async runtime: {e}")))?;
    let (seed, constrained, force) = (request.seed, request.constrained, request.force);
    let ran: Result<(Vec<String>, RunComposed), DomainError> = py.detach(|| {
        let asked = cantus_registry::Request {
            model: model.as_ref(),
            raw: false,
            constrained,
        };
        // The job is read and checked before anything is written.
        let job = composer.prepare(&args, asked)?;
        let notes = job.notes();
        let run = Run {
            seed,
            folder: RunDir::create(&folder, force || temporary)?,
            progress: None,
        };
        let composed = rt.block_on(job.run(run))?;
        Ok((notes, composed))
    });
    let read = ran.map(|(mut notes, composed)| {
        notes.extend(composed.lines.iter().cloned());
        let files = composed
            .dir
            .as_deref()
            .map(|d| read_back(unit, d, composed.released));
        (notes, composed, files)
    });
    if temporary {
        // Whatever the run came to, the scratch folder goes (a failed run leaves none).
        let _ = std::fs::remove_dir_all(&folder);
    }
    let (notes, composed, files) = read.map_err(|e| domain_error(py, &e, "ComposeError"))?;
    let files = files.unwrap_or_default();
    let mut report = match files.report {
        serde_json::Value::Null => serde_json::json!({}),
        report => report,
    };
    if temporary {
        // The run folder was a scratch one, gone now: the report names no files.
        if let Some(map) = report.as_object_mut() {
            map.remove("files");
        }
    }
    let (piece, text) = match files.artefact {
        Some(View::Score(score)) => (
            Some(Py::new(py, NativeScore::made(score, "<composed>"))?),
            None,
        ),
        Some(View::Text(text)) => (None, Some(text)),
        None => (None, None),
    };
    let mut write_errors = composed.write_errors;
    write_errors.extend(files.errors);
    Ok(Composed {
        released: composed.released,
        piece,
        text,
        report: report.to_string(),
        trace: files.trace,
        out: if temporary { None } else { composed.dir },
        write_errors,
        notes,
    })
}

/// A fresh folder name under the system's temporary directory.
fn scratch_folder() -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("cantus-python-{}-{n}", std::process::id()))
}

/// What a run folder holds, read back.
#[derive(Default)]
struct Files {
    report: serde_json::Value,
    trace: String,
    artefact: Option<View>,
    /// What could not be read back.
    errors: Vec<String>,
}

/// Reads the report, the trace and the artefact (in the first format of its
/// domain's it was written in) from the run folder `dir`.
fn read_back(unit: &Unit, dir: &Path, released: bool) -> Files {
    let mut files = Files::default();
    let text = |name: &str| std::fs::read_to_string(dir.join(name));
    match text(layout::REPORT).map(|t| serde_json::from_str(&t)) {
        Ok(Ok(report)) => files.report = report,
        Ok(Err(e)) => files.errors.push(format!("{}: {e}", layout::REPORT)),
        Err(e) => files.errors.push(format!("{}: {e}", layout::REPORT)),
    }
    match text(layout::TRACE) {
        Ok(trace) => files.trace = trace,
        Err(e) => files.errors.push(format!("{}: {e}", layout::TRACE)),
    }
    if let Ok(kind) = unit.artefact_kind() {
        let written = kind
            .reads()
            .iter()
            .map(|ext| dir.join(layout::artefact_file(released, ext)))
            .find(|path| path.is_file());
        if let Some(path) = written {
            match kind.read_view(&path) {
                Ok((view, _)) => files.artefact = Some(view),
                Err(e) => files.errors.push(format!("{}: {e}", path.display())),
            }
        }
    }
    files
}
