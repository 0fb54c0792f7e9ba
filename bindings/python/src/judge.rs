//! `cantus.verify`: a score judged by a rule domain's release gate, chosen by name —
//! the same gate, options and JSON verdict as `cantus verify [--domain NAME] --json`.
//!
//! The verdict crosses as that JSON (violations with rule id, severity, bar, voice,
//! onset and reason; facts), so every domain's verdict has one shape in Python.

use crate::errors::{Place, colon_place, error};
use crate::score::NativeScore;
use cantus_counterpoint::rules::Profile;
use cantus_counterpoint::{Position, ReadOptions, Species, SpeciesGate};
use cantus_twelve_tone::Blueprint;
use cantus_twelve_tone::gate::{GateMode, SerialGate};
use cantus_twelve_tone::row::row_or_name;
use cantus_twelve_tone::spec::Spec;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

/// The rule domains `verify` knows, by the names the CLI's `--domain` takes. (Listed
/// here until the domain registry of issue 26 lands; then every registered domain.)
pub const DOMAINS: [&str; 3] = ["twelve-tone", "counterpoint", "chorale"];

/// The names of the rule domains `verify` can judge by.
#[pyfunction]
pub fn domains() -> Vec<&'static str> {
    DOMAINS.to_vec()
}

/// How to judge, as Python passes it (the CLI's flags of `cantus verify`).
#[derive(FromPyObject)]
pub struct Options {
    mode: String,
    row: Option<String>,
    spec: Option<PathBuf>,
    seed: u64,
    species: Option<u8>,
    cantus_voice: Option<String>,
    position: Option<String>,
    profile: Option<String>,
}

/// Judges `score` by the gate of `domain`; returns the verdict as JSON.
#[pyfunction]
pub fn verify(
    py: Python<'_>,
    score: &NativeScore,
    domain: &str,
    options: Options,
) -> PyResult<String> {
    match domain {
        "twelve-tone" => twelve_tone(py, score, &options),
        "counterpoint" => counterpoint(py, score, &options),
        "chorale" => chorale(py, score, &options),
        _ => Err(error(
            py,
            "DomainError",
            format!(
                "unknown domain {domain:?}; the domains are {}",
                DOMAINS.join(", ")
            ),
            Place::default(),
        )),
    }
}

fn option_error(py: Python<'_>, message: String) -> PyErr {
    error(py, "DomainError", message, Place::default())
}

fn twelve_tone(py: Python<'_>, score: &NativeScore, o: &Options) -> PyResult<String> {
    let mode = match o.mode.as_str() {
        "strict" => GateMode::Strict,
        "relaxed" => GateMode::Relaxed,
        other => {
            return Err(option_error(
                py,
                format!("mode {other:?}: use \"strict\" or \"relaxed\""),
            ));
        }
    };
    if o.species.is_some()
        || o.cantus_voice.is_some()
        || o.position.is_some()
        || o.profile.is_some()
    {
        return Err(option_error(
            py,
            "species, cantus_voice, position and profile are counterpoint's and chorale's options"
                .into(),
        ));
    }
    if o.spec.is_some() && o.row.is_some() {
        return Err(option_error(
            py,
            "give a spec or a row, not both: the spec names its row".into(),
        ));
    }
    let plan = match &o.spec {
        Some(path) => Some(plan(py, path, o.seed)?),
        None => None,
    };
    let row = match &o.row {
        Some(text) => Some(
            row_or_name(text)
                .map_err(|e| error(py, "RowError", e.to_string(), Place::default()))?
                .0,
        ),
        None => None,
    };
    let gate = match (&plan, row) {
        (Some(plan), _) => SerialGate::for_plan(plan, mode),
        (None, Some(row)) => SerialGate::for_row(row, Default::default(), mode),
        (None, None) => SerialGate::inferring(mode),
    };
    let scored = Arc::clone(&score.score);
    let report = py.detach(|| gate.judge_score(&scored));
    let out = cantus_twelve_tone::report::VerifyReport::new(
        score.source.clone(),
        scored.event_count(),
        &report,
    );
    json(py, &out, "twelve-tone")
}

/// The blueprint of the spec file at `path`, planned with `seed`.
fn plan(py: Python<'_>, path: &std::path::Path, seed: u64) -> PyResult<Blueprint> {
    let text =
        cantus_music::format::read_text(path).map_err(|e| crate::errors::read_error(py, e))?;
    let spec = Spec::from_toml_str(&text, &path.display().to_string()).map_err(|e| {
        let place = Place {
            line: e.line,
            column: e.column,
            ..Place::file(path.display().to_string())
        };
        error(py, "SpecError", e.to_string(), place)
    })?;
    Blueprint::new(&spec, seed).map_err(|e| {
        error(
            py,
            "SpecError",
            format!("{}: cannot plan this piece: {e}", path.display()),
            Place::file(path.display().to_string()),
        )
    })
}

fn counterpoint(py: Python<'_>, score: &NativeScore, o: &Options) -> PyResult<String> {
    if o.row.is_some() || o.spec.is_some() || o.mode != "strict" {
        return Err(option_error(
            py,
            "row, spec and mode are twelve-tone's options; counterpoint is judged by its profile"
                .into(),
        ));
    }
    let species = match o.species {
        None => None,
        Some(n) => Some(
            Species::from_number(n)
                .ok_or_else(|| option_error(py, format!("species {n}: use 1 or 2")))?,
        ),
    };
    let position = match o.position.as_deref() {
        None => None,
        Some("above") => Some(Position::Above),
        Some("below") => Some(Position::Below),
        Some(other) => {
            return Err(option_error(
                py,
                format!("position {other:?}: use \"above\" or \"below\""),
            ));
        }
    };
    let named = o.profile.as_deref().unwrap_or("fux");
    let profile = Profile::parse(named).ok_or_else(|| {
        option_error(py, format!("profile {named:?}: use \"fux\" or \"lenient\""))
    })?;
    let options = ReadOptions {
        species,
        cantus_voice: o.cantus_voice.clone(),
        position,
        profile,
    };
    let scored = Arc::clone(&score.score);
    let judged = py.detach(|| SpeciesGate::reading(options).try_judge(&scored));
    let (report, reading) = judged.map_err(|e| {
        error(
            py,
            "DomainError",
            format!("{}: not a two-voice species exercise: {e}", score.source),
            Place::file(score.source.clone()),
        )
    })?;
    let out = cantus_counterpoint::report::VerifyReport::new(
        score.source.clone(),
        scored.event_count(),
        &report,
        &reading.exercise,
        profile,
    );
    json(py, &out, "counterpoint")
}

fn chorale(py: Python<'_>, score: &NativeScore, o: &Options) -> PyResult<String> {
    if o.row.is_some()
        || o.spec.is_some()
        || o.mode != "strict"
        || o.species.is_some()
        || o.cantus_voice.is_some()
        || o.position.is_some()
    {
        return Err(option_error(
            py,
            "the chorale domain takes a profile (\"strict\" or \"lenient\") and nothing else"
                .into(),
        ));
    }
    let named = o.profile.as_deref().unwrap_or("strict");
    let profile = cantus_chorale::Profile::parse(named).ok_or_else(|| {
        option_error(
            py,
            format!("profile {named:?}: use \"strict\" or \"lenient\""),
        )
    })?;
    let options = cantus_chorale::ReadOptions {
        profile,
        ..Default::default()
    };
    let scored = Arc::clone(&score.score);
    let judged = py.detach(|| cantus_chorale::judge_score(&scored, &options));
    let (report, _, _) = judged.map_err(|e| {
        error(
            py,
            "DomainError",
            format!("{}: not a four-part chorale: {e}", score.source),
            Place::file(score.source.clone()),
        )
    })?;
    let out = serde_json::json!({
        "file": score.source,
        "passed": report.passed,
        "gate": report.gate,
        "events": scored.event_count(),
        "violations": report.violations.iter().map(|v| v.flat()).collect::<Vec<_>>(),
        "unlisted": report.unlisted,
        "facts": report.facts,
    });
    json(py, &out, "chorale")
}

/// The report as JSON with the domain's name added.
fn json(py: Python<'_>, report: &impl serde::Serialize, domain: &str) -> PyResult<String> {
    let mut value = serde_json::to_value(report)
        .map_err(|e| error(py, "CantusError", e.to_string(), Place::default()))?;
    if let Some(map) = value.as_object_mut() {
        map.insert("domain".into(), domain.into());
    }
    Ok(value.to_string())
}

/// Reads a `file:line:column: …` message into an exception of `class`.
pub fn located(py: Python<'_>, class: &str, message: String) -> PyErr {
    let place = colon_place(&message);
    error(py, class, message, place)
}
