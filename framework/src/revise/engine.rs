//! The engine's two revise loops: a round is one whole-artefact request
//! ([`Engine::revise_whole`], Libretto's original loop, where the proposer must get
//! every hard rule right by itself; the domain must [`Assemble`] the answer), or the
//! full propose–verify–repair harness over the plan, every section request carrying
//! the round's feedback ([`Engine::revise_harness`]). The second is what a domain with
//! hard rules wants: the ladder keeps each round legal, the measure steers the music.
//! With [`Revise::require_measure`] an artefact the measure never accepted is not
//! released even if the gate passed — the way to refuse degenerate but rule-abiding
//! output. The rounds themselves are [`Revising`]'s.

use super::{Judged, Revising};
use crate::domain::{Assemble, Domain};
use crate::engine::{Ask, Diagnostic, Engine, Outcome, Progress, Run};
use crate::gate::GateReport;
use crate::proposer::{Feedback, Proposer, RequestKind};
use crate::trace::{Entry, RunMode};

/// A soft measure's view of one artefact.
#[derive(Clone, Debug, Default)]
pub struct Assessment {
    /// Lower is better; 0 is ideal.
    pub score: f64,
    /// Whether the measure is satisfied (the loop stops when it is and the gate passes).
    pub converged: bool,
    /// Feedback lines for the proposer's next round.
    pub feedback: Vec<String>,
    /// What the measure found, for reports (e.g. which axes are extreme); kept in the
    /// round's record of the trace.
    pub facts: std::collections::BTreeMap<String, serde_json::Value>,
}

/// Soft measurement of whole artefacts.
pub trait Measure<D: Domain>: Send + Sync {
    /// Name for traces.
    fn name(&self) -> &str;
    /// Assesses one artefact.
    fn assess(&self, artefact: &D::Artefact) -> Assessment;
}

/// Options of [`Engine::revise_whole`] and [`Engine::revise_harness`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Revise {
    /// Rounds at most.
    pub rounds: u32,
    /// Release only an artefact the measure accepted (`converged`); otherwise the best
    /// round ends in a failure naming the measure and its last feedback.
    pub require_measure: bool,
}

impl Revise {
    /// `rounds` rounds, releasing whatever passes the gate.
    pub fn gate_only(rounds: u32) -> Self {
        Revise {
            rounds,
            require_measure: false,
        }
    }

    /// `rounds` rounds, releasing only what the measure accepts.
    pub fn measured(rounds: u32) -> Self {
        Revise {
            rounds,
            require_measure: true,
        }
    }
}

/// The domain's [`Assemble::assemble`], for a loop generic over any domain.
type AssembleFn<'a, D> =
    &'a dyn Fn(&<D as Domain>::Spec, Vec<<D as Domain>::Event>) -> <D as Domain>::Artefact;

/// How a round gets its artefact: one whole request assembled by the domain, or the
/// full harness over the plan.
#[derive(Clone, Copy)]
enum Rounds<'a, D: Domain> {
    Whole(AssembleFn<'a, D>),
    Harness,
}

/// Hard-violation lines given back as feedback, at most this many.
const GATE_FEEDBACK_LINES: usize = 12;

/// What the engine keeps of a judged round beside its artefact.
struct Judgement<D: Domain> {
    artefact: D::Artefact,
    report: GateReport<D::Location>,
    /// Why its sections were kept with dropped events.
    drop_notes: Vec<String>,
}

impl<D: Assemble> Engine<D> {
    /// Generate–measure–revise with one whole-artefact request per round (Libretto's
    /// original loop, no ladder): the proposer must get every hard rule right itself.
    pub async fn revise_whole(
        &self,
        spec: &D::Spec,
        proposer: &dyn Proposer<D>,
        measure: &dyn Measure<D>,
        seed: u64,
        options: Revise,
    ) -> Outcome<D> {
        let assemble = |spec: &D::Spec, events| self.domain.assemble(spec, events);
        self.revise_loop(
            spec,
            proposer,
            measure,
            seed,
            options,
            Rounds::Whole(&assemble),
        )
        .await
    }
}

impl<D: Domain> Engine<D> {
    /// Generate–measure–revise with the full propose–verify–repair loop over the plan
    /// per round. Section requests carry the round's feedback first, and each round
    /// after the first re-seeds the proposer (the run's seed mixed with the round), so
    /// a deterministic proposer that cannot read feedback still offers a different
    /// artefact.
    pub async fn revise_harness(
        &self,
        spec: &D::Spec,
        proposer: &dyn Proposer<D>,
        measure: &dyn Measure<D>,
        seed: u64,
        options: Revise,
    ) -> Outcome<D> {
        self.revise_loop(spec, proposer, measure, seed, options, Rounds::Harness)
            .await
    }

    async fn revise_loop(
        &self,
        spec: &D::Spec,
        proposer: &dyn Proposer<D>,
        measure: &dyn Measure<D>,
        seed: u64,
        options: Revise,
        rounds: Rounds<'_, D>,
    ) -> Outcome<D> {
        let mode = match rounds {
            Rounds::Whole(_) => RunMode::Revise,
            Rounds::Harness => RunMode::ReviseHarness,
        };
        let planned = self.domain.plan(spec);
        let plan = planned.as_deref().unwrap_or_default();
        let mut run = Run::new(self, spec, plan, proposer, seed, mode);
        if let Err(e) = &planned {
            return run.fail(vec![Diagnostic::engine_msg(e.to_string())], None);
        }
        let mut revising: Revising<Judgement<D>, Feedback<D::Location>> =
            Revising::new(seed, options);
        let mut stopped = None;
        while let Some(ask) = revising.next() {
            let first_call = run.totals.proposer_calls;
            let first_entry = run.entries.len();
            let produced = match rounds {
                Rounds::Whole(assemble) => run.whole_round(ask.feedback, ask.round, assemble).await,
                Rounds::Harness => {
                    run.seed = ask.seed;
                    run.harness_round(ask.feedback).await
                }
            };
            let round = ask.round;
            let (artefact, events) = match produced {
                Ok(p) => p,
                Err(why) => {
                    stopped = Some(why);
                    revising.stop();
                    break;
                }
            };
            run.totals.rounds += 1;
            let report = self.gate.judge(spec, &artefact);
            let assessment = measure.assess(&artefact);
            let record = revising.judged(Judged {
                gate_passed: report.passed,
                hard_violations: usize::try_from(report.hard_count()).unwrap_or(usize::MAX),
                feedback: round_feedback(&report, &assessment),
                assessment,
                events,
                calls: run.totals.proposer_calls - first_call,
                artefact: Judgement {
                    artefact,
                    report,
                    drop_notes: run.drop_notes(first_entry),
                },
            });
            run.entries.push(Entry::Round(record));
            self.report(Progress::Round {
                round,
                total: options.rounds,
            });
        }
        let Some(best) = revising.finish().best else {
            return match stopped {
                Some((diag, partial)) => run.fail(vec![diag], partial),
                None => run.fail(
                    vec![Diagnostic::engine_msg(
                        "no revise round was run (rounds = 0)",
                    )],
                    None,
                ),
            };
        };
        let releasable = best.releasable(options.require_measure);
        let Judgement {
            artefact,
            report,
            drop_notes,
        } = best.artefact;
        if report.passed && !releasable {
            let mut diagnostics = vec![Diagnostic::engine_msg(format!(
                "measure `{}` not satisfied after {} round{}; the best round passed the gate \
                 but is not released",
                measure.name(),
                run.totals.rounds,
                if run.totals.rounds == 1 { "" } else { "s" }
            ))];
            diagnostics.extend(
                best.assessment
                    .feedback
                    .iter()
                    .map(|f| Diagnostic::engine_msg(format!("{}: {f}", measure.name()))),
            );
            return run.fail_judged(diagnostics, report, artefact);
        }
        run.conclude_with(report, artefact, drop_notes)
    }
}

impl<D: Domain> Run<'_, D> {
    /// One whole-artefact request; the artefact and its event count.
    async fn whole_round(
        &mut self,
        feedback: &[Feedback<D::Location>],
        round: u32,
        assemble: AssembleFn<'_, D>,
    ) -> Result<(D::Artefact, usize), RoundError<D>> {
        let state = self.engine.domain.initial_state(self.spec);
        let called = self
            .call(Ask {
                kind: RequestKind::Whole,
                section: None,
                state: &state,
                feedback,
                attempt: round - 1,
            })
            .await
            .map_err(|d| (d, None))?;
        let events = called.events.len();
        Ok((assemble(self.spec, called.events), events))
    }

    /// The whole harness over the plan, every section request carrying `feedback`.
    async fn harness_round(
        &mut self,
        feedback: &[Feedback<D::Location>],
    ) -> Result<(D::Artefact, usize), RoundError<D>> {
        let domain = &self.engine.domain;
        let proposed_before = self.totals.events_proposed;
        let mut state = domain.initial_state(self.spec);
        for index in 0..self.plan.len() {
            if let Err(diag) = self.fill_section(index, &mut state, feedback, 0).await {
                return Err((diag, Some(domain.finish(self.spec, state))));
            }
        }
        let events = (self.totals.events_proposed - proposed_before) as usize;
        Ok((domain.finish(self.spec, state), events))
    }
}

/// Why a round produced no artefact, and what it had made so far.
type RoundError<D> = (
    Diagnostic<<D as Domain>::Location>,
    Option<<D as Domain>::Artefact>,
);

/// The gate's hard violations (at most [`GATE_FEEDBACK_LINES`]) then the measure's lines.
fn round_feedback<L: Clone>(report: &GateReport<L>, assessment: &Assessment) -> Vec<Feedback<L>> {
    let hard = report.hard().count();
    let mut next: Vec<Feedback<L>> = report
        .hard()
        .take(GATE_FEEDBACK_LINES)
        .map(|v| Feedback::Violation {
            rule: v.predicate,
            location: v.location.clone(),
            reason: v.reason.clone(),
        })
        .collect();
    if hard > GATE_FEEDBACK_LINES {
        next.push(Feedback::MoreViolations {
            count: hard - GATE_FEEDBACK_LINES,
        });
    }
    next.extend(
        assessment
            .feedback
            .iter()
            .map(|text| Feedback::Measure { text: text.clone() }),
    );
    next
}
