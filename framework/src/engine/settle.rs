//! Settling candidates: verify, climb the ladder, accept or drop.
//!
//! Kept apart from the outer loop so each part reads in one sitting. Invariants
//! enforced here: rungs run in ladder order; every rung result is verified again
//! before it is accepted; amendments of a result that is not kept are undone at once,
//! and all kept amendments are undone when the candidate is finally dropped; a
//! dropped candidate still moves the domain's cursors (`Domain::skip`); a rung that
//! asks the proposer is not asked about a candidate again once it has answered with
//! a candidate already judged for it (`Repeats`).

use super::run::{Ask, Run};
use crate::domain::{Amend, Domain};
use crate::predicate::Violation;
use crate::proposer::{Feedback, Owed, RequestKind};
use crate::repair::{PatchScope, RungAction};
use crate::trace::{Certificate, Entry, SectionOutcome, SectionRecord, Status, Step, StepAction};
use std::collections::VecDeque;

type Cert<D> = Certificate<<D as Domain>::Event, <D as Domain>::Location, <D as Domain>::Amendment>;
type StepOf<D> = Step<<D as Domain>::Event, <D as Domain>::Location, <D as Domain>::Amendment>;

/// Events waiting to be settled, each with the call that proposed it.
type Pending<E> = VecDeque<(E, u64)>;

/// At most this many dropped events are described in replan feedback.
const FEEDBACK_LINES: usize = 12;

/// Continue requests per section attempt before a short section is replanned.
pub(super) const CONTINUES_PER_SECTION: u32 = 2;

/// The candidates already judged for one event, as the trace writes them (events are
/// compared by their records: `Domain::Event` asks for no equality), and the rungs
/// that answered with one of them. Asking the same question again of a proposer
/// that repeats itself only spends calls: over 5 dropped events of one SmolLM2 run
/// (temperature 0) the patch and the segment rewrite gave the refused note back
/// on each of 3 passes, 30 calls for nothing.
struct Repeats {
    judged: Vec<String>,
    rungs: Vec<String>,
}

impl Repeats {
    fn new(candidate: &impl serde::Serialize) -> Self {
        Repeats {
            judged: vec![record(candidate)],
            rungs: Vec::new(),
        }
    }

    /// Notes `rung`'s answer: a rung that answered with a candidate already judged
    /// is not asked again about this one.
    fn answered(&mut self, rung: &str, answer: &impl serde::Serialize) {
        let answer = record(answer);
        if self.judged.contains(&answer) {
            self.rungs.push(rung.to_owned());
        } else {
            self.judged.push(answer);
        }
    }

    fn repeated(&self, rung: &str) -> bool {
        self.rungs.iter().any(|r| r == rung)
    }

    /// A new candidate is a new question: every rung may be asked again.
    fn moved_to(&mut self, candidate: &impl serde::Serialize) {
        self.rungs.clear();
        self.judged.push(record(candidate));
    }
}

fn record(event: &impl serde::Serialize) -> String {
    serde_json::to_string(event).unwrap_or_default()
}

/// One attempt at filling one section.
pub(super) struct SectionFill<'f, 'r, D: Domain> {
    run: &'f mut Run<'r, D>,
    index: usize,
    replan: u32,
    pub(super) proposed: usize,
    accepted: usize,
    repaired: usize,
    pub(super) dropped: usize,
    /// Drops the domain took back to be asked for again ([`Domain::reopen`]).
    pub(super) reopened: usize,
    /// Accepted events the domain took back with them.
    withdrawn: usize,
    continues: u32,
    problems: Vec<Feedback<D::Location>>,
}

/// How a ladder climb ended for one candidate.
enum Settled<E> {
    Accepted(E),
    Repaired { event: E, rung: String },
    Dropped,
}

/// What the proposer answered a rung that asked it: the new candidate and, for a
/// segment rewrite, the events replacing the pending ones.
struct Answer<E> {
    call: u64,
    event: E,
    rest: Option<Vec<(E, u64)>>,
}

/// Why asking the proposer gave no candidate, and the call that was made, if any.
struct Unanswered {
    call: Option<u64>,
    reason: String,
}

impl<'f, 'r, D: Domain> SectionFill<'f, 'r, D> {
    pub(super) fn new(run: &'f mut Run<'r, D>, index: usize, replan: u32) -> Self {
        SectionFill {
            run,
            index,
            replan,
            proposed: 0,
            accepted: 0,
            repaired: 0,
            dropped: 0,
            reopened: 0,
            withdrawn: 0,
            continues: 0,
            problems: Vec::new(),
        }
    }

    fn section(&self) -> &'r D::Section {
        &self.run.plan[self.index]
    }

    /// Settles every proposed event in order (a segment rewrite may replace the
    /// events still pending).
    pub(super) async fn settle_all(
        &mut self,
        state: &mut D::State,
        events: Vec<D::Event>,
        call: u64,
    ) {
        let mut pending: Pending<D::Event> = events.into_iter().map(|e| (e, call)).collect();
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

    /// Asks for what the section still owes ([`Domain::owed`]) and settles the answer,
    /// until nothing is owed or [`CONTINUES_PER_SECTION`] continue requests (or the
    /// run's call budget) are spent. With [`Budget::reopen_drops`](crate::Budget), drops
    /// are taken back first ([`Domain::reopen`]), with any accepted events the domain
    /// withdraws along with them, so they are owed again rather than lost. Every
    /// continue request carries `outer` (a
    /// revise round's feedback) first. Returns what is still owed: empty when complete.
    pub(super) async fn settle_owed(
        &mut self,
        state: &mut D::State,
        outer: &[Feedback<D::Location>],
    ) -> Vec<Owed> {
        loop {
            if self.run.engine.budget.reopen_drops {
                self.reopen(state);
            }
            let run = &*self.run;
            let owed = run.engine.domain.owed(run.spec, state, self.section());
            if owed.is_empty()
                || self.continues >= CONTINUES_PER_SECTION
                || run.call_refusal().is_some()
            {
                return owed;
            }
            self.continues += 1;
            self.run.totals.continues += 1;
            // What was dropped in this attempt, so the answer is not the same again.
            let mut feedback = outer.to_vec();
            if self.dropped > 0 {
                feedback.extend(self.feedback());
            }
            let called = self
                .run
                .call(Ask {
                    kind: RequestKind::Continue { owed: &owed },
                    section: Some(self.index),
                    state,
                    feedback: &feedback,
                    attempt: self.continues,
                })
                .await;
            // A failed continue (an outage) is recorded with its call; the next one,
            // or the replan after them, tries again.
            if let Ok(called) = called {
                self.settle_all(state, called.events, called.call).await;
            }
        }
    }

    /// Lets the domain take back drops ([`Domain::reopen`]) and marks the
    /// certificates of the accepted events it withdrew with them.
    fn reopen(&mut self, state: &mut D::State) {
        let run = &mut *self.run;
        let reopened = run
            .engine
            .domain
            .reopen(run.spec, state, &run.plan[self.index]);
        self.reopened += reopened.drops;
        self.withdrawn += reopened.withdrawn.len();
        run.totals.withdrawn += reopened.withdrawn.len() as u64;
        // Each withdrawn event marks one standing certificate of this attempt that
        // accepted it, latest first (an event withdrawn earlier may have been proposed
        // again). This attempt's entries are the last ones: its section record is not
        // written yet, so the walk ends at the previous attempt's.
        let mut unmarked: Vec<String> = reopened.withdrawn.iter().map(record).collect();
        for entry in run.entries.iter_mut().rev() {
            if unmarked.is_empty() {
                break;
            }
            let cert = match entry {
                Entry::Section(_) => break,
                Entry::Event(c) if c.section == self.index && c.replan == self.replan => c,
                _ => continue,
            };
            let Some(accepted) = cert.accepted.as_ref().filter(|_| !cert.withdrawn) else {
                continue;
            };
            let accepted = record(accepted);
            if let Some(i) = unmarked.iter().position(|e| *e == accepted) {
                unmarked.swap_remove(i);
                cert.withdrawn = true;
            }
        }
    }

    async fn settle(
        &mut self,
        state: &mut D::State,
        candidate: D::Event,
        call: u64,
        position: usize,
        pending: &mut Pending<D::Event>,
    ) -> Cert<D> {
        let domain = &self.run.engine.domain;
        let location = domain.locate(self.section(), &candidate);
        let verdict = self.run.verify(state, self.index, &candidate);
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
            withdrawn: false,
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
                    self.problems.push(Feedback::DroppedEvent {
                        location: cert.location.clone(),
                        broke: cert
                            .verdict
                            .iter()
                            .filter(|v| v.is_hard())
                            .map(|v| (v.predicate, v.reason.clone()))
                            .collect(),
                    });
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
        pending: &mut Pending<D::Event>,
        steps: &mut Vec<StepOf<D>>,
    ) -> Settled<D::Event> {
        let engine = self.run.engine;
        let mut current = candidate;
        let mut violations = violations;
        let mut undo: Vec<D::Amendment> = Vec::new();
        let mut repeats = Repeats::new(&current);
        for pass in 1..=engine.budget.attempts_per_event {
            for rung in engine.ladder.rungs() {
                let name = rung.id().to_string();
                let action =
                    rung.repair(self.run.context(state, self.index), &current, &violations);
                let mut step = Step {
                    pass,
                    rung: name.clone(),
                    action: StepAction::GiveUp,
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
                        step.action = StepAction::Candidate;
                        (event, amendments, None)
                    }
                    RungAction::AskProposer(scope) => {
                        if let Some(why) = self.run.retired(&**rung) {
                            step.reason = Some(why);
                            steps.push(step);
                            continue;
                        }
                        if repeats.repeated(&name) {
                            step.reason = Some(
                                "not asked again: it answered this candidate with one already judged"
                                    .to_owned(),
                            );
                            steps.push(step);
                            continue;
                        }
                        step.action = StepAction::AskProposer;
                        match self
                            .ask(state, &current, &violations, scope, pass, pending)
                            .await
                        {
                            Ok(answer) => {
                                step.call = Some(answer.call);
                                repeats.answered(&name, &answer.event);
                                (answer.event, Vec::new(), answer.rest)
                            }
                            Err(unanswered) => {
                                if unanswered.call.is_some() {
                                    self.run.answered(&**rung, false);
                                }
                                step.call = unanswered.call;
                                step.reason = Some(unanswered.reason);
                                steps.push(step);
                                continue;
                            }
                        }
                    }
                };
                let asked = step.call.is_some();
                let inverses: Vec<D::Amendment> =
                    amendments.iter().map(|a| a.apply(state)).collect();
                let verdict = self.run.verify(state, self.index, &event);
                let hard_before = violations.iter().filter(|v| v.is_hard()).count();
                let clean = verdict.is_acceptable();
                // A segment rewrite is all or nothing: kept only when its first event is clean.
                let better = rest.is_none() && verdict.hard_count() < hard_before;
                step.after = Some(event.clone());
                step.amendments = amendments;
                step.verdict = verdict.violations.clone();
                step.kept = clean || better;
                steps.push(step);
                if asked {
                    self.run.answered(&**rung, clean);
                }
                if clean {
                    if let Some(rest) = rest {
                        pending.clear();
                        pending.extend(rest);
                    }
                    return Settled::Repaired { event, rung: name };
                }
                if better {
                    undo.extend(inverses);
                    repeats.moved_to(&event);
                    current = event;
                    violations = verdict.violations;
                } else {
                    for inv in inverses.iter().rev() {
                        inv.apply(state);
                    }
                }
            }
        }
        for inv in undo.iter().rev() {
            inv.apply(state);
        }
        engine.domain.skip(state, self.section(), &current);
        Settled::Dropped
    }

    /// Asks the proposer for a patch or a segment rewrite of `current`.
    async fn ask(
        &mut self,
        state: &D::State,
        current: &D::Event,
        violations: &[Violation<D::Location>],
        scope: PatchScope,
        pass: u32,
        pending: &Pending<D::Event>,
    ) -> Result<Answer<D::Event>, Unanswered> {
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
            .call(Ask {
                kind,
                section: Some(self.index),
                state,
                feedback: &[],
                attempt: pass,
            })
            .await
            .map_err(|d| Unanswered {
                call: None,
                reason: d.reason,
            })?;
        let call = called.call;
        let mut events = called.events.into_iter();
        let Some(event) = events.next() else {
            return Err(Unanswered {
                call: Some(call),
                reason: "the proposer returned no events".to_owned(),
            });
        };
        let rest = match scope {
            PatchScope::Segment => Some(events.map(|e| (e, call)).collect()),
            PatchScope::Event => None,
        };
        Ok(Answer { call, event, rest })
    }

    /// What went wrong in this attempt, for the proposer's next try.
    pub(super) fn feedback(&self) -> Vec<Feedback<D::Location>> {
        let mut lines = vec![Feedback::Dropped {
            section: self.index,
            dropped: self.dropped,
            proposed: self.proposed,
        }];
        lines.extend(self.problems.iter().cloned());
        lines
    }

    /// Records this attempt in the trace; `owed` is what it still owed at its end.
    pub(super) fn record(
        self,
        call: u64,
        feedback: &[Feedback<D::Location>],
        replanned: bool,
        drop_note: Option<String>,
        owed: Vec<Owed>,
    ) {
        if !owed.is_empty() {
            self.run.totals.short_sections += 1;
        }
        self.run.entries.push(Entry::Section(SectionRecord {
            section: self.index,
            replan: self.replan,
            call,
            proposed: self.proposed,
            accepted: self.accepted,
            repaired: self.repaired,
            dropped: self.dropped,
            reopened: self.reopened,
            withdrawn: self.withdrawn,
            outcome: if replanned {
                SectionOutcome::Replanned
            } else {
                SectionOutcome::Kept
            },
            continues: self.continues,
            owed,
            feedback: feedback.iter().map(ToString::to_string).collect(),
            drop_note,
        }));
    }
}
