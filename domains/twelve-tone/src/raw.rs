//! The raw baseline: the model writes the whole piece in one reply, with no harness —
//! no cursor, no verifier, no repair — and the same strict gate judges it.
//!
//! This is the comparison the harness is measured against (what the Libretto paper
//! did, made symmetric): same plan, same prompt material (header, row forms, ranges),
//! same [`SerialGate::for_plan`](crate::gate::SerialGate::for_plan). The reply is read with the lenient grammar reader;
//! an unreadable reply is an explicit failure carrying the reader's diagnostic, and the
//! raw text is always kept so a person can see what the model wrote.

use crate::baselines::{Baseline, compose_baseline};
use crate::blueprint::{Blueprint, BlueprintError};
use crate::event::Location;
use crate::spec::Spec;
use cantus_framework::{
    AskOptions, FlatViolation, GateReport, ModelBackend, ModelExchange, Usage, Violation,
};
use cantus_music::Score;
use serde::Serialize;
use std::time::Duration;

/// How a raw run ended.
#[derive(Clone, Debug)]
pub enum RawVerdict {
    /// The piece passed the strict gate.
    Released {
        score: Score,
        report: GateReport<Location>,
    },
    /// The piece was read but the gate refused it.
    Refused {
        score: Score,
        report: GateReport<Location>,
    },
    /// The reply could not be read as the grammar; the reader's diagnostic.
    Unreadable { diagnostic: String },
    /// The model call itself failed.
    ModelFailed { message: String },
}

/// A raw run: the verdict and what it cost.
#[derive(Clone, Debug)]
pub struct RawOutcome {
    /// The plan the piece was asked for and judged against.
    pub plan: Blueprint,
    /// Released, refused, unreadable or failed.
    pub verdict: RawVerdict,
    /// The model's reply as it came (empty when the call failed).
    pub text: String,
    /// What the lenient reader skipped or guessed.
    pub warnings: Vec<String>,
    /// Model calls made (one, unless the backend could not be called at all).
    pub calls: u32,
    /// Tokens, as far as the server counted them.
    pub tokens: Usage,
    /// Wall time from the request to the verdict.
    pub wall: Duration,
    /// The exchange, for traces.
    pub exchange: Option<ModelExchange>,
}

impl RawOutcome {
    /// Whether the piece was released (it passed the strict gate).
    pub fn is_released(&self) -> bool {
        matches!(self.verdict, RawVerdict::Released { .. })
    }

    /// The gate's report, when the reply was readable.
    pub fn report(&self) -> Option<&GateReport<Location>> {
        match &self.verdict {
            RawVerdict::Released { report, .. } | RawVerdict::Refused { report, .. } => {
                Some(report)
            }
            _ => None,
        }
    }

    /// One line: outcome, then the first reasons.
    pub fn summary(&self) -> String {
        match &self.verdict {
            RawVerdict::Released { .. } => "released (passed the strict gate)".to_owned(),
            RawVerdict::Refused { report, .. } => {
                let ids: Vec<&str> = report
                    .violations
                    .iter()
                    .map(|v| v.predicate.as_str())
                    .take(6)
                    .collect();
                format!(
                    "refused by the strict gate: {} violations ({})",
                    report.violations.len(),
                    ids.join(", ")
                )
            }
            RawVerdict::Unreadable { diagnostic } => format!(
                "unreadable: {}",
                diagnostic.lines().next().unwrap_or("no diagnostic")
            ),
            RawVerdict::ModelFailed { message } => format!("model call failed: {message}"),
        }
    }
}

/// `report.json` of a raw run.
#[derive(Debug, Serialize)]
pub struct RawReport<'a> {
    /// `raw`.
    pub mode: &'static str,
    pub released: bool,
    /// [`RawOutcome::summary`].
    pub outcome: String,
    pub seed: u64,
    pub spec: &'a Spec,
    pub violations: Vec<FlatViolation<'a, Location>>,
    pub warnings: &'a [String],
    pub calls: u32,
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    pub wall_ms: u64,
    pub model: Option<&'a ModelExchange>,
    /// The study cell of an experiment's run (absent from `cantus compose --raw`'s own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub study: Option<crate::report::Study>,
}

impl<'a> RawReport<'a> {
    /// The report of `outcome`, asked for `spec` at `seed`.
    pub fn new(outcome: &'a RawOutcome, spec: &'a Spec, seed: u64) -> Self {
        RawReport {
            mode: "raw",
            released: outcome.is_released(),
            outcome: outcome.summary(),
            seed,
            spec,
            violations: outcome
                .report()
                .map(|r| r.violations.iter().map(Violation::flat).collect())
                .unwrap_or_default(),
            warnings: &outcome.warnings,
            calls: outcome.calls,
            tokens_in: outcome.tokens.tokens_in,
            tokens_out: outcome.tokens.tokens_out,
            wall_ms: u64::try_from(outcome.wall.as_millis()).unwrap_or(u64::MAX),
            model: outcome.exchange.as_ref(),
            study: None,
        }
    }
}

/// Plans `spec` with `seed`, asks `backend` for the whole piece in one reply, reads it
/// leniently and judges it with the strict gate. Only planning errors are `Err`;
/// everything else is a [`RawVerdict`]. The plain [`Baseline`] of
/// [`compose_baseline`].
pub async fn compose_raw(
    spec: &Spec,
    seed: u64,
    backend: &dyn ModelBackend,
    options: &AskOptions,
) -> Result<RawOutcome, BlueprintError> {
    compose_baseline(spec, seed, backend, options, &Baseline::default()).await
}
