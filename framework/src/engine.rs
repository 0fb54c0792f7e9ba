//! The one loop: plan → per section: propose → verify each event → repair ladder →
//! accept or drop (lockstep) → bounded replan → final gate → typed outcome.
//!
//! The engine is generic over a [`Domain`] and holds its predicates (a
//! [`Verifier`]), its [`Ladder`] of repair rungs and its [`ReleaseGate`]. It owns no
//! randomness and no clock other than the optional deadline; the proposer is passed
//! to each run, so one engine serves any backend.

use crate::domain::Domain;
use crate::gate::ReleaseGate;
use crate::predicate::{CheckContext, Verdict, Verifier, Violation};
use crate::proposer::{Proposal, ProposalRequest, Proposer, ProposerError, RequestKind};
use crate::repair::Ladder;
use crate::trace::{CallRecord, Entry, RunHeader, Totals, Trace, TraceOf};
use serde::{Serialize, Serializer};
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod settle;

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
    /// Overall wall-clock deadline (default none).
    #[serde(serialize_with = "millis")]
    pub deadline: Option<Duration>,
    /// Most proposer calls in one run (default none).
    pub max_proposer_calls: Option<u64>,
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
        }
    }
}

/// One reason a run failed: a gate violation, or a budget, proposer or plan problem.
#[derive(Clone, Debug, Serialize)]
pub struct Diagnostic<L> {
    /// The predicate broken, when the failure is a rule violation.
    pub predicate: Option<String>,
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

    /// Runs the propose–verify–repair loop and the final gate.
    pub async fn run(&self, spec: &D::Spec, proposer: &dyn Proposer<D>, seed: u64) -> Outcome<D> {
        let mut run = RunCtx::new(self, proposer, seed, "ladder");
        let plan = match self.domain.plan(spec) {
            Ok(plan) => plan,
            Err(e) => return run.fail(vec![Diagnostic::engine_msg(e.to_string())], None),
        };
        let mut state = self.domain.initial_state(spec);
        for index in 0..plan.len() {
            if let Err(diag) = self
                .fill_section(&mut run, spec, &plan, index, &mut state, &[])
                .await
            {
                let artefact = self.domain.finish(spec, state);
                return run.fail(vec![diag], Some(artefact));
            }
            if let Some(p) = &self.progress {
                p(Progress::Section {
                    done: index + 1,
                    total: plan.len(),
                });
            }
        }
        let artefact = self.domain.finish(spec, state);
        run.conclude(self.gate.as_ref(), spec, artefact)
    }

    /// Fills one section, replanning while too many events are dropped and the
    /// replan budget lasts. `outer` is feedback from outside the section (a revise
    /// round's musical feedback): every request of the section carries it first.
    pub(crate) async fn fill_section(
        &self,
        run: &mut RunCtx<'_, D>,
        spec: &D::Spec,
        plan: &[D::Section],
        index: usize,
        state: &mut D::State,
        outer: &[String],
    ) -> Result<(), Diagnostic<D::Location>> {
        let snapshot = state.clone();
        let mut feedback: Vec<String> = outer.to_vec();
        let mut replan = 0;
        loop {
            self.domain.begin_section(state, &plan[index]);
            let called = run
                .call(
                    &self.domain,
                    RequestKind::Section,
                    spec,
                    plan,
                    Some(index),
                    state,
                    &feedback,
                    replan,
                )
                .await;
            let call = match called {
                Ok(call) => call,
                // A proposer that failed (a crashed plugin, a server outage, an
                // unreadable reply) gets the section's replans, as a bad section
                // would; a spent budget ends the run at once.
                Err(diag)
                    if run.call_refusal().is_none() && replan < self.budget.replans_per_section =>
                {
                    run.totals.replans += 1;
                    *state = snapshot.clone();
                    feedback = outer
                        .iter()
                        .cloned()
                        .chain([format!("the last request failed: {}", diag.reason)])
                        .collect();
                    replan += 1;
                    continue;
                }
                Err(diag) => return Err(diag),
            };
            let mut filled = settle::SectionFill::new(self, run, spec, plan, index, replan);
            filled.run(state, call.events, call.call).await;
            let (proposed, dropped) = (filled.proposed, filled.dropped);
            let too_many =
                proposed > 0 && dropped as f64 / proposed as f64 > self.budget.drop_threshold;
            let replanning = too_many && replan < self.budget.replans_per_section;
            let next_feedback = filled.feedback();
            filled.record(call.call, &feedback, replanning);
            if !replanning {
                if dropped > 0 {
                    // Kept with drops: say why, so a failing gate's report is read
                    // with its cause.
                    let why = if too_many {
                        format!(
                            "after {replan} replan{} (budget exhausted)",
                            if replan == 1 { "" } else { "s" }
                        )
                    } else {
                        "below the replan threshold".to_owned()
                    };
                    run.kept_with_drops.push(format!(
                        "section {} kept with dropped events {why}: {}",
                        index + 1,
                        next_feedback.join("; ")
                    ));
                }
                return Ok(());
            }
            run.totals.replans += 1;
            *state = snapshot.clone();
            feedback = outer.iter().cloned().chain(next_feedback).collect();
            replan += 1;
        }
    }
}

/// What one proposer call returned, with its call number.
pub(crate) struct Called<E> {
    pub(crate) call: u64,
    pub(crate) events: Vec<E>,
}

/// The mutable bookkeeping of one run.
pub(crate) struct RunCtx<'e, D: Domain> {
    pub(crate) proposer: &'e dyn Proposer<D>,
    pub(crate) seed: u64,
    pub(crate) started: Instant,
    pub(crate) budget: &'e Budget,
    pub(crate) entries: Vec<Entry<D::Event, D::Location, D::Amendment>>,
    pub(crate) totals: Totals,
    /// Sections kept with dropped events, and why (reported when the gate fails).
    pub(crate) kept_with_drops: Vec<String>,
    header: RunHeader,
}

impl<'e, D: Domain> RunCtx<'e, D> {
    pub(crate) fn new(
        engine: &'e Engine<D>,
        proposer: &'e dyn Proposer<D>,
        seed: u64,
        mode: &str,
    ) -> Self {
        let header = RunHeader {
            domain: engine.domain.name().to_owned(),
            proposer: proposer.name().to_owned(),
            seed,
            mode: mode.to_owned(),
            predicates: engine
                .verifier
                .predicates()
                .iter()
                .map(|p| p.id().to_owned())
                .collect(),
            ladder: engine
                .ladder
                .names()
                .into_iter()
                .map(str::to_owned)
                .collect(),
            gate: engine.gate.name(),
            budget: engine.budget.clone(),
        };
        RunCtx {
            proposer,
            seed,
            started: Instant::now(),
            budget: &engine.budget,
            entries: Vec::new(),
            totals: Totals::default(),
            kept_with_drops: Vec::new(),
            header,
        }
    }

    /// Whether another proposer call fits the budgets; the reason if not.
    pub(crate) fn call_refusal(&self) -> Option<String> {
        if let Some(deadline) = self.budget.deadline
            && self.started.elapsed() > deadline
        {
            return Some(format!("deadline of {} ms exceeded", deadline.as_millis()));
        }
        if let Some(max) = self.budget.max_proposer_calls
            && self.totals.proposer_calls >= max
        {
            return Some(format!("proposer call budget of {max} calls exhausted"));
        }
        None
    }

    /// Makes one proposer call and records it. Budget exhaustion and proposer
    /// errors come back as diagnostics.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn call(
        &mut self,
        domain: &D,
        kind: RequestKind<'_, D>,
        spec: &D::Spec,
        plan: &[D::Section],
        section_index: Option<usize>,
        state: &D::State,
        feedback: &[String],
        attempt: u32,
    ) -> Result<Called<D::Event>, Diagnostic<D::Location>> {
        if let Some(reason) = self.call_refusal() {
            return Err(Diagnostic::engine_msg(format!(
                "{reason} before a {} request{}",
                kind.label(),
                section_index
                    .map(|i| format!(" for section {i}"))
                    .unwrap_or_default()
            )));
        }
        let label = kind.label();
        let request = ProposalRequest {
            kind,
            spec,
            plan,
            section_index,
            state,
            summary: domain.summarize(spec, state),
            feedback,
            attempt,
            seed: self.seed,
        };
        let result = self.proposer.propose(request).await;
        let call = self.totals.proposer_calls + 1;
        let (events, cost, exchange, error) = match result {
            Ok(Proposal {
                events,
                cost,
                exchange,
            }) => (events, cost, exchange, None),
            Err(e) => (Vec::new(), Default::default(), None, Some(e)),
        };
        self.totals.add_cost(cost);
        self.entries.push(Entry::Call(CallRecord {
            call,
            request: label,
            section: section_index,
            attempt,
            events: events.len(),
            cost,
            error: error.as_ref().map(ProposerError::to_string),
            model: exchange,
        }));
        match error {
            None => Ok(Called { call, events }),
            Some(e) => Err(Diagnostic::engine_msg(format!(
                "proposer `{}` failed on a {label} request: {e}",
                self.proposer.name()
            ))),
        }
    }

    pub(crate) fn trace(&self, gate: Option<crate::gate::GateReport<D::Location>>) -> TraceOf<D> {
        Trace {
            header: self.header.clone(),
            entries: self.entries.clone(),
            totals: self.totals.clone(),
            gate,
            wall: self.started.elapsed(),
        }
    }

    pub(crate) fn fail(
        self,
        diagnostics: Vec<Diagnostic<D::Location>>,
        artefact: Option<D::Artefact>,
    ) -> Outcome<D> {
        Outcome::Failure {
            diagnostics,
            trace: self.trace(None),
            artefact,
        }
    }

    /// Ends the run in a failure although the gate's `report` may have passed (a
    /// revise loop whose measure was never satisfied): the trace keeps the report.
    pub(crate) fn fail_judged(
        self,
        diagnostics: Vec<Diagnostic<D::Location>>,
        report: crate::gate::GateReport<D::Location>,
        artefact: D::Artefact,
    ) -> Outcome<D> {
        Outcome::Failure {
            diagnostics,
            trace: self.trace(Some(report)),
            artefact: Some(artefact),
        }
    }

    /// Judges the artefact against `spec` and ends the run.
    pub(crate) fn conclude(
        self,
        gate: &dyn ReleaseGate<D>,
        spec: &D::Spec,
        artefact: D::Artefact,
    ) -> Outcome<D> {
        let report = gate.judge(spec, &artefact);
        self.conclude_with(report, artefact)
    }

    /// Ends the run with an artefact already judged.
    pub(crate) fn conclude_with(
        self,
        report: crate::gate::GateReport<D::Location>,
        artefact: D::Artefact,
    ) -> Outcome<D> {
        if report.passed {
            Outcome::Released {
                artefact,
                trace: self.trace(Some(report)),
            }
        } else {
            let mut diagnostics: Vec<Diagnostic<D::Location>> =
                report.hard().cloned().map(Diagnostic::from).collect();
            diagnostics.extend(
                self.kept_with_drops
                    .iter()
                    .map(|e| Diagnostic::engine_msg(e.clone())),
            );
            if diagnostics.is_empty() {
                diagnostics.push(Diagnostic::engine_msg(format!(
                    "gate `{}` refused the artefact",
                    report.gate
                )));
            }
            Outcome::Failure {
                diagnostics,
                trace: self.trace(Some(report)),
                artefact: Some(artefact),
            }
        }
    }
}

/// Runs every predicate of `engine` on `event` in `state`.
pub(crate) fn verify<D: Domain>(
    engine: &Engine<D>,
    spec: &D::Spec,
    state: &D::State,
    plan: &[D::Section],
    index: usize,
    event: &D::Event,
) -> Verdict<D::Location> {
    let ctx = CheckContext {
        domain: &engine.domain,
        spec,
        state,
        section: &plan[index],
        section_index: index,
    };
    engine.verifier.verify(ctx, event)
}
