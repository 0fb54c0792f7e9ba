//! LilyPond output: a score as engraving source a musician can read and print.
//!
//! LilyPond is how a person checks what a generator wrote: `lilypond score.ly`
//! gives a PDF. The output targets LilyPond 2.24 (Debian bookworm), uses absolute
//! octaves (`c'` = middle C) and Dutch note names, and is built so LilyPond
//! compiles it without a warning: every bar is filled exactly and closed with a
//! `|` bar check.
//!
//! * One `\new Staff` per voice, named after it, with a clef chosen from the
//!   voice's mean pitch (treble, treble_8, bass), `\key` (C major when the score
//!   has none), `\time`, and on the first staff `\tempo 4 = N` when the tempo is
//!   known (rounded to whole bpm for display).
//! * Gaps are rests; a note crossing a barline is split and tied; lengths are
//!   written as plain or dotted values tied together; times on a triplet grid are
//!   grouped into `\tuplet 3/2 { }`.
//! * Events of one voice that overlap in time (polyphony within a voice) go into
//!   further LilyPond voices on the same staff, `<< { … } \\ { … } >>`, as few as
//!   the overlaps need; the first shows the rests, further ones only their notes
//!   (their silences are invisible spacers, so rests never pile up).
//!
//! Not written: spellings other than those given (unspelled pitches use
//! [`Pitch::spelling_or_default`](crate::score::Pitch::spelling_or_default)),
//! tags, tuplets other than triplets.

mod layout;
mod notation;

use crate::score::{Score, Time, Voice};
use layout::{Silence, layout_line, split_into_lines};
use notation::{clef, key_command, string_literal};
use std::fmt::Write as _;
use thiserror::Error;

/// The LilyPond version the output declares.
pub const LILYPOND_VERSION: &str = "2.24.0";

/// Why a score cannot be written as LilyPond.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum LilypondError {
    /// A time that needs a rhythm LilyPond output does not write (quintuplets,
    /// nested triplets, values shorter than a 128th note).
    #[error("voice {voice:?} at {at} quarter notes: cannot notate: {reason}")]
    NotNotatable {
        /// Voice name.
        voice: String,
        /// Absolute time of the offending note or boundary, in quarter notes.
        at: Time,
        /// Why.
        reason: String,
    },
    /// An event that cannot be written at all (negative onset, non-positive
    /// duration, no pitches, a spelling that does not match its pitch).
    #[error("voice {voice:?}, event at onset {at}: {reason}")]
    Unwritable {
        /// Voice name.
        voice: String,
        /// Onset of the event, in quarter notes.
        at: Time,
        /// Why.
        reason: String,
    },
    /// Score-level data LilyPond output cannot hold.
    #[error("cannot write as LilyPond: {0}")]
    Score(String),
}

/// Writes `score` as a LilyPond 2.24 source file (see the module docs for the
/// layout). Errors name the voice and time of anything that cannot be notated.
pub fn write(score: &Score) -> Result<String, LilypondError> {
    let meter = score.meter;
    if meter.num == 0 || !meter.den.is_power_of_two() || meter.den > 128 {
        return Err(LilypondError::Score(format!(
            "meter {meter}: needs a positive numerator and a power-of-two denominator up to 128"
        )));
    }
    let key = key_command(score.key)
        .ok_or_else(|| LilypondError::Score("key tonic beyond double sharps or flats".into()))?;
    for voice in &score.voices {
        check_events(voice)?;
    }
    let bar = score.bar_length();
    let bars = score.bar_count().max(1);

    let mut out = String::new();
    let _ = writeln!(out, "\\version \"{LILYPOND_VERSION}\"\n");
    out.push_str("\\header {\n");
    if let Some(title) = &score.title {
        let _ = writeln!(out, "  title = {}", string_literal(title));
    }
    out.push_str("  tagline = ##f\n}\n\n\\score {\n  <<\n");
    for (index, voice) in score.voices.iter().enumerate() {
        let mut staff = Vec::new();
        let pitches = voice
            .events
            .iter()
            .flat_map(|e| e.pitches.iter().map(|p| p.midi));
        staff.push(format!("\\clef \"{}\"", clef(pitches)));
        staff.push(key.clone());
        staff.push(format!("\\time {}/{}", meter.num, meter.den));
        if let (0, Some(bpm)) = (index, score.tempo) {
            staff.push(format!("\\tempo 4 = {}", display_bpm(bpm)));
        }
        let lines = split_into_lines(&voice.events);
        let mut laid_out = Vec::with_capacity(lines.len().max(1));
        if lines.is_empty() {
            laid_out.push(layout_line(
                &Vec::new(),
                bars,
                bar,
                Silence::Rest,
                &voice.name,
            )?);
        }
        for (i, line) in lines.iter().enumerate() {
            let silence = if i == 0 {
                Silence::Rest
            } else {
                Silence::Spacer
            };
            laid_out.push(layout_line(line, bars, bar, silence, &voice.name)?);
        }
        write_staff(&mut out, &voice.name, &staff, &laid_out);
    }
    out.push_str("  >>\n  \\layout { }\n}\n");
    Ok(out)
}

/// Refuses events no notation can hold, before any layout.
fn check_events(voice: &Voice) -> Result<(), LilypondError> {
    let zero = Time::from_integer(0);
    for event in &voice.events {
        let problem = if event.onset < zero {
            Some("negative onset".to_string())
        } else if event.duration <= zero {
            Some(format!("duration {} is not positive", event.duration))
        } else if event.pitches.is_empty() {
            Some("event has no pitches".to_string())
        } else {
            None
        };
        if let Some(reason) = problem {
            return Err(LilypondError::Unwritable {
                voice: voice.name.clone(),
                at: event.onset,
                reason,
            });
        }
    }
    Ok(())
}

/// Whole beats per minute for the `\tempo` mark (halves round up; at least 1).
fn display_bpm(bpm: Time) -> i64 {
    (bpm + Time::new(1, 2)).floor().to_integer().max(1)
}

/// One staff: settings, then either one line of bars or a `<< { } \\ { } >>`.
fn write_staff(out: &mut String, name: &str, settings: &[String], lines: &[Vec<String>]) {
    let _ = writeln!(
        out,
        "    \\new Staff \\with {{ instrumentName = {} }} {{",
        string_literal(name)
    );
    for setting in settings {
        let _ = writeln!(out, "      {setting}");
    }
    match lines {
        [single] => write_bars(out, single, "      "),
        _ => {
            out.push_str("      <<\n");
            for (i, line) in lines.iter().enumerate() {
                if i > 0 {
                    out.push_str("        \\\\\n");
                }
                out.push_str("        {\n");
                write_bars(out, line, "          ");
                out.push_str("        }\n");
            }
            out.push_str("      >>\n");
        }
    }
    out.push_str("      \\bar \"|.\"\n    }\n");
}

fn write_bars(out: &mut String, bars: &[String], indent: &str) {
    for music in bars {
        let _ = writeln!(out, "{indent}{music} |");
    }
}
