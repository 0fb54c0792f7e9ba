//! What a twelve-tone run leaves for people and programs to read — `report.json` of a
//! composition and the verdict `cantus verify --json` prints — as serializable
//! structs, one definition each. Violations are listed flat (`{predicate, severity,
//! bar, voice, onset, reason}`), the way [`Violation::flat`] writes them.

use crate::blueprint::Blueprint;
use crate::compose::Composition;
use crate::event::Location;
use crate::spec::{CompiledBrief, Spec};
use cantus_framework::{FlatViolation, GateReport, Outcome, Totals, Unlisted, Violation};
use serde::Serialize;

/// `report.json` of `cantus compose` (and of each brief of `cantus bank`).
#[derive(Debug, Serialize)]
pub struct ComposeReport<'a> {
    pub released: bool,
    pub seed: u64,
    /// The gate's report, when the run reached the gate.
    pub gate: Option<&'a GateReport<Location>>,
    /// Why the run failed (empty when released).
    pub diagnostics: Vec<String>,
    pub brief: Option<BriefReport<'a>>,
    pub spec: &'a Spec,
    /// The row, as pitch classes.
    pub row: [u8; 12],
    /// The stored schedule: every voice's form per section.
    pub schedule: Vec<ScheduledSection>,
    pub totals: &'a Totals,
    /// The files written.
    pub files: Vec<String>,
    /// Files that could not be written, and why.
    pub write_errors: Vec<String>,
    /// Libretto's degeneracy gate on the piece, where it was measured (a model's
    /// released piece: `compose --config`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub degeneracy: Option<DegeneracyReport>,
    /// The study cell of an experiment's run (absent from `cantus compose`'s own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub study: Option<Study>,
}

/// Which cell of an experiment a run folder is (`cantus blind` pairs runs by it).
pub use cantus_registry::Study;

/// Libretto's degeneracy gate's verdict on a piece.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DegeneracyReport {
    pub passed: bool,
    /// The axes at an extreme of the reference.
    pub extremes: Vec<String>,
    /// How many extremes the gate allows.
    pub budget: u64,
}

/// The brief a spec was compiled from.
#[derive(Debug, Serialize)]
pub struct BriefReport<'a> {
    pub text: &'a str,
    pub defaults_applied: &'a [String],
    pub not_understood: &'a [String],
}

impl<'a> BriefReport<'a> {
    /// The report of `compiled`, compiled from `text`.
    pub fn of(text: &'a str, compiled: &'a CompiledBrief) -> Self {
        BriefReport {
            text,
            defaults_applied: &compiled.defaults_applied,
            not_understood: &compiled.not_understood,
        }
    }
}

/// One section of the stored schedule.
#[derive(Debug, Serialize)]
pub struct ScheduledSection {
    /// From 1.
    pub section: usize,
    /// First and last bar, inclusive.
    pub bars: [u32; 2],
    /// Each voice's form label.
    pub forms: Vec<String>,
}

/// The schedule of `plan`, for reports.
pub fn schedule(plan: &Blueprint) -> Vec<ScheduledSection> {
    plan.sections
        .iter()
        .map(|s| ScheduledSection {
            section: s.index + 1,
            bars: [s.first_bar, s.first_bar + s.bars - 1],
            forms: s.forms.iter().map(ToString::to_string).collect(),
        })
        .collect()
}

impl<'a> ComposeReport<'a> {
    /// The report of `composition` of `spec` at `seed`, with the files written (and
    /// those that could not be).
    pub fn new(
        composition: &'a Composition,
        spec: &'a Spec,
        brief: Option<BriefReport<'a>>,
        seed: u64,
        files: Vec<String>,
        write_errors: Vec<String>,
    ) -> Self {
        let outcome = &composition.outcome;
        let trace = outcome.trace();
        let diagnostics = match outcome {
            Outcome::Released { .. } => Vec::new(),
            Outcome::Failure { diagnostics, .. } => {
                diagnostics.iter().map(ToString::to_string).collect()
            }
        };
        ComposeReport {
            released: outcome.is_released(),
            seed,
            gate: trace.gate.as_ref(),
            diagnostics,
            brief,
            spec,
            row: composition.plan.row.pcs(),
            schedule: schedule(&composition.plan),
            totals: &trace.totals,
            files,
            write_errors,
            degeneracy: None,
            study: None,
        }
    }
}

/// What `cantus verify --json` prints for a twelve-tone piece.
#[derive(Debug, Serialize)]
pub struct VerifyReport<'a> {
    pub file: String,
    pub passed: bool,
    pub gate: &'a str,
    pub events: usize,
    /// The violations listed (at most [`cantus_framework::LISTED_VIOLATIONS`]).
    pub violations: Vec<FlatViolation<'a, Location>>,
    /// Violations found but not listed, counted by rule (absent when none).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub unlisted: &'a [Unlisted],
    pub facts: &'a std::collections::BTreeMap<String, serde_json::Value>,
}

impl<'a> VerifyReport<'a> {
    /// The verdict of `report` on `file`, a piece of `events` events.
    pub fn new(file: String, events: usize, report: &'a GateReport<Location>) -> Self {
        VerifyReport {
            file,
            passed: report.passed,
            gate: &report.gate,
            events,
            violations: report.violations.iter().map(Violation::flat).collect(),
            unlisted: &report.unlisted,
            facts: &report.facts,
        }
    }
}
