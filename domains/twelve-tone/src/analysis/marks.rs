//! An analysis as score annotations ([`cantus_music::annotation`]), so a renderer can
//! draw it over the notes: each statement's labels above its first note, each order
//! position's number by its note, a remark on notes two statements share, and the
//! notes no statement explains in grey. Grace notes get no mark: the score writers
//! that draw marks do not write grace notes.

use super::report::{Analysis, NoteRole};
use cantus_music::annotation::{Annotations, Colour, MarkKind};

/// The annotations of `analysis` (anchored by voice index and onset).
pub fn annotations(analysis: &Analysis) -> Annotations {
    let mut marks = Annotations::new();
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
