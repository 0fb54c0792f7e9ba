//! Gap filling, Libretto's cleanest task: given a piece and a range of bars,
//! propose the missing bars so they pass the gates against their context.
//!
//! The embedded proposer is deterministic per seed: each candidate recombines
//! bars of the context (a source bar per gap bar, drawn from the bars around the
//! gap), transposed by one interval for the whole gap and, every other
//! candidate, with each bar's pitches mirrored in time (rhythm kept) — so the
//! material belongs to the piece without copying it. Candidates are judged like
//! the original's gap task: note-level copy risk of the new bars against the
//! context below 0.30, no more corpus extremes than the piece had without the
//! fill (at least 3 allowed), and closeness of the new bars' fingerprint to the
//! context's; the best candidate is kept (score = 40·excess extremes +
//! 300·excess copy + 0.5·distance, as the original's gap loop weighs them).

use crate::calibration::Calibration;
use crate::copy::{COPY_THRESHOLD, NoteGrid};
use crate::fingerprint::{Fingerprint, raw_axes};
use crate::song::Layout;
use cantus_music::{Event, Pitch, Score, Time};

/// What to fill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FillRequest {
    /// First bar of the gap (1-based, inclusive).
    pub first_bar: u32,
    /// Last bar of the gap (inclusive).
    pub last_bar: u32,
    /// Candidates to try.
    pub candidates: usize,
    /// Seed of the embedded proposer.
    pub seed: u64,
}

/// Why a gap cannot be filled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FillError {
    /// The range is empty or outside the piece.
    #[error("bars {first}-{last}: {why}")]
    Range {
        /// First bar asked for.
        first: u32,
        /// Last bar asked for.
        last: u32,
        /// What is wrong.
        why: String,
    },
    /// No bar outside the gap sounds, so there is nothing to draw on.
    #[error("no bar outside the gap has notes to draw material from")]
    NoContext,
}

/// The kept candidate and how it fared.
#[derive(Clone, Debug)]
pub struct Filled {
    /// The piece with the gap filled.
    pub score: Score,
    /// Copy risk of the new bars against the context.
    pub copy_risk: f64,
    /// Axes of the filled piece at a corpus extreme, and how many were allowed.
    pub extremes: usize,
    /// Extremes allowed.
    pub budget: usize,
    /// Fingerprint distance between the new bars and the context.
    pub distance: f64,
    /// Whether the copy and degeneracy gates pass.
    pub passed: bool,
    /// The candidate's score (lower is better).
    pub score_value: f64,
    /// Candidates judged.
    pub tried: usize,
}

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n.max(1) as u64) as usize
    }
}

const TRANSPOSITIONS: [i16; 8] = [2, -2, 3, -3, 5, -5, 7, -7];

fn in_bars(score: &Score, e: &Event, first: u32, last: u32) -> bool {
    let bar = score.bar_of(e.onset);
    bar >= first && bar <= last
}

/// The piece with the events starting in `first..=last` removed.
fn without(score: &Score, first: u32, last: u32) -> Score {
    let mut out = score.clone();
    for v in &mut out.voices {
        v.events.retain(|e| !in_bars(score, e, first, last));
    }
    out
}

/// Only the events starting in `first..=last`.
fn only(score: &Score, first: u32, last: u32) -> Score {
    let mut out = score.clone();
    for v in &mut out.voices {
        v.events.retain(|e| in_bars(score, e, first, last));
    }
    out
}

fn candidate(
    score: &Score,
    context: &Score,
    req: &FillRequest,
    sources: &[u32],
    k: usize,
) -> Score {
    let mut rng = Rng(req.seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let shift = TRANSPOSITIONS[rng.below(TRANSPOSITIONS.len())];
    let mirror = k % 2 == 1;
    let bar_len = score.bar_length();
    let mut out = context.clone();
    for gap_bar in req.first_bar..=req.last_bar {
        let src = sources[rng.below(sources.len())];
        let delta = bar_len * Time::from_integer(i64::from(gap_bar) - i64::from(src));
        let bar_end = score.bar_start(gap_bar) + bar_len;
        for (vi, voice) in context.voices.iter().enumerate() {
            let cell: Vec<&Event> = voice
                .events
                .iter()
                .filter(|e| score.bar_of(e.onset) == src)
                .collect();
            let pitch_sets: Vec<&Vec<Pitch>> = cell.iter().map(|e| &e.pitches).collect();
            for (i, e) in cell.iter().enumerate() {
                let source_pitches = if mirror {
                    pitch_sets[pitch_sets.len() - 1 - i]
                } else {
                    &e.pitches
                };
                let pitches: Vec<Pitch> = source_pitches
                    .iter()
                    .filter_map(|p| {
                        let m = i16::from(p.midi) + shift;
                        u8::try_from(m).ok().filter(|m| *m <= 127).map(Pitch::new)
                    })
                    .collect();
                let onset = e.onset + delta;
                let duration = e.duration.min(bar_end - onset);
                if pitches.is_empty() || duration <= Time::from_integer(0) {
                    continue;
                }
                out.voices[vi]
                    .events
                    .push(Event::new(onset, duration, pitches));
            }
        }
    }
    out.sort();
    out
}

fn fingerprint_of(score: &Score, table: &Calibration) -> Option<(Fingerprint, NoteGrid)> {
    let layout = Layout::from_score(score).ok()?;
    let raw = raw_axes(&layout).ok()?;
    Some((
        Fingerprint::place(&raw, table),
        NoteGrid::of(&layout.song()),
    ))
}

/// Fills bars `first_bar..=last_bar` of `score` (see the module docs).
pub fn fill(score: &Score, req: &FillRequest, table: &Calibration) -> Result<Filled, FillError> {
    let bars = score.bar_count();
    let range_err = |why: &str| FillError::Range {
        first: req.first_bar,
        last: req.last_bar,
        why: why.to_string(),
    };
    if req.first_bar == 0 || req.first_bar > req.last_bar {
        return Err(range_err("give a range A-B with 1 ≤ A ≤ B"));
    }
    if req.last_bar > bars {
        return Err(range_err(&format!("the piece has {bars} bars")));
    }
    let context = without(score, req.first_bar, req.last_bar);
    let sources: Vec<u32> = (1..=bars)
        .filter(|b| *b < req.first_bar || *b > req.last_bar)
        .filter(|b| {
            context
                .voices
                .iter()
                .any(|v| v.events.iter().any(|e| score.bar_of(e.onset) == *b))
        })
        .collect();
    let (ctx_fp, ctx_grid) = fingerprint_of(&context, table).ok_or(FillError::NoContext)?;
    if sources.is_empty() {
        return Err(FillError::NoContext);
    }
    let budget = ctx_fp.extremes().count().max(3);
    let mut best: Option<Filled> = None;
    let tries = req.candidates.max(1);
    for k in 0..tries {
        let filled = candidate(score, &context, req, &sources, k);
        let region = only(&filled, req.first_bar, req.last_bar);
        let (Some((fp, _)), Some((region_fp, region_grid))) = (
            fingerprint_of(&filled, table),
            fingerprint_of(&region, table),
        ) else {
            continue;
        };
        let copy_risk = region_grid.slide_overlap(&ctx_grid).0;
        let extremes = fp.extremes().count();
        let distance = region_fp.distance(&ctx_fp);
        let score_value = 40.0 * extremes.saturating_sub(budget) as f64
            + 300.0 * (copy_risk - COPY_THRESHOLD).max(0.0)
            + 0.5 * distance;
        let passed = copy_risk < COPY_THRESHOLD && extremes <= budget;
        let this = Filled {
            score: filled,
            copy_risk,
            extremes,
            budget,
            distance,
            passed,
            score_value,
            tried: k + 1,
        };
        let better = best
            .as_ref()
            .is_none_or(|b| (!this.passed, this.score_value) < (!b.passed, b.score_value));
        if better {
            best = Some(this);
        }
    }
    let mut kept = best.ok_or(FillError::NoContext)?;
    kept.tried = tries;
    Ok(kept)
}
