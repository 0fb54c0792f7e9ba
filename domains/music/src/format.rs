//! Reading and writing scores by file extension, for `cantus convert`, `cantus verify`
//! and every command that takes or writes a score file.
//!
//! | extension | format | read | write |
//! |---|---|---|---|
//! | `.txt`, `.cantus` | onset-slot text grammar | yes (strict, or lenient) | yes |
//! | `.mid`, `.midi` | Standard MIDI File | yes (strict, or lenient for damaged files) | yes (format 1) |
//! | `.musicxml`, `.xml` | MusicXML score-partwise | yes | yes |
//! | `.mxl` | compressed MusicXML | yes | no |
//! | `.mei` | MEI (Music Encoding Initiative) | yes | no |
//! | `.ly` | LilyPond | no | yes |
//!
//! Text formats must be UTF-8; a file that is not says at which line and byte
//! offset the first bad byte lies. Writing through [`write_path`] converts: a
//! voice name (or title, or tag) the target format cannot carry is renamed or
//! cleaned with a warning instead of refused ([`render_converting`]); [`render`]
//! is the exact writer and refuses it.
//!
//! # Grace notes
//!
//! MusicXML (`<grace/>`), MEI (`@grace`, `<graceGrp>`) and the text grammar
//! (`>g`, `>g/`) carry grace notes; MIDI has none. A reader keeps them only when
//! [`ReadOptions::grace_notes`] asks, each as an event flagged
//! [`Event::grace`](crate::Event::grace) with no duration at the onset of the note it
//! leads to (see [`crate::Event`]); otherwise it leaves them out and says how many.
//! Of the writers only the text grammar writes them; a conversion to MIDI,
//! MusicXML or LilyPond leaves them out with a warning, and the exact writers
//! refuse them. Command by command:
//!
//! | command | grace notes |
//! |---|---|
//! | `cantus analyze` | always read: row tones before the note they lead to |
//! | `cantus verify --lenient` | read and judged as row tones (no timing rule applies to them) |
//! | `cantus verify` (strict reading), `render`, `fingerprint`, `compare`, the workflows | left out, with a warning |
//! | `cantus convert --grace-notes` | read; written to `.txt`, left out (with a warning) elsewhere |
//! | `cantus convert` | left out, with a warning |

use crate::fit;
use crate::score::Score;
use crate::{grammar, lilypond, mei, midi, musicxml};
use cantus_bounded as bounded;
use std::fmt;
use std::path::{Path, PathBuf};

/// A score file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The onset-slot text grammar.
    Grammar,
    /// Standard MIDI File.
    Midi,
    /// Uncompressed MusicXML.
    MusicXml,
    /// Compressed MusicXML (a zip archive).
    Mxl,
    /// MEI, the Music Encoding Initiative's XML.
    Mei,
    /// LilyPond source (written only).
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
            "mxl" => Format::Mxl,
            "mei" => Format::Mei,
            "ly" => Format::LilyPond,
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
            Format::Mxl => "mxl",
            Format::Mei => "mei",
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
            Format::Mxl => "compressed MusicXML",
            Format::Mei => "MEI",
            Format::LilyPond => "LilyPond",
        })
    }
}

/// Which pitch a transposing part is read at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PitchLevel {
    /// What sounds (a B♭ clarinet's written D as C): what analysis must see.
    #[default]
    Sounding,
    /// What is written on the part, ignoring `<transpose>` / `trans.semi`.
    Written,
}

/// How to read a score file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ReadOptions {
    /// Text grammar: tolerate what Libretto's parser tolerates, with warnings.
    /// MIDI: read a damaged file (a chunk or event longer than the data) as far
    /// as it goes, with a warning per fault, instead of refusing it.
    pub lenient: bool,
    /// MusicXML, compressed MusicXML and MEI: sounding (default) or written pitch.
    pub pitch: PitchLevel,
    /// MusicXML, compressed MusicXML, MEI and the text grammar: keep grace notes as
    /// events flagged [`Event::grace`](crate::Event::grace) (no duration, at the
    /// onset of the note they lead to). By default they are left out and counted in
    /// a warning, so a command that judges timed notes never meets one. MIDI has no
    /// grace notes.
    pub grace_notes: bool,
}

impl ReadOptions {
    /// Strict reading at sounding pitch, lenient if `lenient`.
    pub fn lenient(lenient: bool) -> Self {
        ReadOptions {
            lenient,
            ..ReadOptions::default()
        }
    }
}

/// A score read from a file, with what the reader skipped or guessed.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The score.
    pub score: Score,
    /// The format it was read as.
    pub format: Format,
    /// What was skipped, guessed or repaired, one line each, for the user.
    pub warnings: Vec<String>,
}

/// Why a score could not be written in a format (the writer's own error).
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The text grammar writer refused.
    #[error(transparent)]
    Grammar(#[from] grammar::WriteError),
    /// The MIDI writer refused.
    #[error(transparent)]
    Midi(#[from] midi::MidiError),
    /// The MusicXML writer refused.
    #[error(transparent)]
    MusicXml(#[from] musicxml::MusicXmlError),
    /// The LilyPond writer refused.
    #[error(transparent)]
    LilyPond(#[from] lilypond::LilypondError),
    /// The format is read, never written.
    #[error("{0} is read, not written (write .musicxml, .txt, .mid or .ly)")]
    ReadOnly(Format),
}

/// Why a score could not be read or written. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The extension names no known format.
    #[error("{}: unknown score format (use .txt, .mid, .musicxml, .mxl, .mei or .ly)", path.display())]
    UnknownExtension {
        /// The file.
        path: PathBuf,
    },
    /// The format exists but this direction does not.
    #[error("{}: {what} is not supported", path.display())]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// What is not supported.
        what: String,
    },
    /// The file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// A text file holds bytes that are not UTF-8.
    #[error(
        "{}: line {line}, byte offset {offset}: invalid UTF-8 (byte {byte:#04x}); the file must be UTF-8 text",
        path.display()
    )]
    Utf8 {
        /// The file.
        path: PathBuf,
        /// 1-based line of the first bad byte.
        line: usize,
        /// 0-based byte offset of the first bad byte in the file.
        offset: usize,
        /// The bad byte (or the end of the file, shown as 0).
        byte: u8,
    },
    /// The grammar's own diagnostics already name file, line and column.
    #[error("{0}")]
    Grammar(grammar::GrammarError),
    /// The MIDI reader refused the file.
    #[error("{}: {source}", path.display())]
    Midi {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: midi::MidiError,
    },
    /// The MusicXML (or compressed MusicXML) reader refused the file.
    #[error("{}: {source}", path.display())]
    MusicXml {
        /// The file.
        path: PathBuf,
        /// Why, with line and column.
        #[source]
        source: musicxml::MusicXmlError,
    },
    /// The MEI reader refused the file.
    #[error("{}: {source}", path.display())]
    Mei {
        /// The file.
        path: PathBuf,
        /// Why, with line and column.
        #[source]
        source: mei::MeiError,
    },
    /// The score cannot be written in the format.
    #[error("cannot write {} as {format}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The format its extension names.
        format: Format,
        /// The writer's reason.
        #[source]
        source: RenderError,
    },
}

/// Reads a score file; `lenient` as in [`ReadOptions::lenient`], pitch sounding.
pub fn read_path(path: &Path, lenient: bool) -> Result<Loaded, FormatError> {
    read_path_with(path, &ReadOptions::lenient(lenient))
}

/// Reads a score file with `opts`; a file over [`bounded::SCORE_FILE_CAP`] is
/// refused before it is read whole.
pub fn read_path_with(path: &Path, opts: &ReadOptions) -> Result<Loaded, FormatError> {
    let format = Format::from_path(path)?;
    let bytes = bounded::read(path, bounded::SCORE_FILE_CAP, "score file").map_err(|source| {
        FormatError::Io {
            path: path.to_owned(),
            source,
        }
    })?;
    read_bytes(path, format, &bytes, opts)
}

/// Reads `bytes` as `format`; `path` names the source in errors and diagnostics.
pub fn read_bytes(
    path: &Path,
    format: Format,
    bytes: &[u8],
    opts: &ReadOptions,
) -> Result<Loaded, FormatError> {
    let loaded = |score, warnings| {
        Ok(Loaded {
            score,
            format,
            warnings,
        })
    };
    match format {
        Format::Grammar => {
            let text = utf8(path, bytes)?;
            let parse_opts = grammar::ParseOptions {
                source_name: Some(path.display().to_string()),
                lenient: opts.lenient,
                grace_notes: opts.grace_notes,
            };
            let parsed = grammar::parse(text, &parse_opts).map_err(FormatError::Grammar)?;
            loaded(
                parsed.score,
                parsed.warnings.iter().map(ToString::to_string).collect(),
            )
        }
        Format::Midi => {
            let (score, warnings) =
                midi::read_with(bytes, opts.lenient).map_err(|source| FormatError::Midi {
                    path: path.to_owned(),
                    source,
                })?;
            loaded(score, warnings.iter().map(ToString::to_string).collect())
        }
        Format::MusicXml | Format::Mxl => {
            let xml_err = |source| FormatError::MusicXml {
                path: path.to_owned(),
                source,
            };
            let (score, report) = if format == Format::Mxl {
                musicxml::read_mxl(bytes, opts).map_err(xml_err)?
            } else {
                musicxml::read_with(utf8(path, bytes)?, opts).map_err(xml_err)?
            };
            loaded(score, report.warnings)
        }
        Format::Mei => {
            let (score, warnings) =
                mei::read_with(utf8(path, bytes)?, opts).map_err(|source| FormatError::Mei {
                    path: path.to_owned(),
                    source,
                })?;
            loaded(score, warnings)
        }
        Format::LilyPond => Err(FormatError::Unsupported {
            path: path.to_owned(),
            what: "reading LilyPond".into(),
        }),
    }
}

/// The file at `path` as UTF-8 text (any text file: a spec, a brief list), at most
/// [`bounded::TEXT_FILE_CAP`]; an error names the file, and for bytes that are not
/// UTF-8 the line and byte offset of the first bad one.
pub fn read_text(path: &Path) -> Result<String, FormatError> {
    let bytes = bounded::read(path, bounded::TEXT_FILE_CAP, "text file").map_err(|source| {
        FormatError::Io {
            path: path.to_owned(),
            source,
        }
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        utf8_error(path, e.as_bytes(), offset)
    })
}

/// `bytes` as UTF-8 text, or an error at the line and byte offset of the first bad byte.
fn utf8<'b>(path: &Path, bytes: &'b [u8]) -> Result<&'b str, FormatError> {
    std::str::from_utf8(bytes).map_err(|e| utf8_error(path, bytes, e.valid_up_to()))
}

/// The error for `bytes` of `path`, valid UTF-8 up to `offset`.
fn utf8_error(path: &Path, bytes: &[u8], offset: usize) -> FormatError {
    FormatError::Utf8 {
        path: path.to_owned(),
        line: 1 + bytes[..offset].iter().filter(|&&b| b == b'\n').count(),
        offset,
        byte: bytes.get(offset).copied().unwrap_or(0),
    }
}

/// The bytes of `score` in `format`, exactly: a voice name, title or tag the
/// format cannot carry is an error.
pub fn render(score: &Score, format: Format) -> Result<Vec<u8>, RenderError> {
    Ok(match format {
        Format::Grammar => grammar::write(score)?.into_bytes(),
        Format::Midi => midi::write(score)?,
        Format::MusicXml => musicxml::write(score)?.into_bytes(),
        Format::LilyPond => lilypond::write(score)?.into_bytes(),
        Format::Mxl | Format::Mei => return Err(RenderError::ReadOnly(format)),
    })
}

/// A score written for conversion, and what was renamed or cleaned on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// One line per renamed voice or cleaned text.
    pub warnings: Vec<String>,
}

/// The bytes of `score` in `format`, converting: voice names the format cannot
/// carry (empty, repeated, with `,` `:` or a line break for the text grammar;
/// with control characters for MusicXML) are replaced by a cleaned name, and
/// control characters in a title or tag are dropped, each with a warning.
/// Everything else the exact writer refuses is still refused.
pub fn render_converting(score: &Score, format: Format) -> Result<Rendered, RenderError> {
    let (fitted, warnings) = fit::fit(score, format);
    let bytes = render(fitted.as_ref(), format)?;
    Ok(Rendered { bytes, warnings })
}

/// Writes `score` to `path` in the format its extension names (converting, as
/// [`render_converting`]); returns the warnings about what was renamed or cleaned.
pub fn write_path(path: &Path, score: &Score) -> Result<Vec<String>, FormatError> {
    let format = Format::from_path(path)?;
    let rendered = render_converting(score, format).map_err(|source| FormatError::Write {
        path: path.to_owned(),
        format,
        source,
    })?;
    std::fs::write(path, rendered.bytes).map_err(|source| FormatError::Io {
        path: path.to_owned(),
        source,
    })?;
    Ok(rendered.warnings)
}
