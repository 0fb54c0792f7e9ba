//! The degeneracy score: how far a piece is from real texture, in [0, 1] (0 varied,
//! 1 degenerate), the weighted mean of five features, each in [0, 1]:
//!
//! * `long_notes` — the share of sounding time held by notes of a bar or longer;
//! * `sparse_texture` — 1 − the share of voice-time that sounds (voices × the
//!   piece's length is all of it);
//! * `repeated_cells` — the share of three-note cells (durations and the two
//!   intervals between them) that repeat an earlier cell of the same voice;
//! * `register_collapse` — 1 − the mean voice's pitch span over two octaves (capped);
//! * `rhythmic_monotony` — 1 − the entropy of the duration distribution over that of
//!   eight equally likely durations (capped).
//!
//! The harness paper hand-picked its weights and never perturbed them; here they are
//! in the experiment file (`[metrics.degeneracy]`, all 1 by default), and
//! [`sensitivity`] perturbs them to see whether the ranking of conditions holds.
//! Libretto's degeneracy gate (29 axes against a serial reference table) is reported
//! beside it as a second, independent opinion.

use cantus_framework::SplitMix;
use cantus_music::{Score, Time};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// The features' weights.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Weights {
    pub long_notes: f64,
    pub sparse_texture: f64,
    pub repeated_cells: f64,
    pub register_collapse: f64,
    pub rhythmic_monotony: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            long_notes: 1.0,
            sparse_texture: 1.0,
            repeated_cells: 1.0,
            register_collapse: 1.0,
            rhythmic_monotony: 1.0,
        }
    }
}

impl Weights {
    /// The weights in feature order.
    pub fn as_array(&self) -> [f64; 5] {
        [
            self.long_notes,
            self.sparse_texture,
            self.repeated_cells,
            self.register_collapse,
            self.rhythmic_monotony,
        ]
    }

    /// `Err` unless every weight is finite and 0 or more and one is positive.
    pub fn check(&self) -> Result<(), String> {
        let w = self.as_array();
        if w.iter().all(|x| x.is_finite() && *x >= 0.0) && w.iter().any(|x| *x > 0.0) {
            Ok(())
        } else {
            Err("weights must be 0 or more, and at least one positive".into())
        }
    }
}

/// The five features of a piece, in [`Weights::as_array`] order.
pub type Features = [f64; 5];

/// The features of `score`; `None` when it sounds no note.
pub fn features(score: &Score) -> Option<Features> {
    let events: Vec<_> = score.voices.iter().flat_map(|v| v.events.iter()).collect();
    if events.is_empty() {
        return None;
    }
    let f = |t: Time| *t.numer() as f64 / *t.denom() as f64;
    let bar = f(score.bar_length());
    let sounding: f64 = events.iter().map(|e| f(e.duration)).sum();
    let long: f64 = events
        .iter()
        .map(|e| f(e.duration))
        .filter(|d| *d >= bar)
        .sum();
    let span = f(score.end()).max(bar * f64::from(score.bars.unwrap_or(0)));
    let voices = score.voices.len().max(1) as f64;
    let sparse = 1.0 - (sounding / (voices * span)).min(1.0);

    let (mut cells, mut repeated) = (0usize, 0usize);
    let mut spans = Vec::new();
    for v in &score.voices {
        let mut seen = HashSet::new();
        let low: Vec<(Time, i32)> = v
            .events
            .iter()
            .filter_map(|e| {
                e.pitches
                    .iter()
                    .map(|p| i32::from(p.midi))
                    .min()
                    .map(|m| (e.duration, m))
            })
            .collect();
        for w in low.windows(3) {
            let cell = (w[0].0, w[1].0, w[2].0, w[1].1 - w[0].1, w[2].1 - w[1].1);
            cells += 1;
            if !seen.insert(cell) {
                repeated += 1;
            }
        }
        let pitches = v
            .events
            .iter()
            .flat_map(|e| e.pitches.iter().map(|p| p.midi));
        if let (Some(lo), Some(hi)) = (pitches.clone().min(), pitches.max()) {
            spans.push(f64::from(hi - lo));
        }
    }
    let repeated_cells = if cells == 0 {
        0.0
    } else {
        repeated as f64 / cells as f64
    };
    let mean_span = spans.iter().sum::<f64>() / spans.len().max(1) as f64;
    let collapse = 1.0 - (mean_span / 24.0).min(1.0);

    let mut durations: std::collections::BTreeMap<Time, usize> = Default::default();
    for e in &events {
        *durations.entry(e.duration).or_default() += 1;
    }
    let n = events.len() as f64;
    let entropy: f64 = durations
        .values()
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.ln()
        })
        .sum();
    let monotony = 1.0 - (entropy / 8f64.ln()).min(1.0);
    Some([long / sounding, sparse, repeated_cells, collapse, monotony])
}

/// The weighted mean of `features`.
pub fn score(features: &Features, weights: &[f64; 5]) -> f64 {
    let total: f64 = weights.iter().sum();
    features
        .iter()
        .zip(weights)
        .map(|(f, w)| f * w)
        .sum::<f64>()
        / total
}

/// Whether the ranking of groups by mean degeneracy holds when the weights move.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sensitivity {
    pub draws: u32,
    /// Each weight multiplied by a factor drawn uniformly from `[1 - p, 1 + p]`.
    pub perturbation: f64,
    /// The groups, least degenerate first, under the file's weights.
    pub ranking: Vec<String>,
    /// Share of draws giving exactly that ranking.
    pub same_ranking: f64,
    /// Mean Kendall rank correlation between each draw's ranking and it.
    pub mean_kendall_tau: f64,
}

/// Ranks `groups` (a name and its pieces' features) by mean score under `weights`,
/// then under `draws` perturbed weights.
pub fn sensitivity(
    groups: &[(String, Vec<Features>)],
    weights: &Weights,
    perturbation: f64,
    draws: u32,
    seed: u64,
) -> Sensitivity {
    let groups: Vec<_> = groups.iter().filter(|(_, f)| !f.is_empty()).collect();
    let means = |w: &[f64; 5]| -> Vec<f64> {
        groups
            .iter()
            .map(|(_, fs)| fs.iter().map(|f| score(f, w)).sum::<f64>() / fs.len() as f64)
            .collect()
    };
    let order = |m: &[f64]| -> Vec<usize> {
        let mut idx: Vec<usize> = (0..m.len()).collect();
        idx.sort_by(|&a, &b| m[a].total_cmp(&m[b]).then(a.cmp(&b)));
        idx
    };
    let base_means = means(&weights.as_array());
    let base = order(&base_means);
    let mut rng = SplitMix::new(seed);
    let (mut same, mut tau_sum) = (0u32, 0.0);
    for _ in 0..draws {
        let mut w = weights.as_array();
        for x in &mut w {
            *x *= 1.0 - perturbation + 2.0 * perturbation * rng.unit();
        }
        let m = means(&w);
        if order(&m) == base {
            same += 1;
        }
        tau_sum += kendall_tau(&base_means, &m);
    }
    Sensitivity {
        draws,
        perturbation,
        ranking: base.iter().map(|&i| groups[i].0.clone()).collect(),
        same_ranking: f64::from(same) / f64::from(draws.max(1)),
        mean_kendall_tau: tau_sum / f64::from(draws.max(1)),
    }
}

/// Kendall's tau-a between two score vectors (1 when every pair is ordered alike).
pub fn kendall_tau(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len();
    if n < 2 {
        return 1.0;
    }
    let mut s = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            let x = (a[i] - a[j]).signum() * (b[i] - b[j]).signum();
            s += x;
        }
    }
    s / (n * (n - 1) / 2) as f64
}

#[cfg(test)]
mod tests {
    use super::super::texture::read_piece;
    use super::*;

    const HEADER: &str = "KEY: ? | METER: 4/4 | TEMPO: 90 | GRID: 16th | BARS: 2\nVOICES: A, B\n";

    #[test]
    fn a_degenerate_piece_scores_high_and_a_varied_one_low() {
        // Whole notes, one voice silent, a narrow register, one note value.
        let degenerate = read_piece(&format!(
            "{HEADER}@1 [-]\n  A: C4@1>16\n@2 [-]\n  A: C#4@1>16\n"
        ))
        .unwrap();
        let varied = read_piece(&format!(
            "{HEADER}@1 [-]\n  A: C5@1>2 E4@3>3 B5@6>1 F4@7>4 A#5@11>6\n  B: D2@1>6 G#3@7>2 C#4@9>5 F#2@14>3\n\
             @2 [-]\n  A: D#4@1>4 G5@5>1 A4@6>3 F5@9>8\n  B: B2@1>3 E3@4>5 A2@9>2 G3@11>6\n"
        ))
        .unwrap();
        let d = features(&degenerate).unwrap();
        let v = features(&varied).unwrap();
        let w = Weights::default().as_array();
        assert_eq!(d[0], 1.0, "all sounding time in notes a bar long");
        assert_eq!(d[1], 0.5, "one voice of two silent");
        assert_eq!(d[4], 1.0, "one note value");
        assert_eq!(v[0], 0.0);
        assert!(score(&d, &w) > 0.6, "{d:?}");
        assert!(score(&v, &w) < 0.25, "{v:?}");
    }

    #[test]
    fn the_ranking_holds_when_groups_are_far_apart_and_not_when_weights_decide() {
        let groups = vec![
            ("low".to_owned(), vec![[0.1; 5]]),
            ("high".to_owned(), vec![[0.9; 5]]),
        ];
        let s = sensitivity(&groups, &Weights::default(), 0.5, 100, 1);
        assert_eq!(s.ranking, ["low", "high"]);
        assert_eq!(s.same_ranking, 1.0);
        assert_eq!(s.mean_kendall_tau, 1.0);
        // Two groups that differ only in which feature is high: the ranking is the
        // weights' choice, and perturbing them flips it about half the time.
        let split = vec![
            ("a".to_owned(), vec![[1.0, 0.0, 0.0, 0.0, 0.0]]),
            ("b".to_owned(), vec![[0.0, 1.0, 0.0, 0.0, 0.0]]),
        ];
        let s = sensitivity(&split, &Weights::default(), 0.5, 400, 1);
        assert!((0.3..0.7).contains(&s.same_ranking), "{}", s.same_ranking);
    }

    #[test]
    fn kendall_tau_of_reversed_orders_is_minus_one() {
        assert_eq!(kendall_tau(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), -1.0);
        assert_eq!(kendall_tau(&[1.0, 2.0, 3.0], &[1.0, 5.0, 9.0]), 1.0);
    }
}
