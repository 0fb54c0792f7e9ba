//! Laying one voice out as LilyPond music: polyphony split into lines, lines cut
//! into bars, notes tied over barlines, triplets grouped into `\tuplet 3/2`.
//!
//! This is the part of LilyPond output that can go wrong silently (LilyPond only
//! warns "barcheck failed"), so every bar is built from exact times that add up to
//! the bar length by construction, and every written value is checked to be a
//! whole number of 128th notes.

use super::LilypondError;
use super::notation::{absolute_pitch, bar_duration, decompose};
use crate::score::{Event, Pitch, Time};
use std::collections::BTreeMap;

/// One LilyPond voice: events that never overlap, in time order.
pub(super) type Line = Vec<(Time, Time, Vec<Pitch>)>;

/// Splits a voice's events into as few non-overlapping lines as possible. Events
/// sharing onset and duration are one chord; otherwise the first line free at an
/// event's onset takes it (optimal for intervals taken in onset order).
pub(super) fn split_into_lines(events: &[Event]) -> Vec<Line> {
    let mut chords: BTreeMap<(Time, Time), Vec<Pitch>> = BTreeMap::new();
    for e in events {
        chords
            .entry((e.onset, e.duration))
            .or_default()
            .extend(e.pitches.iter().copied());
    }
    let mut lines: Vec<Line> = Vec::new();
    for ((onset, duration), mut pitches) in chords {
        pitches.sort_by_key(|p| p.midi);
        pitches.dedup_by_key(|p| p.midi);
        match lines
            .iter_mut()
            .find(|line| line.last().is_none_or(|(o, d, _)| *o + *d <= onset))
        {
            Some(line) => line.push((onset, duration, pitches)),
            None => lines.push(vec![(onset, duration, pitches)]),
        }
    }
    lines
}

/// What a stretch of a line holds.
#[derive(Clone, Copy)]
enum Content<'a> {
    Chord(&'a [Pitch]),
    Rest,
}

/// A stretch of one bar, in quarters from the bar's start; `tie` when its chord
/// goes on after `end`.
#[derive(Clone, Copy)]
struct Piece<'a> {
    start: Time,
    end: Time,
    content: Content<'a>,
    tie: bool,
}

/// How a line writes its silences.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Silence {
    /// Rests `r`, and a full-bar rest `R` for a bar without notes (the first line
    /// of a staff).
    Rest,
    /// Invisible spacers `s` (further lines: the first line shows the silence,
    /// and rests of three or more voices would collide).
    Spacer,
}

impl Silence {
    fn within_bar(self) -> &'static str {
        match self {
            Silence::Rest => "r",
            Silence::Spacer => "s",
        }
    }

    fn whole_bar(self) -> &'static str {
        match self {
            Silence::Rest => "R",
            Silence::Spacer => "s",
        }
    }
}

/// The bars of one line as LilyPond music, one string per bar (no bar check).
pub(super) fn layout_line(
    line: &Line,
    bars: u32,
    bar: Time,
    silence: Silence,
    voice: &str,
) -> Result<Vec<String>, LilypondError> {
    let mut out = Vec::with_capacity(bars as usize);
    let mut next = 0; // first event of `line` that may reach into the current bar
    for index in 0..bars {
        let bar_start = bar * Time::from_integer(i64::from(index));
        let bar_end = bar_start + bar;
        while next < line.len() && line[next].0 + line[next].1 <= bar_start {
            next += 1;
        }
        let mut pieces = Vec::new();
        let mut cursor = bar_start;
        for (onset, duration, pitches) in line[next..].iter() {
            if *onset >= bar_end {
                break;
            }
            let start = (*onset).max(bar_start);
            let end = (*onset + *duration).min(bar_end);
            if start > cursor {
                pieces.push(rest(cursor - bar_start, start - bar_start));
            }
            pieces.push(Piece {
                start: start - bar_start,
                end: end - bar_start,
                content: Content::Chord(pitches),
                tie: *onset + *duration > bar_end,
            });
            cursor = end;
        }
        if pieces.is_empty() {
            out.push(format!("{}{}", silence.whole_bar(), bar_duration(bar)));
            continue;
        }
        if cursor < bar_end {
            pieces.push(rest(cursor - bar_start, bar));
        }
        out.push(bar_music(&pieces, bar, bar_start, silence, voice)?);
    }
    Ok(out)
}

fn rest<'a>(start: Time, end: Time) -> Piece<'a> {
    Piece {
        start,
        end,
        content: Content::Rest,
        tie: false,
    }
}

/// Whether `t` is a whole number of some power-of-two fraction of a quarter.
fn is_binary(t: Time) -> bool {
    t.denom().count_ones() == 1
}

/// Sizes of the aligned windows a triplet group may take, smallest first:
/// a 128th note up to a breve, in quarters.
fn window_sizes() -> impl Iterator<Item = Time> {
    (0..9).map(|j| Time::new(1, 32) * Time::from_integer(1 << j))
}

/// Chooses the `\tuplet 3/2` windows of one bar: for every time not on the
/// binary grid, an aligned power-of-two window containing it. The smallest window
/// no note crosses is preferred (a triplet-eighth group takes one beat); when every
/// window is crossed, the largest that fits takes it and the crossing notes are tied.
fn tuplet_windows(
    pieces: &[Piece<'_>],
    bar: Time,
    bar_start: Time,
    voice: &str,
) -> Result<Vec<(Time, Time)>, LilypondError> {
    let mut windows: Vec<(Time, Time)> = Vec::new();
    let crossed = |at: Time| pieces.iter().any(|p| p.start < at && at < p.end);
    for t in pieces.iter().flat_map(|p| [p.start, p.end]) {
        if is_binary(t) || windows.iter().any(|&(a, b)| a < t && t < b) {
            continue;
        }
        if !is_binary(t * Time::from_integer(3)) {
            return Err(LilypondError::NotNotatable {
                voice: voice.to_string(),
                at: bar_start + t,
                reason: "only binary and triplet (3 in the time of 2) rhythms can be written"
                    .into(),
            });
        }
        let candidates: Vec<(Time, Time)> = window_sizes()
            .map(|size| {
                let a = (t / size).floor() * size;
                (a, a + size)
            })
            .filter(|&(a, b)| b <= bar && !windows.iter().any(|&(wa, wb)| a < wb && wa < b))
            .collect();
        let chosen = candidates
            .iter()
            .find(|&&(a, b)| !crossed(a) && !crossed(b))
            .or(candidates.last())
            .copied()
            .ok_or_else(|| LilypondError::NotNotatable {
                voice: voice.to_string(),
                at: bar_start + t,
                reason: "no triplet group fits in the bar".into(),
            })?;
        windows.push(chosen);
    }
    windows.sort();
    Ok(windows)
}

/// One bar of one line: pieces cut at triplet windows, each written as tied
/// notated values (or rests), triplet windows wrapped in `\tuplet 3/2 { }`.
fn bar_music(
    pieces: &[Piece<'_>],
    bar: Time,
    bar_start: Time,
    silence: Silence,
    voice: &str,
) -> Result<String, LilypondError> {
    let windows = tuplet_windows(pieces, bar, bar_start, voice)?;
    // Cut pieces at window edges; the first parts of a cut chord are tied on.
    let mut cut = Vec::with_capacity(pieces.len());
    for piece in pieces {
        let mut start = piece.start;
        for &edge in windows.iter().flat_map(|(a, b)| [a, b]) {
            if start < edge && edge < piece.end {
                cut.push(Piece {
                    start,
                    end: edge,
                    tie: matches!(piece.content, Content::Chord(_)),
                    ..*piece
                });
                start = edge;
            }
        }
        cut.push(Piece { start, ..*piece });
    }

    let mut tokens: Vec<String> = Vec::new();
    let three_halves = Time::new(3, 2);
    for piece in &cut {
        let window = windows
            .iter()
            .find(|&&(a, b)| a <= piece.start && piece.end <= b);
        if window.is_some_and(|&(a, _)| a == piece.start) {
            tokens.push("\\tuplet 3/2 {".into());
        }
        let written = match window {
            Some(_) => (piece.end - piece.start) * three_halves,
            None => piece.end - piece.start,
        };
        let values = decompose(written).ok_or_else(|| LilypondError::NotNotatable {
            voice: voice.to_string(),
            at: bar_start + piece.start,
            reason: format!(
                "a written length of {written} quarters is not a whole number of 128th notes"
            ),
        })?;
        let body = match piece.content {
            Content::Rest => silence.within_bar().to_string(),
            Content::Chord(pitches) => chord(pitches, voice, bar_start + piece.start)?,
        };
        let last = values.len().saturating_sub(1);
        for (i, value) in values.into_iter().enumerate() {
            let tie = matches!(piece.content, Content::Chord(_)) && (i < last || piece.tie);
            tokens.push(format!("{body}{value}{}", if tie { "~" } else { "" }));
        }
        if window.is_some_and(|&(_, b)| b == piece.end) {
            tokens.push("}".into());
        }
    }
    Ok(tokens.join(" "))
}

/// `c'` or `<c' e' g'>` (without duration).
fn chord(pitches: &[Pitch], voice: &str, at: Time) -> Result<String, LilypondError> {
    let names = pitches
        .iter()
        .map(|&p| absolute_pitch(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|reason| LilypondError::Unwritable {
            voice: voice.to_string(),
            at,
            reason,
        })?;
    Ok(match names.as_slice() {
        [single] => single.clone(),
        _ => format!("<{}>", names.join(" ")),
    })
}
