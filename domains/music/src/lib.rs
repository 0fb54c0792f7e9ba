//! `cantus-music`: the exact score model and the formats musicians and models read.
//!
//! * [`score`]: voices, events, exact rational time, exact overlap queries.
//! * [`midi`]: Standard MIDI File format 1, one track per voice.
//! * [`lilypond`]: LilyPond output.
//! * [`time_text`]: exact times as `"9/2"` text in JSON.
#![forbid(unsafe_code)]

pub mod lilypond;
pub mod midi;
pub mod score;
pub mod time_text;

pub use score::{Event, Key, Letter, Meter, Mode, Pitch, Score, Spelling, Time, Voice, time};
