//! The release gate: judges a finished score alone — reads it as a chorale, runs
//! every rule on every beat, scores the soft ones.
//!
//! Hard violations block release. Soft ones are listed with the hard ones and
//! counted per rule in the `soft_scores` fact (every soft rule of the profile
//! appears, with 0 when it holds), so nothing is silently dropped.

use crate::analysis::Analysis;
use crate::chorale::Location;
use crate::read::{ChoraleError, ReadOptions, Reading, read_chorale};
use crate::rules::{self, CadenceKind, Finding, Profile};
use cantus_framework::{GateReport, RuleId, Severity};
use cantus_music::Score;
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
    if reading.chorale.is_melody() {
        return Err(ChoraleError(
            "a melody alone has nothing to judge: the gate judges four parts".into(),
        ));
    }
    let analysis = Analysis::new(reading.chorale.clone());
    let report = judge_chorale(&analysis, options.profile);
    let report = with_facts(report, &reading, &analysis, options.profile);
    Ok((report, reading, analysis))
}

/// Every finding on a whole analysed chorale under `profile`, as a gate report
/// (the facts of the reading are added by [`judge_score`]).
pub fn judge_chorale(analysis: &Analysis, profile: Profile) -> GateReport<Location> {
    let mut violations: Vec<Finding> = rules::judge(analysis);
    profile.apply(&mut violations);
    violations.sort_by_key(|v| v.location.onset);
    GateReport::from_violations(GATE_NAME, violations).listing_at_most_the_cap()
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
