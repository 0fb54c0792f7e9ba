//! Harmony axes: pitch-class content weighted by duration, half-bar prominent
//! pitch sets, bass root motion, diminished and augmented triads.

use super::{Axis, RawAxes, Tables};
use crate::numeric::{OrderedCounts, entropy, py_sum};

/// Duration per pitch class, remembering first-seen order (the original's dict)
/// without allocating.
#[derive(Clone, Copy)]
struct PcWeights {
    weight: [f64; 12],
    order: [u8; 12],
    len: usize,
}

impl PcWeights {
    fn new() -> Self {
        PcWeights {
            weight: [0.0; 12],
            order: [0; 12],
            len: 0,
        }
    }

    fn add(&mut self, pc: u8, dur: f64) {
        let pc = pc % 12;
        if !self.order[..self.len].contains(&pc) {
            self.order[self.len] = pc;
            self.len += 1;
        }
        self.weight[usize::from(pc)] += dur;
    }

    /// The prominent pitch classes: weight at least 0.30 of the heaviest.
    fn prominent(&self) -> PcSet {
        let seen = &self.order[..self.len];
        let Some(max) = seen
            .iter()
            .map(|&pc| self.weight[usize::from(pc)])
            .reduce(f64::max)
        else {
            return 0;
        };
        seen.iter()
            .filter(|&&pc| self.weight[usize::from(pc)] >= 0.30 * max)
            .fold(0, |set, &pc| set | (1 << pc))
    }
}
use crate::song::VoiceId;

const MAJOR: [u8; 7] = [0, 2, 4, 5, 7, 9, 11];

/// A set of pitch classes as a bit mask (bit `pc`).
type PcSet = u16;

fn has(set: PcSet, pc: u8) -> bool {
    set & (1 << (pc % 12)) != 0
}

pub(super) fn measure(t: &Tables<'_>, bass: Option<VoiceId>, out: &mut RawAxes) {
    let events = t.events();
    let nb = t.bars.len();
    let mut pcw = PcWeights::new();
    for e in events {
        pcw.add(e.pc(), e.dur);
    }
    let weights: Vec<f64> = pcw.order[..pcw.len]
        .iter()
        .map(|&pc| pcw.weight[usize::from(pc)])
        .collect();
    let total = py_sum(weights.iter().copied());
    let best = (0..12u8)
        .map(|r| py_sum(MAJOR.iter().map(|i| pcw.weight[usize::from((r + i) % 12)])))
        .reduce(f64::max)
        .unwrap_or(0.0);
    out[Axis::HarChromaticism.index()] = if total != 0.0 {
        1.0 - best / total
    } else {
        0.0
    };
    out[Axis::HarDistinctPc.index()] = weights.iter().filter(|&&w| w > 0.0).count() as f64;
    out[Axis::HarPcEntropy.index()] = entropy(&weights);

    // Half-bars split by onset, over sounding bars only.
    let half = t.bar_ql() / 2.0;
    let mut halves: Vec<PcSet> = Vec::with_capacity(2 * nb);
    let mut bar_sets: Vec<PcSet> = Vec::with_capacity(nb);
    for evs in &t.bar_events {
        let mut first = PcWeights::new();
        let mut second = PcWeights::new();
        let mut whole = PcWeights::new();
        for &i in evs {
            let e = &events[i];
            if e.onb < half {
                first.add(e.pc(), e.dur);
            } else {
                second.add(e.pc(), e.dur);
            }
            whole.add(e.pc(), e.dur);
        }
        halves.push(first.prominent());
        halves.push(second.prominent());
        bar_sets.push(whole.prominent());
    }
    let changes = halves
        .windows(2)
        .filter(|w| w[0] != 0 && w[1] != 0 && w[0] != w[1])
        .count();
    out[Axis::HarChordChangeRate.index()] =
        changes as f64 / (halves.len().saturating_sub(1)).max(1) as f64;
    let mut vocab: Vec<PcSet> = halves.iter().copied().filter(|&h| h != 0).collect();
    vocab.sort_unstable();
    vocab.dedup();
    out[Axis::HarVocabDensity.index()] = vocab.len() as f64 / nb as f64;

    // Bass root per bar where the bass plays: its lowest note's pitch class.
    let (mut entropy_value, mut fourth) = (0.0, 0.0);
    if let Some(bass) = bass {
        let mut lowest: Vec<(i64, i64)> = Vec::new(); // (bar, min midi), bars ascending
        let mut by_bar = std::collections::BTreeMap::new();
        for &i in &t.voice_events[bass as usize] {
            let e = &events[i];
            by_bar
                .entry(e.bar)
                .and_modify(|m: &mut i64| *m = (*m).min(e.midi))
                .or_insert(e.midi);
        }
        lowest.extend(by_bar);
        let trans: Vec<i64> = lowest
            .windows(2)
            .map(|w| (w[1].1.rem_euclid(12) - w[0].1.rem_euclid(12)).rem_euclid(12))
            .collect();
        if !trans.is_empty() {
            let mut counts = OrderedCounts::new();
            for &d in &trans {
                counts.add(d, 1.0);
            }
            entropy_value = entropy(&counts.values());
            fourth = trans.iter().filter(|&&d| d == 5).count() as f64 / trans.len() as f64;
        }
    }
    out[Axis::HarRootMotionEntropy.index()] = entropy_value;
    out[Axis::HarFourthMotionRate.index()] = fourth;

    // Diminished: one per bar; augmented: one per root of a complete triad.
    let (mut dim, mut aug) = (0usize, 0usize);
    for &set in &bar_sets {
        let roots = (0..12u8).filter(|&r| has(set, r));
        let mut bar_dim = false;
        for r in roots {
            if has(set, r + 3) && has(set, r + 6) {
                bar_dim = true;
            }
            if has(set, r + 4) && has(set, r + 8) {
                aug += 1;
            }
        }
        dim += usize::from(bar_dim);
    }
    out[Axis::HarDimaugRate.index()] = (dim + aug.min(nb)) as f64 / nb as f64;
}
