//! Marks drawn on a score without changing its music.
//!
//! Analyses and traces know things about notes that the score does not hold: which
//! row statement a note begins (`P0`, `I5`), its order position, which repair rung
//! changed it, which event the harness dropped, which rule a bar breaks. They hand
//! those to a renderer as [`Annotations`] keyed by voice and onset, so the analyser,
//! the trace reader and the engraver share one vocabulary and none needs to know
//! the others.

use crate::score::Time;
use serde::Serialize;

/// Where a mark attaches: the event of `voice` (index into [`crate::Score::voices`])
/// that starts at `onset` (quarter notes from the start of the piece).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Anchor {
    pub voice: usize,
    #[serde(with = "crate::time_text")]
    pub onset: Time,
}

/// A colour a renderer can draw a note head in. Named, so every renderer agrees on
/// what a colour means (a legend can list them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Colour {
    Red,
    Orange,
    Green,
    Blue,
    Purple,
    Grey,
}

/// One thing to draw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "kebab-case")]
pub enum MarkKind {
    /// Text above the note, e.g. a row-form label such as `P0`.
    Label(String),
    /// A small number by the note, e.g. its order position in the row (1–12).
    Position(u8),
    /// The note head drawn in this colour, e.g. by the repair rung that changed it.
    Colour(Colour),
    /// A note that is not in the score, drawn faintly where it would have been (e.g.
    /// an event the harness dropped): its MIDI pitches and its duration.
    Ghost {
        pitches: Vec<u8>,
        #[serde(with = "crate::time_text")]
        duration: Time,
    },
    /// A remark attached to the note, e.g. the rule a violation breaks there.
    Remark(String),
    /// Analysis text below the note, e.g. the Roman numeral of a chord under its
    /// bass (harmonic analysis reads under the lowest staff).
    Numeral(String),
}

/// A mark at an anchor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mark {
    #[serde(flatten)]
    pub at: Anchor,
    #[serde(flatten)]
    pub kind: MarkKind,
}

/// Every mark for one score, in the order they were added.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Annotations {
    pub marks: Vec<Mark>,
}

impl Annotations {
    /// No marks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a mark on the event of `voice` starting at `onset`.
    pub fn push(&mut self, voice: usize, onset: Time, kind: MarkKind) {
        self.marks.push(Mark {
            at: Anchor { voice, onset },
            kind,
        });
    }

    /// The marks anchored at `voice`/`onset`, in order.
    pub fn at(&self, voice: usize, onset: Time) -> impl Iterator<Item = &MarkKind> {
        self.marks
            .iter()
            .filter(move |m| m.at.voice == voice && m.at.onset == onset)
            .map(|m| &m.kind)
    }

    /// Whether there is no mark at all.
    pub fn is_empty(&self) -> bool {
        self.marks.is_empty()
    }
}
