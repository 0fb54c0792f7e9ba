//! The generate–measure–revise loop over whole artefacts (Libretto's loop).
//!
//! Each round asks the proposer for a whole artefact, judges it with the same
//! [`ReleaseGate`](crate::ReleaseGate) the ladder loop uses, measures it with a
//! [`Measure`] (soft, e.g. corpus-calibrated structural axes), and turns both into
//! feedback text for the next round — saying what is off and which way to move, not
//! how. The best round is kept (gate passed first, then fewer hard violations, then
//! lower score; ties keep the earlier round), and the loop stops early on convergence.

use crate::domain::Domain;
use crate::engine::{Engine, Outcome, Progress, RunCtx};
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

/// Hard-violation lines given back as feedback, at most this many.
const GATE_FEEDBACK_LINES: usize = 12;

struct Best<D: Domain> {
    rank: (bool, usize, f64),
    artefact: D::Artefact,
    report: GateReport<D::Location>,
}

fn better(a: (bool, usize, f64), b: (bool, usize, f64)) -> bool {
    // (gate failed?, hard violations, score): smaller is better; strict, so ties keep b.
    (a.0, a.1) < (b.0, b.1) || ((a.0, a.1) == (b.0, b.1) && a.2 < b.2)
}

impl<D: Domain> Engine<D> {
    /// Runs up to `rounds` generate–measure–revise rounds and releases the best
    /// artefact if it passes the gate.
    pub async fn revise(
        &self,
        spec: &D::Spec,
        proposer: &dyn Proposer<D>,
        measure: &dyn Measure<D>,
        seed: u64,
        rounds: u32,
    ) -> Outcome<D> {
        let mut run = RunCtx::new(self, proposer, seed, "revise");
        let plan = match self.domain.plan(spec) {
            Ok(plan) => plan,
            Err(e) => return run.fail(vec![crate::Diagnostic::engine_msg(e.to_string())], None),
        };
        let state = self.domain.initial_state(spec);
        let mut feedback: Vec<String> = Vec::new();
        let mut best: Option<Best<D>> = None;
        for round in 1..=rounds {
            let called = match run
                .call(
                    &self.domain,
                    RequestKind::Whole,
                    spec,
                    &plan,
                    None,
                    &state,
                    &feedback,
                    round - 1,
                )
                .await
            {
                Ok(c) => c,
                Err(diag) => match best {
                    Some(_) => break,
                    None => return run.fail(vec![diag], None),
                },
            };
            run.totals.rounds += 1;
            let events = called.events.len();
            let artefact = self.domain.assemble(spec, called.events);
            let report = self.gate.judge(&artefact);
            let assessment = measure.assess(&artefact);
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
            let converged = report.passed && assessment.converged;
            let rank = (!report.passed, hard, assessment.score);
            let is_best = best.as_ref().is_none_or(|b| better(rank, b.rank));
            run.entries.push(Entry::Round(RoundRecord {
                round,
                call: called.call,
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
                });
            }
            if let Some(p) = &self.progress {
                p(Progress::Round {
                    round,
                    total: rounds,
                });
            }
            if converged {
                break;
            }
            feedback = next;
        }
        match best {
            Some(b) => run.conclude_with(b.report, b.artefact),
            None => run.fail(
                vec![crate::Diagnostic::engine_msg(
                    "no revise round was run (rounds = 0)",
                )],
                None,
            ),
        }
    }
}
