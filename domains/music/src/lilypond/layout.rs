//! Laying one voice out as LilyPond music: polyphony split into lines, lines cut
//! into bars, notes tied over barlines, triplets grouped into `\tuplet 3/2`.
//!
//! This is the part of LilyPond output that can go wrong silently (LilyPond only
//! warns "barcheck failed"), so every bar is built from exact times that add up to
//! the bar length by construction, and every written value is checked to be a
//! whole number of 128th notes.

use super::LilypondError;
use super::marks::Decoration;
use super::notation::{absolute_pitch, bar_duration, decompose};
use crate::score::{Pitch, Time};
use std::collections::BTreeMap;

/// One chord of a line: what sounds (or, for a ghost, would have sounded) and how
/// it is drawn.
#[derive(Clone, Debug, Default)]
pub(super) struct Chord {
    pub onset: Time,
    pub duration: Time,
    pub pitches: Vec<Pitch>,
    pub decoration: Decoration,
}

/// One LilyPond voice: chords that never overlap, in time order.
pub(super) type Line = Vec<Chord>;

/// Splits a voice's chords into as few non-overlapping lines as possible. Chords
/// sharing onset, duration and kind (sounding or ghost) are one chord, their
/// decorations merged; otherwise the first line free at a chord's onset takes it
/// (optimal for intervals taken in onset order).
pub(super) fn split_into_lines(chords: Vec<Chord>) -> Vec<Line> {
    let mut merged: BTreeMap<(Time, Time, bool), Chord> = BTreeMap::new();
    for chord in chords {
        let key = (chord.onset, chord.duration, chord.decoration.ghost);
        match merged.get_mut(&key) {
            Some(existing) => {
                existing.pitches.extend(chord.pitches);
                existing.decoration.merge(chord.decoration);
            }
            None => {
                merged.insert(key, chord);
            }
        }
    }
    let mut lines: Vec<Line> = Vec::new();
    for (_, mut chord) in merged {
        chord.pitches.sort_by_key(|p| p.midi);
        chord.pitches.dedup_by_key(|p| p.midi);
        match lines.iter_mut().find(|line| {
            line.last()
                .is_none_or(|c| c.onset + c.duration <= chord.onset)
        }) {
            Some(line) => line.push(chord),
            None => lines.push(vec![chord]),
        }
    }
    lines
}

/// What a stretch of a line holds.
#[derive(Clone, Copy)]
enum Content<'a> {
    Chord(&'a Chord),
    Rest,
}

/// A stretch of one bar, in quarters from the bar's start; `tie` when its chord
/// goes on after `end`; `first` when it begins its chord (the piece that carries
/// the chord's texts).
#[derive(Clone, Copy)]
struct Piece<'a> {
    start: Time,
    end: Time,
    content: Content<'a>,
    tie: bool,
    first: bool,
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
        while next < line.len() && line[next].onset + line[next].duration <= bar_start {
            next += 1;
        }
        let mut pieces = Vec::new();
        let mut cursor = bar_start;
        for chord in line[next..].iter() {
            if chord.onset >= bar_end {
                break;
            }
            let start = chord.onset.max(bar_start);
            let end = (chord.onset + chord.duration).min(bar_end);
            if start > cursor {
                pieces.push(rest(cursor - bar_start, start - bar_start));
            }
            pieces.push(Piece {
                start: start - bar_start,
                end: end - bar_start,
                content: Content::Chord(chord),
                tie: chord.onset + chord.duration > bar_end,
                first: start == chord.onset,
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
        first: false,
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
        let mut first = piece.first;
        for &edge in windows.iter().flat_map(|(a, b)| [a, b]) {
            if start < edge && edge < piece.end {
                cut.push(Piece {
                    start,
                    end: edge,
                    tie: matches!(piece.content, Content::Chord(_)),
                    first,
                    ..*piece
                });
                start = edge;
                first = false;
            }
        }
        cut.push(Piece {
            start,
            first,
            ..*piece
        });
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
        let last = values.len().saturating_sub(1);
        match piece.content {
            Content::Rest => {
                let body = silence.within_bar();
                tokens.extend(values.into_iter().map(|value| format!("{body}{value}")));
            }
            Content::Chord(c) => {
                let body = chord(&c.pitches, voice, bar_start + piece.start)?;
                for (i, value) in values.into_iter().enumerate() {
                    let tie = if i < last || piece.tie { "~" } else { "" };
                    let d = &c.decoration;
                    let texts = if piece.first && i == 0 {
                        d.texts()
                    } else {
                        String::new()
                    };
                    let style = d.style(piece.first && i == 0);
                    // Over the last written value of the chord.
                    let ends = bar_start + piece.end == c.onset + c.duration;
                    let fermata = if d.fermata && i == last && ends {
                        "\\fermata"
                    } else {
                        ""
                    };
                    tokens.push(format!("{style}{body}{value}{texts}{fermata}{tie}"));
                }
            }
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
