//! Predicates: named rules that check one candidate event against the online state.
//!
//! A predicate reports *all* its violations, never just the first, each with a
//! location and a reason a person can read. Predicates are small, stateless values
//! composed into a [`Verifier`] (think tower layers: the engine does not know which
//! rules exist).

use crate::domain::Domain;
use serde::Serialize;
use std::fmt;
use std::sync::Arc;

/// Whether a violation blocks acceptance (hard) or is only reported (soft).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Blocks acceptance: the event must be repaired or dropped.
    Hard,
    /// Reported in the certificate; the event is still accepted.
    Soft,
}

/// A rule's stable id, as traces, reports and the CLI name it (`TT-COLLISION`).
///
/// Domains name each rule once — in an enum (`impl From<Rule> for RuleId`) or a
/// catalogue of constants — and everything else (predicates, rungs, the gate, tests)
/// refers to that definition, so no id is ever typed twice as a string literal. It
/// serializes as the plain id string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct RuleId(&'static str);

impl RuleId {
    /// The id `id` (for a domain's rule definitions).
    pub const fn new(id: &'static str) -> RuleId {
        RuleId(id)
    }

    /// The id as text.
    pub const fn as_str(self) -> &'static str {
        self.0
    }
}

/// Comparing with the published id text (what reports and the CLI print), e.g. in a
/// test of what a user sees: `v.predicate == "TT-ROW"`.
impl PartialEq<str> for RuleId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for RuleId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// One broken rule at one place.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Violation<L> {
    /// Stable id of the predicate, e.g. `TT-COLLISION`.
    pub predicate: RuleId,
    pub severity: Severity,
    pub location: L,
    /// Human-readable reason: what is wrong and, where it helps, what was expected.
    pub reason: String,
}

impl<L> Violation<L> {
    /// A hard violation.
    pub fn hard(predicate: impl Into<RuleId>, location: L, reason: impl Into<String>) -> Self {
        Violation {
            predicate: predicate.into(),
            severity: Severity::Hard,
            location,
            reason: reason.into(),
        }
    }

    /// A soft violation.
    pub fn soft(predicate: impl Into<RuleId>, location: L, reason: impl Into<String>) -> Self {
        Violation {
            severity: Severity::Soft,
            ..Violation::hard(predicate, location, reason)
        }
    }

    /// Whether this violation blocks acceptance.
    pub fn is_hard(&self) -> bool {
        self.severity == Severity::Hard
    }
}

/// A violation with its location's fields inline — `{predicate, severity, bar, voice,
/// onset, reason}` for a location of bar, voice and onset — as reports and `--json`
/// output list violations.
#[derive(Debug, Serialize)]
pub struct FlatViolation<'a, L> {
    predicate: RuleId,
    severity: Severity,
    #[serde(flatten)]
    location: &'a L,
    reason: &'a str,
}

impl<L> Violation<L> {
    /// This violation with its location inline, for reports.
    pub fn flat(&self) -> FlatViolation<'_, L> {
        FlatViolation {
            predicate: self.predicate,
            severity: self.severity,
            location: &self.location,
            reason: &self.reason,
        }
    }
}

impl<L: fmt::Display> fmt::Display for Violation<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Hard => "error",
            Severity::Soft => "warning",
        };
        write!(
            f,
            "{sev}[{}] at {}: {}",
            self.predicate, self.location, self.reason
        )
    }
}

/// What a predicate (or a repair rung) sees: the domain, the spec of the run, the
/// online state and the current section. The spec comes by reference from the run,
/// so a domain never copies it into its state.
pub struct CheckContext<'a, D: Domain> {
    pub domain: &'a D,
    pub spec: &'a D::Spec,
    pub state: &'a D::State,
    pub section: &'a D::Section,
    pub section_index: usize,
}

impl<D: Domain> Clone for CheckContext<'_, D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<D: Domain> Copy for CheckContext<'_, D> {}

/// A named rule with a stable id and a severity.
pub trait Predicate<D: Domain>: Send + Sync {
    /// Stable id used in traces, reports and CLI output (never renamed).
    fn id(&self) -> RuleId;
    /// One sentence on what the rule requires.
    fn description(&self) -> &'static str;
    /// Hard by default.
    fn severity(&self) -> Severity {
        Severity::Hard
    }
    /// Pushes every violation of this rule by `event` onto `out`.
    fn check(
        &self,
        ctx: CheckContext<'_, D>,
        event: &D::Event,
        out: &mut Vec<Violation<D::Location>>,
    );
}

/// The verdict on one candidate: every violation of every predicate.
#[derive(Clone, Debug, Serialize)]
pub struct Verdict<L> {
    pub violations: Vec<Violation<L>>,
}

impl<L> Verdict<L> {
    /// Number of hard violations.
    pub fn hard_count(&self) -> usize {
        self.violations.iter().filter(|v| v.is_hard()).count()
    }

    /// Whether the candidate may be accepted.
    pub fn is_acceptable(&self) -> bool {
        self.hard_count() == 0
    }
}

/// An ordered set of predicates run together.
pub struct Verifier<D: Domain> {
    predicates: Vec<Arc<dyn Predicate<D>>>,
}

impl<D: Domain> Clone for Verifier<D> {
    fn clone(&self) -> Self {
        Verifier {
            predicates: self.predicates.clone(),
        }
    }
}

impl<D: Domain> Default for Verifier<D> {
    fn default() -> Self {
        Verifier {
            predicates: Vec::new(),
        }
    }
}

impl<D: Domain> Verifier<D> {
    /// An empty verifier.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a predicate. Two predicates with one id are refused (ids must be stable
    /// and unique so reports can name them).
    pub fn with(mut self, predicate: impl Predicate<D> + 'static) -> Self {
        self.push(Arc::new(predicate));
        self
    }

    /// Adds a shared predicate; panics on a duplicate id, which is a programming error.
    pub fn push(&mut self, predicate: Arc<dyn Predicate<D>>) {
        assert!(
            self.predicates.iter().all(|p| p.id() != predicate.id()),
            "duplicate predicate id {}",
            predicate.id()
        );
        self.predicates.push(predicate);
    }

    /// The predicates in order.
    pub fn predicates(&self) -> &[Arc<dyn Predicate<D>>] {
        &self.predicates
    }

    /// Runs every predicate on `event`.
    pub fn verify(&self, ctx: CheckContext<'_, D>, event: &D::Event) -> Verdict<D::Location> {
        let mut violations = Vec::new();
        for p in &self.predicates {
            p.check(ctx, event, &mut violations);
        }
        Verdict { violations }
    }
}
