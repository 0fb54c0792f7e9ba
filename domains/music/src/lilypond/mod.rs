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
//! * [`write_annotated`] also draws [`Annotations`]: row labels, order positions,
//!   note-head colours, ghost notes and remarks (see `marks.rs`).
//! * A score without a key gets no `\key` at all: no signature, and nothing
//!   claims C major.
//!
//! # Limits
//!
//! Output grows with bars × LilyPond voices, so the writer refuses, before it
//! lays anything out, a score of more than [`MAX_BARS`] bars (the MusicXML
//! writer's limit), more than [`MAX_BAR_LINES`] bars summed over all LilyPond
//! voices, a meter numerator above [`crate::grammar::MAX_METER`], and any time
//! off the grid of 1/96 quarter notes (binary values down to the 128th and their
//! triplets): nothing else can be written, and the check keeps all later
//! arithmetic small.
//!
//! Not written: spellings other than those given (unspelled pitches use
//! [`Pitch::spelling_or_default`](crate::score::Pitch::spelling_or_default)),
//! tags, tuplets other than triplets.

mod layout;
mod marks;
mod notation;

pub use marks::{colour_rgb, mark_target};

use crate::annotation::Annotations;
use crate::score::{Score, Time, Voice};
use layout::{Chord, Silence, layout_line, split_into_lines};
use marks::{definitions, voice_chords};
use notation::{clef, key_command, string_literal};
use num_traits::CheckedAdd;
use std::fmt::Write as _;
use thiserror::Error;

/// The LilyPond version the output declares.
pub const LILYPOND_VERSION: &str = "2.24.0";

/// Most bars the writer lays out (as the MusicXML writer).
pub const MAX_BARS: u32 = 100_000;

/// Most bars summed over every LilyPond voice of the file (a staff with
/// overlapping events has several), which bounds the output's size.
pub const MAX_BAR_LINES: u64 = 1_000_000;

/// Ticks per quarter note of the grid every written time lies on: 2^5 · 3.
const GRID: i64 = 96;

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
    /// A mark that cannot be drawn (a ghost off the grid, a mark on a voice with
    /// no notes).
    #[error("voice {voice:?}, mark at onset {at}: {reason}")]
    Annotation {
        /// Voice name (or `voice N` for an index the score does not have).
        voice: String,
        /// Onset the mark is anchored at, in quarter notes.
        at: Time,
        /// Why.
        reason: String,
    },
    /// The score is larger than the writer's limits (see the module docs).
    #[error("{0}")]
    TooLarge(String),
    /// Score-level data LilyPond output cannot hold.
    #[error("cannot write as LilyPond: {0}")]
    Score(String),
}

/// What [`write_annotated`] adds besides the marks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Give the first note head of every event (and ghost) SVG attributes:
    /// `class="cantus-event"` (`cantus-ghost`), `data-voice` (index) and
    /// `data-onset` (quarter notes, as `"7/2"`), so a page showing LilyPond's SVG
    /// can find the note of a violation or a trace event.
    pub event_ids: bool,
}

/// Writes `score` as a LilyPond 2.24 source file (see the module docs for the
/// layout). Errors name the voice and time of anything that cannot be notated.
pub fn write(score: &Score) -> Result<String, LilypondError> {
    write_annotated(score, &Annotations::new(), &Options::default())
}

/// Writes `score` with `annotations` drawn on it (see `marks.rs` for how each
/// kind of mark looks). Marks of a voice index the score does not have are an
/// error, as is a mark on a voice with no notes.
pub fn write_annotated(
    score: &Score,
    annotations: &Annotations,
    options: &Options,
) -> Result<String, LilypondError> {
    let meter = score.meter;
    if meter.num == 0
        || meter.num > crate::grammar::MAX_METER
        || !meter.den.is_power_of_two()
        || meter.den > 128
    {
        return Err(LilypondError::Score(format!(
            "meter {meter}: needs a numerator in 1..={} and a power-of-two denominator up to 128",
            crate::grammar::MAX_METER
        )));
    }
    let mut end_ticks = 0i128;
    for voice in &score.voices {
        end_ticks = end_ticks.max(check_events(voice)?);
    }
    if let Some(mark) = annotations
        .marks
        .iter()
        .find(|m| m.at.voice >= score.voices.len())
    {
        return Err(LilypondError::Annotation {
            voice: format!("voice {}", mark.at.voice + 1),
            at: mark.at.onset,
            reason: format!("the score has {} voices", score.voices.len()),
        });
    }
    let bar = score.bar_length();
    let bars = bar_count(score, bar, end_ticks)?;
    let end = bar * Time::from_integer(i64::from(bars));

    let mut staves = Vec::with_capacity(score.voices.len());
    let mut bar_lines = 0u64;
    for (index, voice) in score.voices.iter().enumerate() {
        let chords = voice_chords(voice, index, annotations, options.event_ids, end)?;
        let lines = split_into_lines(chords);
        bar_lines += lines.len().max(1) as u64 * u64::from(bars);
        if bar_lines > MAX_BAR_LINES {
            return Err(LilypondError::TooLarge(format!(
                "{bars} bars in at least {} LilyPond voices exceed {MAX_BAR_LINES} bars in all \
                 (voice {:?} alone needs {} voices for its overlapping notes)",
                index + 1,
                voice.name,
                lines.len()
            )));
        }
        staves.push(lines);
    }

    let mut out = String::new();
    let _ = writeln!(out, "\\version \"{LILYPOND_VERSION}\"\n");
    let all: Vec<Chord> = staves.iter().flatten().flatten().cloned().collect();
    out.push_str(&definitions(&all));
    out.push_str("\\header {\n");
    if let Some(title) = &score.title {
        let _ = writeln!(out, "  title = {}", string_literal(title));
    }
    out.push_str("  tagline = ##f\n}\n\n\\score {\n  <<\n");
    for (index, (voice, lines)) in score.voices.iter().zip(&staves).enumerate() {
        // The part's own key, else the score's.
        let key = score
            .part_key(voice)
            .map(|key| {
                key_command(key).ok_or_else(|| {
                    LilypondError::Score("key tonic beyond double sharps or flats".into())
                })
            })
            .transpose()?;
        let mut staff = Vec::new();
        let pitches = voice
            .events
            .iter()
            .flat_map(|e| e.pitches.iter().map(|p| p.midi));
        staff.push(format!("\\clef \"{}\"", clef(pitches)));
        staff.extend(key.clone());
        staff.push(format!("\\time {}/{}", meter.num, meter.den));
        if let (0, Some(bpm)) = (index, score.tempo) {
            staff.push(format!("\\tempo 4 = {}", display_bpm(bpm)));
        }
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

/// `t` in ticks of the 1/96-quarter grid, if it is on it and not negative.
pub(crate) fn grid_ticks(t: Time) -> Option<i128> {
    let (n, d) = (i128::from(*t.numer()), i128::from(*t.denom()));
    (n >= 0 && d > 0 && i128::from(GRID) % d == 0).then(|| n * (i128::from(GRID) / d))
}

/// Refuses events no notation can hold, before any layout; returns the end of
/// the voice's last note in grid ticks.
fn check_events(voice: &Voice) -> Result<i128, LilypondError> {
    let zero = Time::from_integer(0);
    let mut end = 0i128;
    for event in &voice.events {
        let unwritable = |reason: String| LilypondError::Unwritable {
            voice: voice.name.clone(),
            at: event.onset,
            reason,
        };
        if event.onset < zero {
            return Err(unwritable("negative onset".into()));
        }
        if event.is_grace() {
            return Err(unwritable(
                "a grace note; the LilyPond writer does not write them (a conversion \
                 leaves them out)"
                    .into(),
            ));
        }
        if event.duration <= zero {
            return Err(unwritable(format!(
                "duration {} is not positive",
                event.duration
            )));
        }
        if event.pitches.is_empty() {
            return Err(unwritable("event has no pitches".into()));
        }
        if let Some(p) = event.pitches.iter().find(|p| p.midi > 127) {
            return Err(unwritable(format!("MIDI pitch {} is above 127", p.midi)));
        }
        let off_grid = |at: Time| LilypondError::NotNotatable {
            voice: voice.name.clone(),
            at,
            reason: "only binary values down to the 128th note and their triplets (3 in the \
                     time of 2) can be written"
                .into(),
        };
        let onset = grid_ticks(event.onset).ok_or_else(|| off_grid(event.onset))?;
        let duration = grid_ticks(event.duration).ok_or_else(|| {
            off_grid(
                event
                    .onset
                    .checked_add(&event.duration)
                    .unwrap_or(event.onset),
            )
        })?;
        end = end.max(onset.saturating_add(duration));
    }
    Ok(end)
}

/// Bars written: the declared count or enough for every note, at least one, at
/// most [`MAX_BARS`]. Counted in grid ticks, so no time can overflow.
fn bar_count(score: &Score, bar: Time, end_ticks: i128) -> Result<u32, LilypondError> {
    // The meter was checked: a bar is a whole number of ticks (384·num/den, den ≤ 128).
    let bar_ticks = grid_ticks(bar).filter(|t| *t > 0).ok_or_else(|| {
        LilypondError::Score(format!("meter {}: a bar off the grid", score.meter))
    })?;
    let needed = (end_ticks + bar_ticks - 1) / bar_ticks;
    let bars = needed.max(i128::from(score.bars.unwrap_or(0))).max(1);
    if bars > i128::from(MAX_BARS) {
        return Err(LilypondError::TooLarge(format!(
            "the score spans {bars} bars; at most {MAX_BARS} are written"
        )));
    }
    Ok(u32::try_from(bars).unwrap_or(MAX_BARS))
}

/// Whole beats per minute for the `\tempo` mark (halves round up; at least 1).
fn display_bpm(bpm: Time) -> i128 {
    let (n, d) = (i128::from(*bpm.numer()), i128::from(*bpm.denom()));
    ((2 * n + d).div_euclid(2 * d)).max(1)
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
