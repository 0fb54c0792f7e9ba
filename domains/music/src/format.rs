//! Reading and writing scores by file extension, for `cantus convert`, `cantus verify`
//! and every command that takes or writes a score file.
//!
//! | extension | format | read | write |
//! |---|---|---|---|
//! | `.txt`, `.cantus` | onset-slot text grammar | yes (strict, or lenient) | yes |
//! | `.mid`, `.midi` | Standard MIDI File | yes | yes (format 1) |
//! | `.musicxml`, `.xml` | MusicXML score-partwise | yes | yes |
//! | `.ly` | LilyPond | no | yes |

use crate::score::Score;
use crate::{grammar, lilypond, midi, musicxml};
use std::fmt;
use std::path::{Path, PathBuf};

/// A score file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Grammar,
    Midi,
    MusicXml,
    LilyPond,
}

impl Format {
    /// The format a path's extension names.
    pub fn from_path(path: &Path) -> Result<Format, FormatError> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        Ok(match ext.as_str() {
            "txt" | "cantus" => Format::Grammar,
            "mid" | "midi" => Format::Midi,
            "musicxml" | "xml" => Format::MusicXml,
            "ly" => Format::LilyPond,
            "mxl" => {
                return Err(FormatError::Unsupported {
                    path: path.to_owned(),
                    what: "compressed MusicXML (.mxl); unzip it to .musicxml first".into(),
                });
            }
            _ => {
                return Err(FormatError::UnknownExtension {
                    path: path.to_owned(),
                });
            }
        })
    }

    /// The usual extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Grammar => "txt",
            Format::Midi => "mid",
            Format::MusicXml => "musicxml",
            Format::LilyPond => "ly",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Grammar => "text grammar",
            Format::Midi => "MIDI",
            Format::MusicXml => "MusicXML",
            Format::LilyPond => "LilyPond",
        })
    }
}

/// A score read from a file, with what the reader skipped or guessed.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub score: Score,
    pub format: Format,
    pub warnings: Vec<String>,
}

/// Why a score could not be read or written. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    #[error("{}: unknown score format (use .txt, .mid, .musicxml or .ly)", path.display())]
    UnknownExtension { path: PathBuf },
    #[error("{}: {what} is not supported", path.display())]
    Unsupported { path: PathBuf, what: String },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The grammar's own diagnostics already name file, line and column.
    #[error("{0}")]
    Grammar(grammar::GrammarError),
    #[error("{}: {message}", path.display())]
    Read { path: PathBuf, message: String },
    #[error("cannot write {} as {format}: {message}", path.display())]
    Write {
        path: PathBuf,
        format: Format,
        message: String,
    },
}

/// Reads a score file; `lenient` applies to the text grammar only.
pub fn read_path(path: &Path, lenient: bool) -> Result<Loaded, FormatError> {
    let format = Format::from_path(path)?;
    let io = |source| FormatError::Io {
        path: path.to_owned(),
        source,
    };
    let read_err = |message: String| FormatError::Read {
        path: path.to_owned(),
        message,
    };
    match format {
        Format::Grammar => {
            let text = std::fs::read_to_string(path).map_err(io)?;
            let opts = grammar::ParseOptions {
                source_name: Some(path.display().to_string()),
                lenient,
            };
            let parsed = grammar::parse(&text, &opts).map_err(FormatError::Grammar)?;
            Ok(Loaded {
                score: parsed.score,
                format,
                warnings: parsed.warnings.iter().map(ToString::to_string).collect(),
            })
        }
        Format::Midi => {
            let bytes = std::fs::read(path).map_err(io)?;
            let (score, warnings) =
                midi::read_with_warnings(&bytes).map_err(|e| read_err(e.to_string()))?;
            Ok(Loaded {
                score,
                format,
                warnings: warnings.iter().map(ToString::to_string).collect(),
            })
        }
        Format::MusicXml => {
            let text = std::fs::read_to_string(path).map_err(io)?;
            let (score, report) =
                musicxml::read_with_report(&text).map_err(|e| read_err(e.to_string()))?;
            Ok(Loaded {
                score,
                format,
                warnings: report.warnings,
            })
        }
        Format::LilyPond => Err(FormatError::Unsupported {
            path: path.to_owned(),
            what: "reading LilyPond".into(),
        }),
    }
}

/// The bytes of `score` in `format`.
pub fn render(score: &Score, format: Format) -> Result<Vec<u8>, String> {
    match format {
        Format::Grammar => grammar::write(score)
            .map(String::into_bytes)
            .map_err(|e| e.to_string()),
        Format::Midi => midi::write(score).map_err(|e| e.to_string()),
        Format::MusicXml => musicxml::write(score)
            .map(String::into_bytes)
            .map_err(|e| e.to_string()),
        Format::LilyPond => lilypond::write(score)
            .map(String::into_bytes)
            .map_err(|e| e.to_string()),
    }
}

/// Writes `score` to `path` in the format its extension names.
pub fn write_path(path: &Path, score: &Score) -> Result<(), FormatError> {
    let format = Format::from_path(path)?;
    let bytes = render(score, format).map_err(|message| FormatError::Write {
        path: path.to_owned(),
        format,
        message,
    })?;
    std::fs::write(path, bytes).map_err(|source| FormatError::Io {
        path: path.to_owned(),
        source,
    })
}
