//! Producers of [`Annotations`]: what each analysis knows about the notes, in the
//! shared vocabulary of `cantus_music::annotation`, for the engraver to draw.
//!
//! * the domain's own analysis, from its registered review
//!   ([`cantus_registry::Review::annotate`]): row labels for twelve-tone, interval
//!   figures for counterpoint;
//! * [`repairs`]: from a trace, each repaired note coloured by its rung and each
//!   dropped event as a ghost note where it would have been;
//! * [`violations`]: each violation's rule id below the note, in red.
//!
//! [`for_piece`] puts together what a piece of any domain gets.

mod trace;

pub use trace::{repairs, rung_colour};

use crate::piece::Piece;
use cantus_music::Score;
use cantus_music::annotation::{Annotations, Colour, MarkKind};
use cantus_registry::{Analysis, Finding, Verdict};

/// What to draw besides the music.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layers {
    /// Row labels (twelve-tone) or interval figures (counterpoint).
    pub analysis: bool,
    /// Order positions as small numbers (twelve-tone).
    pub positions: bool,
    /// Repair colours and ghosts, when the piece has a trace.
    pub trace: bool,
    /// The verdict's violations.
    pub violations: bool,
}

impl Default for Layers {
    fn default() -> Self {
        Layers {
            analysis: true,
            positions: false,
            trace: true,
            violations: true,
        }
    }
}

/// The annotations of a piece's score. Violations come first, so a violating note
/// is red even when a repair also coloured it.
pub fn for_piece(piece: &Piece, score: &Score, verdict: &Verdict, layers: Layers) -> Annotations {
    let mut out = Annotations::new();
    if layers.violations {
        extend(&mut out, violations(&verdict.findings));
    }
    if (layers.analysis || layers.positions)
        && let Ok(review) = piece.domain.reviewer()
    {
        let what = Analysis {
            labels: layers.analysis,
            positions: layers.positions,
        };
        extend(
            &mut out,
            review.annotate(crate::verdict::reviewed(piece), score, what),
        );
    }
    if layers.trace
        && let Some(trace) = &piece.trace
    {
        extend(&mut out, repairs(score, trace));
    }
    out
}

/// Each finding's rule id below its note, and the note in red.
pub fn violations(findings: &[Finding]) -> Annotations {
    let mut out = Annotations::new();
    for f in findings {
        if let Some(at) = &f.anchor {
            out.push(at.voice, at.onset, MarkKind::Remark(f.rule.clone()));
            if f.hard {
                out.push(at.voice, at.onset, MarkKind::Colour(Colour::Red));
            }
        }
    }
    out
}

fn extend(into: &mut Annotations, from: Annotations) {
    into.marks.extend(from.marks);
}
