//! The release gate: judges a finished score alone — reads it as a chorale, runs
//! every rule on every beat, scores the soft ones.
//!
//! Hard violations block release. Soft ones are listed with the hard ones and
//! counted per rule in the `soft_scores` fact (every soft rule of the profile
//! appears, with 0 when it holds), so nothing is silently dropped.

use crate::analysis::Analysis;
use crate::chorale::{Chorale, Location};
use crate::domain::{ChoraleDomain, Harmonisation};
use crate::pitch::Part;
use crate::read::{ChoraleError, ReadOptions, Reading, read_chorale};
use crate::rules::{self, CadenceKind, Finding, Profile};
use cantus_framework::{GateReport, ReleaseGate, RuleId, Severity};
use cantus_music::{Score, Time};
use serde_json::json;
use std::collections::BTreeMap;

/// The name of the gate in reports.
pub const GATE_NAME: &str = "chorale";

/// Reads `score` as a chorale and judges it by every rule under `options.profile`.
pub fn judge_score(
    score: &Score,
    options: &ReadOptions,
) -> Result<(GateReport<Location>, Reading, Analysis), ChoraleError> {
    let reading = read_chorale(score, options)?;
    let (report, analysis) = judge_reading(&reading, options.profile, Vec::new())?;
    Ok((report, reading, analysis))
}

/// Judges a chorale read: every rule on every beat, `extra` findings (shape rules
/// checked by the caller) first, the reading's facts added.
fn judge_reading(
    reading: &Reading,
    profile: Profile,
    extra: Vec<Finding>,
) -> Result<(GateReport<Location>, Analysis), ChoraleError> {
    if reading.chorale.is_melody() {
        return Err(ChoraleError(
            "a melody alone has nothing to judge: the gate judges four parts".into(),
        ));
    }
    let analysis = Analysis::new(reading.chorale.clone());
    let mut violations = extra;
    violations.extend(rules::judge(&analysis));
    let report = report_of(violations, profile);
    let report = with_facts(report, reading, &analysis, profile);
    Ok((report, analysis))
}

/// The release gate of the engine: a harmonisation judged against its melody alone
/// (its key and phrase ends, its soprano unaltered), under one profile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HarmonisationGate(pub Profile);

impl HarmonisationGate {
    /// Judges `score` as a harmonisation of `spec`; a score that is no chorale at all
    /// gets one `CH-structure` violation saying why.
    pub fn judge_harmonisation(&self, spec: &Harmonisation, score: &Score) -> GateReport<Location> {
        let options = ReadOptions {
            key: Some(spec.melody.key),
            phrase_ends: None,
            profile: self.0,
        };
        let judged = read_chorale(score, &options).and_then(|mut reading| {
            reading.chorale.phrase_ends = spec.melody.phrase_ends.clone();
            reading.phrase_source = crate::read::PhraseSource::Given;
            let extra = melody_kept(spec, &reading.chorale).into_iter().collect();
            judge_reading(&reading, self.0, extra)
        });
        match judged {
            Ok((report, _)) => report,
            Err(e) => report_of(
                vec![
                    rules::rule_by_id(rules::CH_STRUCTURE)
                        .expect("CH-structure is in the catalogue")
                        .at(
                            Location::at(&spec.melody, Time::from_integer(0), Vec::new()),
                            e.0,
                        ),
                ],
                self.0,
            ),
        }
    }
}

impl ReleaseGate<ChoraleDomain> for HarmonisationGate {
    fn name(&self) -> String {
        format!("{GATE_NAME}/{}", self.0)
    }

    fn judge(&self, spec: &Harmonisation, score: &Score) -> GateReport<Location> {
        self.judge_harmonisation(spec, score)
    }
}

/// `CH-melody`: where the soprano of `written` first differs from the melody.
fn melody_kept(spec: &Harmonisation, written: &Chorale) -> Option<Finding> {
    let want = spec.melody.part(Part::Soprano);
    let got = written.part(Part::Soprano);
    let same = |a: &crate::chorale::Note, b: &crate::chorale::Note| {
        a.onset == b.onset && a.duration == b.duration && a.tone.midi == b.tone.midi
    };
    let k = want
        .iter()
        .zip(got)
        .position(|(a, b)| !same(a, b))
        .or((want.len() != got.len()).then(|| want.len().min(got.len())))?;
    let at = want
        .get(k)
        .or(got.get(k))
        .map_or(Time::from_integer(0), |n| n.onset);
    let rule = rules::rule_by_id(rules::CH_MELODY).expect("CH-melody is in the catalogue");
    Some(rule.at(
        Location::at(written, at, vec![Part::Soprano]),
        format!(
            "the soprano differs from the melody given, from its note {} on",
            k + 1
        ),
    ))
}

/// Every finding on a whole analysed chorale under `profile`, as a gate report
/// (the facts of the reading are added by [`judge_score`]).
pub fn judge_chorale(analysis: &Analysis, profile: Profile) -> GateReport<Location> {
    report_of(rules::judge(analysis), profile)
}

fn report_of(mut violations: Vec<Finding>, profile: Profile) -> GateReport<Location> {
    profile.apply(&mut violations);
    violations.sort_by_key(|v| v.location.onset);
    GateReport::from_violations(format!("{GATE_NAME}/{profile}"), violations)
        .listing_at_most_the_cap()
}

/// Violations per rule of `severity` under `profile` (0 when it holds).
fn scores(
    report: &GateReport<Location>,
    profile: Profile,
    severity: Severity,
) -> BTreeMap<RuleId, usize> {
    let mut scores: BTreeMap<RuleId, usize> = rules::CATALOGUE
        .iter()
        .filter(|r| profile.severity(r) == severity)
        .map(|r| (r.id, 0))
        .collect();
    for v in report.violations.iter().filter(|v| v.severity == severity) {
        *scores.entry(v.predicate).or_default() += 1;
    }
    for u in report.unlisted.iter().filter(|u| u.severity == severity) {
        *scores.entry(u.predicate).or_default() += u.count as usize;
    }
    scores
}

/// The soft score: violations per soft rule of `profile` (0 when it holds).
pub fn soft_scores(report: &GateReport<Location>, profile: Profile) -> BTreeMap<RuleId, usize> {
    scores(report, profile, Severity::Soft)
}

fn with_facts(
    report: GateReport<Location>,
    reading: &Reading,
    analysis: &Analysis,
    profile: Profile,
) -> GateReport<Location> {
    let soft = soft_scores(&report, profile);
    let hard = scores(&report, profile, Severity::Hard);
    let soft_total: usize = soft.values().sum();
    let c = &reading.chorale;
    let cadences: Vec<serde_json::Value> = rules::cadences(analysis)
        .into_iter()
        .map(|k| {
            json!({
                "at": k.location.to_string(),
                "kind": k.kind.map(CadenceKind::as_str),
                "chords": k.chords,
            })
        })
        .collect();
    report
        .with_fact("profile", profile.as_str())
        .with_fact("key", c.key.name())
        .with_fact("key_source", json!(reading.key_source))
        .with_fact("meter", c.meter.to_string())
        .with_fact("beats", analysis.total())
        .with_fact("phrases", c.phrase_ends.len())
        .with_fact("phrase_source", json!(reading.phrase_source))
        .with_fact("cadences", cadences)
        .with_fact("voices", json!(reading.voices))
        .with_fact("inferred", json!(reading.inferred))
        .with_fact("hard_scores", json!(hard))
        .with_fact("soft_scores", json!(soft))
        .with_fact("soft_violations", soft_total)
}
