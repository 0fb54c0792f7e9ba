//! Rhythm axes: where onsets fall, how dense they are, how long notes last.

use super::{Axis, RawAxes, Tables};
use crate::numeric::{OrderedCounts, entropy, np_mean, np_std, py_mod, py_round};

pub(super) fn measure(t: &Tables<'_>, out: &mut RawAxes) {
    let bar_ql = t.bar_ql();
    let events = t.events();
    let n_on = t.onsets.len() as f64;
    let nb = t.bars.len() as f64;
    // Off the quarter-note beat: the position in the bar has a fractional beat.
    let off = t
        .onsets
        .iter()
        .filter(|(_, abs)| py_mod(py_mod(*abs, bar_ql), 1.0) > 1e-6)
        .count();
    out[Axis::RhySyncopationRate.index()] = off as f64 / n_on;
    out[Axis::RhyOnsetDensityPerBar.index()] = n_on / nb;
    let lines = t.song.bar_lines.max(1);
    out[Axis::RhyTripletShare.index()] = t.song.triplet_lines as f64 / lines as f64;
    // 16th-note position bins over events.
    let mut pos = OrderedCounts::new();
    for e in events {
        pos.add(py_round(py_mod(e.abs, bar_ql) / 0.25), 1.0);
    }
    out[Axis::RhyOnsetPosEntropy.index()] = entropy(&pos.values());
    let durs: Vec<f64> = events.iter().map(|e| e.dur).collect();
    let mean = np_mean(&durs);
    out[Axis::RhyDurCv.index()] = if mean != 0.0 {
        np_std(&durs) / mean
    } else {
        0.0
    };
    out[Axis::RhyMeanDurBeats.index()] = mean;
    let per_bar: Vec<f64> = t.bar_events.iter().map(|b| b.len() as f64).collect();
    let pmean = np_mean(&per_bar);
    out[Axis::RhyDensityVariability.index()] = if pmean != 0.0 {
        np_std(&per_bar) / pmean
    } else {
        0.0
    };
}
