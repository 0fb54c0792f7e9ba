//! What the renderer shows of a chorale: the gate's verdict (strict profile, the
//! phrase ends from the score's fermatas), and the Roman numeral of every beat's
//! chord on the bass.

use crate::gate::judge_score;
use crate::marks::roman_numerals;
use crate::pitch::Part;
use crate::read::{ReadOptions, is_satb};
use cantus_framework::Severity;
use cantus_music::annotation::Annotations;
use cantus_music::{Score, Time};
use cantus_registry::{Analysis as Marks, Finding, Review, Reviewed, Verdict, View};

/// The renderer's view of the chorale domain.
pub struct ReviewChorale;

impl Review for ReviewChorale {
    fn judge(&self, piece: Reviewed<'_>) -> Verdict {
        let View::Score(score) = piece.view else {
            return not_a_chorale(None, "not a score");
        };
        match judge_score(score, &ReadOptions::default()) {
            Ok((report, reading, _)) => Verdict {
                gate: report.gate.clone(),
                passed: report.passed,
                // Each violation on the first part it names (the voice as the file
                // names it), at its onset.
                findings: report
                    .violations
                    .iter()
                    .map(|v| {
                        let l = &v.location;
                        let part = l.parts.first().copied().unwrap_or(Part::Soprano);
                        let voice = reading.voices.get(part.index()).map_or("", String::as_str);
                        Finding::in_score(
                            score,
                            v.predicate.as_str(),
                            v.severity,
                            (l.bar, voice, l.onset),
                            &v.reason,
                        )
                    })
                    .collect(),
                facts: report.facts.clone(),
            },
            Err(e) => not_a_chorale(Some(score), &e.0),
        }
    }

    fn annotate(&self, _: Reviewed<'_>, score: &Score, what: Marks) -> Annotations {
        if what.labels {
            roman_numerals(score, &ReadOptions::default())
        } else {
            Annotations::new()
        }
    }

    /// Four voices named soprano, alto, tenor and bass.
    fn recognises(&self, score: &Score) -> bool {
        is_satb(score)
    }
}

/// The verdict on what the gate cannot read as a chorale.
fn not_a_chorale(score: Option<&Score>, why: &str) -> Verdict {
    let empty = Score::default();
    Verdict {
        gate: crate::gate::GATE_NAME.into(),
        passed: false,
        findings: vec![Finding::in_score(
            score.unwrap_or(&empty),
            "CH-structure",
            Severity::Hard,
            (1, "", Time::from_integer(0)),
            why,
        )],
        facts: std::collections::BTreeMap::new(),
    }
}
