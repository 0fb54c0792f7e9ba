//! Score-partwise MusicXML: the exchange format notation programs (MuseScore,
//! Finale, Sibelius, Dorico) and music21 read and write.
//!
//! It exists so a Cantus score can be opened, engraved and checked by the tools
//! musicians already use, and so published encodings (the Bach chorales, the
//! atonal corpus) can be read into the exact [`Score`] model.
//!
//! * [`write()`] produces MusicXML 4.0: one `<part>` per voice, exact `<divisions>`,
//!   rests filling silence, notes crossing barlines split with ties, chords,
//!   standard note values (dotted, tied, tuplets via `<time-modification>`), and
//!   overlapping events of one voice spread over several `<voice>` layers.
//! * [`read()`] accepts any score-partwise document: divisions changes,
//!   `<backup>`/`<forward>`, several voices per part (one Score voice per part,
//!   or per staff for a part on several staves, as music21 does), chords, ties
//!   (merged back into one event), pickup bars (shifted so the pickup ends a full
//!   first bar), transposing parts (`<transpose>`: sounding pitch by default,
//!   written pitch with [`crate::PitchLevel::Written`]), parts without
//!   `<divisions>` (timed by their note types, as music21 reads them), and
//!   reports what the model cannot hold in a [`ReadReport`]: grace and unpitched
//!   notes are skipped, counted, and the warnings say how many; an empty
//!   `<part-name/>` is replaced by the part id; repeats are read as notated (not
//!   expanded); later meter, key and tempo changes are ignored with a warning
//!   (times stay absolute); cue notes are read as ordinary notes.
//! * [`read_mxl`]: compressed MusicXML (`.mxl`), through `META-INF/container.xml`,
//!   with decompression bounded by [`MAX_MXL_XML_BYTES`].
//! * Only well-formed XML is read or written: control characters, a NUL byte
//!   between elements, or an encoding declaration the UTF-8 text is not in are
//!   refused with their line and column.
//!
//! What MusicXML cannot carry through a round trip: an unspelled pitch comes back
//! with its default sharp spelling; a tempo whose exact decimal does not
//! terminate comes back rounded to six decimals; a declared bar count no larger
//! than the notes need comes back as `None`; a voice's events come back in a
//! total order (onset, duration, pitches, tag). Event tags travel as lyrics
//! named `cantus-tag` (shown under the note by notation programs). The writer
//! never writes a pickup: a score read from one starts with a partly silent bar.

mod attributes;
pub(crate) mod dom;
mod layout;
mod mxl;
pub(crate) mod notation;
pub(crate) mod part;
mod read;
pub(crate) mod ties;
pub(crate) mod transpose;
mod write;

pub(crate) use dom::is_xml_char;
pub use mxl::{MAX_MXL_XML_BYTES, read_mxl};
pub use read::{ReadReport, read, read_with, read_with_report};
pub use write::write;

use crate::format::ReadOptions;
use crate::score::Score;
use std::path::{Path, PathBuf};

/// Lyric name under which [`write()`] stores an event's tag and [`read()`] finds it.
pub(crate) const TAG_LYRIC_NAME: &str = "cantus-tag";

/// Why a MusicXML document could not be read or a score could not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MusicXmlError {
    /// The text is not well-formed XML.
    #[error("line {line}, column {column}: malformed XML: {message}")]
    Xml {
        line: usize,
        column: usize,
        message: String,
    },
    /// Well-formed XML that is not usable MusicXML (wrong root, bad number, ...).
    #[error("line {line}, column {column}: <{element}>: {message}")]
    Invalid {
        line: usize,
        column: usize,
        element: String,
        message: String,
    },
    /// The score cannot be written (an invalid event, a value too large for MusicXML).
    #[error("cannot write MusicXML: {0}")]
    Unwritable(String),
    /// A compressed MusicXML (`.mxl`) archive that cannot be read: not a zip,
    /// no score in it, an entry too large once decompressed.
    #[error("compressed MusicXML: {0}")]
    Archive(String),
    /// An error in one file of a compressed MusicXML archive.
    #[error("{entry}: {source}")]
    InEntry {
        /// The path of the file inside the archive.
        entry: String,
        /// The error, with line and column in that file.
        source: Box<MusicXmlError>,
    },
    /// A file could not be opened or is not UTF-8 text.
    #[error("cannot read {}: {message}", path.display())]
    Io { path: PathBuf, message: String },
    /// An error in the content of a file.
    #[error("{}: {source}", path.display())]
    InFile {
        path: PathBuf,
        source: Box<MusicXmlError>,
    },
}

/// Reads the MusicXML file at `path` (compressed when it ends in `.mxl`) at
/// sounding pitch; errors name the file as well as the line and column (and
/// invalid UTF-8 its line and byte offset).
pub fn read_file(path: &Path) -> Result<(Score, ReadReport), MusicXmlError> {
    let in_file = |e| MusicXmlError::InFile {
        path: path.to_path_buf(),
        source: Box::new(e),
    };
    let bytes =
        cantus_bounded::read(path, cantus_bounded::SCORE_FILE_CAP, "score file").map_err(|e| {
            MusicXmlError::Io {
                path: path.to_path_buf(),
                message: e.to_string(),
            }
        })?;
    let opts = ReadOptions::default();
    let is_mxl = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("mxl"));
    if is_mxl {
        return read_mxl(&bytes, &opts).map_err(in_file);
    }
    let text = utf8_text(&bytes).map_err(in_file)?;
    read_with(text, &opts).map_err(in_file)
}

/// `bytes` as UTF-8, or an XML error at the line of the first bad byte, giving
/// its byte offset.
pub(crate) fn utf8_text(bytes: &[u8]) -> Result<&str, MusicXmlError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let offset = e.valid_up_to();
        let before = &bytes[..offset];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        MusicXmlError::Xml {
            line: 1 + before.iter().filter(|&&b| b == b'\n').count(),
            column: 1 + String::from_utf8_lossy(&before[line_start..])
                .chars()
                .count(),
            message: format!("invalid UTF-8 at byte offset {offset}; the file must be UTF-8 text"),
        }
    })
}
