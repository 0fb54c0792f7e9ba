//! What the renderer shows of a species exercise: the species gate's verdict, and
//! the vertical intervals as figures above the counterpoint (`figures`).

use super::figures::interval_figures;
use crate::read::is_cantus_name;
use crate::{ReadOptions, SpeciesGate};
use cantus_framework::Severity;
use cantus_music::annotation::Annotations;
use cantus_music::{Score, Time};
use cantus_registry::{Analysis, Finding, Review, Reviewed, Verdict, View};

/// The renderer's view of the counterpoint domain.
pub struct ReviewCounterpoint;

impl Review for ReviewCounterpoint {
    fn judge(&self, piece: Reviewed<'_>) -> Verdict {
        let View::Score(score) = piece.view else {
            return not_an_exercise(None, "not a score");
        };
        match SpeciesGate::reading(ReadOptions::default()).try_judge(score) {
            Ok((report, _)) => {
                Verdict::of_score(score, &report, |l| (l.bar, l.voice.as_str(), l.onset))
            }
            Err(e) => not_an_exercise(Some(score), &e.0),
        }
    }

    fn annotate(&self, _: Reviewed<'_>, score: &Score, what: Analysis) -> Annotations {
        if what.labels {
            interval_figures(score)
        } else {
            Annotations::new()
        }
    }

    /// A two-voice score with a voice named as a cantus.
    fn recognises(&self, score: &Score) -> bool {
        score.voices.len() == 2 && score.voices.iter().any(|v| is_cantus_name(&v.name))
    }
}

/// The verdict on something the species gate cannot read as an exercise.
fn not_an_exercise(score: Option<&Score>, why: &str) -> Verdict {
    let empty = Score::default();
    Verdict {
        gate: "counterpoint".into(),
        passed: false,
        findings: vec![Finding::in_score(
            score.unwrap_or(&empty),
            "SP-structure",
            Severity::Hard,
            (1, "", Time::from_integer(0)),
            why,
        )],
        facts: std::collections::BTreeMap::new(),
    }
}
