//! The one judge both gap proposers feed: the gap's context measured once, each
//! candidate piece measured against it (copy risk of the new bars, extremes of
//! the whole, distance of the new bars' fingerprint to the context's), and the
//! best candidate kept — so the embedded and the model-backed fillers are held
//! to exactly the same standard.

use super::{FillError, FillRequest, Filled};
use crate::calibration::Calibration;
use crate::copy::NoteGrid;
use crate::fingerprint::{Fingerprint, MeasureError, raw_axes};
use crate::gates::{CopyGate, Degeneracy};
use crate::song::Layout;
use cantus_music::{Event, Score, Time};

/// A gap and its context, measured once.
#[derive(Clone, Debug)]
pub struct Gap<'a> {
    /// The piece as given.
    pub score: &'a Score,
    /// First bar of the gap.
    pub first_bar: u32,
    /// Last bar of the gap.
    pub last_bar: u32,
    /// The piece without the events starting in the gap.
    pub context: Score,
    /// Bars outside the gap that hold onsets, in order.
    pub sources: Vec<u32>,
    table: &'a Calibration,
    context_fp: Fingerprint,
    copy: CopyGate,
    degeneracy: Degeneracy,
}

/// One candidate's measurements.
#[derive(Clone, Debug)]
pub struct Judged {
    /// Copy risk of the new bars against the context.
    pub copy_risk: f64,
    /// Extremes of the whole filled piece.
    pub extremes: usize,
    /// Fingerprint distance of the new bars to the context.
    pub distance: f64,
    /// Lower is better.
    pub score_value: f64,
    /// Whether both gates pass.
    pub passed: bool,
    /// The gates' outcomes, feedback included.
    pub gates: Vec<crate::gates::GateOutcome>,
}

impl Judged {
    /// The failing gates' feedback lines, for the next prompt.
    pub fn feedback(&self) -> Vec<String> {
        self.gates
            .iter()
            .flat_map(|g| g.feedback.iter().cloned())
            .collect()
    }
}

fn in_bars(score: &Score, e: &Event, first: u32, last: u32) -> bool {
    (first..=last).contains(&score.bar_of(e.onset))
}

/// `score` keeping only the events whose onset bar passes `keep`.
pub fn retain_bars(score: &Score, keep: impl Fn(u32) -> bool) -> Score {
    let mut out = score.clone();
    for v in &mut out.voices {
        v.events.retain(|e| keep(score.bar_of(e.onset)));
    }
    out
}

/// Why a filled piece cannot be judged.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// The model or the embedded filler left the gap silent.
    #[error("no note starts inside bars {first}-{last}")]
    SilentGap {
        /// The gap's first bar (1-based).
        first: u32,
        /// Its last bar.
        last: u32,
    },
    /// The axes cannot read the piece or its new bars.
    #[error("the {part} cannot be measured: {source}")]
    Unmeasurable {
        /// `filled piece` or `new bars`.
        part: &'static str,
        /// Why.
        source: MeasureError,
    },
}

fn fingerprint_of(
    score: &Score,
    table: &Calibration,
) -> Result<(Fingerprint, NoteGrid), MeasureError> {
    let layout = Layout::from_score(score)?;
    let raw = raw_axes(&layout)?;
    Ok((
        Fingerprint::place(&raw, table),
        NoteGrid::of(&layout.song()),
    ))
}

impl<'a> Gap<'a> {
    /// Checks the range and measures the context.
    pub fn new(
        score: &'a Score,
        req: &FillRequest,
        table: &'a Calibration,
    ) -> Result<Gap<'a>, FillError> {
        if !(1..=super::MAX_CANDIDATES).contains(&req.candidates) {
            return Err(FillError::Candidates(req.candidates));
        }
        let bars = score.bar_count();
        let range_err = |why: String| FillError::Range {
            first: req.first_bar,
            last: req.last_bar,
            why,
        };
        if req.first_bar == 0 || req.first_bar > req.last_bar {
            return Err(range_err("give a range A-B with 1 ≤ A ≤ B".into()));
        }
        if req.last_bar > bars {
            return Err(range_err(format!("the piece has {bars} bars")));
        }
        let (first, last) = (req.first_bar, req.last_bar);
        let context = retain_bars(score, |b| b < first || b > last);
        let sources: Vec<u32> = (1..=bars)
            .filter(|b| *b < first || *b > last)
            .filter(|b| {
                context
                    .voices
                    .iter()
                    .any(|v| v.events.iter().any(|e| score.bar_of(e.onset) == *b))
            })
            .collect();
        if sources.is_empty() {
            return Err(FillError::NoContext);
        }
        let (context_fp, context_grid) =
            fingerprint_of(&context, table).map_err(|_| FillError::NoContext)?;
        let budget = context_fp.extremes().count().max(3);
        Ok(Gap {
            score,
            first_bar: first,
            last_bar: last,
            context,
            sources,
            table,
            context_fp,
            copy: CopyGate::new(vec![context_grid]),
            degeneracy: Degeneracy::with_budget(budget),
        })
    }

    /// Extremes allowed to a filled piece.
    pub fn budget(&self) -> usize {
        self.degeneracy.budget
    }

    /// Start of the gap's first bar.
    pub fn start(&self) -> Time {
        self.score.bar_start(self.first_bar)
    }

    /// End of the gap's last bar.
    pub fn end(&self) -> Time {
        self.score.bar_start(self.last_bar) + self.score.bar_length()
    }

    /// Whether `e` starts inside the gap.
    pub fn holds(&self, e: &Event) -> bool {
        in_bars(self.score, e, self.first_bar, self.last_bar)
    }

    /// Measures a filled piece; `Err` says why it cannot be judged (a silent
    /// gap, a piece the axes cannot read).
    pub fn judge(&self, filled: &Score) -> Result<Judged, JudgeError> {
        let region = retain_bars(filled, |b| b >= self.first_bar && b <= self.last_bar);
        if region.event_count() == 0 {
            return Err(JudgeError::SilentGap {
                first: self.first_bar,
                last: self.last_bar,
            });
        }
        let unmeasurable = |part| move |source| JudgeError::Unmeasurable { part, source };
        let (fp, _) = fingerprint_of(filled, self.table).map_err(unmeasurable("filled piece"))?;
        let (region_fp, region_grid) =
            fingerprint_of(&region, self.table).map_err(unmeasurable("new bars"))?;
        let copy = self.copy.check(&region_grid);
        let degeneracy = self.degeneracy.check(&fp);
        let copy_risk = crate::copy::copy_risk(&region_grid, &self.copy.references);
        let extremes = self.degeneracy.extremes(&fp).len();
        let distance = region_fp.distance(&self.context_fp);
        Ok(Judged {
            copy_risk,
            extremes,
            distance,
            score_value: degeneracy.penalty + copy.penalty + 0.5 * distance,
            passed: copy.passed && degeneracy.passed,
            gates: vec![copy, degeneracy],
        })
    }
}

/// Keeps the best judged candidate (passing first, then the lowest score).
#[derive(Debug, Default)]
pub struct Selection {
    best: Option<Filled>,
    /// Candidates tried, judged or not.
    pub tried: usize,
    /// Why each unjudged candidate failed.
    pub failures: Vec<String>,
}

impl Selection {
    /// Records a candidate that could not be judged.
    pub fn fail(&mut self, why: impl std::fmt::Display) {
        self.tried += 1;
        self.failures
            .push(format!("candidate {}: {why}", self.tried));
    }

    /// Offers a judged candidate; returns whether it is now the best.
    pub fn offer(&mut self, gap: &Gap<'_>, score: Score, judged: Judged, proposer: &str) -> bool {
        self.tried += 1;
        let better = self
            .best
            .as_ref()
            .is_none_or(|b| (!judged.passed, judged.score_value) < (!b.passed, b.score_value));
        if better {
            self.best = Some(Filled {
                score,
                copy_risk: judged.copy_risk,
                extremes: judged.extremes,
                budget: gap.budget(),
                distance: judged.distance,
                passed: judged.passed,
                score_value: judged.score_value,
                tried: 0,
                proposer: proposer.to_string(),
                gates: judged.gates,
                failures: Vec::new(),
                usage: None,
            });
        }
        better
    }

    /// Whether the best so far passes every gate.
    pub fn passed(&self) -> bool {
        self.best.as_ref().is_some_and(|b| b.passed)
    }

    /// The kept candidate, or `None` when no candidate could be judged.
    pub fn finish(self) -> Result<Filled, (Vec<String>, usize)> {
        match self.best {
            Some(mut kept) => {
                kept.tried = self.tried;
                kept.failures = self.failures;
                Ok(kept)
            }
            None => Err((self.failures, self.tried)),
        }
    }
}
