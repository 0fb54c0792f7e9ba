//! Form axes, from the bar self-similarity matrix: the Jaccard similarity of the
//! (voice, onset in bar, pitch) sets of every two sounding bars, and checkerboard
//! novelty along its diagonal for section boundaries.

use super::{Axis, RawAxes, Tables};
use crate::numeric::{np_mean, np_std};
use std::collections::HashMap;

/// A bar's distinct (voice, onset in bar, pitch) notes, interned to ids, sorted.
type BarSet = Vec<u32>;

/// The same set as bits over the interned ids, for fast intersections.
fn bits(set: &BarSet, words: usize) -> Vec<u64> {
    let mut out = vec![0u64; words];
    for &id in set {
        out[id as usize / 64] |= 1 << (id % 64);
    }
    out
}

fn jaccard(a: &[u64], b: &[u64], len_a: usize, len_b: usize) -> f64 {
    let both: usize = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x & y).count_ones() as usize)
        .sum();
    let union = len_a + len_b - both;
    if union == 0 {
        1.0
    } else {
        both as f64 / union as f64
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
    let n = sets.len();
    let words = ids.len().div_ceil(64);
    let bitsets: Vec<Vec<u64>> = sets.iter().map(|s| bits(s, words)).collect();
    let mut sim = vec![1.0; n * n];
    let mut upper = Vec::with_capacity(n * n.saturating_sub(1) / 2);
    for i in 0..n {
        for j in i + 1..n {
            let s = jaccard(&bitsets[i], &bitsets[j], sets[i].len(), sets[j].len());
            sim[i * n + j] = s;
            sim[j * n + i] = s;
            upper.push(s);
        }
    }
    let s = |i: usize, j: usize| sim[i * n + j];
    if n >= 2 {
        out[Axis::FormSelfSimilarity.index()] = np_mean(&upper);
        let novelty: Vec<f64> = (0..n - 1).map(|i| 1.0 - s(i, i + 1)).collect();
        out[Axis::FormNoveltyRate.index()] = np_mean(&novelty);
    } else {
        out[Axis::FormSelfSimilarity.index()] = 1.0;
        out[Axis::FormNoveltyRate.index()] = 0.0;
    }
    let mut distinct: Vec<&BarSet> = sets.iter().collect();
    distinct.sort_unstable();
    distinct.dedup();
    out[Axis::FormDistinctBarFrac.index()] = distinct.len() as f64 / n as f64;

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
                    acc += sign * s(ii as usize, jj as usize);
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
    out[Axis::FormSectionPer100Bars.index()] = (peaks + 1) as f64 / n as f64 * 100.0;
}
