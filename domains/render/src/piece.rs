//! A piece as the renderer sees it: its score, which rule domain it belongs to,
//! and what a run left beside it (trace, `report.json`).
//!
//! `cantus render` takes either a score file (`.txt`, `.mid`, `.musicxml`) or a
//! directory `cantus compose` wrote; a directory gives its `piece.*` (or
//! `unreleased-piece.*`), its `trace.jsonl` and its `report.json`.

use crate::audio::TempoMap;
use crate::error::{RenderError, Result};
use crate::trace::TraceView;
use cantus_music::Score;
use cantus_music::format::read_path;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The rule domain a piece is judged and annotated by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DomainKind {
    /// Serial music: row labels, the strict twelve-tone gate.
    TwelveTone,
    /// A two-voice species exercise: interval figures, the species gate.
    Counterpoint,
}

/// Score files a run directory may hold, in the order they are preferred.
const PIECE_FILES: [&str; 6] = [
    "piece.txt",
    "piece.musicxml",
    "piece.mid",
    "unreleased-piece.txt",
    "unreleased-piece.musicxml",
    "unreleased-piece.mid",
];

/// A piece and what came with it.
#[derive(Clone, Debug)]
pub struct Piece {
    /// The score file read.
    pub path: PathBuf,
    pub score: Score,
    pub domain: DomainKind,
    /// The run's trace, when given or found beside the piece.
    pub trace: Option<TraceView>,
    /// The run's `report.json`, when found beside the piece.
    pub report: Option<Value>,
    /// The tempo map of a MIDI file (tempo changes the score model does not keep).
    pub tempo: TempoMap,
}

impl Piece {
    /// Reads a score file or a run directory; `trace` overrides the directory's.
    pub fn load(path: &Path, trace: Option<&Path>) -> Result<Piece> {
        let (file, dir) = if path.is_dir() {
            let file = PIECE_FILES
                .iter()
                .map(|f| path.join(f))
                .find(|p| p.is_file())
                .ok_or_else(|| RenderError::Piece {
                    path: path.to_path_buf(),
                    message: format!(
                        "a run directory with none of {} in it",
                        PIECE_FILES.join(", ")
                    ),
                })?;
            (file, Some(path.to_path_buf()))
        } else {
            (path.to_path_buf(), None)
        };
        let loaded = read_path(&file, false).map_err(|e| RenderError::Piece {
            path: file.clone(),
            message: e.to_string(),
        })?;
        let trace_path = trace
            .map(Path::to_path_buf)
            .or_else(|| dir.as_ref().map(|d| d.join("trace.jsonl")))
            .filter(|p| trace.is_some() || p.is_file());
        let trace = trace_path.map(|p| TraceView::read(&p)).transpose()?;
        let report = match dir.as_ref().map(|d| d.join("report.json")) {
            Some(p) if p.is_file() => {
                let text = std::fs::read_to_string(&p).map_err(|e| RenderError::io(&p, e))?;
                Some(serde_json::from_str(&text).map_err(|e| RenderError::Piece {
                    path: p.clone(),
                    message: format!("not JSON: {e}"),
                })?)
            }
            _ => None,
        };
        let tempo = if loaded.format == cantus_music::format::Format::Midi {
            let bytes = std::fs::read(&file).map_err(|e| RenderError::io(&file, e))?;
            TempoMap::from_midi(&bytes, loaded.score.tempo)
        } else {
            TempoMap::constant(loaded.score.tempo)
        };
        let domain = domain_of(&loaded.score, report.as_ref(), trace.as_ref());
        Ok(Piece {
            path: file,
            score: loaded.score,
            domain,
            trace,
            report,
            tempo,
        })
    }

    /// A piece from a score alone (no trace, no report).
    pub fn from_score(path: PathBuf, score: Score) -> Piece {
        let domain = domain_of(&score, None, None);
        let tempo = TempoMap::constant(score.tempo);
        Piece {
            path,
            score,
            domain,
            trace: None,
            report: None,
            tempo,
        }
    }

    /// A title for pages: the score's, else the file's stem and parent folder.
    pub fn title(&self) -> String {
        if let Some(t) = &self.score.title {
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
            Some(f) if stem.ends_with("piece") => f,
            _ => stem,
        }
    }
}

/// The domain a run says (report or trace header), else counterpoint for a
/// two-voice score with a cantus voice, else twelve-tone.
fn domain_of(score: &Score, report: Option<&Value>, trace: Option<&TraceView>) -> DomainKind {
    let said = report
        .and_then(|r| r.get("domain"))
        .or_else(|| trace.and_then(|t| t.header.get("domain")))
        .and_then(Value::as_str);
    match said {
        Some("counterpoint") => DomainKind::Counterpoint,
        Some(_) => DomainKind::TwelveTone,
        None if score.voices.len() == 2
            && score
                .voices
                .iter()
                .any(|v| cantus_counterpoint::read::is_cantus_name(&v.name)) =>
        {
            DomainKind::Counterpoint
        }
        None => DomainKind::TwelveTone,
    }
}
