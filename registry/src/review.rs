//! What the renderer asks of a domain: its gate's verdict on an artefact in one
//! shape for every domain (what a report page lists and links to notes), and the
//! marks its analysis draws on a score (row labels, interval figures).
//!
//! The renderer does the rest for every domain alike: the engraving, the audio,
//! the trace's repair colours and ghosts, the violation marks, the HTML pages.

use crate::artefact::View;
use cantus_framework::{GateReport, Severity};
use cantus_music::annotation::{Anchor, Annotations};
use cantus_music::{Score, Time};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// An artefact under review, with what its run left beside it.
#[derive(Clone, Copy, Debug)]
pub struct Reviewed<'a> {
    pub view: &'a View,
    /// The run's `report.json`, when the artefact came from a run folder (the row
    /// and convention a twelve-tone gate is built for, say).
    pub report: Option<&'a Value>,
}

/// Which of the analysis marks to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The analysis itself: row labels, interval figures.
    pub labels: bool,
    /// Order positions as small numbers (twelve-tone).
    pub positions: bool,
}

/// How a domain's artefacts are reviewed.
pub trait Review: Send + Sync {
    /// The domain's strict gate's verdict on the artefact, judged afresh.
    fn judge(&self, piece: Reviewed<'_>) -> Verdict;

    /// The marks the domain's analysis draws on a score.
    fn annotate(&self, _piece: Reviewed<'_>, _score: &Score, _what: Analysis) -> Annotations {
        Annotations::new()
    }

    /// Whether a score with no run beside it to say (a bare file) looks like one of
    /// this domain's (a two-voice score with a cantus voice is counterpoint's).
    fn recognises(&self, _score: &Score) -> bool {
        false
    }
}

/// Where a finding is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Place {
    /// In a score.
    Score {
        bar: u32,
        /// The voice's name as the gate wrote it (`(all voices)` for the texture).
        voice: String,
        #[serde(with = "cantus_music::time_text")]
        onset: Time,
    },
    /// Anywhere else, in the gate's words (`cycle 2, position 4`).
    Text { at: String },
}

/// One violation, located.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The rule id (`TT-ROW`, `FS-P-parallel-perfect`, …).
    pub rule: String,
    pub hard: bool,
    #[serde(flatten)]
    pub place: Place,
    pub reason: String,
    /// The note it is drawn on (see [`cantus_music::lilypond::mark_target`]),
    /// when the artefact is a score and the voice has notes.
    pub anchor: Option<Anchor>,
}

/// A gate's verdict, in the shape every domain shares.
#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    pub gate: String,
    pub passed: bool,
    pub findings: Vec<Finding>,
    /// The gate's facts (labels, row, soft scores, …).
    pub facts: BTreeMap<String, Value>,
}

impl Verdict {
    /// A gate report on `score`, each violation anchored at its note; `place`
    /// reads a location's bar, voice and onset.
    pub fn of_score<L>(
        score: &Score,
        report: &GateReport<L>,
        place: impl Fn(&L) -> (u32, &str, Time),
    ) -> Verdict {
        Verdict {
            gate: report.gate.clone(),
            passed: report.passed,
            findings: report
                .violations
                .iter()
                .map(|v| {
                    let (bar, voice, onset) = place(&v.location);
                    Finding::in_score(
                        score,
                        v.predicate.as_str(),
                        v.severity,
                        (bar, voice, onset),
                        &v.reason,
                    )
                })
                .collect(),
            facts: report.facts.clone(),
        }
    }

    /// A gate report on an artefact that is not a score: each location as text.
    pub fn of_text<L: std::fmt::Display>(report: &GateReport<L>) -> Verdict {
        Verdict {
            gate: report.gate.clone(),
            passed: report.passed,
            findings: report
                .violations
                .iter()
                .map(|v| Finding {
                    rule: v.predicate.as_str().to_owned(),
                    hard: v.severity == Severity::Hard,
                    place: Place::Text {
                        at: v.location.to_string(),
                    },
                    reason: v.reason.clone(),
                    anchor: None,
                })
                .collect(),
            facts: report.facts.clone(),
        }
    }
}

impl Finding {
    /// A violation of `rule` at (bar, voice, onset) of `score`, anchored at the note
    /// it is drawn on; a finding about the whole texture is drawn on the first voice.
    pub fn in_score(
        score: &Score,
        rule: &str,
        severity: Severity,
        (bar, voice, onset): (u32, &str, Time),
        reason: &str,
    ) -> Finding {
        let index = score.voice_index(voice).unwrap_or(0);
        let anchor = score.voices.get(index).and_then(|v| {
            cantus_music::lilypond::mark_target(v, onset).map(|k| Anchor {
                voice: index,
                onset: v.events[k].onset,
            })
        });
        Finding {
            rule: rule.to_owned(),
            hard: severity == Severity::Hard,
            place: Place::Score {
                bar,
                voice: voice.to_owned(),
                onset,
            },
            reason: reason.to_owned(),
            anchor,
        }
    }
}
