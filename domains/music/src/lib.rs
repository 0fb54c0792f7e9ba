//! `cantus-music`: the exact score model and the formats musicians and models read.
//!
//! * [`score`]: voices, events, exact rational time, exact overlap queries.
#![forbid(unsafe_code)]

pub mod score;

pub use score::{Event, Key, Letter, Meter, Mode, Pitch, Score, Spelling, Time, Voice, time};
