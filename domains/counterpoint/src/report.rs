//! What a counterpoint run leaves to read — `report.json` of a composed exercise and
//! the verdict `cantus verify --domain counterpoint --json` prints — as serializable
//! structs, one definition each, with the same field names as the twelve-tone ones.

use crate::domain::Assignment;
use crate::exercise::{Exercise, Location};
use crate::gate::soft_scores;
use crate::pitch::ModeName;
use crate::rules::Profile;
use cantus_framework::{FlatViolation, GateReport, Outcome, RuleId, Totals, Unlisted, Violation};
use serde::Serialize;
use std::collections::BTreeMap;

/// `report.json` of `cantus compose --domain counterpoint`.
#[derive(Debug, Serialize)]
pub struct ExerciseReport<'a> {
    /// `counterpoint`.
    pub domain: &'static str,
    pub released: bool,
    pub seed: u64,
    pub cantus: CantusReport<'a>,
    pub species: u8,
    pub position: String,
    pub rest_start: bool,
    pub gate: Option<&'a GateReport<Location>>,
    pub diagnostics: Vec<String>,
    pub totals: &'a Totals,
    pub files: Vec<String>,
    pub write_errors: Vec<String>,
}

/// The cantus firmus an exercise was written against.
#[derive(Debug, Serialize)]
pub struct CantusReport<'a> {
    pub id: &'a str,
    pub mode: Option<&'static str>,
    pub source: &'a str,
    pub notes: Vec<String>,
}

impl<'a> ExerciseReport<'a> {
    /// The report of `outcome` for `assignment` at `seed`, with the files written.
    pub fn new(
        assignment: &'a Assignment,
        outcome: &'a Outcome<crate::Counterpoint>,
        seed: u64,
        files: Vec<String>,
        write_errors: Vec<String>,
    ) -> Self {
        let trace = outcome.trace();
        let diagnostics = match outcome {
            Outcome::Released { .. } => Vec::new(),
            Outcome::Failure { diagnostics, .. } => {
                diagnostics.iter().map(ToString::to_string).collect()
            }
        };
        let cantus = &assignment.cantus;
        ExerciseReport {
            domain: "counterpoint",
            released: outcome.is_released(),
            seed,
            cantus: CantusReport {
                id: &cantus.id,
                mode: cantus.mode().map(ModeName::as_str),
                source: &cantus.source,
                notes: cantus.notes.iter().map(ToString::to_string).collect(),
            },
            species: assignment.species.number(),
            position: assignment.position.to_string(),
            rest_start: assignment.rest_start,
            gate: trace.gate.as_ref(),
            diagnostics,
            totals: &trace.totals,
            files,
            write_errors,
        }
    }
}

/// What `cantus verify --domain counterpoint --json` prints.
#[derive(Debug, Serialize)]
pub struct VerifyReport<'a> {
    pub file: String,
    pub passed: bool,
    pub gate: &'a str,
    pub species: u8,
    pub position: String,
    pub events: usize,
    pub violations: Vec<FlatViolation<'a, Location>>,
    /// Violations found beyond the listed ones, counted by rule.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub unlisted: &'a [Unlisted],
    /// Violations per soft rule of the species, zeros included.
    pub soft_scores: BTreeMap<RuleId, usize>,
    pub facts: &'a BTreeMap<String, serde_json::Value>,
}

impl<'a> VerifyReport<'a> {
    /// The verdict of `report` on `file` (an exercise `ex` of `events` events) under
    /// `profile`.
    pub fn new(
        file: String,
        events: usize,
        report: &'a GateReport<Location>,
        ex: &Exercise,
        profile: Profile,
    ) -> Self {
        VerifyReport {
            file,
            passed: report.passed,
            gate: &report.gate,
            species: ex.species.number(),
            position: ex.position.to_string(),
            events,
            violations: report.violations.iter().map(Violation::flat).collect(),
            unlisted: &report.unlisted,
            soft_scores: soft_scores(report, ex, profile),
            facts: &report.facts,
        }
    }
}

/// `FS-M-double-leap 1, FS-M-leap-recovery 1` — the soft rules broken and how often,
/// as the gate's `soft_scores` fact counts them (`none` when every soft rule holds).
pub fn soft_line(report: &GateReport<Location>) -> String {
    let broken: Vec<String> = report
        .facts
        .get("soft_scores")
        .and_then(|v| v.as_object())
        .into_iter()
        .flatten()
        .filter_map(|(id, n)| Some((id, n.as_u64()?)))
        .filter(|(_, n)| *n > 0)
        .map(|(id, n)| format!("{id} {n}"))
        .collect();
    if broken.is_empty() {
        "none".into()
    } else {
        broken.join(", ")
    }
}
