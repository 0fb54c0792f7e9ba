//! Engravings by LilyPond for notebooks and files: the score (with an analysis's
//! labels when given) through `cantus-render`'s engraver, the one `cantus render`
//! uses. Without LilyPond the notebook display falls back to a table, so
//! [`lilypond_available`] is asked first.

use crate::errors::{Place, error};
use crate::score::NativeScore;
use crate::serial::Marks;
use cantus_music::annotation::Annotations;
use cantus_render::engrave::{self as engraver, Target};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// Whether LilyPond can be run (`CANTUS_LILYPOND`, else `lilypond` on PATH).
#[pyfunction]
pub fn lilypond_available(py: Python<'_>) -> bool {
    py.detach(|| cantus_render::tools::lilypond().is_ok())
}

/// A fresh folder of its own under the system's temporary directory.
fn scratch() -> std::io::Result<PathBuf> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let dir =
        std::env::temp_dir().join(format!("cantus-python-{}-{n}-{nanos}", std::process::id()));
    std::fs::create_dir(&dir)?;
    Ok(dir)
}

/// Engraves `score` (with `marks` drawn on it) to `target` (`svg`, `png`, `pdf`) and
/// returns the file's bytes and LilyPond's warnings.
#[pyfunction]
#[pyo3(signature = (score, target="svg", marks=None))]
pub fn engrave(
    py: Python<'_>,
    score: &NativeScore,
    target: &str,
    marks: Option<&Marks>,
) -> PyResult<(Vec<u8>, Vec<String>)> {
    let target = Target::parse(target).ok_or_else(|| {
        error(
            py,
            "FormatError",
            format!("cannot engrave to {target:?}: use \"svg\", \"png\" or \"pdf\""),
            Place::default(),
        )
    })?;
    let empty = Annotations::new();
    let annotations = marks.map_or(&empty, |m| &m.0);
    let score = &score.score;
    let done = py.detach(|| -> Result<(Vec<u8>, Vec<String>), String> {
        let source = engraver::source(score, annotations, target).map_err(|e| e.to_string())?;
        let dir = scratch().map_err(|e| format!("cannot make a temporary folder: {e}"))?;
        let engraved = engraver::engrave(&source, &dir, "score", target)
            .map_err(|e| e.to_string())
            .and_then(|e| {
                std::fs::read(&e.file)
                    .map(|bytes| (bytes, e.warnings))
                    .map_err(|err| format!("{}: {err}", e.file.display()))
            });
        let _ = std::fs::remove_dir_all(&dir);
        engraved
    });
    done.map_err(|e| error(py, "EngraveError", e, Place::default()))
}
