//! Settling candidates: verify, climb the ladder, accept or drop.
//!
//! Kept apart from the outer loop so each part reads in one sitting. Invariants
//! enforced here: rungs run in ladder order; every rung result is verified again
//! before it is accepted; amendments of a result that is not kept are undone at once,
//! and all kept amendments are undone when the candidate is finally dropped; a
//! dropped candidate still moves the domain's cursors (`Domain::skip`).

use super::{Engine, RunCtx, verify};
use crate::domain::Domain;
use crate::predicate::Violation;
use crate::proposer::RequestKind;
use crate::repair::{PatchScope, RungAction};
use crate::trace::{Certificate, Entry, SectionRecord, Status, Step};
use std::collections::VecDeque;

type Cert<D> = Certificate<<D as Domain>::Event, <D as Domain>::Location, <D as Domain>::Amendment>;
type StepOf<D> = Step<<D as Domain>::Event, <D as Domain>::Location, <D as Domain>::Amendment>;

/// At most this many dropped events are described in replan feedback.
const FEEDBACK_LINES: usize = 12;

/// One attempt at filling one section.
pub(super) struct SectionFill<'a, 'e, D: Domain> {
    engine: &'a Engine<D>,
    run: &'a mut RunCtx<'e, D>,
    spec: &'a D::Spec,
    plan: &'a [D::Section],
    index: usize,
    replan: u32,
    pub(super) proposed: usize,
    accepted: usize,
    repaired: usize,
    pub(super) dropped: usize,
    problems: Vec<String>,
}

/// How a ladder climb ended for one candidate.
enum Settled<E> {
    Accepted(E),
    Repaired { event: E, rung: String },
    Dropped,
}

impl<'a, 'e, D: Domain> SectionFill<'a, 'e, D> {
    pub(super) fn new(
        engine: &'a Engine<D>,
        run: &'a mut RunCtx<'e, D>,
        spec: &'a D::Spec,
        plan: &'a [D::Section],
        index: usize,
        replan: u32,
    ) -> Self {
        SectionFill {
            engine,
            run,
            spec,
            plan,
            index,
            replan,
            proposed: 0,
            accepted: 0,
            repaired: 0,
            dropped: 0,
            problems: Vec::new(),
        }
    }

    fn section(&self) -> &'a D::Section {
        &self.plan[self.index]
    }

    /// Settles every proposed event in order (a segment rewrite may replace the
    /// events still pending).
    pub(super) async fn run(&mut self, state: &mut D::State, events: Vec<D::Event>, call: u64) {
        let mut pending: VecDeque<(D::Event, u64)> =
            events.into_iter().map(|e| (e, call)).collect();
        while let Some((candidate, call)) = pending.pop_front() {
            let position = self.proposed;
            self.proposed += 1;
            self.run.totals.events_proposed += 1;
            let cert = self
                .settle(state, candidate, call, position, &mut pending)
                .await;
            self.run.entries.push(Entry::Event(cert));
        }
    }

    async fn settle(
        &mut self,
        state: &mut D::State,
        candidate: D::Event,
        call: u64,
        position: usize,
        pending: &mut VecDeque<(D::Event, u64)>,
    ) -> Cert<D> {
        let domain = &self.engine.domain;
        let location = domain.locate(self.section(), &candidate);
        let verdict = verify(
            self.engine,
            self.spec,
            state,
            self.plan,
            self.index,
            &candidate,
        );
        let mut cert = Certificate {
            section: self.index,
            replan: self.replan,
            index: position,
            call,
            location,
            proposed: candidate.clone(),
            verdict: verdict.violations.clone(),
            steps: Vec::new(),
            status: Status::Accepted,
            accepted: None,
        };
        let settled = if verdict.is_acceptable() {
            Settled::Accepted(candidate)
        } else {
            self.climb(
                state,
                candidate,
                verdict.violations,
                pending,
                &mut cert.steps,
            )
            .await
        };
        match settled {
            Settled::Accepted(event) => {
                domain.accept(state, self.section(), &event);
                self.accepted += 1;
                self.run.totals.accepted += 1;
                cert.accepted = Some(event);
            }
            Settled::Repaired { event, rung } => {
                domain.accept(state, self.section(), &event);
                self.repaired += 1;
                self.run.totals.repaired += 1;
                *self
                    .run
                    .totals
                    .repairs_by_rung
                    .entry(rung.clone())
                    .or_default() += 1;
                cert.status = Status::Repaired { rung };
                cert.accepted = Some(event);
            }
            Settled::Dropped => {
                self.dropped += 1;
                self.run.totals.dropped += 1;
                cert.status = Status::Dropped;
                if self.problems.len() < FEEDBACK_LINES {
                    let reasons: Vec<String> = cert
                        .verdict
                        .iter()
                        .filter(|v| v.is_hard())
                        .map(|v| format!("[{}] {}", v.predicate, v.reason))
                        .collect();
                    self.problems.push(format!(
                        "dropped at {}: {}",
                        cert.location,
                        reasons.join("; ")
                    ));
                }
            }
        }
        cert
    }

    /// Climbs the ladder. On a drop, every kept amendment is undone and the domain's
    /// lockstep hook advances the cursors past the last candidate.
    async fn climb(
        &mut self,
        state: &mut D::State,
        candidate: D::Event,
        violations: Vec<Violation<D::Location>>,
        pending: &mut VecDeque<(D::Event, u64)>,
        steps: &mut Vec<StepOf<D>>,
    ) -> Settled<D::Event> {
        let engine = self.engine;
        let domain = &engine.domain;
        let mut current = candidate;
        let mut violations = violations;
        let mut undo: Vec<D::Amendment> = Vec::new();
        for pass in 1..=engine.budget.attempts_per_event {
            for rung in engine.ladder.rungs() {
                let name = rung.name().to_owned();
                let ctx = crate::predicate::CheckContext {
                    domain,
                    spec: self.spec,
                    state,
                    section: self.section(),
                    section_index: self.index,
                };
                let action = rung.repair(ctx, &current, &violations);
                let mut step = Step {
                    pass,
                    rung: name.clone(),
                    action: "give-up",
                    call: None,
                    before: current.clone(),
                    after: None,
                    amendments: Vec::new(),
                    verdict: Vec::new(),
                    kept: false,
                    reason: None,
                };
                let (event, amendments, rest) = match action {
                    RungAction::GiveUp { reason } => {
                        step.reason = Some(reason);
                        steps.push(step);
                        continue;
                    }
                    RungAction::Candidate { event, amendments } => {
                        step.action = "candidate";
                        (event, amendments, None)
                    }
                    RungAction::AskProposer(scope) => {
                        step.action = "ask-proposer";
                        match self
                            .ask(state, &current, &violations, scope, pass, pending)
                            .await
                        {
                            Ok((call, event, rest)) => {
                                step.call = Some(call);
                                (event, Vec::new(), rest)
                            }
                            Err((call, reason)) => {
                                step.call = call;
                                step.reason = Some(reason);
                                steps.push(step);
                                continue;
                            }
                        }
                    }
                };
                let inverses: Vec<D::Amendment> =
                    amendments.iter().map(|a| domain.amend(state, a)).collect();
                let verdict = verify(engine, self.spec, state, self.plan, self.index, &event);
                let hard_before = violations.iter().filter(|v| v.is_hard()).count();
                let clean = verdict.is_acceptable();
                // A segment rewrite is all or nothing: kept only when its first event is clean.
                let better = rest.is_none() && verdict.hard_count() < hard_before;
                step.after = Some(event.clone());
                step.amendments = amendments;
                step.verdict = verdict.violations.clone();
                step.kept = clean || better;
                steps.push(step);
                if clean {
                    if let Some(rest) = rest {
                        pending.clear();
                        pending.extend(rest);
                    }
                    return Settled::Repaired { event, rung: name };
                }
                if better {
                    undo.extend(inverses);
                    current = event;
                    violations = verdict.violations;
                } else {
                    for inv in inverses.iter().rev() {
                        domain.amend(state, inv);
                    }
                }
            }
        }
        for inv in undo.iter().rev() {
            domain.amend(state, inv);
        }
        domain.skip(state, self.section(), &current);
        Settled::Dropped
    }

    /// Asks the proposer for a patch or a segment rewrite. Returns the call number,
    /// the new candidate and, for a rewrite, the events that replace the pending ones.
    #[allow(clippy::type_complexity)]
    async fn ask(
        &mut self,
        state: &D::State,
        current: &D::Event,
        violations: &[Violation<D::Location>],
        scope: PatchScope,
        pass: u32,
        pending: &VecDeque<(D::Event, u64)>,
    ) -> Result<(u64, D::Event, Option<Vec<(D::Event, u64)>>), (Option<u64>, String)> {
        let pending_events: Vec<D::Event> = match scope {
            PatchScope::Segment => pending.iter().map(|(e, _)| e.clone()).collect(),
            PatchScope::Event => Vec::new(),
        };
        let kind = match scope {
            PatchScope::Event => RequestKind::Patch {
                candidate: current,
                violations,
            },
            PatchScope::Segment => RequestKind::Rewrite {
                candidate: current,
                pending: &pending_events,
                violations,
            },
        };
        let called = self
            .run
            .call(
                &self.engine.domain,
                kind,
                self.spec,
                self.plan,
                Some(self.index),
                state,
                &[],
                pass,
            )
            .await
            .map_err(|d| (None, d.reason))?;
        let call = called.call;
        let mut events = called.events.into_iter();
        let Some(first) = events.next() else {
            return Err((Some(call), "the proposer returned no events".to_owned()));
        };
        let rest = match scope {
            PatchScope::Segment => Some(events.map(|e| (e, call)).collect()),
            PatchScope::Event => None,
        };
        Ok((call, first, rest))
    }

    /// What went wrong in this attempt, for the proposer's next try.
    pub(super) fn feedback(&self) -> Vec<String> {
        let mut lines = vec![format!(
            "{} of {} proposed events were dropped in section {}",
            self.dropped,
            self.proposed,
            self.index + 1
        )];
        lines.extend(self.problems.iter().cloned());
        lines
    }

    /// Records this attempt in the trace.
    pub(super) fn record(self, call: u64, feedback: &[String], replanned: bool) {
        self.run.entries.push(Entry::Section(SectionRecord {
            section: self.index,
            replan: self.replan,
            call,
            proposed: self.proposed,
            accepted: self.accepted,
            repaired: self.repaired,
            dropped: self.dropped,
            outcome: if replanned { "replanned" } else { "kept" },
            feedback: feedback.to_vec(),
        }));
    }
}
