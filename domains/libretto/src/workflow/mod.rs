//! Libretto's workflows beyond gap filling: a whole piece in a style
//! ([`generate`]), a morph from one piece to another ([`morph`]), a teaching
//! example of a named device ([`teach`]) and a continuation ([`extend`]).
//!
//! All four are the one generate–measure–revise loop of the original
//! ([`refine`]): an [`Author`] writes a whole candidate for the round, given the
//! previous round's feedback; a [`Judge`] runs the workflow's gates on it and
//! scores it; the best round is kept; the loop stops at the first round that
//! passes every gate, or after the rounds allowed. Each round's verdicts, model
//! calls and tokens are kept ([`Round`]), and the run ends in a released piece
//! or in a failure that names the gates the best round did not meet
//! ([`Outcome`]).
//!
//! Authors are the embedded proposers (deterministic per seed; they ignore the
//! feedback and draw afresh each round) or a language model ([`model`], the
//! one place this module calls a model from). The gates and scores the
//! workflows add to the crate's own are in [`gates`]; every threshold is the
//! original's unless its doc says otherwise.

pub mod extend;
pub mod gates;
pub mod generate;
pub mod model;
pub mod morph;
pub mod teach;

use crate::fill::ModelUsage;
use crate::gates::{GateId, GateOutcome};
use cantus_framework::{Assessment, Entry, Judged, Revise, Revising, RoundRecord, async_trait};
use cantus_music::Score;
use serde_json::{Value, json};

/// Why a workflow cannot start.
#[derive(Debug, thiserror::Error)]
pub enum WorkflowError {
    /// The request is wrong (a length out of bounds, an unknown genre).
    #[error("{0}")]
    Input(String),
    /// The reference directory cannot be used.
    #[error(transparent)]
    Reference(#[from] crate::retrieval::RetrievalError),
    /// A given piece cannot be measured.
    #[error("{what} cannot be measured: {why}")]
    Unmeasurable {
        /// Which piece.
        what: String,
        /// Why.
        why: String,
    },
    /// No embedded proposer can do this task.
    #[error("{0}")]
    NoEmbeddedAuthor(String),
}

/// The verdict's gate for a candidate that cannot be measured at all.
pub(crate) fn silent_gate() -> GateOutcome {
    GateOutcome::silent("the piece cannot be measured: write notes, in bars")
}

/// Which workflow ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Workflow {
    /// A whole piece in a style.
    Generate,
    /// K segments moving from one piece to another.
    Morph,
    /// A teaching example of a named device.
    Teach,
    /// A piece continued by some bars.
    Extend,
}

impl Workflow {
    /// `"generate"`, `"morph"`, `"teach"`, `"extend"`.
    pub fn name(self) -> &'static str {
        match self {
            Workflow::Generate => "generate",
            Workflow::Morph => "morph",
            Workflow::Teach => "teach",
            Workflow::Extend => "extend",
        }
    }
}

/// What an author is asked in one round.
#[derive(Clone, Copy, Debug)]
pub struct Ask<'a> {
    /// 1-based round.
    pub round: u32,
    /// The round's seed ([`cantus_framework::round_seed`] of the run's).
    pub seed: u64,
    /// What was wrong with the previous round (replaced each round, as the
    /// original's loop replaces it, never accumulated).
    pub feedback: &'a [String],
}

/// A candidate piece and what writing it cost.
#[derive(Clone, Debug)]
pub struct Draft {
    /// The whole candidate.
    pub score: Score,
    /// What a reader set aside or guessed (shown to the model next round).
    pub notes: Vec<String>,
    /// Model calls of this round (`None` for an embedded author).
    pub usage: Option<ModelUsage>,
}

/// Why an author produced no candidate.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AuthorError {
    /// This round produced nothing judgeable (a failed call, an unreadable
    /// reply); the loop goes on with the reason as feedback.
    #[error("{why}")]
    Round {
        /// Why.
        why: String,
        /// The round's model calls, if any were made (boxed: the error stays small).
        usage: Option<Box<ModelUsage>>,
    },
    /// The author cannot work at all (a configuration error, a task it cannot
    /// write); the run stops.
    #[error("{0}")]
    Unavailable(String),
}

/// Writes whole candidates.
#[async_trait]
pub trait Author: Send + Sync {
    /// Who writes: `embedded:<what>` or `model:<backend>`.
    fn name(&self) -> String;
    /// The round's candidate.
    async fn write(&self, ask: &Ask<'_>) -> Result<Draft, AuthorError>;
}

/// A workflow's gates and score on one candidate.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// Each gate's outcome, in the workflow's order.
    pub gates: Vec<GateOutcome>,
    /// The workflow's loop score (lower is better).
    pub score: f64,
    /// What else was measured, for the report (`{"copy_risk": 0.12, …}`).
    pub measures: Value,
}

impl Verdict {
    /// Whether every gate passed.
    pub fn passed(&self) -> bool {
        self.gates.iter().all(|g| g.passed)
    }

    /// The gates not met.
    pub fn unmet(&self) -> Vec<GateId> {
        self.gates
            .iter()
            .filter(|g| !g.passed)
            .map(|g| g.gate)
            .collect()
    }

    /// The failing gates' feedback, in order.
    pub fn feedback(&self) -> Vec<String> {
        self.gates
            .iter()
            .flat_map(|g| g.feedback.iter().cloned())
            .collect()
    }
}

/// Judges whole candidates.
pub trait Judge: Send + Sync {
    /// The verdict on `piece`.
    fn judge(&self, piece: &Score) -> Verdict;
}

/// One round of a run.
#[derive(Clone, Debug)]
pub struct Round {
    /// 1-based.
    pub index: u32,
    /// The verdict (`None` when the author produced nothing judgeable).
    pub verdict: Option<Verdict>,
    /// Why nothing could be judged, or what the reader set aside.
    pub notes: Vec<String>,
    /// The round's model calls.
    pub usage: Option<ModelUsage>,
    /// The revise loop's record of the round, as the engine's traces write it
    /// (`None` when nothing could be judged).
    pub record: Option<RoundRecord>,
}

/// How a run ended.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// A candidate passed every gate.
    Released {
        /// The piece.
        piece: Score,
        /// The round that wrote it.
        round: u32,
    },
    /// No candidate passed every gate.
    Failed {
        /// The gates the best round did not meet (empty when no round could
        /// be judged at all).
        unmet: Vec<GateId>,
        /// The best round's piece, kept for inspection, and its round.
        best: Option<(Score, u32)>,
        /// Why, in one sentence.
        why: String,
    },
}

/// Everything a run did.
#[derive(Clone, Debug)]
pub struct Run {
    /// The workflow.
    pub workflow: Workflow,
    /// Who wrote the candidates.
    pub author: String,
    /// Every round, in order.
    pub rounds: Vec<Round>,
    /// The end.
    pub outcome: Outcome,
    /// What the workflow set up before the rounds (excerpts shown, references,
    /// targets), one line each.
    pub setup: Vec<String>,
}

impl Run {
    /// Model calls and tokens over every round.
    pub fn usage(&self) -> ModelUsage {
        let mut total = ModelUsage::default();
        for u in self.rounds.iter().filter_map(|r| r.usage.as_ref()) {
            total.backend.clone_from(&u.backend);
            total.calls += u.calls;
            total.tokens += u.tokens;
            total.latency_ms += u.latency_ms;
            total.stop_reasons.extend(u.stop_reasons.iter().cloned());
        }
        total
    }

    /// Whether the run released a piece.
    pub fn released(&self) -> bool {
        matches!(self.outcome, Outcome::Released { .. })
    }

    /// The report for people: setup, one block per round (each gate's verdict
    /// and feedback), model calls and tokens, and the outcome.
    pub fn text(&self) -> String {
        let mut out = vec![format!("{} by {}", self.workflow.name(), self.author)];
        out.extend(self.setup.iter().map(|l| format!("  {l}")));
        for r in &self.rounds {
            let calls = r.usage.as_ref().map_or(String::new(), |u| {
                format!("; {} call(s), {}", u.calls, u.tokens)
            });
            match &r.verdict {
                Some(v) => {
                    let verdicts: Vec<String> = v
                        .gates
                        .iter()
                        .map(|g| format!("{} {}", g.gate, if g.passed { "pass" } else { "FAIL" }))
                        .collect();
                    out.push(format!(
                        "round {}: {} (score {:.1}){calls}",
                        r.index,
                        verdicts.join(", "),
                        v.score
                    ));
                    if v.measures.as_object().is_some_and(|m| !m.is_empty()) {
                        out.push(format!("    measured: {}", v.measures));
                    }
                    out.extend(v.feedback().iter().map(|l| format!("    {l}")));
                }
                None => out.push(format!("round {}: no candidate{calls}", r.index)),
            }
            out.extend(r.notes.iter().map(|l| format!("    note: {l}")));
        }
        let usage = self.usage();
        if usage.calls > 0 {
            out.push(format!(
                "model {}: {} call(s), {}",
                usage.backend, usage.calls, usage.tokens
            ));
        }
        out.push(match &self.outcome {
            Outcome::Released { round, .. } => {
                format!("RELEASED: round {round} passed every gate")
            }
            Outcome::Failed { why, .. } => format!("FAILED: {why}"),
        });
        out.join("\n")
    }

    /// The report as JSON.
    pub fn json(&self) -> Value {
        let usage = self.usage();
        let rounds: Vec<Value> = self
            .rounds
            .iter()
            .map(|r| {
                json!({
                    "round": r.index,
                    "gates": r.verdict.as_ref().map(|v| v.gates.iter().map(|g| json!({
                        "gate": g.gate, "passed": g.passed, "penalty": g.penalty,
                        "feedback": g.feedback,
                    })).collect::<Vec<_>>()),
                    "score": r.verdict.as_ref().map(|v| v.score),
                    "measures": r.verdict.as_ref().map(|v| v.measures.clone()),
                    "notes": r.notes,
                    "calls": r.usage.as_ref().map_or(0, |u| u.calls),
                    "tokens_in": r.usage.as_ref().and_then(|u| u.tokens.tokens_in),
                    "tokens_out": r.usage.as_ref().and_then(|u| u.tokens.tokens_out),
                })
            })
            .collect();
        let (released, unmet, round) = match &self.outcome {
            Outcome::Released { round, .. } => (true, Vec::new(), Some(*round)),
            Outcome::Failed { unmet, best, .. } => {
                (false, unmet.clone(), best.as_ref().map(|b| b.1))
            }
        };
        json!({
            "workflow": self.workflow,
            "author": self.author,
            "setup": self.setup,
            "rounds": rounds,
            "released": released,
            "round": round,
            "unmet": unmet,
            "why": match &self.outcome { Outcome::Failed { why, .. } => Some(why), _ => None },
            "calls": usage.calls,
            "tokens_in": usage.tokens.tokens_in,
            "tokens_out": usage.tokens.tokens_out,
            "trace": self.trace(),
        })
    }

    /// The judged rounds' records as an engine's trace writes them (`{"kind":
    /// "round", …}`): the same loop, the same record.
    pub fn trace(&self) -> Vec<Value> {
        self.rounds
            .iter()
            .filter_map(|r| r.record.clone())
            .map(|record| {
                serde_json::to_value(Entry::<(), (), ()>::Round(record)).unwrap_or_default()
            })
            .collect()
    }

    /// The released piece, or the best unreleased one.
    pub fn piece(&self) -> Option<&Score> {
        match &self.outcome {
            Outcome::Released { piece, .. } => Some(piece),
            Outcome::Failed { best, .. } => best.as_ref().map(|b| &b.0),
        }
    }
}

/// The original's loop on the framework's ([`Revising`]): at most `rounds`
/// rounds; each round's feedback is the previous verdict's (or why it could not be
/// judged); the best round is kept — a round passing every gate before one that
/// does not, then fewer gates unmet, then the lower score, the first on a tie (the
/// original's strict `<`); the loop stops at the first round that passes every
/// gate. Round `r` is seeded as every revise loop seeds it
/// ([`cantus_framework::round_seed`]: the run's seed for the first round).
pub async fn refine(
    workflow: Workflow,
    author: &dyn Author,
    judge: &dyn Judge,
    rounds: u32,
    seed: u64,
    setup: Vec<String>,
) -> Run {
    let mut revising: Revising<(Score, Verdict), String> =
        Revising::new(seed, Revise::gate_only(rounds.max(1)));
    let mut done: Vec<Round> = Vec::new();
    let mut stopped: Option<String> = None;
    while let Some(next) = revising.next() {
        let ask = Ask {
            round: next.round,
            seed: next.seed,
            feedback: next.feedback,
        };
        let index = ask.round;
        let draft = match author.write(&ask).await {
            Ok(d) => d,
            Err(AuthorError::Round { why, usage }) => {
                let calls = usage.as_ref().map_or(0, |u| u64::from(u.calls));
                revising.unusable(
                    vec![format!("your last answer could not be used: {why}")],
                    calls,
                );
                done.push(Round {
                    index,
                    verdict: None,
                    notes: vec![why],
                    usage: usage.map(|u| *u),
                    record: None,
                });
                continue;
            }
            Err(AuthorError::Unavailable(why)) => {
                stopped = Some(why);
                revising.stop();
                break;
            }
        };
        let verdict = judge.judge(&draft.score);
        let mut feedback = verdict.feedback();
        feedback.extend(draft.notes.iter().cloned());
        let record = revising.judged(Judged {
            gate_passed: verdict.passed(),
            hard_violations: verdict.unmet().len(),
            assessment: Assessment {
                score: verdict.score,
                converged: true,
                feedback: Vec::new(),
                facts: verdict
                    .measures
                    .as_object()
                    .map(|m| m.clone().into_iter().collect())
                    .unwrap_or_default(),
            },
            feedback,
            events: 0,
            calls: draft.usage.as_ref().map_or(0, |u| u64::from(u.calls)),
            artefact: (draft.score, verdict.clone()),
        });
        done.push(Round {
            index,
            verdict: Some(verdict),
            notes: draft.notes,
            usage: draft.usage,
            record: Some(record),
        });
    }
    let outcome = match revising.finish().best {
        Some(kept) if kept.gate_passed => Outcome::Released {
            piece: kept.artefact.0,
            round: kept.round,
        },
        Some(kept) => {
            let (piece, verdict) = kept.artefact;
            let round = kept.round;
            let unmet = verdict.unmet();
            let ids: Vec<&str> = unmet.iter().map(|g| g.id()).collect();
            let stop = stopped
                .as_ref()
                .map_or(String::new(), |w| format!("; then the author stopped: {w}"));
            Outcome::Failed {
                why: format!(
                    "no round passed every gate; the best (round {round}) did not meet {}{stop}",
                    ids.join(", ")
                ),
                unmet,
                best: Some((piece, round)),
            }
        }
        None => Outcome::Failed {
            unmet: Vec::new(),
            best: None,
            why: stopped.unwrap_or_else(|| {
                format!(
                    "none of {} rounds produced a candidate that could be judged",
                    done.len()
                )
            }),
        },
    };
    Run {
        workflow,
        author: author.name(),
        rounds: done,
        outcome,
        setup,
    }
}
