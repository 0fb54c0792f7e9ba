//! Standard MIDI Files in and out of the exact score model.
//!
//! MIDI is how a score reaches a synthesizer, a DAW or another analysis tool, and
//! how the reference corpus (music21's exports) reaches Cantus. It carries what
//! sounds — key numbers, onsets, durations, tempo, meter, key — and nothing of how
//! it is written: spellings, event tags and the declared bar count are lost.
//!
//! Time is exact in both directions: [`write()`] turns quarter notes into ticks at
//! [`TICKS_PER_QUARTER`] and refuses (naming voice and onset) any time that is not
//! a whole number of ticks; [`read`] turns ticks into the exact fraction
//! `ticks / ppq` of the file's own resolution. No float is involved.
//!
//! * [`write()`]: format 1, conductor track first, one track (and channel) per voice.
//!   See [`write()`] for tempo, channels and same-pitch overlaps.
//! * [`read`] / [`read_with_warnings`] / [`read_with`]: formats 0 and 1; voices by
//!   track, and by channel within a track that uses several. The byte structure
//!   (chunk lengths, event lengths, track count) is checked first: a damaged file
//!   is refused naming the chunk, the length it declares and where the file
//!   ends, or, when lenient, read as far as it goes with a warning per fault.

mod check;
mod read;
mod tempo;
mod write;

pub use read::{MidiWarning, read, read_with, read_with_warnings};
pub use write::write;

use crate::score::Time;
use thiserror::Error;

/// Resolution of the files [`write()`] produces, in ticks per quarter note.
///
/// 960 = 2⁶·3·5: every binary value down to the 128th note (30 ticks), every
/// triplet value down to 24 per whole note (the triplet sixteenth, 160 ticks) and
/// its halves, and quintuplets down to 20 per whole (192 ticks) are whole numbers
/// of ticks.
pub const TICKS_PER_QUARTER: u16 = 960;

/// Velocity of every note-on [`write()`] produces.
pub const NOTE_ON_VELOCITY: u8 = 80;

/// Why a MIDI file could not be read or a score could not be written as MIDI.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum MidiError {
    /// The bytes are not a Standard MIDI File midly can parse.
    #[error("not a readable Standard MIDI File: {0}")]
    Malformed(String),
    /// A header field is missing or impossible.
    #[error("invalid MIDI header: field `{field}` at byte {offset}: {what}")]
    Header {
        /// The field: `chunk type`, `header length`, `format`, `ntrks`.
        field: &'static str,
        /// Byte offset of the field in the file.
        offset: usize,
        /// What is wrong with it.
        what: String,
    },
    /// A chunk declares more bytes than the file holds.
    #[error(
        "damaged MIDI file: {chunk} declares {declared} bytes, but the file ends at byte {file_end} ({present} bytes present); read it with --lenient to keep what is there"
    )]
    Truncated {
        /// Which chunk, and the byte offset where it starts.
        chunk: String,
        /// Its declared length.
        declared: u64,
        /// The bytes of it the file holds.
        present: usize,
        /// The length of the file.
        file_end: usize,
    },
    /// An event or chunk runs past the end of its track or of the file.
    #[error("damaged MIDI file: {0}; read it with --lenient to keep what is there")]
    Damaged(String),
    /// The file counts time in SMPTE frames, not ticks per quarter note.
    #[error(
        "unsupported timing: SMPTE timecode ({fps} frames/s, {subframes} ticks/frame); only metrical (ticks per quarter note) files can be read"
    )]
    SmpteTiming {
        /// Frames per second as the header states it (24, 25, 29 for 29.97, 30).
        fps: u8,
        /// Ticks per frame.
        subframes: u8,
    },
    /// The header states 0 ticks per quarter note.
    #[error("invalid header: 0 ticks per quarter note")]
    ZeroResolution,
    /// Format 2 (independent sequential patterns) has no single timeline.
    #[error(
        "unsupported format 2 (sequential independent tracks); only formats 0 and 1 can be read"
    )]
    SequentialFormat,
    /// A time or key signature meta event the score model cannot hold.
    #[error("track {track}, tick {tick}: {what}")]
    InvalidMeta {
        /// 0-based track index.
        track: usize,
        /// Absolute tick of the event.
        tick: u64,
        /// What is wrong with it.
        what: String,
    },
    /// A track is longer than exact time can count.
    #[error("track {track}: absolute time {tick} ticks is too large")]
    TooLong {
        /// 0-based track index.
        track: usize,
        /// The offending absolute tick.
        tick: u64,
    },
    /// An event's onset or end is not a whole number of ticks at [`TICKS_PER_QUARTER`].
    #[error(
        "voice {voice:?}, event at onset {onset}: {what} {value} quarter notes is not a whole number of ticks at {TICKS_PER_QUARTER} per quarter"
    )]
    NotRepresentable {
        /// Voice name.
        voice: String,
        /// Onset of the offending event (quarter notes).
        onset: Time,
        /// `"onset"` or `"end"`.
        what: &'static str,
        /// The unrepresentable time.
        value: Time,
    },
    /// An event MIDI cannot carry at all (negative onset, empty or non-positive
    /// duration, too late in time).
    #[error("voice {voice:?}, event at onset {onset}: {what}")]
    InvalidEvent {
        /// Voice name.
        voice: String,
        /// Onset of the offending event (quarter notes).
        onset: Time,
        /// What is wrong with it.
        what: String,
    },
    /// Score-level data MIDI cannot carry (meter, key, tempo, too many voices).
    #[error("cannot write as MIDI: {0}")]
    Unwritable(String),
    /// midly refused to encode the file (only at the limits of the format).
    #[error("MIDI encoding failed: {0}")]
    Encode(String),
}
