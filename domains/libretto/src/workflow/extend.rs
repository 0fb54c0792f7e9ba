//! `extend`: a piece continued by N bars (6–40) — the original's
//! newgen_extend task.
//!
//! The continuation is a gap after the piece's last bar, so the gap filler's
//! proposers write it and its judge measures it ([`Gap`]): the new bars
//! against the piece. A candidate must copy neither the piece nor a reference
//! piece (`LIB-COPY`: note-level copy risk of the new bars below 0.30), keep
//! the piece's extremes within the gap judge's budget (`LIB-DEGENERACY`), and
//! reach within 2 bars of N, inside 6–40 (`LIB-LENGTH`). The score is the
//! gates' penalties plus half the distance of the new bars' fingerprint to
//! the piece's (the gap loop's weighting).
//!
//! Each round is one fill: the embedded filler with the round's seed (its best
//! of 24 recombined candidates), or one call of the model filler, whose prompt
//! carries the extend gates' feedback on the previous round (what was too
//! short, copied or degenerate) beside the gap's own measures.

use super::gates::{EXTENSION_BARS, Length, sounding_bars};
use super::{
    Ask, Author, AuthorError, Draft, Judge, Run, Verdict, Workflow, WorkflowError, refine,
};
use crate::calibration::Calibration;
use crate::copy::{NoteGrid, copy_risk};
use crate::fill::judge::{Gap, retain_bars};
use crate::fill::{FillError, FillRequest, ModelFillOptions, fill, fill_with_model};
use crate::gates::{CopyGate, GateId};
use crate::retrieval::ReferenceSet;
use crate::song::Layout;
use cantus_framework::{ModelBackend, async_trait};
use cantus_music::Score;
use serde_json::json;

/// Candidates the embedded filler tries per round.
pub const EMBEDDED_CANDIDATES: usize = 24;

/// What to extend.
#[derive(Clone, Debug)]
pub struct ExtendRequest<'a> {
    /// The piece.
    pub piece: &'a Score,
    /// Bars to add (6–40).
    pub bars: u32,
    /// The calibration table.
    pub table: &'a Calibration,
    /// Reference pieces the continuation must not copy.
    pub references: Option<&'a ReferenceSet>,
}

/// A prepared extension.
pub struct ExtendJob {
    /// The piece with N silent bars after it: the gap to fill.
    pub padded: Score,
    /// The gap's bars.
    pub first_bar: u32,
    /// Its last bar.
    pub last_bar: u32,
    table: Calibration,
    copy: CopyGate,
    length: Length,
    /// What was set up, for the report.
    pub setup: Vec<String>,
}

impl ExtendJob {
    /// Checks the request and measures the piece.
    pub fn new(req: &ExtendRequest<'_>) -> Result<ExtendJob, WorkflowError> {
        if !EXTENSION_BARS.contains(&req.bars) {
            return Err(WorkflowError::Input(format!(
                "--bars {}: an extension is {}–{} bars",
                req.bars,
                EXTENSION_BARS.start(),
                EXTENSION_BARS.end()
            )));
        }
        let bars = sounding_bars(req.piece);
        if bars == 0 {
            return Err(WorkflowError::Unmeasurable {
                what: "the piece".into(),
                why: "it sounds no note".into(),
            });
        }
        let end = req.piece.bar_count().max(bars);
        let mut padded = req.piece.clone();
        padded.bars = Some(end + req.bars);
        let (first_bar, last_bar) = (end + 1, end + req.bars);
        let grid = Layout::from_score(req.piece)
            .map(|l| NoteGrid::of(&l.song()))
            .map_err(|e| WorkflowError::Unmeasurable {
                what: "the piece".into(),
                why: e.to_string(),
            })?;
        let mut refs = vec![grid];
        let mut setup = vec![format!(
            "continue a {end}-bar piece by {} bars (bars {first_bar}-{last_bar})",
            req.bars
        )];
        if let Some(set) = req.references {
            refs.extend(set.grids());
            setup.push(format!(
                "copy judged against the piece and {} reference pieces in {}",
                set.pieces.len(),
                set.dir.display()
            ));
        }
        let job = ExtendJob {
            padded,
            first_bar,
            last_bar,
            table: req.table.clone(),
            copy: CopyGate::new(refs),
            length: Length {
                min: req.bars.saturating_sub(2).max(*EXTENSION_BARS.start()),
                max: (req.bars + 2).min(*EXTENSION_BARS.end()),
                what: "extension",
            },
            setup,
        };
        job.gap().map_err(|e| WorkflowError::Input(e.to_string()))?;
        Ok(job)
    }

    fn request(&self, seed: u64, candidates: usize) -> FillRequest {
        FillRequest {
            first_bar: self.first_bar,
            last_bar: self.last_bar,
            candidates,
            seed,
        }
    }

    fn gap(&self) -> Result<Gap<'_>, FillError> {
        Gap::new(&self.padded, &self.request(0, 1), &self.table)
    }

    /// Runs the loop with `author` (a [`Filler`]).
    pub async fn run(&self, author: &dyn Author, rounds: u32, seed: u64) -> Run {
        refine(
            Workflow::Extend,
            author,
            self,
            rounds,
            seed,
            self.setup.clone(),
        )
        .await
    }

    /// The embedded filler.
    pub fn embedded(&self) -> Filler<'_> {
        Filler {
            job: self,
            model: None,
        }
    }

    /// The model filler.
    pub fn model<'b>(
        &'b self,
        backend: &'b dyn ModelBackend,
        options: ModelFillOptions,
    ) -> Filler<'b> {
        Filler {
            job: self,
            model: Some((backend, options)),
        }
    }
}

impl Judge for ExtendJob {
    fn judge(&self, piece: &Score) -> Verdict {
        let first = self.first_bar;
        let region = retain_bars(piece, |b| b >= first);
        let grown = sounding_bars(&region).saturating_sub(first - 1);
        let mut gates = vec![self.length.check(grown)];
        let judged = self
            .gap()
            .map_err(|e| e.to_string())
            .and_then(|g| g.judge(piece).map_err(|e| e.to_string()));
        let grid = Layout::from_score(&region)
            .ok()
            .map(|l| NoteGrid::of(&l.song()));
        let (risk, distance) = match (&judged, &grid) {
            (Ok(j), Some(g)) => {
                gates.push(self.copy.check(g));
                gates.extend(
                    j.gates
                        .iter()
                        .filter(|o| o.gate == GateId::Degeneracy)
                        .cloned(),
                );
                (Some(copy_risk(g, &self.copy.references)), j.distance)
            }
            (Err(why), _) => {
                gates.push(crate::gates::GateOutcome::silent(why.clone()));
                (None, 0.0)
            }
            (_, None) => {
                gates.push(super::silent_gate());
                (None, 0.0)
            }
        };
        Verdict {
            score: gates.iter().map(|g| g.penalty).sum::<f64>() + 0.5 * distance,
            measures: json!({ "bars_added": grown, "copy_risk": risk, "distance": distance }),
            gates,
        }
    }
}

/// The gap filler as an extension's author.
pub struct Filler<'a> {
    job: &'a ExtendJob,
    model: Option<(&'a dyn ModelBackend, ModelFillOptions)>,
}

#[async_trait]
impl Author for Filler<'_> {
    fn name(&self) -> String {
        match &self.model {
            None => "embedded:fill".into(),
            Some((backend, _)) => format!("model:{}", backend.name()),
        }
    }

    async fn write(&self, ask: &Ask<'_>) -> Result<Draft, AuthorError> {
        let filled = match &self.model {
            None => fill(
                &self.job.padded,
                &self.job.request(ask.seed, EMBEDDED_CANDIDATES),
                &self.job.table,
            ),
            Some((backend, options)) => {
                let options = ModelFillOptions {
                    feedback: ask.feedback.to_vec(),
                    ..options.clone()
                };
                fill_with_model(
                    &self.job.padded,
                    &self.job.request(ask.seed, 1),
                    &self.job.table,
                    *backend,
                    &options,
                )
                .await
            }
        };
        match filled {
            Ok(f) => Ok(Draft {
                score: f.score,
                notes: f.failures,
                usage: f.usage,
            }),
            Err(FillError::NoCandidate { failures, usage }) => Err(AuthorError::Round {
                why: failures.join("; "),
                usage: (usage.calls > 0).then_some(usage),
            }),
            Err(FillError::Backend(why)) => Err(AuthorError::Unavailable(why)),
            Err(e) => Err(AuthorError::Unavailable(e.to_string())),
        }
    }
}
