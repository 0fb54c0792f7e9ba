//! The one loop: plan → per section: propose → verify each event → repair ladder →
//! accept or drop (lockstep) → bounded replan → final gate → typed outcome.
//!
//! The engine is generic over a [`Domain`] and holds its predicates (a
//! [`Verifier`]), its [`Ladder`] of repair rungs and its [`ReleaseGate`]. It owns no
//! randomness and no clock other than the optional deadline, and no spec: the spec,
//! the proposer and the seed are given to each run, so one engine serves any number
//! of pieces and any backend.
//!
//! A run's mutable bookkeeping lives in [`Run`] (`run.rs`); settling candidates on the
//! ladder in `settle.rs`.

use crate::domain::Domain;
use crate::gate::ReleaseGate;
use crate::predicate::{RuleId, Verifier, Violation};
use crate::proposer::Proposer;
use crate::repair::Ladder;
use crate::trace::{RunMode, TraceOf};
use serde::{Serialize, Serializer};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

mod backtrack;
mod run;
mod section;
mod settle;

pub(crate) use run::{Ask, Run};

/// Limits on one run. There is no silent fallback: running out of a budget drops
/// events (visible in the trace) or ends the run with a [`Outcome::Failure`].
#[derive(Clone, Debug, Serialize)]
pub struct Budget {
    /// Passes through the ladder per violating event before it is dropped (default 3).
    pub attempts_per_event: u32,
    /// Replans per section (default 2).
    pub replans_per_section: u32,
    /// A section is replanned when more than this share of its proposed events was
    /// dropped (default 0.25).
    pub drop_threshold: f64,
    /// Overall wall-clock deadline (default none). It also bounds each proposer
    /// call, retries and backoff included: a call still running when it passes is
    /// abandoned.
    #[serde(serialize_with = "millis")]
    pub deadline: Option<Duration>,
    /// Most proposer calls in one run (default none).
    pub max_proposer_calls: Option<u64>,
    /// Whether drops that no accepted event follows are taken back
    /// ([`Domain::reopen`](crate::Domain::reopen)) and asked for by a continue
    /// request rather than counted toward a replan (default false). Worth it where a
    /// replan is dear — a model's section request — and not for a proposer that
    /// replans with a fresh layout at no cost: on the embedded planner's bank it
    /// changed the path of 5 runs of 82 and lost one.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub reopen_drops: bool,
    /// How often in one run a section that cannot be filled sends the loop back into
    /// the section before it, instead of ending the run (default 0: never). The
    /// events that section accepted are withdrawn (their certificates say so), the
    /// domain records them as a dead end ([`Domain::dead_end`](crate::Domain::dead_end))
    /// and the section is asked again with the reason. Worth it where a choice shows
    /// itself a dead end only a section or more later — a chorale's beat before a
    /// cadence no voicing can reach; each step back costs at least one request.
    #[serde(skip_serializing_if = "is_zero")]
    pub backtracks: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn millis<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    d.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .serialize(s)
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            attempts_per_event: 3,
            replans_per_section: 2,
            drop_threshold: 0.25,
            deadline: None,
            max_proposer_calls: None,
            reopen_drops: false,
            backtracks: 0,
        }
    }
}

/// What a user's configuration changes of a domain's [`Budget`] (`cantus.toml`'s
/// `[harness]`): each field left `None` keeps the domain's own value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BudgetOverrides {
    pub attempts_per_event: Option<u32>,
    pub replans_per_section: Option<u32>,
    pub max_proposer_calls: Option<u64>,
    /// Wall-clock limit of a run (retries and backoff included).
    pub deadline: Option<Duration>,
}

impl Budget {
    /// This budget (a domain's default) with what `overrides` sets.
    pub fn overridden(self, overrides: &BudgetOverrides) -> Budget {
        Budget {
            attempts_per_event: overrides
                .attempts_per_event
                .unwrap_or(self.attempts_per_event),
            replans_per_section: overrides
                .replans_per_section
                .unwrap_or(self.replans_per_section),
            max_proposer_calls: overrides.max_proposer_calls.or(self.max_proposer_calls),
            deadline: overrides.deadline.or(self.deadline),
            ..self
        }
    }
}

/// One reason a run failed: a gate violation, or a budget, proposer or plan problem.
#[derive(Clone, Debug, Serialize)]
pub struct Diagnostic<L> {
    /// The predicate broken, when the failure is a rule violation.
    pub predicate: Option<RuleId>,
    pub location: Option<L>,
    pub reason: String,
}

impl<L> From<Violation<L>> for Diagnostic<L> {
    fn from(v: Violation<L>) -> Self {
        Diagnostic {
            predicate: Some(v.predicate),
            location: Some(v.location),
            reason: v.reason,
        }
    }
}

impl<L> Diagnostic<L> {
    /// A diagnostic that names no predicate (budget, proposer or plan problems).
    pub fn engine_msg(reason: impl Into<String>) -> Self {
        Diagnostic {
            predicate: None,
            location: None,
            reason: reason.into(),
        }
    }
}

impl<L: fmt::Display> fmt::Display for Diagnostic<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.predicate, &self.location) {
            (Some(p), Some(l)) => write!(f, "[{p}] at {l}: {}", self.reason),
            (Some(p), None) => write!(f, "[{p}]: {}", self.reason),
            (None, Some(l)) => write!(f, "at {l}: {}", self.reason),
            (None, None) => write!(f, "{}", self.reason),
        }
    }
}

/// How a run ended.
pub enum Outcome<D: Domain> {
    /// The artefact passed the release gate (its report is `trace.gate`).
    Released {
        artefact: D::Artefact,
        trace: TraceOf<D>,
    },
    /// An explicit failure: why, the trace so far, and the artefact if one was built
    /// (so nothing already produced is lost).
    Failure {
        diagnostics: Vec<Diagnostic<D::Location>>,
        trace: TraceOf<D>,
        artefact: Option<D::Artefact>,
    },
}

impl<D: Domain> Outcome<D> {
    /// The trace, whichever way the run ended.
    pub fn trace(&self) -> &TraceOf<D> {
        match self {
            Outcome::Released { trace, .. } | Outcome::Failure { trace, .. } => trace,
        }
    }

    /// Whether the artefact was released.
    pub fn is_released(&self) -> bool {
        matches!(self, Outcome::Released { .. })
    }

    /// The artefact: the released one, or what a failed run had made (if anything).
    pub fn artefact(&self) -> Option<&D::Artefact> {
        match self {
            Outcome::Released { artefact, .. } => Some(artefact),
            Outcome::Failure { artefact, .. } => artefact.as_ref(),
        }
    }
}

/// Progress notifications for long runs (a CLI shows a bar).
#[derive(Clone, Copy, Debug)]
pub enum Progress {
    /// Section `done` of `total` finished (replans included in the count once).
    Section { done: usize, total: usize },
    /// Revise round `round` of `total` finished.
    Round { round: u32, total: u32 },
}

type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// The generic engine for one domain.
pub struct Engine<D: Domain> {
    pub(crate) domain: D,
    pub(crate) verifier: Verifier<D>,
    pub(crate) ladder: Ladder<D>,
    pub(crate) gate: Arc<dyn ReleaseGate<D>>,
    pub(crate) budget: Budget,
    pub(crate) progress: Option<ProgressFn>,
}

impl<D: Domain> Engine<D> {
    /// An engine with the default [`Budget`].
    pub fn new(
        domain: D,
        verifier: Verifier<D>,
        ladder: Ladder<D>,
        gate: impl ReleaseGate<D> + 'static,
    ) -> Self {
        Engine {
            domain,
            verifier,
            ladder,
            gate: Arc::new(gate),
            budget: Budget::default(),
            progress: None,
        }
    }

    /// Replaces the budget.
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Calls `f` as sections (or revise rounds) finish.
    pub fn with_progress(mut self, f: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(f));
        self
    }

    pub fn domain(&self) -> &D {
        &self.domain
    }
    pub fn verifier(&self) -> &Verifier<D> {
        &self.verifier
    }
    pub fn ladder(&self) -> &Ladder<D> {
        &self.ladder
    }
    pub fn gate(&self) -> &dyn ReleaseGate<D> {
        self.gate.as_ref()
    }
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// Runs the propose–verify–repair loop over `spec` and the final gate.
    pub async fn run(&self, spec: &D::Spec, proposer: &dyn Proposer<D>, seed: u64) -> Outcome<D> {
        let planned = self.domain.plan(spec);
        let plan = planned.as_deref().unwrap_or_default();
        let mut run = Run::new(self, spec, plan, proposer, seed, RunMode::Ladder);
        if let Err(e) = &planned {
            return run.fail(vec![Diagnostic::engine_msg(e.to_string())], None);
        }
        let mut state = self.domain.initial_state(spec);
        let mut trail = backtrack::Trail::new(plan.len(), self.budget.backtracks);
        let mut index = 0;
        while index < plan.len() {
            trail.enter(index, &state);
            let first = trail.first_attempt(index);
            let filled = run
                .fill_section(index, &mut state, trail.feedback(index), first)
                .await;
            trail.tried(index, &run);
            match filled {
                Ok(()) => {
                    self.report(Progress::Section {
                        done: index + 1,
                        total: plan.len(),
                    });
                    index += 1;
                }
                Err(diag) => match run.step_back(index, &diag, &mut trail) {
                    Some((into, before)) => {
                        state = before;
                        index = into;
                    }
                    None => {
                        let artefact = self.domain.finish(spec, state);
                        return run.fail(vec![diag], Some(artefact));
                    }
                },
            }
        }
        let artefact = self.domain.finish(spec, state);
        run.conclude(artefact)
    }

    pub(crate) fn report(&self, progress: Progress) {
        if let Some(p) = &self.progress {
            p(progress);
        }
    }
}
