//! What the renderer shows of a twelve-tone piece: the strict gate's verdict, and
//! row labels from the gate's own statements.

use super::labels::row_labels;
use crate::gate::{GateMode, SerialGate};
use crate::row::{Convention, Row};
use cantus_music::Score;
use cantus_music::annotation::{Annotations, MarkKind};
use cantus_registry::{Analysis, Review, Reviewed, Verdict, View};
use serde_json::Value;

/// The renderer's view of the twelve-tone domain.
pub struct ReviewTwelveTone;

impl Review for ReviewTwelveTone {
    fn judge(&self, piece: Reviewed<'_>) -> Verdict {
        let View::Score(score) = piece.view else {
            return Verdict {
                gate: "twelve-tone".into(),
                passed: false,
                findings: Vec::new(),
                facts: [("error".to_owned(), Value::from("not a score"))].into(),
            };
        };
        let report = gate(piece.report).judge_score(score);
        Verdict::of_score(score, &report, |l| (l.bar, l.voice.as_str(), l.onset))
    }

    fn annotate(&self, piece: Reviewed<'_>, score: &Score, what: Analysis) -> Annotations {
        let statements = gate(piece.report).statements(score);
        let labels = row_labels(score, &statements, what.positions);
        Annotations {
            marks: labels
                .marks
                .into_iter()
                .filter(|m| match m.kind {
                    MarkKind::Position(_) => what.positions,
                    _ => what.labels,
                })
                .collect(),
        }
    }
}

/// The strict gate for a piece: the run's row and convention when its report names
/// them, else a gate that reads the row from the music.
pub fn gate(report: Option<&Value>) -> SerialGate<'static> {
    let row = report
        .and_then(|r| r.get("row"))
        .and_then(Value::as_array)
        .and_then(|pcs| {
            let pcs: Option<Vec<u8>> = pcs
                .iter()
                .map(|p| p.as_u64().and_then(|p| u8::try_from(p).ok()))
                .collect();
            Row::new(&pcs?).ok()
        });
    let convention = report
        .and_then(|r| r.pointer("/spec/convention"))
        .and_then(Value::as_str)
        .and_then(|c| c.parse::<Convention>().ok())
        .unwrap_or_default();
    match row {
        Some(row) => SerialGate::for_row(row, convention, GateMode::Strict),
        None => SerialGate::inferring(GateMode::Strict),
    }
}
