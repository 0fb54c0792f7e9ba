//! A piece as the renderer sees it: its artefact, the registered rule domain it
//! belongs to, and what a run left beside it (trace, `report.json`).
//!
//! `cantus render` takes either a score file (`.txt`, `.mid`, `.musicxml`) or a
//! directory a run wrote; a directory gives its `piece.*` (or `unreleased-piece.*`)
//! in the first format its domain reads back, its `trace.jsonl` and its
//! `report.json`. The domain is the one the report or the trace names, found in the
//! registry (an id the program does not know is an error, never a guess); a bare
//! score is the first domain's that recognises it, else the default domain's.

use crate::audio::TempoMap;
use crate::error::{RenderError, Result};
use crate::trace::TraceView;
use cantus_music::Score;
use cantus_music::format::read_path;
use cantus_registry::{Unit, View, domain_of_run, layout};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A piece and what came with it.
#[derive(Clone)]
pub struct Piece {
    /// The artefact file read.
    pub path: PathBuf,
    /// What a reader sees of the artefact: a score, or text.
    pub view: View,
    /// The registered domain it belongs to.
    pub domain: &'static Unit,
    /// The run's trace, when given or found beside the piece.
    pub trace: Option<TraceView>,
    /// The run's `report.json`, when found beside the piece.
    pub report: Option<Value>,
    /// The tempo map of a MIDI file (tempo changes the score model does not keep).
    pub tempo: TempoMap,
}

impl std::fmt::Debug for Piece {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Piece")
            .field("path", &self.path)
            .field("domain", self.domain.id())
            .finish_non_exhaustive()
    }
}

impl Piece {
    /// Reads a score file or a run directory; `trace` overrides the directory's.
    pub fn load(path: &Path, trace: Option<&Path>) -> Result<Piece> {
        let dir = path.is_dir().then(|| path.to_path_buf());
        let trace_path = trace
            .map(Path::to_path_buf)
            .or_else(|| dir.as_ref().map(|d| d.join(layout::TRACE)))
            .filter(|p| trace.is_some() || p.is_file());
        let trace = trace_path.map(|p| TraceView::read(&p)).transpose()?;
        let report = match dir.as_ref().map(|d| d.join(layout::REPORT)) {
            Some(p) if p.is_file() => {
                let text = std::fs::read_to_string(&p).map_err(|e| RenderError::io(&p, e))?;
                Some(serde_json::from_str(&text).map_err(|e| RenderError::Piece {
                    path: p.clone(),
                    message: format!("not JSON: {e}"),
                })?)
            }
            _ => None,
        };
        let named = report
            .as_ref()
            .and_then(|r: &Value| r.get("domain"))
            .or_else(|| trace.as_ref().and_then(|t| t.header.get("domain")))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let (file, view, domain) = match &dir {
            Some(dir) => {
                let unknown = |e: cantus_registry::UnknownDomain| RenderError::Piece {
                    path: dir.clone(),
                    message: e.to_string(),
                };
                let named_domain = domain_of_run(named.as_deref(), None).map_err(unknown)?;
                let (file, view) = read_run_artefact(dir, named_domain)?;
                // A folder that names no domain is the default's, unless another
                // domain recognises its score.
                let domain = match (&named, &view) {
                    (None, View::Score(score)) => {
                        domain_of_run(None, Some(score)).map_err(unknown)?
                    }
                    _ => named_domain,
                };
                (file, view, domain)
            }
            None => {
                let loaded = read_path(path, false).map_err(|e| RenderError::Piece {
                    path: path.to_path_buf(),
                    message: e.to_string(),
                })?;
                let domain = domain_of_run(named.as_deref(), Some(&loaded.score)).map_err(|e| {
                    RenderError::Piece {
                        path: path.to_path_buf(),
                        message: e.to_string(),
                    }
                })?;
                (path.to_path_buf(), View::Score(loaded.score), domain)
            }
        };
        let tempo = match &view {
            View::Score(score)
                if cantus_music::format::Format::from_path(&file).ok()
                    == Some(cantus_music::format::Format::Midi) =>
            {
                let bytes = std::fs::read(&file).map_err(|e| RenderError::io(&file, e))?;
                TempoMap::from_midi(&bytes, score.tempo)
            }
            View::Score(score) => TempoMap::constant(score.tempo),
            View::Text(_) => TempoMap::constant(None),
        };
        Ok(Piece {
            path: file,
            view,
            domain,
            trace,
            report,
            tempo,
        })
    }

    /// A piece from a score alone (no trace, no report), of the domain that
    /// recognises it (else the default domain).
    pub fn from_score(path: PathBuf, score: Score) -> Result<Piece> {
        let domain = domain_of_run(None, Some(&score)).map_err(|e| RenderError::Piece {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let tempo = TempoMap::constant(score.tempo);
        Ok(Piece {
            path,
            view: View::Score(score),
            domain,
            trace: None,
            report: None,
            tempo,
        })
    }

    /// The score, or why there is none: an artefact that is not a score has no
    /// engraving and no audio (its HTML page shows it as text).
    pub fn score(&self) -> Result<&Score> {
        self.view
            .score()
            .ok_or_else(|| not_a_score(&self.path, self.domain))
    }

    /// The score, to change before engraving it (a title taken off).
    pub fn score_mut(&mut self) -> Result<&mut Score> {
        match &mut self.view {
            View::Score(score) => Ok(score),
            View::Text(_) => Err(not_a_score(&self.path, self.domain)),
        }
    }

    /// A title for pages: the score's, else the file's stem and parent folder.
    pub fn title(&self) -> String {
        if let Some(t) = self.view.score().and_then(|s| s.title.as_ref()) {
            return t.clone();
        }
        let folder = self
            .path
            .parent()
            .and_then(Path::file_name)
            .map(|f| f.to_string_lossy().into_owned());
        let stem = self
            .path
            .file_stem()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        match folder {
            Some(f) if stem.ends_with(layout::RELEASED) => f,
            _ => stem,
        }
    }
}

/// Why an artefact that is not a score cannot be engraved or played.
fn not_a_score(path: &Path, domain: &Unit) -> RenderError {
    RenderError::Piece {
        path: path.to_path_buf(),
        message: format!(
            "the {} domain's artefact is not a score: it has no engraving or audio \
             (--html shows it as text)",
            domain.id()
        ),
    }
}

/// The artefact of the run folder `dir` of `domain`: released before unreleased,
/// each in the formats the domain reads back, in its order.
fn read_run_artefact(dir: &Path, domain: &'static Unit) -> Result<(PathBuf, View)> {
    let kind = domain.artefact_kind().map_err(|e| RenderError::Piece {
        path: dir.to_path_buf(),
        message: e.to_string(),
    })?;
    let candidates: Vec<String> = [true, false]
        .iter()
        .flat_map(|&released| {
            kind.reads()
                .iter()
                .map(move |ext| layout::artefact_file(released, ext))
        })
        .collect();
    let file = candidates
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.is_file())
        .ok_or_else(|| RenderError::Piece {
            path: dir.to_path_buf(),
            message: format!(
                "a run directory with none of {} in it",
                candidates.join(", ")
            ),
        })?;
    let (view, _) = kind
        .read_view(&file)
        .map_err(|message| RenderError::Piece {
            path: file.clone(),
            message,
        })?;
    Ok((file, view))
}
