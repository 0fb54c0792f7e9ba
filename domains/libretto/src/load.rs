//! Reading a score file into a measurable [`Layout`], for the command line and
//! for calibration over directories.
//!
//! Grammar text is first checked by Cantus's own reader (strict, or lenient on
//! request), so bad input gets its file, line, column and rule; the text is then
//! laid out as the original reads it. Other formats go through
//! [`cantus_music::format::read_path`] and are laid out as the original's encoder
//! would write them.

use crate::song::{Layout, LayoutError};
use cantus_music::Score;
use cantus_music::format::{self, Format, FormatError};
use cantus_music::grammar;
use std::path::{Path, PathBuf};

/// A file ready to measure.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The piece laid out as the original measures it.
    pub layout: Layout,
    /// What a lenient read skipped or guessed.
    pub warnings: Vec<String>,
}

/// Why a file cannot be measured.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The reader refused the file (the message names file, line and column).
    #[error("{0}")]
    Format(#[from] FormatError),
    /// The piece cannot be laid out.
    #[error("{path}: {source}")]
    Layout {
        /// The file.
        path: PathBuf,
        /// Why.
        source: LayoutError,
    },
}

/// Reads and lays out one score file (the score itself is not kept: measuring
/// needs only the layout).
pub fn load(path: &Path, lenient: bool) -> Result<Loaded, LoadError> {
    load_with_score(path, lenient).map(|(loaded, _)| loaded)
}

/// Reads and lays out one score file, and keeps the score Cantus's reader read.
pub fn load_with_score(path: &Path, lenient: bool) -> Result<(Loaded, Score), LoadError> {
    let layout_err = |source| LoadError::Layout {
        path: path.to_owned(),
        source,
    };
    match Format::from_path(path)? {
        Format::Grammar => {
            let text = std::fs::read_to_string(path).map_err(|source| FormatError::Io {
                path: path.to_owned(),
                source,
            })?;
            let opts = grammar::ParseOptions {
                source_name: Some(path.display().to_string()),
                lenient,
                ..grammar::ParseOptions::default()
            };
            let parsed = grammar::parse(&text, &opts).map_err(FormatError::Grammar)?;
            let loaded = Loaded {
                layout: Layout::from_text(&text).map_err(layout_err)?,
                warnings: parsed.warnings.iter().map(ToString::to_string).collect(),
            };
            Ok((loaded, parsed.score))
        }
        _ => {
            let loaded = format::read_path(path, lenient)?;
            let layout = Layout::from_score(&loaded.score).map_err(layout_err)?;
            Ok((
                Loaded {
                    layout,
                    warnings: loaded.warnings,
                },
                loaded.score,
            ))
        }
    }
}

/// Every readable score file under `dir` (recursively), sorted.
pub fn score_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if matches!(
                Format::from_path(&path),
                Ok(Format::Grammar | Format::Midi | Format::MusicXml)
            ) {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Preference among formats of one piece: text first, then MusicXML, then MIDI.
fn format_rank(path: &Path) -> u8 {
    match path.extension().and_then(|e| e.to_str()) {
        Some("txt") => 0,
        Some("musicxml" | "xml") => 1,
        _ => 2,
    }
}

/// Whether the file is a piece a gate did not release (as `cantus bank` and
/// `cantus compose` name it: `unreleased-…`).
pub fn is_unreleased(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("unreleased-"))
}

/// The score files under `dir`, one per piece — a folder holding one piece in
/// several formats (as `cantus bank` writes it) gives its text, else its
/// MusicXML, else its MIDI — and never a piece a gate did not release; with
/// the number of unreleased files left out.
pub fn piece_files(dir: &Path) -> std::io::Result<(Vec<PathBuf>, usize)> {
    let mut by_piece: std::collections::BTreeMap<PathBuf, PathBuf> = Default::default();
    let mut left_out = 0;
    for file in score_files(dir)? {
        if is_unreleased(&file) {
            left_out += 1;
            continue;
        }
        let key = file.with_extension("");
        match by_piece.get(&key) {
            Some(kept) if format_rank(kept) <= format_rank(&file) => {}
            _ => {
                by_piece.insert(key, file);
            }
        }
    }
    Ok((by_piece.into_values().collect(), left_out))
}
