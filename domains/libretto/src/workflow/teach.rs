//! `teach`: a teaching example of a named device — the original's education
//! task.
//!
//! A concept's [`Challenge`] says, checkably, what the example must show: an
//! axis band (here, [`AxisBand`]), or a domain's predicate or analysis result
//! (implemented where that domain's knowledge lives: the `cantus-concepts`
//! crate checks twelve-tone and counterpoint devices with those domains' own
//! verifiers). A candidate must meet the challenge (`LIB-CHALLENGE`), must not
//! reproduce the example shown (`LIB-NOVELTY`: overlap below 0.50), and must
//! not copy a reference piece (`LIB-COPY`, below the original's 0.70 for
//! `copy_vs_corpus`). The score is the number of failed checks.

use super::gates::failed_checks;
use super::model::Task;
use super::{Author, Judge, Run, Verdict, Workflow, refine};
use crate::axes::Axis;
use crate::calibration::Calibration;
use crate::copy::NoteGrid;
use crate::fingerprint::{Fingerprint, raw_axes};
use crate::gates::{CopyGate, GateId, GateOutcome, Novelty};
use crate::retrieval::ReferenceSet;
use crate::song::Layout;
use cantus_music::Score;
use serde_json::json;

/// The original's `copy_vs_corpus` threshold for teaching examples.
pub const CORPUS_COPY_THRESHOLD: f64 = 0.70;

/// What a challenge found in a piece.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// Whether the piece meets the challenge.
    pub met: bool,
    /// What was found, in words (shown in the report and, when not met, as
    /// feedback).
    pub found: String,
}

/// A machine-checkable statement of what a teaching example must show.
pub trait Challenge: Send + Sync {
    /// The challenge in words, e.g. "syncopation above the 75th percentile".
    fn statement(&self) -> String;
    /// Checks a piece.
    fn check(&self, piece: &Score) -> Checked;
}

/// An axis band: the piece's percentile on `axis` above `above` and/or below
/// `below` (strictly), against `table`.
#[derive(Clone, Debug, PartialEq)]
pub struct AxisBand {
    /// The axis.
    pub axis: Axis,
    /// Percentile the piece must exceed.
    pub above: Option<u8>,
    /// Percentile the piece must stay under.
    pub below: Option<u8>,
    /// The table percentiles are placed against.
    pub table: Calibration,
}

impl Challenge for AxisBand {
    fn statement(&self) -> String {
        let mut parts = Vec::new();
        if let Some(p) = self.above {
            parts.push(format!("above the {} percentile", crate::gates::ordinal(p)));
        }
        if let Some(p) = self.below {
            parts.push(format!("below the {} percentile", crate::gates::ordinal(p)));
        }
        format!(
            "{} ({}) {}",
            self.axis.name(),
            self.axis.meaning(),
            parts.join(" and ")
        )
    }

    fn check(&self, piece: &Score) -> Checked {
        let reading = Layout::from_score(piece)
            .map_err(|e| e.to_string())
            .and_then(|l| raw_axes(&l).map_err(|e| e.to_string()))
            .map(|raw| *Fingerprint::place(&raw, &self.table).get(self.axis));
        match reading {
            Ok(r) => {
                let met = self.above.is_none_or(|p| r.percentile > p)
                    && self.below.is_none_or(|p| r.percentile < p);
                Checked {
                    met,
                    found: format!(
                        "{} is at the {} percentile (raw {:.3})",
                        self.axis.name(),
                        crate::gates::ordinal(r.percentile),
                        r.raw
                    ),
                }
            }
            Err(why) => Checked {
                met: false,
                found: format!("the piece cannot be measured: {why}"),
            },
        }
    }
}

/// A concept as the teach workflow sees it.
pub struct Lesson<'a> {
    /// The concept's id.
    pub id: &'a str,
    /// Its name.
    pub title: &'a str,
    /// What it is, in a few sentences.
    pub what: &'a str,
    /// What the example must show.
    pub challenge: &'a dyn Challenge,
    /// The example shown to the author (a worked example, or a reference excerpt).
    pub shown: Option<Score>,
    /// Reference pieces the example must not copy.
    pub references: Option<&'a ReferenceSet>,
    /// Header and voices a model's reply without its own is read under.
    pub header: String,
}

/// The education judge.
pub struct TeachJudge<'a> {
    challenge: &'a dyn Challenge,
    novelty: Option<Novelty>,
    copy: Option<CopyGate>,
}

/// A prepared lesson.
pub struct TeachJob<'a> {
    /// The judge.
    pub judge: TeachJudge<'a>,
    /// What was set up, for the report.
    pub setup: Vec<String>,
    /// The model's task.
    pub task: Task,
}

fn grid_of(score: &Score) -> Option<NoteGrid> {
    Layout::from_score(score)
        .ok()
        .map(|l| NoteGrid::of(&l.song()))
}

impl<'a> TeachJob<'a> {
    /// Sets the judge up.
    pub fn new(lesson: Lesson<'a>) -> TeachJob<'a> {
        let mut setup = vec![format!(
            "concept {} ({}): {}",
            lesson.id,
            lesson.title,
            lesson.challenge.statement()
        )];
        let novelty = lesson
            .shown
            .as_ref()
            .and_then(grid_of)
            .map(|g| Novelty::new(vec![g]));
        if novelty.is_some() {
            setup.push(
                "an example is shown; the answer must differ from it (overlap below 0.50)".into(),
            );
        }
        let copy = lesson.references.map(|set| {
            setup.push(format!(
                "copy judged against {} reference pieces (below {CORPUS_COPY_THRESHOLD:.2})",
                set.pieces.len()
            ));
            CopyGate {
                references: set.grids(),
                threshold: CORPUS_COPY_THRESHOLD,
            }
        });
        let example = lesson
            .shown
            .as_ref()
            .and_then(|s| cantus_music::grammar::write(s).ok())
            .map_or(String::new(), |t| {
                format!("An example (study it; write a different one):\n{t}")
            });
        let task = Task {
            workflow: Workflow::Teach,
            text: format!(
                "Write a short teaching example of {}: {}\nIt must show: {}.\n{example}",
                lesson.title,
                lesson.what,
                lesson.challenge.statement()
            ),
            header: lesson.header.clone(),
            context: json!({ "concept": lesson.id }),
        };
        TeachJob {
            judge: TeachJudge {
                challenge: lesson.challenge,
                novelty,
                copy,
            },
            setup,
            task,
        }
    }

    /// Runs the loop with `author`.
    pub async fn run(&self, author: &dyn Author, rounds: u32, seed: u64) -> Run {
        refine(
            Workflow::Teach,
            author,
            &self.judge,
            rounds,
            seed,
            self.setup.clone(),
        )
        .await
    }
}

impl Judge for TeachJudge<'_> {
    fn judge(&self, piece: &Score) -> Verdict {
        let checked = self.challenge.check(piece);
        let mut gates = vec![GateOutcome {
            gate: GateId::Challenge,
            passed: checked.met,
            penalty: if checked.met { 0.0 } else { 1.0 },
            feedback: if checked.met {
                Vec::new()
            } else {
                vec![format!(
                    "challenge not met — {}: {}; show the device more clearly",
                    self.challenge.statement(),
                    checked.found
                )]
            },
        }];
        let grid = grid_of(piece);
        let mut novelty_risk = None;
        if let Some(gate) = &self.novelty {
            novelty_risk = grid
                .as_ref()
                .map(|g| crate::copy::copy_risk(g, &gate.shown));
            gates.push(
                grid.as_ref()
                    .map_or_else(super::silent_gate, |g| gate.check(g)),
            );
        }
        if let Some(gate) = &self.copy {
            gates.push(
                grid.as_ref()
                    .map_or_else(super::silent_gate, |g| gate.check(g)),
            );
        }
        Verdict {
            score: failed_checks(&gates),
            measures: json!({ "found": checked.found, "overlap_with_shown": novelty_risk }),
            gates,
        }
    }
}
