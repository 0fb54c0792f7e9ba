//! The gates and score terms the workflows add to the crate's own
//! ([`Degeneracy`](crate::Degeneracy), [`CopyGate`](crate::CopyGate),
//! [`StyleFit`](crate::StyleFit), [`Novelty`](crate::Novelty)): length, a
//! genre's fit, a morph's progress, and the out-of-band count of the
//! original's loop score. Penalties use the original's weights (40 an excess
//! extreme, 50 a length miss, 300 a unit of excess copy, 15 a missing in-band
//! trait, 2 an out-of-band axis).

use crate::axes::Axis;
use crate::calibration::Calibration;
use crate::fingerprint::{Fingerprint, Profile};
use crate::gates::{GateId, GateOutcome};
use cantus_music::Score;

/// The original's newgen length bounds, in bars.
pub const PIECE_BARS: std::ops::RangeInclusive<u32> = 64..=179;
/// The original's extension bounds, in bars.
pub const EXTENSION_BARS: std::ops::RangeInclusive<u32> = 6..=40;

/// The original's copy threshold per genre (`copy_threshold(genre)`: the p90 of
/// real pieces' copy risk ×1.2, clamped to 0.30–0.45 — 0.30 for every genre
/// but folk_country's 0.34).
pub fn copy_threshold(genre: Option<&str>) -> f64 {
    match genre {
        Some("folk_country") => 0.34,
        _ => crate::copy::COPY_THRESHOLD,
    }
}

/// The last bar in which a note starts (0 for a silent piece): what a
/// piece's length is judged by.
pub fn sounding_bars(score: &Score) -> u32 {
    score
        .voices
        .iter()
        .flat_map(|v| v.events.iter().map(|e| score.bar_of(e.onset)))
        .max()
        .unwrap_or(0)
}

/// A length in bars within bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Length {
    /// Fewest bars.
    pub min: u32,
    /// Most bars.
    pub max: u32,
    /// What is measured, for the feedback ("piece", "extension").
    pub what: &'static str,
}

impl Length {
    /// Judges a length of `bars`.
    pub fn check(&self, bars: u32) -> GateOutcome {
        let passed = (self.min..=self.max).contains(&bars);
        GateOutcome {
            gate: GateId::Length,
            passed,
            penalty: if passed { 0.0 } else { 50.0 },
            feedback: if passed {
                Vec::new()
            } else {
                vec![format!(
                    "length: the {} has {bars} bars; write {}–{} bars",
                    self.what, self.min, self.max
                )]
            },
        }
    }
}

/// A genre's fit (the original's `genre_band_check`): how many of the table's
/// genre-split axes have a raw value inside the genre's middle band.
#[derive(Clone, Debug, PartialEq)]
pub struct GenreFit {
    /// The genre.
    pub genre: String,
    /// (axis, low, high) in raw values, after the original's widening.
    pub bands: Vec<(Axis, f64, f64)>,
    /// In-band traits needed (the original's floor: 3 for every genre).
    pub min_inside: usize,
}

impl GenreFit {
    /// The genre's bands from `table` — its p25–p75, widened to its p5–p95
    /// where that band is narrower than 2% of the axis's global p5–p95 range —
    /// or `None` for a genre the table has no bands for.
    pub fn new(table: &Calibration, genre: &str) -> Option<GenreFit> {
        let tails = table.genre_tails(genre).unwrap_or(&[]);
        let bands = table
            .genre_bands(genre)?
            .iter()
            .map(|&(axis, lo, hi)| {
                let col = table.column(axis);
                let narrow = hi - lo < 0.02 * (col.p95 - col.p5);
                match tails.iter().find(|t| t.0 == axis) {
                    Some(&(_, p5, p95)) if narrow => (axis, p5, p95),
                    _ => (axis, lo, hi),
                }
            })
            .collect();
        Some(GenreFit {
            genre: genre.to_owned(),
            bands,
            min_inside: 3,
        })
    }

    /// Whether `raw` lies in the band of `axis` (the original's special case:
    /// a distinct-pitch-class band reaching 12 is met by 11 or more).
    fn inside(axis: Axis, raw: f64, lo: f64, hi: f64) -> bool {
        if axis == Axis::HarDistinctPc && hi >= 12.0 {
            raw >= 11.0
        } else {
            lo <= raw && raw <= hi
        }
    }

    /// The axes outside their band.
    pub fn outside(&self, fp: &Fingerprint) -> Vec<(Axis, f64, f64, f64)> {
        self.bands
            .iter()
            .filter_map(|&(axis, lo, hi)| {
                let raw = fp.get(axis).raw;
                (!Self::inside(axis, raw, lo, hi)).then_some((axis, raw, lo, hi))
            })
            .collect()
    }

    /// Judges a fingerprint.
    pub fn check(&self, fp: &Fingerprint) -> GateOutcome {
        let outside = self.outside(fp);
        let inside = self.bands.len() - outside.len();
        let passed = inside >= self.min_inside;
        let mut feedback = Vec::new();
        if !passed {
            feedback.push(format!(
                "style fit: {inside} of {} traits lie in the {} middle band; at least {} should",
                self.bands.len(),
                self.genre,
                self.min_inside
            ));
            for (axis, raw, lo, hi) in outside {
                let verb = if raw < lo { "raise" } else { "lower" };
                feedback.push(format!(
                    "{} ({}) — now {raw:.3}, outside the {} band {lo:.3}–{hi:.3}: {verb} it toward that range; you choose how",
                    axis.name(),
                    axis.meaning(),
                    self.genre
                ));
            }
        }
        GateOutcome {
            gate: GateId::Style,
            passed,
            penalty: 15.0 * self.min_inside.saturating_sub(inside) as f64,
            feedback,
        }
    }
}

/// The original's out-of-band axes (`genre_band_check.check`): axes with a
/// band in `bands` judged against it in raw values, every other axis against
/// `table`'s p25–p75.
pub fn out_of_band(fp: &Fingerprint, table: &Calibration, bands: &[(Axis, f64, f64)]) -> Vec<Axis> {
    Axis::ALL
        .into_iter()
        .filter(|&axis| {
            let raw = fp.get(axis).raw;
            match bands.iter().find(|b| b.0 == axis) {
                Some(&(_, lo, hi)) => !GenreFit::inside(axis, raw, lo, hi),
                None => {
                    let col = table.column(axis);
                    raw < col.p25 || raw > col.p75
                }
            }
        })
        .collect()
}

/// A morph's progress at one segment: `D(seg, A) / (D(seg, A) + D(seg, B))`,
/// 0 at A and 1 at B (½ when the segment is as far from both, or A is B).
pub fn progress(segment: &Profile, a: &Profile, b: &Profile) -> f64 {
    let (da, db) = (segment.distance(a), segment.distance(b));
    if da + db == 0.0 { 0.5 } else { da / (da + db) }
}

/// The original's morph progress rule: monotone within a tolerance, spanning
/// enough, starting near A and ending near B.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// How far a segment may fall behind the one before (0.05).
    pub tolerance: f64,
    /// Least last − first (0.4).
    pub span: f64,
    /// The first segment must lie below this (0.40).
    pub first_below: f64,
    /// The last segment must lie above this (0.60).
    pub last_above: f64,
}

impl Default for Progress {
    fn default() -> Self {
        Progress {
            tolerance: 0.05,
            span: 0.4,
            first_below: 0.40,
            last_above: 0.60,
        }
    }
}

impl Progress {
    /// Judges the segments' progress values, in order: 50 a failed check.
    pub fn check(&self, values: &[f64]) -> GateOutcome {
        let mut feedback = Vec::new();
        let (Some(&first), Some(&last)) = (values.first(), values.last()) else {
            return GateOutcome {
                gate: GateId::Progress,
                passed: false,
                penalty: 200.0,
                feedback: vec!["progress: there are no segments to judge".into()],
            };
        };
        let mut failed = 0;
        for (k, w) in values.windows(2).enumerate() {
            if w[1] < w[0] - self.tolerance {
                failed += 1;
                feedback.push(format!(
                    "progress: segment {} sits {:.2} of the way from A to B, behind segment {} ({:.2}); every segment should move on toward B",
                    k + 2,
                    w[1],
                    k + 1,
                    w[0]
                ));
            }
        }
        if last - first < self.span {
            failed += 1;
            feedback.push(format!(
                "progress: the segments cover only {:.2} of the way from A to B (at least {:.2}): make the first more like A and the last more like B",
                last - first,
                self.span
            ));
        }
        if first >= self.first_below {
            failed += 1;
            feedback.push(format!(
                "progress: segment 1 sits {first:.2} of the way to B (below {:.2} wanted): make it more like A",
                self.first_below
            ));
        }
        if last <= self.last_above {
            failed += 1;
            feedback.push(format!(
                "progress: the last segment sits {last:.2} of the way to B (above {:.2} wanted): make it more like B",
                self.last_above
            ));
        }
        GateOutcome {
            gate: GateId::Progress,
            passed: failed == 0,
            penalty: 50.0 * failed as f64,
            feedback,
        }
    }
}

/// The original's education score: the number of failed checks.
pub fn failed_checks(gates: &[GateOutcome]) -> f64 {
    gates.iter().filter(|g| !g.passed).count() as f64
}

/// The original's newgen score: the gates' penalties (40·excess extremes,
/// 50·length miss, 300·excess copy, 15·missing fit) plus 2 per out-of-band axis.
pub fn newgen_score(gates: &[GateOutcome], out_of_band: usize) -> f64 {
    gates.iter().map(|g| g.penalty).sum::<f64>() + 2.0 * out_of_band as f64
}
