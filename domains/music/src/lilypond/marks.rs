//! How [`Annotations`] reach the engraving: each mark is attached to a chord of
//! the staff it names, and becomes LilyPond text around that chord's notes.
//!
//! * Labels and positions go above the note (`^\markup`), positions nearer the
//!   staff in small type, labels in bold; numerals (Roman numerals under a bass)
//!   go below it, nearest the staff, and remarks below them in red (`_\markup`).
//! * A colour is a one-time override of the note heads and accidentals, applied
//!   to every tied part of the note so a repaired note is coloured all through.
//! * A ghost is a note the score does not hold, drawn where it would have been:
//!   grey and in parentheses, in a LilyPond voice of its own when it overlaps.
//! * With [`Options::event_ids`](super::Options::event_ids), the first note head
//!   of every event carries SVG attributes (`class="cantus-event"`,
//!   `data-voice`, `data-onset`), so a page can find a note in LilyPond's SVG.
//!
//! A mark is anchored at a voice and an onset. When no event of that voice starts
//! there (a violation of a whole bar, say), it goes on the event sounding then,
//! else the next one, else the last one: see [`mark_target`].

use super::LilypondError;
use super::layout::Chord;
use super::notation::string_literal;
use crate::annotation::{Annotations, Colour, MarkKind};
use crate::score::{Pitch, Time, Voice};
use crate::time_text;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// How one chord is drawn beyond its pitches and rhythm.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Decoration {
    pub colour: Option<Colour>,
    pub ghost: bool,
    pub labels: Vec<String>,
    pub positions: Vec<u8>,
    pub numerals: Vec<String>,
    pub remarks: Vec<String>,
    /// `(voice, onset)` written as SVG attributes of the first note head.
    pub anchor: Option<(usize, Time)>,
    /// A fermata over the chord's last written value.
    pub fermata: bool,
}

impl Decoration {
    /// Folds another chord's decoration into this one (two events that became one
    /// chord): the first colour and anchor win, texts are kept in order.
    pub fn merge(&mut self, other: Decoration) {
        self.colour = self.colour.or(other.colour);
        self.anchor = self.anchor.or(other.anchor);
        self.fermata |= other.fermata;
        self.labels.extend(other.labels);
        self.positions.extend(other.positions);
        self.numerals.extend(other.numerals);
        self.remarks.extend(other.remarks);
    }

    /// What goes before one written value: SVG attributes (on the chord's first
    /// value only), then its colour or ghost style.
    pub fn style(&self, first: bool) -> String {
        let mut out = String::new();
        if first && let Some((voice, onset)) = self.anchor {
            let class = if self.ghost {
                "cantus-ghost"
            } else {
                "cantus-event"
            };
            let _ = write!(
                out,
                "\\once \\override NoteHead.output-attributes = #'((class . \"{class}\") \
                 (data-voice . \"{voice}\") (data-onset . \"{}\")) ",
                time_text::format(onset)
            );
        }
        if self.ghost {
            out.push_str("\\cantusGhost \\parenthesize ");
        } else if let Some(colour) = self.colour {
            let _ = write!(out, "\\{} ", colour_variable(colour));
        }
        out
    }

    /// The texts after the chord's first value: positions, labels, numerals, remarks.
    pub fn texts(&self) -> String {
        let mut out = String::new();
        if !self.positions.is_empty() {
            let unique: BTreeSet<u8> = self.positions.iter().copied().collect();
            let list: Vec<String> = unique.iter().map(u8::to_string).collect();
            let _ = write!(out, "^\\markup \\teeny {}", string_literal(&list.join(",")));
        }
        for label in &self.labels {
            let _ = write!(out, "^\\markup \\bold \\small {}", string_literal(label));
        }
        for numeral in &self.numerals {
            let _ = write!(out, "_\\markup \\small {}", string_literal(numeral));
        }
        for remark in &self.remarks {
            let _ = write!(
                out,
                "_\\markup \\with-color {} \\small {}",
                rgb(Colour::Red),
                string_literal(remark)
            );
        }
        out
    }
}

/// The red, green and blue of a note-head colour (also what a page's legend shows).
pub fn colour_rgb(colour: Colour) -> [u8; 3] {
    match colour {
        Colour::Red => [214, 39, 40],
        Colour::Orange => [237, 125, 13],
        Colour::Green => [44, 160, 44],
        Colour::Blue => [31, 119, 180],
        Colour::Purple => [148, 103, 189],
        Colour::Grey => [128, 128, 128],
    }
}

/// LilyPond's `#(rgb-color r g b)` for a colour.
fn rgb(colour: Colour) -> String {
    let [r, g, b] = colour_rgb(colour);
    let part = |c: u8| format!("{:.3}", f64::from(c) / 255.0);
    format!("#(rgb-color {} {} {})", part(r), part(g), part(b))
}

fn colour_variable(colour: Colour) -> &'static str {
    match colour {
        Colour::Red => "cantusRed",
        Colour::Orange => "cantusOrange",
        Colour::Green => "cantusGreen",
        Colour::Blue => "cantusBlue",
        Colour::Purple => "cantusPurple",
        Colour::Grey => "cantusGrey",
    }
}

/// The variable definitions the decorations of a file use (written after the
/// version line): one per colour used, and the ghost style if any ghost is drawn.
pub(super) fn definitions(lines: &[Chord]) -> String {
    let colours: BTreeSet<Colour> = lines
        .iter()
        .filter(|c| !c.decoration.ghost)
        .filter_map(|c| c.decoration.colour)
        .collect();
    let mut out = String::new();
    for colour in colours {
        let c = rgb(colour);
        let _ = writeln!(
            out,
            "{} = {{ \\once \\override NoteHead.color = {c} \\once \\override Accidental.color = {c} }}",
            colour_variable(colour)
        );
    }
    if lines.iter().any(|c| c.decoration.ghost) {
        let c = rgb(Colour::Grey);
        let _ = writeln!(
            out,
            "cantusGhost = {{ \\once \\override NoteHead.color = {c} \\once \\override Accidental.color = {c} \
             \\once \\override Stem.color = {c} \\once \\override Flag.color = {c} \\once \\override Dots.color = {c} \
             \\once \\override Parentheses.color = {c} }}"
        );
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// The event of `voice` a mark anchored at `onset` is drawn on: the first event
/// starting at `onset`; else the last event sounding at `onset`; else the first
/// event after it; else the last event. `None` for a voice without events.
/// Events are taken to be in onset order (as [`Voice::sort`] leaves them).
pub fn mark_target(voice: &Voice, onset: Time) -> Option<usize> {
    let events = &voice.events;
    let starting_before = events.partition_point(|e| e.onset < onset);
    if events
        .get(starting_before)
        .is_some_and(|e| e.onset == onset)
    {
        return Some(starting_before);
    }
    if let Some(sounding) = events[..starting_before]
        .iter()
        .rposition(|e| e.sounds_at(onset))
    {
        return Some(sounding);
    }
    if starting_before < events.len() {
        return Some(starting_before);
    }
    events.len().checked_sub(1)
}

/// One voice's chords: its events, decorated by the marks on it, and its ghosts
/// (clipped to `end`, the end of the last bar written). Times were checked before.
pub(super) fn voice_chords(
    voice: &Voice,
    index: usize,
    annotations: &Annotations,
    event_ids: bool,
    end: Time,
) -> Result<Vec<Chord>, LilypondError> {
    let mut chords: Vec<Chord> = voice
        .events
        .iter()
        .map(|e| Chord {
            onset: e.onset,
            duration: e.duration,
            pitches: e.pitches.clone(),
            decoration: Decoration {
                anchor: event_ids.then_some((index, e.onset)),
                fermata: e.fermata,
                ..Decoration::default()
            },
        })
        .collect();
    let mut ghosts = Vec::new();
    for mark in annotations.marks.iter().filter(|m| m.at.voice == index) {
        let onset = mark.at.onset;
        if let MarkKind::Ghost { pitches, duration } = &mark.kind {
            if let Some(ghost) = ghost_chord(voice, onset, *duration, pitches, end)? {
                ghosts.push(Chord {
                    decoration: Decoration {
                        ghost: true,
                        anchor: event_ids.then_some((index, onset)),
                        ..Decoration::default()
                    },
                    ..ghost
                });
            }
            continue;
        }
        let target = mark_target(voice, onset).ok_or_else(|| LilypondError::Annotation {
            voice: voice.name.clone(),
            at: onset,
            reason: "the voice has no note to attach the mark to".into(),
        })?;
        let decoration = &mut chords[target].decoration;
        match &mark.kind {
            MarkKind::Label(text) => decoration.labels.push(text.clone()),
            MarkKind::Position(p) => decoration.positions.push(*p),
            MarkKind::Colour(c) => decoration.colour = decoration.colour.or(Some(*c)),
            MarkKind::Remark(text) => decoration.remarks.push(text.clone()),
            MarkKind::Numeral(text) => decoration.numerals.push(text.clone()),
            MarkKind::Ghost { .. } => {}
        }
    }
    chords.extend(ghosts);
    Ok(chords)
}

/// A ghost as a chord, or `None` when it starts at or after `end`.
fn ghost_chord(
    voice: &Voice,
    onset: Time,
    duration: Time,
    pitches: &[u8],
    end: Time,
) -> Result<Option<Chord>, LilypondError> {
    let fail = |reason: String| LilypondError::Annotation {
        voice: voice.name.clone(),
        at: onset,
        reason,
    };
    if pitches.is_empty() || pitches.iter().any(|&p| p > 127) {
        return Err(fail(format!(
            "a ghost note needs MIDI pitches 0..=127, not {pitches:?}"
        )));
    }
    if duration <= Time::from_integer(0) {
        return Err(fail(format!("ghost duration {duration} is not positive")));
    }
    for (what, t) in [("onset", onset), ("duration", duration)] {
        if super::grid_ticks(t).is_none() {
            return Err(fail(format!(
                "the ghost's {what} {t} is not on the grid LilyPond output writes"
            )));
        }
    }
    if onset >= end {
        return Ok(None);
    }
    let duration = duration.min(end - onset);
    Ok(Some(Chord {
        onset,
        duration,
        pitches: pitches.iter().map(|&p| Pitch::new(p)).collect(),
        decoration: Decoration::default(),
    }))
}
