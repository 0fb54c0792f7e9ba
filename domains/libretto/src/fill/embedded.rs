//! The embedded gap proposer: deterministic per seed, no network. Each
//! candidate recombines bars of the context (a source bar per gap bar, drawn
//! from the bars around the gap), transposed by one interval for the whole gap
//! and, every other candidate, with each bar's pitches mirrored in time (rhythm
//! kept) — so the material belongs to the piece without copying it. Every
//! candidate is tried and the best is kept by the shared [`judge`](super::judge).

use super::judge::{Gap, Selection};
use super::{FillError, FillRequest, Filled};
use crate::calibration::Calibration;
use cantus_music::{Event, Pitch, Score, Time};

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

/// The `k`th candidate: the context with the gap bars recombined from `sources`.
fn candidate(gap: &Gap<'_>, seed: u64, k: usize) -> Score {
    let score = gap.score;
    let context = &gap.context;
    let sources = &gap.sources;
    let mut rng = Rng(seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let shift = TRANSPOSITIONS[rng.below(TRANSPOSITIONS.len())];
    let mirror = k % 2 == 1;
    let bar_len = score.bar_length();
    let mut out = context.clone();
    for gap_bar in gap.first_bar..=gap.last_bar {
        let Some(&src) = sources.get(rng.below(sources.len())) else {
            continue;
        };
        let delta = bar_len * Time::from_integer(i64::from(gap_bar) - i64::from(src));
        let bar_end = score.bar_start(gap_bar) + bar_len;
        for (vi, voice) in context.voices.iter().enumerate() {
            let cell: Vec<&Event> = voice
                .events
                .iter()
                .filter(|e| score.bar_of(e.onset) == src)
                .collect();
            for (i, e) in cell.iter().enumerate() {
                let source_pitches = if mirror {
                    cell.get(cell.len() - 1 - i)
                        .map_or(&e.pitches, |m| &m.pitches)
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

/// Fills bars `first_bar..=last_bar` of `score` with the embedded proposer
/// (see the module docs): all `candidates` are judged, the best is kept.
pub fn fill(score: &Score, req: &FillRequest, table: &Calibration) -> Result<Filled, FillError> {
    let gap = Gap::new(score, req, table)?;
    let mut selection = Selection::default();
    for k in 0..req.candidates {
        let filled = candidate(&gap, req.seed, k);
        match gap.judge(&filled) {
            Ok(judged) => {
                selection.offer(&gap, filled, judged, "embedded");
            }
            Err(why) => selection.fail(why),
        }
    }
    selection
        .finish()
        .map_err(|(failures, _)| FillError::NoCandidate {
            failures,
            usage: Box::default(),
        })
}
