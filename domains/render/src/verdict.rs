//! The gate's verdict on a piece, judged afresh by the domain's strict gate and
//! put in one shape for every domain: what the report page lists and links.

use crate::piece::{DomainKind, Piece};
use cantus_counterpoint::{ReadOptions, SpeciesGate};
use cantus_framework::{GateReport, Severity};
use cantus_music::annotation::Anchor;
use cantus_music::{Score, Time};
use cantus_twelve_tone::gate::{GateMode, SerialGate};
use cantus_twelve_tone::row::{Convention, Row};
use serde::Serialize;
use serde_json::Value;

/// One violation, located in the score.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The rule id (`TT-ROW`, `FS-P-parallel-perfect`, …).
    pub rule: String,
    pub hard: bool,
    pub bar: u32,
    /// The voice's name as the gate wrote it (`(all voices)` for the texture).
    pub voice: String,
    #[serde(with = "cantus_music::time_text")]
    pub onset: Time,
    pub reason: String,
    /// The note it is drawn on (see [`cantus_music::lilypond::mark_target`]),
    /// when the voice has notes.
    pub anchor: Option<Anchor>,
}

/// A gate's verdict.
#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    pub gate: String,
    pub passed: bool,
    pub findings: Vec<Finding>,
    /// The gate's facts (labels, row, soft scores, …).
    pub facts: std::collections::BTreeMap<String, Value>,
}

/// The strict twelve-tone gate for a piece: the run's row and convention when
/// its report names them, else a gate that reads the row from the music.
pub fn twelve_tone_gate(piece: &Piece) -> SerialGate<'_> {
    let report = piece.report.as_ref();
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

/// Judges the piece by its domain's gate.
pub fn judge(piece: &Piece) -> Verdict {
    let score = &piece.score;
    match piece.domain {
        DomainKind::TwelveTone => {
            let report = twelve_tone_gate(piece).judge_score(score);
            from_report(score, &report, |l| (l.bar, l.voice.as_str(), l.onset))
        }
        DomainKind::Counterpoint => {
            match SpeciesGate::reading(ReadOptions::default()).try_judge(score) {
                Ok((report, _)) => {
                    from_report(score, &report, |l| (l.bar, l.voice.as_str(), l.onset))
                }
                Err(e) => Verdict {
                    gate: "counterpoint".into(),
                    passed: false,
                    findings: vec![finding(
                        score,
                        "SP-structure",
                        Severity::Hard,
                        (1, "", Time::from_integer(0)),
                        &e.0,
                    )],
                    facts: std::collections::BTreeMap::new(),
                },
            }
        }
    }
}

/// A gate report in the common shape; `place` reads a location's bar, voice and onset.
fn from_report<L>(
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
                finding(
                    score,
                    v.predicate.as_str(),
                    v.severity,
                    place(&v.location),
                    &v.reason,
                )
            })
            .collect(),
        facts: report.facts.clone(),
    }
}

fn finding(
    score: &Score,
    rule: &str,
    severity: Severity,
    (bar, voice, onset): (u32, &str, Time),
    reason: &str,
) -> Finding {
    // A finding about the whole texture is drawn on the first voice.
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
        bar,
        voice: voice.to_owned(),
        onset,
        reason: reason.to_owned(),
        anchor,
    }
}
