//! The release gate: the last word on a finished artefact.
//!
//! A gate judges the artefact *alone*, against the spec it was written to. It must not
//! read the online verifier's state, the trace, or anything the proposer said about its
//! own output, so the same gate judges an artefact from the engine, from a raw model,
//! or from a person alike. Because the spec comes with each judgement, one gate (and
//! one engine) serves every piece.

use crate::domain::Domain;
use crate::predicate::{RuleId, Severity, Violation};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The most violations a gate lists; the rest are counted in
/// [`GateReport::unlisted`], so a broken input (two thousand voices sharing a note)
/// cannot make a report, or the memory to build it, grow with the square of its size.
pub const LISTED_VIOLATIONS: usize = 1000;

/// Violations of one rule and severity that were found but not listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Unlisted {
    pub predicate: RuleId,
    pub severity: Severity,
    pub count: u64,
}

/// The gate's judgement.
#[derive(Clone, Debug, Serialize)]
pub struct GateReport<L> {
    /// Name of the gate and its mode, e.g. `"twelve-tone/strict"`.
    pub gate: String,
    /// True iff there is no hard violation.
    pub passed: bool,
    /// The violations found, hard and soft, in the gate's order (at most
    /// [`LISTED_VIOLATIONS`] for a gate that caps its list).
    pub violations: Vec<Violation<L>>,
    /// Violations found beyond those listed, counted by rule (empty when all are listed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unlisted: Vec<Unlisted>,
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
            unlisted: Vec::new(),
            facts: BTreeMap::new(),
        }
    }

    /// The report with `unlisted` counted beside its listed violations (a hard one
    /// among them fails it).
    pub fn with_unlisted(mut self, unlisted: Vec<Unlisted>) -> Self {
        self.passed &= unlisted.iter().all(|u| u.severity != Severity::Hard);
        self.unlisted = unlisted;
        self
    }

    /// The report listing at most [`LISTED_VIOLATIONS`] of its violations (the first,
    /// in its order) and counting the rest in [`GateReport::unlisted`] by rule and
    /// severity: for a gate whose violations grow only linearly with the input, so
    /// that it can list them all first and cut once.
    pub fn listing_at_most_the_cap(mut self) -> Self {
        if self.violations.len() <= LISTED_VIOLATIONS {
            return self;
        }
        let mut counted: BTreeMap<(RuleId, Severity), u64> = self
            .unlisted
            .iter()
            .map(|u| ((u.predicate, u.severity), u.count))
            .collect();
        for v in self.violations.drain(LISTED_VIOLATIONS..) {
            *counted.entry((v.predicate, v.severity)).or_default() += 1;
        }
        let unlisted = counted
            .into_iter()
            .map(|((predicate, severity), count)| Unlisted {
                predicate,
                severity,
                count,
            })
            .collect();
        self.with_unlisted(unlisted)
    }

    /// Adds a fact.
    pub fn with_fact(mut self, key: &str, value: impl Into<serde_json::Value>) -> Self {
        self.facts.insert(key.to_owned(), value.into());
        self
    }

    /// The hard violations listed.
    pub fn hard(&self) -> impl Iterator<Item = &Violation<L>> {
        self.violations.iter().filter(|v| v.is_hard())
    }

    /// How many hard violations were found, listed or not.
    pub fn hard_count(&self) -> u64 {
        let unlisted: u64 = self
            .unlisted
            .iter()
            .filter(|u| u.severity == Severity::Hard)
            .map(|u| u.count)
            .sum();
        self.hard().count() as u64 + unlisted
    }

    /// How many violations were found but not listed.
    pub fn unlisted_count(&self) -> u64 {
        self.unlisted.iter().map(|u| u.count).sum()
    }

    /// The line that ends a printed list of violations when some were not listed:
    /// `… and 1997001 more violations not listed (TT-COLLISION: 1997001); only the
    /// first 1000 are listed`.
    pub fn unlisted_line(&self) -> Option<String> {
        let total = self.unlisted_count();
        if total == 0 {
            return None;
        }
        let by_rule: Vec<String> = self
            .unlisted
            .iter()
            .map(|u| format!("{}: {}", u.predicate.as_str(), u.count))
            .collect();
        Some(format!(
            "… and {total} more violation{} not listed ({}); only the first {} are listed",
            if total == 1 { "" } else { "s" },
            by_rule.join(", "),
            self.violations.len()
        ))
    }
}

/// Judges a finished artefact.
pub trait ReleaseGate<D: Domain>: Send + Sync {
    /// Gate name and mode for reports.
    fn name(&self) -> String;
    /// Judges `artefact` on its own, against `spec`.
    fn judge(&self, spec: &D::Spec, artefact: &D::Artefact) -> GateReport<D::Location>;
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: RuleId = RuleId::new("SP-A");
    const B: RuleId = RuleId::new("SP-B");

    #[test]
    fn a_long_list_is_cut_at_the_cap_and_the_rest_counted_by_rule_and_severity() {
        let mut violations: Vec<Violation<u32>> = (0..LISTED_VIOLATIONS as u32)
            .map(|bar| Violation::soft(A, bar, "soft"))
            .collect();
        violations.extend((0..5).map(|bar| Violation::soft(A, bar, "soft")));
        violations.extend((0..7).map(|bar| Violation::hard(B, bar, "hard")));
        let report = GateReport::from_violations("g", violations).listing_at_most_the_cap();
        assert_eq!(report.violations.len(), LISTED_VIOLATIONS);
        assert!(report.violations.iter().all(|v| !v.is_hard()));
        // The hard violations were all beyond the cap, and still fail the report.
        assert!(!report.passed);
        assert_eq!(report.hard_count(), 7);
        assert_eq!(report.unlisted_count(), 12);
        let line = report.unlisted_line().expect("a line");
        assert!(
            line.contains("SP-A: 5") && line.contains("SP-B: 7"),
            "{line}"
        );

        let short = GateReport::from_violations("g", vec![Violation::soft(A, 1u32, "s")]);
        let short = short.listing_at_most_the_cap();
        assert!(short.passed && short.unlisted.is_empty());
    }
}

/// How far a gate trusts what the generator claims about its own output (tags):
/// `strict` trusts nothing and derives everything from the artefact, `relaxed`
/// trusts readable tags where the domain has them (twelve-tone's row labels). A
/// domain whose artefacts carry no tags judges the same either way. It is a
/// setting of `cantus.toml` (`[gate] mode`), so it is named here, once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GateMode {
    /// Ignore tags; derive every label from the artefact; allow no repetition.
    #[default]
    Strict,
    /// Trust readable tags (checking the artefact against them) and let a tagged
    /// repetition of the previous event through, counting it.
    Relaxed,
}

impl GateMode {
    /// `"strict"` or `"relaxed"`.
    pub fn name(self) -> &'static str {
        match self {
            GateMode::Strict => "strict",
            GateMode::Relaxed => "relaxed",
        }
    }
}

impl std::fmt::Display for GateMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a gate mode name could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown gate mode {0:?} (expected \"strict\" or \"relaxed\")")]
pub struct GateModeParseError(pub String);

impl std::str::FromStr for GateMode {
    type Err = GateModeParseError;

    fn from_str(s: &str) -> Result<GateMode, GateModeParseError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "strict" => Ok(GateMode::Strict),
            "relaxed" => Ok(GateMode::Relaxed),
            _ => Err(GateModeParseError(s.to_owned())),
        }
    }
}
