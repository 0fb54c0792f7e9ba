//! The release gate: the last word on a finished artefact.
//!
//! A gate judges the artefact *alone*, against the spec it was written to. It must not
//! read the online verifier's state, the trace, or anything the proposer said about its
//! own output, so the same gate judges an artefact from the engine, from a raw model,
//! or from a person alike. Because the spec comes with each judgement, one gate (and
//! one engine) serves every piece.

use crate::domain::Domain;
use crate::predicate::Violation;
use serde::Serialize;
use std::collections::BTreeMap;

/// The gate's judgement.
#[derive(Clone, Debug, Serialize)]
pub struct GateReport<L> {
    /// Name of the gate and its mode, e.g. `"twelve-tone/strict"`.
    pub gate: String,
    /// True iff there is no hard violation.
    pub passed: bool,
    /// Every violation found, hard and soft.
    pub violations: Vec<Violation<L>>,
    /// Extra facts worth reporting (counts, modes), keyed by name.
    pub facts: BTreeMap<String, serde_json::Value>,
}

impl<L> GateReport<L> {
    /// A report whose verdict follows from its violations.
    pub fn from_violations(gate: impl Into<String>, violations: Vec<Violation<L>>) -> Self {
        GateReport {
            gate: gate.into(),
            passed: violations.iter().all(|v| !v.is_hard()),
            violations,
            facts: BTreeMap::new(),
        }
    }

    /// Adds a fact.
    pub fn with_fact(mut self, key: &str, value: impl Into<serde_json::Value>) -> Self {
        self.facts.insert(key.to_owned(), value.into());
        self
    }

    /// The hard violations.
    pub fn hard(&self) -> impl Iterator<Item = &Violation<L>> {
        self.violations.iter().filter(|v| v.is_hard())
    }
}

/// Judges a finished artefact.
pub trait ReleaseGate<D: Domain>: Send + Sync {
    /// Gate name and mode for reports.
    fn name(&self) -> String;
    /// Judges `artefact` on its own, against `spec`.
    fn judge(&self, spec: &D::Spec, artefact: &D::Artefact) -> GateReport<D::Location>;
}
