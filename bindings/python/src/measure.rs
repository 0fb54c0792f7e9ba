//! `cantus.fingerprint` and `cantus.compare`: Libretto's 29 axes placed against a
//! calibration table, and copy risk with fingerprint distance — the numbers and JSON
//! of `cantus fingerprint --json` and `cantus compare --json`.

use crate::errors::{Place, error};
use crate::score::NativeScore;
use cantus_libretto::copy::COPY_THRESHOLD;
use cantus_libretto::fingerprint::raw_axes;
use cantus_libretto::{Calibration, Extreme, Fingerprint, Layout, NoteGrid};
use pyo3::prelude::*;
use serde_json::{Map, json};
use std::path::PathBuf;

fn table(py: Python<'_>, path: Option<PathBuf>) -> PyResult<Calibration> {
    Calibration::from_file_or_original(path.as_deref()).map_err(|e| {
        error(
            py,
            "MeasureError",
            e.to_string(),
            path.map(|p| Place::file(p.display().to_string()))
                .unwrap_or_default(),
        )
    })
}

/// The piece laid out as Libretto measures it: the text as the original read it
/// when it came from the text grammar, else the score as its encoder writes it.
fn layout(py: Python<'_>, score: &NativeScore) -> PyResult<Layout> {
    let laid = match &score.text {
        Some(text) => Layout::from_text(text),
        None => Layout::from_score(&score.score),
    };
    laid.map_err(|e| measure_error(py, score, e))
}

fn measure_error(py: Python<'_>, score: &NativeScore, e: impl std::fmt::Display) -> PyErr {
    error(
        py,
        "MeasureError",
        format!("{}: {e}", score.source),
        Place::file(score.source.clone()),
    )
}

fn place(
    py: Python<'_>,
    score: &NativeScore,
    table: &Calibration,
) -> PyResult<(Layout, Fingerprint)> {
    let layout = layout(py, score)?;
    let raw = py
        .detach(|| raw_axes(&layout))
        .map_err(|e| measure_error(py, score, e))?;
    Ok((layout, Fingerprint::place(&raw, table)))
}

fn extreme_word(e: Option<Extreme>) -> Option<&'static str> {
    e.map(|e| match e {
        Extreme::Low => "low",
        Extreme::High => "high",
    })
}

/// The fingerprint of `score` against `calibration` (the shipped 314-song table
/// when None), as JSON.
#[pyfunction]
#[pyo3(signature = (score, calibration=None))]
pub fn fingerprint(
    py: Python<'_>,
    score: &NativeScore,
    calibration: Option<PathBuf>,
) -> PyResult<String> {
    let table = table(py, calibration)?;
    let (_, fp) = place(py, score, &table)?;
    let mut axes = Map::new();
    let mut order = Vec::new();
    for r in &fp.readings {
        order.push(r.axis.id().to_string());
        axes.insert(
            r.axis.id().to_string(),
            json!({
                "raw": r.raw,
                "percentile": r.percentile,
                "extreme": extreme_word(r.extreme()),
                "family": format!("{:?}", r.axis.family()).to_lowercase(),
            }),
        );
    }
    Ok(json!({
        "file": score.source,
        "calibration": table.source,
        "reference_pieces": table.pieces(),
        "order": order,
        "axes": axes,
        "extremes": fp.extremes().map(|r| r.axis.id()).collect::<Vec<_>>(),
    })
    .to_string())
}

/// How much of `a` `b` already holds, and how far apart their fingerprints are, as JSON.
#[pyfunction]
#[pyo3(signature = (a, b, calibration=None))]
pub fn compare(
    py: Python<'_>,
    a: &NativeScore,
    b: &NativeScore,
    calibration: Option<PathBuf>,
) -> PyResult<String> {
    let table = table(py, calibration)?;
    let (la, fa) = place(py, a, &table)?;
    let (lb, fb) = place(py, b, &table)?;
    let (risk, offset, reverse, notes) = py.detach(|| {
        let (ga, gb) = (NoteGrid::of(&la.song()), NoteGrid::of(&lb.song()));
        let (risk, offset) = ga.slide_overlap(&gb);
        let (reverse, _) = gb.slide_overlap(&ga);
        (risk, offset, reverse, ga.total)
    });
    Ok(json!({
        "a": a.source,
        "b": b.source,
        "copy_risk": risk,
        "copy_risk_reverse": reverse,
        "offset": offset,
        "notes_a": notes,
        "threshold": COPY_THRESHOLD,
        "copy": risk >= COPY_THRESHOLD,
        "distance": fa.distance(&fb),
    })
    .to_string())
}
