//! An analysis as score annotations ([`cantus_music::annotation`]), so a renderer can
//! draw it over the notes: each statement's labels above its first note, each order
//! position's number by its note, a remark on notes two statements share, and the
//! notes no statement explains in grey. Grace notes get no mark: the score writers
//! that draw marks do not write grace notes.
//!
//! Only a reading the verdict stands behind is drawn. In any chromatic texture the
//! analyser finds statements of *some* row (`control.rs` says how many), so a piece
//! judged not twelve-tone gets no labels and no positions — they would be chance fits
//! drawn as if they were the composer's — but one remark on its first note saying
//! what was found and what its shuffled copies reached.

use super::listing::percent;
use super::report::{Analysis, NoteRole, Verdict};
use cantus_music::annotation::{Annotations, Colour, MarkKind};

/// The annotations of `analysis` (anchored by voice index and onset).
pub fn annotations(analysis: &Analysis) -> Annotations {
    let mut marks = Annotations::new();
    match analysis.verdict {
        Verdict::TwelveTone | Verdict::PartlyTwelveTone => {}
        Verdict::NotTwelveTone => {
            if let Some((voice, onset)) = first_note(analysis) {
                marks.push(voice, onset, MarkKind::Remark(chance_remark(analysis)));
            }
            return marks;
        }
        Verdict::Empty => return marks,
    }
    for s in &analysis.statements {
        let Some(first) = s
            .notes
            .iter()
            .find(|n| n.role != NoteRole::Repetition && !n.grace)
        else {
            continue;
        };
        let mut label = s
            .labels
            .zero_centred
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("=");
        if !s.complete {
            label.push('…');
        }
        marks.push(first.voice, first.onset, MarkKind::Label(label));
        for n in s.notes.iter().filter(|n| !n.grace) {
            match (n.role, n.position) {
                (NoteRole::Position, Some(p)) => {
                    marks.push(n.voice, n.onset, MarkKind::Position(p));
                }
                (NoteRole::Elided, Some(p)) => {
                    marks.push(n.voice, n.onset, MarkKind::Position(p));
                    marks.push(
                        n.voice,
                        n.onset,
                        MarkKind::Remark(format!("elided into statement {}", s.number)),
                    );
                }
                (NoteRole::Shared, Some(p)) => {
                    marks.push(n.voice, n.onset, MarkKind::Position(p));
                    marks.push(
                        n.voice,
                        n.onset,
                        MarkKind::Remark(format!("shared with statement {}", s.number)),
                    );
                }
                _ => {}
            }
        }
    }
    for n in analysis.unexplained.iter().filter(|n| !n.grace) {
        marks.push(n.voice, n.onset, MarkKind::Colour(Colour::Grey));
    }
    marks
}

/// Where the piece's first drawn note is (voice index and onset; earliest onset, then
/// lowest voice), among every note the analysis placed.
fn first_note(analysis: &Analysis) -> Option<(usize, cantus_music::Time)> {
    analysis
        .statements
        .iter()
        .flat_map(|s| &s.notes)
        .chain(&analysis.unexplained)
        .filter(|n| !n.grace)
        .map(|n| (n.onset, n.voice))
        .min()
        .map(|(onset, voice)| (voice, onset))
}

/// The remark on a piece judged not twelve-tone: its share in complete statements
/// beside its shuffled copies' highest ([`Control::highest`](super::report::Control::highest)).
fn chance_remark(analysis: &Analysis) -> String {
    let piece = percent(analysis.explained_by_complete, analysis.notes);
    match analysis.control.highest() {
        Some(high) => format!(
            "not twelve-tone: {piece} of the notes in complete statements, its shuffled copies up to {}; no statement drawn",
            percent(high.explained_by_complete, high.notes)
        ),
        None => format!(
            "not twelve-tone: {piece} of the notes in complete statements; no statement drawn"
        ),
    }
}
