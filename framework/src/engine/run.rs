//! One run's bookkeeping: what it runs on (engine, spec, plan, proposer, seed), the
//! trace entries and totals so far, the budgets' clock; proposer calls and the end of
//! the run (judge, release or fail).

use super::{Budget, Diagnostic, Engine, Outcome};
use crate::domain::Domain;
use crate::gate::GateReport;
use crate::predicate::{CheckContext, Verdict};
use crate::proposer::{Feedback, Proposal, ProposalRequest, Proposer, ProposerError, RequestKind};
use crate::repair::RepairRung;
use crate::trace::{CallRecord, Entry, RunHeader, RunMode, Totals, Trace, TraceOf};
use std::time::Instant;

/// One proposer call the engine wants to make.
pub(crate) struct Ask<'q, D: Domain> {
    pub(crate) kind: RequestKind<'q, D>,
    /// The section concerned (`None` for a whole-artefact request).
    pub(crate) section: Option<usize>,
    pub(crate) state: &'q D::State,
    pub(crate) feedback: &'q [Feedback<D::Location>],
    /// Replan, ladder pass or revise round (0 first).
    pub(crate) attempt: u32,
}

/// What one proposer call returned, with its call number.
pub(crate) struct Called<E> {
    pub(crate) call: u64,
    pub(crate) events: Vec<E>,
}

/// Whether a rung with `asked` answers of which `repaired` repaired has a yield under
/// 1 in `n`, after at least `n` answers.
fn fruitless(n: u32, asked: u32, repaired: u32) -> bool {
    asked >= n && repaired.saturating_mul(n) < asked
}

/// The state of one run of the engine.
pub(crate) struct Run<'r, D: Domain> {
    pub(crate) engine: &'r Engine<D>,
    pub(crate) spec: &'r D::Spec,
    pub(crate) plan: &'r [D::Section],
    proposer: &'r dyn Proposer<D>,
    /// The seed proposers derive their randomness from (a revise round re-seeds it).
    pub(crate) seed: u64,
    started: Instant,
    pub(crate) entries: Vec<Entry<D::Event, D::Location, D::Amendment>>,
    pub(crate) totals: Totals,
    header: RunHeader,
    /// Per rung that may retire: its proposer answers, and how many repaired.
    asks: std::collections::BTreeMap<crate::RungId, (u32, u32)>,
    /// The last proposer call failed with [`ProposerError::NoWayOn`].
    pub(crate) no_way_on: bool,
}

impl<'r, D: Domain> Run<'r, D> {
    pub(crate) fn new(
        engine: &'r Engine<D>,
        spec: &'r D::Spec,
        plan: &'r [D::Section],
        proposer: &'r dyn Proposer<D>,
        seed: u64,
        mode: RunMode,
    ) -> Self {
        let header = RunHeader {
            domain: engine.domain.name().to_owned(),
            proposer: proposer.name().to_owned(),
            seed,
            mode,
            predicates: engine
                .verifier
                .predicates()
                .iter()
                .map(|p| p.id())
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
        Run {
            engine,
            spec,
            plan,
            proposer,
            seed,
            started: Instant::now(),
            entries: Vec::new(),
            totals: Totals::default(),
            header,
            asks: std::collections::BTreeMap::new(),
            no_way_on: false,
        }
    }

    /// Why `rung` asks the proposer no more in this run, if it is retired.
    pub(crate) fn retired(&self, rung: &dyn RepairRung<D>) -> Option<String> {
        let n = rung.retires_after()?;
        let (asked, repaired) = self.asks.get(&rung.id()).copied().unwrap_or((0, 0));
        fruitless(n, asked, repaired).then(|| {
            format!(
                "retired for the rest of the run: {repaired} of its {asked} proposer answers repaired the event (under 1 in {n})"
            )
        })
    }

    /// Counts one proposer answer of `rung`, and retires it when its yield has
    /// fallen under 1 in [`RepairRung::retires_after`].
    pub(crate) fn answered(&mut self, rung: &dyn RepairRung<D>, repaired: bool) {
        let Some(n) = rung.retires_after() else {
            return;
        };
        let (asked, ok) = self.asks.entry(rung.id()).or_default();
        *asked += 1;
        *ok += u32::from(repaired);
        if fruitless(n, *asked, *ok) {
            self.totals.rungs_retired.push(rung.id().to_string());
        }
    }

    pub(crate) fn budget(&self) -> &'r Budget {
        &self.engine.budget
    }

    /// Runs every predicate on `event` as the next event of section `index` in `state`.
    pub(crate) fn verify(
        &self,
        state: &D::State,
        index: usize,
        event: &D::Event,
    ) -> Verdict<D::Location> {
        self.engine
            .verifier
            .verify(self.context(state, index), event)
    }

    /// What predicates and rungs see of section `index` in `state`.
    pub(crate) fn context<'c>(&'c self, state: &'c D::State, index: usize) -> CheckContext<'c, D> {
        CheckContext {
            domain: &self.engine.domain,
            spec: self.spec,
            state,
            section: &self.plan[index],
            section_index: index,
        }
    }

    /// Whether another proposer call fits the budgets; the reason if not.
    pub(crate) fn call_refusal(&self) -> Option<String> {
        let budget = self.budget();
        if let Some(deadline) = budget.deadline
            && self.started.elapsed() > deadline
        {
            return Some(format!("deadline of {} ms exceeded", deadline.as_millis()));
        }
        if let Some(max) = budget.max_proposer_calls
            && self.totals.proposer_calls >= max
        {
            return Some(format!("proposer call budget of {max} calls exhausted"));
        }
        None
    }

    /// `call` awaited within what is left of the deadline (all of it, without one):
    /// a call that outlives it — a model retrying with backoff, re-asking, hanging —
    /// is dropped, which cancels it, and ends as [`ProposerError::Deadline`].
    /// The timer is tokio's, so a run with a deadline needs a Tokio runtime with
    /// time enabled (every Cantus command's has).
    async fn bounded<T>(
        &self,
        call: impl std::future::Future<Output = Result<T, ProposerError>>,
    ) -> Result<T, ProposerError> {
        let Some(deadline) = self.budget().deadline else {
            return call.await;
        };
        let left = deadline.saturating_sub(self.started.elapsed());
        tokio::time::timeout(left, call)
            .await
            .unwrap_or(Err(ProposerError::Deadline(deadline)))
    }

    /// Makes one proposer call and records it. Budget exhaustion and proposer
    /// errors come back as diagnostics.
    pub(crate) async fn call(
        &mut self,
        ask: Ask<'_, D>,
    ) -> Result<Called<D::Event>, Diagnostic<D::Location>> {
        let label = ask.kind.label();
        let owed = match &ask.kind {
            RequestKind::Continue { owed } => owed.to_vec(),
            _ => Vec::new(),
        };
        if let Some(reason) = self.call_refusal() {
            return Err(Diagnostic::engine_msg(format!(
                "{reason} before a {label} request{}",
                ask.section
                    .map(|i| format!(" for section {i}"))
                    .unwrap_or_default()
            )));
        }
        let request = ProposalRequest {
            kind: ask.kind,
            spec: self.spec,
            plan: self.plan,
            section_index: ask.section,
            state: ask.state,
            feedback: ask.feedback,
            attempt: ask.attempt,
            seed: self.seed,
        };
        let result = self.bounded(self.proposer.propose(request)).await;
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
        self.no_way_on = matches!(error, Some(ProposerError::NoWayOn(_)));
        if let Some(choice) = exchange.as_ref().and_then(|x| x.choice) {
            self.totals.choice = Some(match self.totals.choice {
                Some(so_far) => so_far + choice,
                None => choice,
            });
        }
        self.entries.push(Entry::Call(CallRecord {
            call,
            request: label,
            section: ask.section,
            attempt: ask.attempt,
            events: events.len(),
            cost,
            error: error.as_ref().map(ProposerError::to_string),
            model: exchange,
            owed,
        }));
        match error {
            None => Ok(Called { call, events }),
            Some(e) => Err(Diagnostic::engine_msg(format!(
                "proposer `{}` failed on a {label} request: {e}",
                self.proposer.name()
            ))),
        }
    }

    /// Why sections recorded from entry `from` on were kept with dropped events.
    pub(crate) fn drop_notes(&self, from: usize) -> Vec<String> {
        self.entries[from.min(self.entries.len())..]
            .iter()
            .filter_map(|e| match e {
                Entry::Section(s) => s.drop_note.clone(),
                _ => None,
            })
            .collect()
    }

    fn trace(&self, gate: Option<GateReport<D::Location>>) -> TraceOf<D> {
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
        report: GateReport<D::Location>,
        artefact: D::Artefact,
    ) -> Outcome<D> {
        Outcome::Failure {
            diagnostics,
            trace: self.trace(Some(report)),
            artefact: Some(artefact),
        }
    }

    /// Judges the artefact against the run's spec and ends the run.
    pub(crate) fn conclude(self, artefact: D::Artefact) -> Outcome<D> {
        let report = self.engine.gate.judge(self.spec, &artefact);
        let notes = self.drop_notes(0);
        self.conclude_with(report, artefact, notes)
    }

    /// Ends the run with an artefact already judged; `drop_notes` say which of its
    /// sections were kept with dropped events, so a failing gate is read with its cause.
    pub(crate) fn conclude_with(
        self,
        report: GateReport<D::Location>,
        artefact: D::Artefact,
        drop_notes: Vec<String>,
    ) -> Outcome<D> {
        if report.passed {
            return Outcome::Released {
                artefact,
                trace: self.trace(Some(report)),
            };
        }
        let mut diagnostics: Vec<Diagnostic<D::Location>> =
            report.hard().cloned().map(Diagnostic::from).collect();
        diagnostics.extend(drop_notes.into_iter().map(Diagnostic::engine_msg));
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
