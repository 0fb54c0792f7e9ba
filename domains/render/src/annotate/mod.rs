//! Producers of [`Annotations`]: what each analysis knows about the notes, in the
//! shared vocabulary of `cantus_music::annotation`, for the engraver to draw.
//!
//! * [`row_labels`]: the strict gate's statements — `P0` above each statement's
//!   first note, order positions on request;
//! * [`repairs`]: from a trace, each repaired note coloured by its rung and each
//!   dropped event as a ghost note where it would have been;
//! * [`interval_figures`]: a species exercise's vertical intervals as figures;
//! * [`violations`]: each violation's rule id below the note, in red.
//!
//! [`for_piece`] puts together what a piece of each domain gets.

mod counterpoint;
mod trace;
mod twelve_tone;

pub use counterpoint::interval_figures;
pub use trace::{repairs, rung_colour};
pub use twelve_tone::row_labels;

use crate::piece::{DomainKind, Piece};
use crate::verdict::{Finding, Verdict, twelve_tone_gate};
use cantus_music::annotation::{Annotations, Colour, MarkKind};

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

/// The annotations of a piece of either domain. Violations come first, so a
/// violating note is red even when a repair also coloured it.
pub fn for_piece(piece: &Piece, verdict: &Verdict, layers: Layers) -> Annotations {
    let mut out = Annotations::new();
    if layers.violations {
        extend(&mut out, violations(&verdict.findings));
    }
    if layers.analysis || layers.positions {
        match piece.domain {
            DomainKind::TwelveTone => {
                let statements = twelve_tone_gate(piece).statements(&piece.score);
                let labels = row_labels(&piece.score, &statements, layers.positions);
                extend(
                    &mut out,
                    Annotations {
                        marks: labels
                            .marks
                            .into_iter()
                            .filter(|m| match m.kind {
                                MarkKind::Position(_) => layers.positions,
                                _ => layers.analysis,
                            })
                            .collect(),
                    },
                );
            }
            DomainKind::Counterpoint if layers.analysis => {
                extend(&mut out, interval_figures(&piece.score));
            }
            DomainKind::Counterpoint => {}
        }
    }
    if layers.trace
        && let Some(trace) = &piece.trace
    {
        extend(&mut out, repairs(&piece.score, trace));
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
