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
//!   first bar), and reports what the model cannot hold in a [`ReadReport`]:
//!   grace and unpitched notes are skipped and counted, repeats are read as
//!   notated (not expanded), later meter, key and tempo changes are ignored with
//!   a warning (times stay absolute), cue notes are read as ordinary notes.
//!
//! What MusicXML cannot carry through a round trip: an unspelled pitch comes back
//! with its default sharp spelling; a tempo whose exact decimal does not
//! terminate comes back rounded to six decimals; a declared bar count no larger
//! than the notes need comes back as `None`; a voice's events come back in a
//! total order (onset, duration, pitches, tag). Event tags travel as lyrics
//! named `cantus-tag` (shown under the note by notation programs). The writer
//! never writes a pickup: a score read from one starts with a partly silent bar.

mod dom;
mod layout;
mod notation;
mod part;
mod read;
mod ties;
mod write;

pub use notation::{NoteType, NoteValue, notated_values};
pub use read::{ReadReport, read, read_with_report};
pub use write::write;

use crate::score::Score;
use std::path::{Path, PathBuf};

/// Lyric name under which [`write()`] stores an event's tag and [`read()`] finds it.
pub const TAG_LYRIC_NAME: &str = "cantus-tag";

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

/// Reads the MusicXML file at `path`; errors name the file as well as the line
/// and column.
pub fn read_file(path: &Path) -> Result<(Score, ReadReport), MusicXmlError> {
    let text = std::fs::read_to_string(path).map_err(|e| MusicXmlError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    read_with_report(&text).map_err(|e| MusicXmlError::InFile {
        path: path.to_path_buf(),
        source: Box::new(e),
    })
}
