//! The release gate: judges a finished score alone — reads it as an exercise, runs
//! every rule of its species, and scores the soft ones.
//!
//! Hard violations block release. Soft ones are listed with the hard ones and
//! counted per rule in the `soft_scores` fact (every soft rule of the species
//! appears, with 0 when it holds), so nothing is silently dropped.

use crate::domain::{Assignment, Counterpoint};
use crate::exercise::{Exercise, Location, Species};
use crate::read::{ExerciseError, ReadOptions, Reading, read_exercise};
use crate::rules::{self, Finding, rule_by_id};
use cantus_framework::{GateReport, ReleaseGate, RuleId, Severity, Violation};
use cantus_music::{Score, Time};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The species gate.
#[derive(Clone, Debug, Default)]
pub struct SpeciesGate {
    options: ReadOptions,
    /// The cantus a composed exercise must keep (MIDI numbers), when known.
    cantus: Option<Vec<u8>>,
}

impl SpeciesGate {
    /// A gate for any file: species, position and cantus voice as given or inferred.
    pub fn reading(options: ReadOptions) -> Self {
        SpeciesGate {
            options,
            cantus: None,
        }
    }

    /// The gate for a composed exercise: its species and position, and its cantus unaltered.
    pub fn for_assignment(a: &Assignment) -> Self {
        SpeciesGate {
            options: ReadOptions {
                species: Some(a.species),
                cantus_voice: Some(crate::exercise::CANTUS_VOICE.to_owned()),
                position: Some(a.position),
                profile: rules::Profile::Fux,
            },
            cantus: Some(a.cantus.notes.iter().map(|n| n.midi).collect()),
        }
    }

    /// Judges a score, or says why it is not an exercise at all.
    pub fn try_judge(
        &self,
        score: &Score,
    ) -> Result<(GateReport<Location>, Reading), ExerciseError> {
        let (mut report, reading) = judge_score(score, &self.options)?;
        if let Some(want) = &self.cantus {
            let got: Vec<u8> = reading.exercise.cantus.iter().map(|n| n.midi).collect();
            if &got != want {
                let rule = rule_by_id(rules::SP_CANTUS).expect("SP-cantus is in the catalogue");
                let bar = got
                    .iter()
                    .zip(want)
                    .position(|(a, b)| a != b)
                    .unwrap_or(got.len().min(want.len()));
                report.violations.insert(
                    0,
                    rule.at(
                        cantus_location(&reading.exercise, bar),
                        format!(
                            "the cantus firmus differs from the one given, from bar {}",
                            bar + 1
                        ),
                    ),
                );
                report.passed = false;
            }
        }
        Ok((report, reading))
    }
}

fn cantus_location(ex: &Exercise, bar: usize) -> Location {
    Location {
        bar: bar as u32 + 1,
        voice: ex.cantus_voice.clone(),
        onset: Exercise::onset(bar, crate::exercise::Beat::Down),
        from_bar: None,
    }
}

impl SpeciesGate {
    /// The gate's name in reports: `counterpoint/species-N` when the species is fixed.
    pub fn name(&self) -> String {
        match self.options.species {
            Some(s) => format!("counterpoint/species-{}", s.number()),
            None => "counterpoint".into(),
        }
    }

    /// Judges `score`; a score that is no exercise at all gets one `SP-structure`
    /// violation saying why.
    pub fn judge(&self, score: &Score) -> GateReport<Location> {
        match self.try_judge(score) {
            Ok((report, _)) => report,
            Err(e) => GateReport::from_violations(
                self.name(),
                vec![Violation::hard(
                    rules::SP_STRUCTURE,
                    Location {
                        bar: 1,
                        voice: String::new(),
                        onset: Time::from_integer(0),
                        from_bar: None,
                    },
                    e.0,
                )],
            ),
        }
    }
}

/// The release gate of the engine for one species: each exercise judged by
/// [`SpeciesGate::for_assignment`] of the run's assignment, so one engine serves
/// every exercise of the species.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExerciseGate(pub Species);

impl ReleaseGate<Counterpoint> for ExerciseGate {
    fn name(&self) -> String {
        format!("counterpoint/species-{}", self.0.number())
    }

    fn judge(&self, assignment: &Assignment, score: &Score) -> GateReport<Location> {
        SpeciesGate::for_assignment(assignment).judge(score)
    }
}

/// Reads `score` as an exercise and judges it by every rule of its species.
pub fn judge_score(
    score: &Score,
    options: &ReadOptions,
) -> Result<(GateReport<Location>, Reading), ExerciseError> {
    let reading = read_exercise(score, options)?;
    let ex = &reading.exercise;
    let rhythm = rule_by_id(rules::SP_RHYTHM).expect("SP-rhythm is in the catalogue");
    let mut violations: Vec<Finding> = reading
        .rhythm
        .iter()
        .map(|p| {
            rhythm.at(
                Location {
                    bar: p.bar as u32 + 1,
                    voice: ex.counterpoint_voice.clone(),
                    onset: p.onset,
                    from_bar: None,
                },
                p.reason.clone(),
            )
        })
        .collect();
    violations.extend(rules::judge(ex));
    options.profile.apply(&mut violations);
    violations.sort_by_key(|v| v.location.bar);
    let gate = format!("counterpoint/species-{}", ex.species.number());
    // A rule breaks at most once or twice a bar, so listing all and cutting once
    // stays linear in the exercise.
    let report = GateReport::from_violations(gate, violations).listing_at_most_the_cap();
    let report = with_facts(report, &reading, options);
    Ok((report, reading))
}

/// The soft score: violations per soft rule of the species (0 when it holds).
pub fn soft_scores(
    report: &GateReport<Location>,
    ex: &Exercise,
    profile: rules::Profile,
) -> BTreeMap<RuleId, usize> {
    let mut scores: BTreeMap<RuleId, usize> = rules::rules_for(ex.species)
        .filter(|r| profile.severity(r) == Severity::Soft)
        .map(|r| (r.id, 0))
        .collect();
    for v in report.violations.iter().filter(|v| !v.is_hard()) {
        *scores.entry(v.predicate).or_default() += 1;
    }
    for u in report
        .unlisted
        .iter()
        .filter(|u| u.severity == Severity::Soft)
    {
        *scores.entry(u.predicate).or_default() += u.count as usize;
    }
    scores
}

fn with_facts(
    report: GateReport<Location>,
    reading: &Reading,
    options: &ReadOptions,
) -> GateReport<Location> {
    let ex = &reading.exercise;
    let scores = soft_scores(&report, ex, options.profile);
    let soft_total: usize = scores.values().sum();
    let hard_rules = rules::rules_for(ex.species)
        .filter(|r| options.profile.severity(r) == Severity::Hard)
        .count();
    let spelling = match reading.spelling {
        crate::read::SpellingSource::Written => "as written in the file".to_owned(),
        crate::read::SpellingSource::InferredFromMode => format!(
            "inferred from the mode: the collection's letters, ficta as raised 1st/4th/5th and lowered 3rd/7th degrees ({})",
            describe_ficta(ex)
        ),
        crate::read::SpellingSource::Mixed => {
            "as written where given, else inferred from the mode".to_owned()
        }
    };
    report
        .with_fact("species", ex.species.number())
        .with_fact("profile", json!(options.profile))
        .with_fact("position", ex.position.to_string())
        .with_fact(
            "mode",
            ex.modality
                .mode()
                .map_or(Value::Null, |m| json!(m.as_str())),
        )
        .with_fact(
            "final",
            ex.modality
                .spell(ex.modality.final_pc)
                .letter
                .as_char()
                .to_string(),
        )
        .with_fact("bars", ex.bars())
        .with_fact("cantus_voice", ex.cantus_voice.clone())
        .with_fact("counterpoint_voice", ex.counterpoint_voice.clone())
        .with_fact("spelling", spelling)
        .with_fact("inferred", json!(reading.inferred))
        .with_fact("hard_rules_checked", hard_rules)
        .with_fact("soft_scores", json!(scores))
        .with_fact("soft_violations", soft_total)
}

fn describe_ficta(ex: &Exercise) -> String {
    let m = ex.modality;
    let names: Vec<String> = (0..12u8)
        .filter(|&pc| !m.is_diatonic(pc))
        .map(|pc| {
            let s = m.spell(pc);
            format!(
                "{}{}",
                s.letter.as_char(),
                if s.alter > 0 { "#" } else { "b" }
            )
        })
        .collect();
    names.join(", ")
}
