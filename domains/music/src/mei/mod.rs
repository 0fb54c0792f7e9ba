//! MEI (the Music Encoding Initiative's XML) into the exact score model.
//!
//! Much public music, serial music above all, is encoded in MEI by musicology
//! projects and by Verovio. This reader takes MEI 4 and 5 `<score>` documents:
//!
//! * **Voices**: one per staff (`<staffDef n>`), in score order, named by the
//!   staff's label (`@label` or `<label>`), else `Staff n`. Layers of a staff
//!   are one voice whose events may overlap, as MusicXML voices are.
//! * **Time**: measures follow each other; within a `<layer>` each `note`,
//!   `chord`, `rest`, `space`, `mRest`, `mSpace` and `multiRest` lasts its
//!   `@dur` with `@dots`, scaled by every enclosing `<tuplet>`
//!   (`@numbase`/`@num`). A measure lasts as long as its longest layer (a bar
//!   of the current meter when empty). Beams, tremolos (`bTrem`; each note of
//!   an `fTrem` lasts half the written value) and editorial wrappers (`app`,
//!   `choice`: the lemma, correction or regularisation, else the first reading)
//!   are read through.
//! * **Pitch**: `@pname`, `@oct`, and the accidental: `@accid.ges` (sounding)
//!   if given, else the written `@accid` (or an `<accid>` child), else one
//!   written earlier in the measure on the same staff, letter and octave, else
//!   the key signature. Transposing staves (`@trans.semi`, `@trans.diat`) are
//!   read at sounding pitch unless [`crate::PitchLevel::Written`] is asked for.
//! * **Ties**: `@tie` (`i`, `m`, `t`) and `<tie startid endid>` merge notes into
//!   one event, as in MusicXML.
//! * **Grace notes** (`@grace` on a note or chord, `<graceGrp>`): left out and
//!   counted in a warning, unless [`ReadOptions::grace_notes`] asks for them; then
//!   each note or chord is an event flagged [`crate::Event::grace`] — acciaccatura
//!   for `unacc` or a slashed stem, appoggiatura for `acc` and `unknown` — with no
//!   duration, at the onset of the note it leads to, and never tied.
//! * **Fermatas**: `@fermata` on a note or chord, and `<fermata>` naming one by
//!   `@startid` or by `@tstamp` (and `@staff`), set [`Event::fermata`](crate::Event::fermata).
//! * **Skipped, with a warning each kind**: measure and beat repeats (`mRpt`, `beatRpt`:
//!   read as silence of their length), later meter, key and tempo changes
//!   (times stay absolute; the score keeps the first).
//! * **Metadata**: the title from `meiHead`; meter from `@meter.count` /
//!   `@meter.unit` or `<meterSig>`; key from `@key.sig` / `<keySig>` with
//!   `@key.mode`; tempo from `@midi.bpm` or the first `<tempo @midi.bpm>`.
//!
//! Malformed documents are errors with line and column, as in MusicXML.

mod defs;
mod pitch;
mod read;

pub use read::read_with;

use crate::format::ReadOptions;
use crate::musicxml::MusicXmlError;
use crate::score::Score;

/// Why an MEI document could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MeiError {
    /// The text is not well-formed XML.
    #[error("line {line}, column {column}: malformed XML: {message}")]
    Xml {
        /// 1-based line.
        line: usize,
        /// 1-based column (characters).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// Well-formed XML that is not usable MEI.
    #[error("line {line}, column {column}: <{element}>: {message}")]
    Invalid {
        /// 1-based line of the element.
        line: usize,
        /// 1-based column of the element.
        column: usize,
        /// The element's name.
        element: String,
        /// What is wrong.
        message: String,
    },
}

impl From<MusicXmlError> for MeiError {
    /// The shared XML tree reports its errors as MusicXML errors; they say the
    /// same of an MEI document.
    fn from(e: MusicXmlError) -> Self {
        match e {
            MusicXmlError::Xml {
                line,
                column,
                message,
            } => MeiError::Xml {
                line,
                column,
                message,
            },
            MusicXmlError::Invalid {
                line,
                column,
                element,
                message,
            } => MeiError::Invalid {
                line,
                column,
                element,
                message,
            },
            other => MeiError::Xml {
                line: 1,
                column: 1,
                message: other.to_string(),
            },
        }
    }
}

/// Reads an MEI document at sounding pitch; the warnings say what was skipped.
pub fn read(xml: &str) -> Result<(Score, Vec<String>), MeiError> {
    read_with(xml, &ReadOptions::default())
}
