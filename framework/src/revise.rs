//! The generate–measure–revise loop over whole artefacts (Libretto's loop).
//!
//! Each round produces a whole artefact, judges it with the same
//! [`ReleaseGate`](crate::ReleaseGate) the ladder loop uses, measures it with a
//! [`Measure`] (soft, e.g. corpus-calibrated structural axes), and turns both into
//! feedback text for the next round — saying what is off and which way to move, not
//! how. The best round is kept (gate passed first, then fewer hard violations, then
//! lower score; ties keep the earlier round), and the loop stops early on convergence.
//!
//! A round gets its artefact one of two ways ([`ReviseMode`]): one whole-artefact
//! request (Libretto's original loop, where the proposer must get every hard rule
//! right by itself), or the full propose–verify–repair harness over the plan, every
//! section request carrying the round's feedback. The second is what a domain with
//! hard rules wants: the ladder keeps each round legal, the measure steers the music.
//! With [`Revise::require_measure`] an artefact the measure never accepted is not
//! released even if the gate passed — the way to refuse degenerate but rule-abiding
//! output.

use crate::domain::Domain;
use crate::engine::{Diagnostic, Engine, Outcome, Progress, RunCtx};
use crate::gate::GateReport;
use crate::proposer::{Proposer, RequestKind};
use crate::trace::{Entry, RoundRecord};

/// A soft measure's view of one artefact.
#[derive(Clone, Debug, Default)]
pub struct Assessment {
    /// Lower is better; 0 is ideal.
    pub score: f64,
    /// Whether the measure is satisfied (the loop stops when it is and the gate passes).
    pub converged: bool,
    /// Feedback lines for the proposer's next round.
    pub feedback: Vec<String>,
}

/// Soft measurement of whole artefacts.
pub trait Measure<D: Domain>: Send + Sync {
    /// Name for traces.
    fn name(&self) -> &str;
    /// Assesses one artefact.
    fn assess(&self, artefact: &D::Artefact) -> Assessment;
}

/// How a revise round gets its artefact.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReviseMode {
    /// One [`RequestKind::Whole`] request per round; no ladder.
    #[default]
    Whole,
    /// The full propose–verify–repair loop over the plan per round. Section requests
    /// carry the round's feedback first, and each round after the first re-seeds the
    /// proposer (the run's seed mixed with the round), so a deterministic proposer that
    /// cannot read feedback still offers a different artefact.
    Harness,
}

/// Options of [`Engine::revise_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Revise {
    /// Rounds at most.
    pub rounds: u32,
    /// Whole-artefact requests or full harness runs per round.
    pub mode: ReviseMode,
    /// Release only an artefact the measure accepted (`converged`); otherwise the best
    /// round ends in a failure naming the measure and its last feedback.
    pub require_measure: bool,
}

impl Revise {
    /// `rounds` whole-artefact rounds, releasing whatever passes the gate.
    pub fn whole(rounds: u32) -> Self {
        Revise {
            rounds,
            mode: ReviseMode::Whole,
            require_measure: false,
        }
    }

    /// `rounds` harness rounds, releasing only what the measure accepts.
    pub fn harness(rounds: u32) -> Self {
        Revise {
            rounds,
            mode: ReviseMode::Harness,
            require_measure: true,
        }
    }
}

/// Hard-violation lines given back as feedback, at most this many.
const GATE_FEEDBACK_LINES: usize = 12;

struct Best<D: Domain> {
    rank: (bool, usize, f64),
    artefact: D::Artefact,
    report: GateReport<D::Location>,
    converged: bool,
    feedback: Vec<String>,
    kept_with_drops: Vec<String>,
}

fn better(a: (bool, usize, f64), b: (bool, usize, f64)) -> bool {
    // (gate failed?, hard violations, score): smaller is better; strict, so ties keep b.
    (a.0, a.1) < (b.0, b.1) || ((a.0, a.1) == (b.0, b.1) && a.2 < b.2)
}

/// The seed of harness round `round` (1-based): the run's seed for the first round.
fn round_seed(seed: u64, round: u32) -> u64 {
    seed ^ u64::from(round - 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl<D: Domain> Engine<D> {
    /// Runs up to `rounds` whole-artefact generate–measure–revise rounds and releases
    /// the best artefact if it passes the gate. Same as
    /// [`revise_with`](Engine::revise_with) with [`Revise::whole`].
    pub async fn revise(
        &self,
        spec: &D::Spec,
        proposer: &dyn Proposer<D>,
        measure: &dyn Measure<D>,
        seed: u64,
        rounds: u32,
    ) -> Outcome<D> {
        self.revise_with(spec, proposer, measure, seed, Revise::whole(rounds))
            .await
    }

    /// Runs the generate–measure–revise loop as `options` say.
    pub async fn revise_with(
        &self,
        spec: &D::Spec,
        proposer: &dyn Proposer<D>,
        measure: &dyn Measure<D>,
        seed: u64,
        options: Revise,
    ) -> Outcome<D> {
        let mode = match options.mode {
            ReviseMode::Whole => "revise",
            ReviseMode::Harness => "revise-harness",
        };
        let mut run = RunCtx::new(self, proposer, seed, mode);
        let plan = match self.domain.plan(spec) {
            Ok(plan) => plan,
            Err(e) => return run.fail(vec![Diagnostic::engine_msg(e.to_string())], None),
        };
        let mut feedback: Vec<String> = Vec::new();
        let mut best: Option<Best<D>> = None;
        for round in 1..=options.rounds {
            let first_call = run.totals.proposer_calls + 1;
            let produced = match options.mode {
                ReviseMode::Whole => {
                    self.whole_round(&mut run, spec, &plan, &feedback, round)
                        .await
                }
                ReviseMode::Harness => {
                    run.seed = round_seed(seed, round);
                    run.kept_with_drops.clear();
                    self.harness_round(&mut run, spec, &plan, &feedback).await
                }
            };
            let (artefact, events) = match produced {
                Ok(p) => p,
                Err((diag, partial)) => match best {
                    Some(_) => break,
                    None => return run.fail(vec![diag], partial),
                },
            };
            run.totals.rounds += 1;
            let report = self.gate.judge(spec, &artefact);
            let assessment = measure.assess(&artefact);
            let hard = report.hard().count();
            let next = round_feedback(&report, &assessment);
            let converged = report.passed && assessment.converged;
            let rank = (!report.passed, hard, assessment.score);
            let is_best = best.as_ref().is_none_or(|b| better(rank, b.rank));
            run.entries.push(Entry::Round(RoundRecord {
                round,
                call: first_call,
                events,
                gate_passed: report.passed,
                hard_violations: hard,
                score: assessment.score,
                converged,
                best: is_best,
                feedback: next.clone(),
            }));
            if is_best {
                best = Some(Best {
                    rank,
                    artefact,
                    report,
                    converged: assessment.converged,
                    feedback: assessment.feedback.clone(),
                    kept_with_drops: run.kept_with_drops.clone(),
                });
            }
            if let Some(p) = &self.progress {
                p(Progress::Round {
                    round,
                    total: options.rounds,
                });
            }
            if converged {
                break;
            }
            feedback = next;
        }
        let Some(b) = best else {
            return run.fail(
                vec![Diagnostic::engine_msg(
                    "no revise round was run (rounds = 0)",
                )],
                None,
            );
        };
        run.kept_with_drops = b.kept_with_drops;
        if options.require_measure && b.report.passed && !b.converged {
            let mut diagnostics = vec![Diagnostic::engine_msg(format!(
                "measure `{}` not satisfied after {} round{}; the best round passed the gate \
                 but is not released",
                measure.name(),
                run.totals.rounds,
                if run.totals.rounds == 1 { "" } else { "s" }
            ))];
            diagnostics.extend(
                b.feedback
                    .iter()
                    .map(|f| Diagnostic::engine_msg(format!("{}: {f}", measure.name()))),
            );
            return run.fail_judged(diagnostics, b.report, b.artefact);
        }
        run.conclude_with(b.report, b.artefact)
    }

    /// One whole-artefact request; the artefact and its event count.
    async fn whole_round(
        &self,
        run: &mut RunCtx<'_, D>,
        spec: &D::Spec,
        plan: &[D::Section],
        feedback: &[String],
        round: u32,
    ) -> Result<(D::Artefact, usize), RoundError<D>> {
        let state = self.domain.initial_state(spec);
        let called = run
            .call(
                &self.domain,
                RequestKind::Whole,
                spec,
                plan,
                None,
                &state,
                feedback,
                round - 1,
            )
            .await
            .map_err(|d| (d, None))?;
        let events = called.events.len();
        Ok((self.domain.assemble(spec, called.events), events))
    }

    /// The whole harness over the plan, every section request carrying `feedback`.
    async fn harness_round(
        &self,
        run: &mut RunCtx<'_, D>,
        spec: &D::Spec,
        plan: &[D::Section],
        feedback: &[String],
    ) -> Result<(D::Artefact, usize), RoundError<D>> {
        let proposed_before = run.totals.events_proposed;
        let mut state = self.domain.initial_state(spec);
        for index in 0..plan.len() {
            if let Err(diag) = self
                .fill_section(run, spec, plan, index, &mut state, feedback)
                .await
            {
                return Err((diag, Some(self.domain.finish(spec, state))));
            }
        }
        let events = (run.totals.events_proposed - proposed_before) as usize;
        Ok((self.domain.finish(spec, state), events))
    }
}

/// Why a round produced no artefact, and what it had made so far.
type RoundError<D> = (
    Diagnostic<<D as Domain>::Location>,
    Option<<D as Domain>::Artefact>,
);

/// The gate's hard violations (at most [`GATE_FEEDBACK_LINES`]) then the measure's lines.
fn round_feedback<L: std::fmt::Display>(
    report: &GateReport<L>,
    assessment: &Assessment,
) -> Vec<String> {
    let hard = report.hard().count();
    let mut next: Vec<String> = report
        .hard()
        .take(GATE_FEEDBACK_LINES)
        .map(|v| format!("fix [{}] at {}: {}", v.predicate, v.location, v.reason))
        .collect();
    if hard > GATE_FEEDBACK_LINES {
        next.push(format!(
            "… and {} more rule violations",
            hard - GATE_FEEDBACK_LINES
        ));
    }
    next.extend(assessment.feedback.iter().cloned());
    next
}
