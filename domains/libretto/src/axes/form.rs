//! Form axes, from the bar self-similarity matrix: the Jaccard similarity of the
//! (voice, onset in bar, pitch) sets of every two sounding bars, and checkerboard
//! novelty along its diagonal for section boundaries.
//!
//! The matrix is never held. Three of the axes read only a band around its
//! diagonal (the bar-to-bar novelty reads the first off-diagonal, the
//! checkerboard kernel at most seven), which is kept as it goes by; the mean of
//! the strict upper triangle is summed as the matrix is streamed row by row,
//! in the original's order and with numpy's pairwise summation
//! ([`np_sum_stream`]), so every value is the one the full matrix gave. Memory is
//! linear in the piece (the bar sets, an inverted index of them and one counter
//! per bar); time is linear plus one cheap step per pair of sounding bars, which
//! the bar limit ([`MAX_MEASURED_BARS`](crate::song::MAX_MEASURED_BARS)) bounds.

use super::{Axis, RawAxes, Tables};
use crate::numeric::{np_mean, np_std, np_sum_stream};
use std::collections::HashMap;

/// A bar's distinct (voice, onset in bar, pitch) notes, interned to ids, sorted.
type BarSet = Vec<u32>;

/// Widest diagonal offset the checkerboard kernel reads (`2·L − 1`, `L ≤ 4`).
const BAND: usize = 7;

/// The similarity matrix, streamed: row by row, each entry once.
struct Rows<'a> {
    sets: &'a [BarSet],
    /// Each bar's note count, as `f64`-ready integers.
    sizes: Vec<u32>,
    /// `postings[id]`: the bars holding `id`, ascending.
    postings: Vec<Vec<u32>>,
    /// Per id, how many of its bars the rows so far have passed.
    cursor: Vec<u32>,
    /// Per bar `j > i`: notes shared with the current row `i` (zero elsewhere).
    shared: Vec<u32>,
    /// The current row's entries S[i][j], `j > i`, and how many were yielded.
    row: Vec<f64>,
    taken: usize,
    /// `band[i][d - 1]` = S[i][i + d] for `d` in `1..=BAND`.
    band: Vec<[f64; BAND]>,
    /// The current row.
    i: usize,
}

impl<'a> Rows<'a> {
    fn new(sets: &'a [BarSet], ids: usize) -> Rows<'a> {
        let mut postings = vec![Vec::new(); ids];
        for (bar, set) in sets.iter().enumerate() {
            for &id in set {
                postings[id as usize].push(bar as u32);
            }
        }
        let n = sets.len();
        let mut rows = Rows {
            sets,
            sizes: sets.iter().map(|s| s.len() as u32).collect(),
            postings,
            cursor: vec![0; ids],
            shared: vec![0; n],
            row: Vec::with_capacity(n),
            taken: 0,
            band: vec![[0.0; BAND]; n],
            i: 0,
        };
        if n >= 2 {
            rows.fill_row(0);
        }
        rows
    }

    /// Computes row `i` of the strict upper triangle and keeps its band.
    fn fill_row(&mut self, i: usize) {
        for &id in &self.sets[i] {
            let id = id as usize;
            let seen = self.cursor[id] as usize;
            // postings[id][seen] is bar i itself; later bars follow it.
            for &j in &self.postings[id][seen + 1..] {
                self.shared[j as usize] += 1;
            }
            self.cursor[id] += 1;
        }
        let own = self.sizes[i];
        self.row.clear();
        let later = &mut self.shared[i + 1..];
        self.row.extend(
            later
                .iter_mut()
                .zip(&self.sizes[i + 1..])
                .map(|(shared, &size)| {
                    let both = std::mem::take(shared);
                    let union = own + size - both;
                    if union == 0 {
                        1.0
                    } else {
                        f64::from(both) / f64::from(union)
                    }
                }),
        );
        for (d, &s) in self.row.iter().take(BAND).enumerate() {
            self.band[i][d] = s;
        }
        self.taken = 0;
    }

    /// Writes the next entries of the strict upper triangle, row-major, into `out`.
    fn fill(&mut self, mut out: &mut [f64]) {
        while !out.is_empty() {
            if self.taken == self.row.len() {
                if self.i + 2 >= self.sets.len() {
                    out.fill(0.0); // asked past the triangle: never, by the count
                    return;
                }
                self.i += 1;
                self.fill_row(self.i);
            }
            let k = out.len().min(self.row.len() - self.taken);
            let (head, tail) = out.split_at_mut(k);
            head.copy_from_slice(&self.row[self.taken..self.taken + k]);
            self.taken += k;
            out = tail;
        }
    }

    /// S[i][j] for `|i − j| ≤ BAND`, once streamed.
    fn near(&self, i: usize, j: usize) -> f64 {
        match i.cmp(&j) {
            std::cmp::Ordering::Equal => 1.0,
            std::cmp::Ordering::Less => self.band[i][j - i - 1],
            std::cmp::Ordering::Greater => self.band[j][i - j - 1],
        }
    }
}

pub(super) fn measure(t: &Tables<'_>, out: &mut RawAxes) {
    let events = t.events();
    let mut ids: HashMap<(u32, u64, i64), u32> = HashMap::new();
    let sets: Vec<BarSet> = t
        .bar_events
        .iter()
        .map(|evs| {
            let mut s: BarSet = evs
                .iter()
                .map(|&i| {
                    let e = &events[i];
                    let next = ids.len() as u32;
                    *ids.entry((e.voice, (e.onb + 0.0).to_bits(), e.midi))
                        .or_insert(next)
                })
                .collect();
            s.sort_unstable();
            s.dedup();
            s
        })
        .collect();
    let vocabulary = ids.len();
    drop(ids);
    let [similarity, novelty, distinct, sections] = form_axes(&sets, vocabulary);
    out[Axis::FormSelfSimilarity.index()] = similarity;
    out[Axis::FormNoveltyRate.index()] = novelty;
    out[Axis::FormDistinctBarFrac.index()] = distinct;
    out[Axis::FormSectionPer100Bars.index()] = sections;
}

/// The four form axes of the sounding bars' sets (ids below `vocabulary`):
/// self-similarity, novelty rate, distinct-bar share, sections per 100 bars.
fn form_axes(sets: &[BarSet], vocabulary: usize) -> [f64; 4] {
    let n = sets.len();
    let mut rows = Rows::new(sets, vocabulary);
    let (similarity, novelty_rate) = if n >= 2 {
        let pairs = n * (n - 1) / 2;
        let total = np_sum_stream(pairs, &mut |block: &mut [f64]| rows.fill(block));
        let novelty: Vec<f64> = (0..n - 1).map(|i| 1.0 - rows.near(i, i + 1)).collect();
        (total / pairs as f64, np_mean(&novelty))
    } else {
        (1.0, 0.0)
    };
    let mut distinct: Vec<&BarSet> = sets.iter().collect();
    distinct.sort_unstable();
    distinct.dedup();
    let distinct_frac = distinct.len() as f64 / n as f64;

    // Checkerboard novelty with half-width L.
    let l = (n / 4).clamp(1, 4) as i64;
    let n_i = n as i64;
    let nov: Vec<f64> = (0..n_i)
        .map(|c| {
            let (mut acc, mut cnt) = (0.0, 0.0);
            for a in -l..l {
                let ii = c + a;
                if !(0..n_i).contains(&ii) {
                    continue;
                }
                for b in -l..l {
                    let jj = c + b;
                    if !(0..n_i).contains(&jj) {
                        continue;
                    }
                    let sign = if (a < 0) == (b < 0) { 1.0 } else { -1.0 };
                    acc += sign * rows.near(ii as usize, jj as usize);
                    cnt += 1.0;
                }
            }
            if cnt != 0.0 { acc / cnt } else { 0.0 }
        })
        .collect();
    let threshold = np_mean(&nov) + 0.5 * np_std(&nov);
    let peaks = (1..n.saturating_sub(1))
        .filter(|&i| nov[i] >= threshold && nov[i] >= nov[i - 1] && nov[i] >= nov[i + 1])
        .count();
    let sections = (peaks + 1) as f64 / n as f64 * 100.0;
    [similarity, novelty_rate, distinct_frac, sections]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The full matrix, as the original builds it, for comparison.
    fn full(sets: &[BarSet]) -> Vec<Vec<f64>> {
        let n = sets.len();
        let mut m = vec![vec![1.0; n]; n];
        for i in 0..n {
            for j in 0..n {
                if i != j {
                    let both = sets[i].iter().filter(|x| sets[j].contains(x)).count();
                    let union = sets[i].len() + sets[j].len() - both;
                    m[i][j] = both as f64 / union as f64;
                }
            }
        }
        m
    }

    #[test]
    fn the_stream_yields_the_full_matrix_in_row_order_and_keeps_its_band() {
        // Sixteen bars over a vocabulary of four notes, repeats and partial overlaps.
        let sets: Vec<BarSet> = (0..16u32)
            .map(|b| {
                let s: BarSet = (0..4).filter(|id| (b * 7 + id * 3) % 5 < 2).collect();
                if s.is_empty() { vec![b % 4] } else { s }
            })
            .collect();
        let m = full(&sets);
        let mut rows = Rows::new(&sets, 4);
        let n = sets.len();
        // Asked in blocks of 7 across row ends, as the pairwise sum asks.
        let mut streamed = vec![0.0; n * (n - 1) / 2];
        for block in streamed.chunks_mut(7) {
            rows.fill(block);
        }
        let upper: Vec<f64> = (0..n).flat_map(|i| m[i][i + 1..].to_vec()).collect();
        assert_eq!(streamed, upper);
        for (i, row) in m.iter().enumerate() {
            let near = i.saturating_sub(BAND)..(i + BAND + 1).min(n);
            for (j, &want) in row.iter().enumerate().filter(|(j, _)| near.contains(j)) {
                assert_eq!(rows.near(i, j), want, "band S[{i}][{j}]");
            }
        }
    }

    /// The form axes as the original computes them, from the whole matrix.
    fn form_axes_from_matrix(sets: &[BarSet]) -> [f64; 4] {
        let n = sets.len();
        let m = full(sets);
        let upper: Vec<f64> = (0..n).flat_map(|i| m[i][i + 1..].to_vec()).collect();
        let (similarity, novelty) = if n >= 2 {
            let nov: Vec<f64> = (0..n - 1).map(|i| 1.0 - m[i][i + 1]).collect();
            (np_mean(&upper), np_mean(&nov))
        } else {
            (1.0, 0.0)
        };
        let mut distinct: Vec<&BarSet> = sets.iter().collect();
        distinct.sort_unstable();
        distinct.dedup();
        let l = (n / 4).clamp(1, 4) as i64;
        let n_i = n as i64;
        let nov: Vec<f64> = (0..n_i)
            .map(|c| {
                let (mut acc, mut cnt) = (0.0, 0.0);
                for a in -l..l {
                    for b in -l..l {
                        let (ii, jj) = (c + a, c + b);
                        if (0..n_i).contains(&ii) && (0..n_i).contains(&jj) {
                            let sign = if (a < 0) == (b < 0) { 1.0 } else { -1.0 };
                            acc += sign * m[ii as usize][jj as usize];
                            cnt += 1.0;
                        }
                    }
                }
                if cnt != 0.0 { acc / cnt } else { 0.0 }
            })
            .collect();
        let threshold = np_mean(&nov) + 0.5 * np_std(&nov);
        let peaks = (1..n.saturating_sub(1))
            .filter(|&i| nov[i] >= threshold && nov[i] >= nov[i - 1] && nov[i] >= nov[i + 1])
            .count();
        [
            similarity,
            novelty,
            distinct.len() as f64 / n as f64,
            (peaks + 1) as f64 / n as f64 * 100.0,
        ]
    }

    #[test]
    fn streamed_form_axes_equal_the_full_matrix_bit_for_bit() {
        // Pieces of 1 to 300 bars over vocabularies of 3 to 40 notes, bars of 1 to 6
        // notes: repeats, near-repeats and unrelated bars; 300 bars reach the
        // recursive splits of the pairwise sum (44,850 pairs).
        let mut seed = 0x1234_5678_u64;
        let mut next = |k: u32| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % u64::from(k)) as u32
        };
        for (bars, vocabulary) in [(1, 3), (2, 3), (3, 5), (9, 4), (17, 12), (64, 40), (300, 9)] {
            let sets: Vec<BarSet> = (0..bars)
                .map(|_| {
                    let mut s: BarSet = (0..1 + next(6)).map(|_| next(vocabulary)).collect();
                    s.sort_unstable();
                    s.dedup();
                    s
                })
                .collect();
            let streamed = form_axes(&sets, vocabulary as usize);
            let reference = form_axes_from_matrix(&sets);
            for k in 0..4 {
                assert_eq!(
                    streamed[k].to_bits(),
                    reference[k].to_bits(),
                    "{bars} bars, axis {k}: {} vs {}",
                    streamed[k],
                    reference[k]
                );
            }
        }
    }
}
