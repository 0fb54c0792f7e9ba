//! `cantus.analyze` and `cantus.rows`: the serial analyser (`cantus analyze`) and the
//! row engine (`cantus rows`), their reports crossing as the CLI's JSON.

use crate::errors::{Place, error};
use crate::score::NativeScore;
use cantus_music::annotation::Annotations;
use cantus_twelve_tone::analysis::{CONTROL_COPIES, Options, analyze as analyse, annotations};
use cantus_twelve_tone::row::{Convention, RowsReport, row_or_name};
use pyo3::prelude::*;
use std::sync::Arc;

/// The analysis's marks on the score (labels over statements, order positions),
/// kept for engraving.
#[pyclass(frozen, module = "cantus._cantus", name = "Marks")]
pub struct Marks(pub Annotations);

fn row_error(py: Python<'_>, e: impl ToString) -> PyErr {
    error(py, "RowError", e.to_string(), Place::default())
}

/// Analyses `score` with `row` (inferred when None), judging the verdict against
/// `control_copies` pitch-class-shuffled copies: `(json, listing, marks)`.
#[pyfunction]
#[pyo3(signature = (score, row=None, min_positions=8, control_copies=CONTROL_COPIES))]
pub fn analyze(
    py: Python<'_>,
    score: &NativeScore,
    row: Option<&str>,
    min_positions: u8,
    control_copies: u8,
) -> PyResult<(String, String, Marks)> {
    let row = row
        .map(row_or_name)
        .transpose()
        .map_err(|e| row_error(py, e))?
        .map(|(row, _)| row);
    let options = Options {
        row,
        min_positions,
        control_copies,
    };
    let scored = Arc::clone(&score.score);
    let analysis = py.detach(|| analyse(&scored, &options)).map_err(|e| {
        error(
            py,
            "AnalysisError",
            format!("{}: {e}", score.source),
            Place::file(score.source.clone()),
        )
    })?;
    Ok((
        analysis.to_json(),
        analysis.to_string(),
        Marks(annotations(&analysis)),
    ))
}

/// The row `text` names (pitch classes, note names, or a historical name): its
/// 48 forms, matrix and properties as `(json, listing)`.
#[pyfunction]
#[pyo3(signature = (text, convention="zero-centred"))]
pub fn rows(py: Python<'_>, text: &str, convention: &str) -> PyResult<(String, String)> {
    let convention: Convention = convention.parse().map_err(|_| {
        error(
            py,
            "RowError",
            format!("convention {convention:?}: use \"zero-centred\" or \"relative\""),
            Place::default(),
        )
    })?;
    let (row, historical) = row_or_name(text).map_err(|e| row_error(py, e))?;
    let report = RowsReport::new(&row, historical.map(|h| h.id.as_str()), convention);
    Ok((report.to_json(), report.to_string()))
}

/// Every historical row (music21's table): `(id, composer, opus, title, pitch classes)`.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn historical_rows() -> Vec<(String, String, Option<String>, String, Vec<u8>)> {
    cantus_twelve_tone::row::historical_rows()
        .iter()
        .map(|h| {
            (
                h.id.clone(),
                h.composer.clone(),
                h.opus.clone(),
                h.title.clone(),
                h.row.pcs().to_vec(),
            )
        })
        .collect()
}
