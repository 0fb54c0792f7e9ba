//! Note-level copy risk: the share of a piece's notes that another piece also
//! has at the same position in the aligned bar and the same pitch, under the best
//! whole-piece bar offset. Voice and duration are ignored; the threshold the
//! original calibrated between unrelated real songs is 0.30.

use crate::numeric::round_decimals;
use crate::song::Song;
use std::collections::{BTreeMap, HashMap, HashSet};

/// The original's strict copy threshold.
pub const COPY_THRESHOLD: f64 = 0.30;

/// A piece's notes per bar as (onset in bar rounded to 2 decimals, MIDI) sets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NoteGrid {
    bars: BTreeMap<i64, HashSet<(u64, i64)>>,
    /// Number of note events (duplicates across voices count, as in the original).
    pub total: usize,
}

impl NoteGrid {
    /// The grid of a song's events.
    pub fn of(song: &Song<'_>) -> NoteGrid {
        let mut grid = NoteGrid::default();
        for e in &song.events {
            let key = ((round_decimals(e.onb, 2) + 0.0).to_bits(), e.midi);
            grid.bars.entry(e.bar).or_default().insert(key);
            grid.total += 1;
        }
        grid
    }

    /// Whether the piece has no notes.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Share of this piece's notes found in `other` when bar `b` is set against
    /// bar `b + offset`.
    pub fn aligned_overlap(&self, other: &NoteGrid, offset: i64) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        let hit: usize = self
            .bars
            .iter()
            .filter_map(|(b, notes)| {
                let theirs = other.bars.get(&(b + offset))?;
                Some(notes.intersection(theirs).count())
            })
            .sum();
        hit as f64 / self.total as f64
    }

    /// The best aligned overlap over every bar offset, and that offset (the
    /// smallest of equally good ones; `(0.0, 0)` when no note is shared).
    ///
    /// Every offset's overlap is counted at once from an index of `other`'s
    /// notes: each note of this piece meets only the bars of `other` that hold
    /// the same note, so the cost is the number of such meetings, not the
    /// number of offsets times the number of bars.
    pub fn slide_overlap(&self, other: &NoteGrid) -> (f64, i64) {
        let (Some((&gmin, _)), Some((&gmax, _)), Some((&smin, _)), Some((&smax, _))) = (
            self.bars.first_key_value(),
            self.bars.last_key_value(),
            other.bars.first_key_value(),
            other.bars.last_key_value(),
        ) else {
            return (0.0, 0);
        };
        if self.total == 0 {
            return (0.0, 0);
        }
        let mut holders: HashMap<(u64, i64), Vec<i64>> = HashMap::new();
        for (&bar, notes) in &other.bars {
            for &note in notes {
                holders.entry(note).or_default().push(bar);
            }
        }
        let lowest = smin - gmax;
        let span = usize::try_from((smax - gmin) - lowest).unwrap_or(usize::MAX);
        let mut hits = Hits::new(span, self.bars.len() + other.bars.len());
        // (bar, the other's bars holding one of its notes): offsets are differences.
        let meetings = self.bars.iter().flat_map(|(&bar, notes)| {
            notes
                .iter()
                .filter_map(|note| holders.get(note))
                .map(move |theirs| (bar, theirs))
        });
        match &mut hits {
            Hits::Dense(counts) => {
                for (bar, theirs) in meetings {
                    let base = lowest + bar;
                    for &t in theirs {
                        counts[(t - base) as usize] += 1;
                    }
                }
            }
            Hits::Sparse(counts) => {
                for (bar, theirs) in meetings {
                    for &t in theirs {
                        *counts.entry((t - bar - lowest) as usize).or_default() += 1;
                    }
                }
            }
        }
        match hits.best() {
            Some((at, count)) => (count as f64 / self.total as f64, at as i64 + lowest),
            None => (0.0, 0),
        }
    }
}

/// Shared notes per bar offset (offsets counted from the lowest possible one):
/// a dense table when the offsets span little more than the pieces' bars, else
/// a map (bar numbers far apart must not cost memory).
enum Hits {
    Dense(Vec<u32>),
    Sparse(HashMap<usize, u32>),
}

impl Hits {
    fn new(span: usize, bars: usize) -> Hits {
        if span <= bars.saturating_mul(8).saturating_add(1024) {
            Hits::Dense(vec![0; span + 1])
        } else {
            Hits::Sparse(HashMap::new())
        }
    }

    /// The smallest offset with the most shared notes, if any note is shared.
    fn best(&self) -> Option<(usize, u32)> {
        let mut best: Option<(usize, u32)> = None;
        let mut offer = |at: usize, count: u32| {
            let better = match best {
                None => count > 0,
                Some((b_at, b_count)) => count > b_count || (count == b_count && at < b_at),
            };
            if better {
                best = Some((at, count));
            }
        };
        match self {
            Hits::Dense(v) => v.iter().enumerate().for_each(|(at, &c)| offer(at, c)),
            Hits::Sparse(m) => m.iter().for_each(|(&at, &c)| offer(at, c)),
        }
        best
    }
}

/// The copy risk of `piece` against references: the largest slid overlap.
pub fn copy_risk<'a>(piece: &NoteGrid, references: impl IntoIterator<Item = &'a NoteGrid>) -> f64 {
    references
        .into_iter()
        .map(|r| piece.slide_overlap(r).0)
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(bars: &[(i64, &[(f64, i64)])]) -> NoteGrid {
        let mut g = NoteGrid::default();
        for &(bar, notes) in bars {
            for &(onb, midi) in notes {
                g.bars
                    .entry(bar)
                    .or_default()
                    .insert(((onb + 0.0).to_bits(), midi));
                g.total += 1;
            }
        }
        g
    }

    /// The original's slide: every offset in turn, the first strictly better kept.
    fn slide_by_offsets(a: &NoteGrid, b: &NoteGrid) -> (f64, i64) {
        let (Some((&gmin, _)), Some((&gmax, _)), Some((&smin, _)), Some((&smax, _))) = (
            a.bars.first_key_value(),
            a.bars.last_key_value(),
            b.bars.first_key_value(),
            b.bars.last_key_value(),
        ) else {
            return (0.0, 0);
        };
        let mut best = (0.0, 0);
        for offset in (smin - gmax)..=(smax - gmin) {
            let ov = a.aligned_overlap(b, offset);
            if ov > best.0 {
                best = (ov, offset);
            }
        }
        best
    }

    #[test]
    fn the_indexed_slide_finds_the_originals_overlap_and_offset() {
        // A: bars 1-3; B holds A's bars 1-2 two bars later, and A's bar 3 at bar 1.
        // Offset +2 shares 3 of A's 5 notes (0.6); offset -2 shares 1 (0.2).
        let a = grid(&[
            (1, &[(0.0, 60), (1.0, 62)]),
            (2, &[(0.0, 64), (2.0, 65)]),
            (3, &[(0.0, 67)]),
        ]);
        let b = grid(&[
            (1, &[(0.0, 67)]),
            (3, &[(0.0, 60), (1.0, 62)]),
            (4, &[(0.0, 64), (2.0, 66)]),
        ]);
        assert_eq!(a.slide_overlap(&b), (0.6, 2));
        assert_eq!(slide_by_offsets(&a, &b), (0.6, 2));
        // Ties: equal overlaps at -1 and +1 keep the smaller offset, as the
        // original's ascending scan does.
        let c = grid(&[(2, &[(0.0, 60)])]);
        let d = grid(&[(1, &[(0.0, 60)]), (3, &[(0.0, 60)])]);
        assert_eq!(c.slide_overlap(&d), (1.0, -1));
        assert_eq!(slide_by_offsets(&c, &d), (1.0, -1));
        // Nothing shared: (0, 0).
        let e = grid(&[(5, &[(0.5, 61)])]);
        assert_eq!(a.slide_overlap(&e), (0.0, 0));
        assert_eq!(slide_by_offsets(&a, &e), (0.0, 0));
    }

    #[test]
    fn far_apart_bar_numbers_cost_no_memory_and_agree() {
        let a = grid(&[(1, &[(0.0, 60)]), (9_000_000, &[(0.0, 62)])]);
        let b = grid(&[(4, &[(0.0, 60)]), (9_000_003, &[(0.0, 62)])]);
        // Offset +3 shares both notes.
        assert_eq!(a.slide_overlap(&b), (1.0, 3));
    }

    #[test]
    fn the_indexed_slide_agrees_with_every_offset_on_random_pieces() {
        let mut seed = 7u64;
        let mut next = |k: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % k) as i64
        };
        for _ in 0..200 {
            let mut make = || {
                let bars: Vec<(i64, Vec<(f64, i64)>)> = (0..1 + next(12))
                    .map(|_| {
                        let notes = (0..1 + next(4))
                            .map(|_| (next(4) as f64 * 0.5, 60 + next(5)))
                            .collect();
                        (1 + next(20), notes)
                    })
                    .collect();
                let refs: Vec<(i64, &[(f64, i64)])> =
                    bars.iter().map(|(b, n)| (*b, n.as_slice())).collect();
                grid(&refs)
            };
            let (a, b) = (make(), make());
            assert_eq!(a.slide_overlap(&b), slide_by_offsets(&a, &b));
        }
    }
}
