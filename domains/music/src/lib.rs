//! `cantus-music`: the exact score model and the formats musicians and models read.
//!
//! * [`annotation`]: marks drawn on a score without changing its music (labels, colours, ghosts).
//! * [`format`](mod@format): read and write by file extension (`.txt`, `.mid`, `.musicxml`,
//!   `.mxl`, `.mei`, `.ly`).
//! * [`score`]: voices, events, exact rational time, exact overlap queries.
//! * [`grammar`]: the onset-slot text grammar (Libretto's LLM-facing notation), strict by default.
//! * [`midi`]: Standard MIDI File format 1, one track per voice.
//! * [`musicxml`]: score-partwise MusicXML, plain and compressed (`.mxl`).
//! * [`mei`]: MEI 4 and 5 scores (read only).
//! * [`lilypond`]: LilyPond output.
//! * [`time_text`]: exact times as `"9/2"` text in JSON.
#![forbid(unsafe_code)]

pub mod annotation;
pub(crate) mod clef;
mod fit;
pub mod format;
pub mod grammar;
pub mod lilypond;
pub mod mei;
pub mod midi;
pub mod musicxml;
pub mod score;
pub mod time_text;

pub use format::{PitchLevel, ReadOptions};
pub use score::{
    Event, Grace, Key, Letter, Meter, MeterError, Mode, Pitch, PitchError, Score, Spelling, Time,
    Voice, time,
};

/// `"1 grace note"`, `"4 grace notes"`: a count for a warning or an error.
pub(crate) fn counted(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}
