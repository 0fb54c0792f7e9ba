//! Calibration tables: per axis, the sorted reference values a piece is placed
//! against, and their quantiles.
//!
//! The format is the original's `corpus_distribution_314.json` (`axes_order`,
//! `axes.<id>.values`, `p5`…`p95`, `mean`, `sd`, `min`, `max`, `band`), so a
//! table Cantus computes (`cantus calibrate`) and the original's are read the
//! same way. The original's table ships inside the crate as the default
//! reference (MIT licence, derived statistics of Libretto's corpus: see
//! `data/README.md`).

use crate::axes::{AXIS_COUNT, Axis, RawAxes};
use crate::numeric::round_decimals;
use serde_json::{Map, Value, json};
use std::sync::OnceLock;

/// The original's frozen 314-song table, shipped with the crate.
const ORIGINAL_JSON: &str = include_str!("../data/corpus_distribution_314.json");

/// Why a calibration table cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CalibrationError {
    /// Not JSON.
    #[error("not a JSON calibration table: {0}")]
    Json(String),
    /// An axis without a usable `values` column.
    #[error("calibration table: axis `{axis}` {problem}")]
    Axis {
        /// The axis id.
        axis: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The table's file cannot be read or holds a bad table.
    #[error("{}: {source}", path.display())]
    File {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: Box<CalibrationError>,
    },
    /// The file cannot be read.
    #[error("{}: {why}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The system's reason.
        why: String,
    },
}

/// One axis's reference column.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// Reference values, ascending.
    pub values: Vec<f64>,
    /// 5th, 25th, 50th, 75th and 95th percentiles (numpy's linear rule).
    pub p5: f64,
    pub p25: f64,
    pub p50: f64,
    pub p75: f64,
    pub p95: f64,
    /// Population mean and standard deviation.
    pub mean: f64,
    pub sd: f64,
}

/// numpy's `percentile(values, q)` (linear interpolation) over sorted values.
pub(crate) fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let pos = q / 100.0 * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    let frac = pos - lo as f64;
    sorted[lo] + (sorted[hi] - sorted[lo]) * frac
}

impl Column {
    /// A column from raw values (sorted here); quantiles, mean and sd rounded to
    /// 4 decimals as the original's table stores them.
    pub fn from_values(mut values: Vec<f64>) -> Column {
        values.sort_by(f64::total_cmp);
        let r = |x: f64| round_decimals(x, 4);
        Column {
            p5: r(quantile(&values, 5.0)),
            p25: r(quantile(&values, 25.0)),
            p50: r(quantile(&values, 50.0)),
            p75: r(quantile(&values, 75.0)),
            p95: r(quantile(&values, 95.0)),
            mean: r(crate::numeric::np_mean(&values)),
            sd: r(crate::numeric::np_std(&values)),
            values,
        }
    }

    /// Whether the column cannot tell pieces apart, by the original's
    /// metric-discovery rule: no spread at all, or more than 55% of the values in
    /// one bin of a 12-bin histogram.
    pub fn is_degenerate(&self) -> bool {
        let (Some(&lo), Some(&hi)) = (self.values.first(), self.values.last()) else {
            return true;
        };
        if hi <= lo {
            return true;
        }
        let mut bins = [0usize; 12];
        for &v in &self.values {
            let k = (((v - lo) / (hi - lo)) * 12.0).floor() as usize;
            bins[k.min(11)] += 1;
        }
        let modal = bins.iter().copied().max().unwrap_or(0);
        modal as f64 / self.values.len() as f64 > 0.55
    }

    /// Libretto's percentile: `round(100 * share of values <= v)`, ties to even,
    /// with a relative epsilon so a last-ulp difference cannot flip a tie.
    pub fn percentile(&self, v: f64) -> u8 {
        if self.values.is_empty() {
            return 50;
        }
        let limit = v + 1e-12 * v.abs();
        let count = self.values.partition_point(|&x| x <= limit);
        let pct = (count as f64 / self.values.len() as f64) * 100.0;
        pct.round_ties_even().clamp(0.0, 100.0) as u8
    }
}

/// A calibration table: one [`Column`] per axis, and, where the table has them,
/// per-genre bands of the axes that split by genre.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// Where the table comes from (shown in reports).
    pub source: String,
    columns: Vec<Column>,
    /// genre → (axis, p25, p75) in raw value space (`genre_conditioned`).
    genres: std::collections::BTreeMap<String, Vec<(Axis, f64, f64)>>,
    /// genre → (axis, p5, p95), where the table has them.
    genre_tails: std::collections::BTreeMap<String, Vec<(Axis, f64, f64)>>,
}

impl Calibration {
    /// The original's 314-song table (the default reference).
    pub fn original() -> &'static Calibration {
        static TABLE: OnceLock<Calibration> = OnceLock::new();
        TABLE.get_or_init(|| {
            Calibration::from_json(ORIGINAL_JSON, "Libretto v2.2 corpus_distribution_314")
                .expect("the shipped calibration table is valid (checked by a test)")
        })
    }

    /// The table in `path` (`cantus calibrate`'s output or the original's format),
    /// or the shipped 314-song table when `path` is `None`.
    pub fn from_file_or_original(
        path: Option<&std::path::Path>,
    ) -> Result<Calibration, CalibrationError> {
        let Some(path) = path else {
            return Ok(Calibration::original().clone());
        };
        let text = std::fs::read_to_string(path).map_err(|e| CalibrationError::Io {
            path: path.to_owned(),
            why: e.to_string(),
        })?;
        Calibration::from_json(&text, &path.display().to_string()).map_err(|e| {
            CalibrationError::File {
                path: path.to_owned(),
                source: Box::new(e),
            }
        })
    }

    /// Reads a table in the original's format.
    pub fn from_json(text: &str, source: &str) -> Result<Calibration, CalibrationError> {
        let doc: Value =
            serde_json::from_str(text).map_err(|e| CalibrationError::Json(e.to_string()))?;
        let axes = doc
            .get("axes")
            .and_then(Value::as_object)
            .ok_or_else(|| CalibrationError::Json("no `axes` object".into()))?;
        let mut columns = Vec::with_capacity(AXIS_COUNT);
        for axis in Axis::ALL {
            let err = |problem: &str| CalibrationError::Axis {
                axis: axis.id().to_string(),
                problem: problem.to_string(),
            };
            let entry = axes.get(axis.id()).ok_or_else(|| err("is missing"))?;
            let values = entry
                .get("values")
                .and_then(Value::as_array)
                .ok_or_else(|| err("has no `values` array"))?;
            let values: Vec<f64> = values
                .iter()
                .map(|v| v.as_f64().filter(|x| x.is_finite()))
                .collect::<Option<_>>()
                .ok_or_else(|| err("has a value that is not a finite number"))?;
            if values.is_empty() {
                return Err(err("has an empty `values` array"));
            }
            let mut col = Column::from_values(values);
            // Stored statistics win: they are what the original scores against.
            let stored = |k: &str| entry.get(k).and_then(Value::as_f64);
            for (k, slot) in [
                ("p5", &mut col.p5),
                ("p25", &mut col.p25),
                ("p50", &mut col.p50),
                ("p75", &mut col.p75),
                ("p95", &mut col.p95),
                ("mean", &mut col.mean),
                ("sd", &mut col.sd),
            ] {
                if let Some(x) = stored(k) {
                    *slot = x;
                }
            }
            columns.push(col);
        }
        let mut genres: std::collections::BTreeMap<String, Vec<(Axis, f64, f64)>> =
            std::collections::BTreeMap::new();
        let mut genre_tails = genres.clone();
        if let Some(split) = doc.get("genre_conditioned").and_then(Value::as_object) {
            for (id, per_genre) in split {
                let (Some(axis), Some(per_genre)) = (Axis::from_id(id), per_genre.as_object())
                else {
                    continue;
                };
                for (genre, band) in per_genre {
                    let q = |k: &str| band.get(k).and_then(Value::as_f64);
                    if let (Some(lo), Some(hi)) = (q("p25"), q("p75")) {
                        genres
                            .entry(genre.clone())
                            .or_default()
                            .push((axis, lo, hi));
                    }
                    if let (Some(lo), Some(hi)) = (q("p5"), q("p95")) {
                        genre_tails
                            .entry(genre.clone())
                            .or_default()
                            .push((axis, lo, hi));
                    }
                }
            }
        }
        Ok(Calibration {
            source: source.to_string(),
            columns,
            genres,
            genre_tails,
        })
    }

    /// The genres the table has bands for.
    pub fn genres(&self) -> impl Iterator<Item = &str> {
        self.genres.keys().map(String::as_str)
    }

    /// A genre's idiomatic bands: (axis, p25, p75) in raw values, for the axes
    /// that split by genre.
    pub fn genre_bands(&self, genre: &str) -> Option<&[(Axis, f64, f64)]> {
        self.genres.get(genre).map(Vec::as_slice)
    }

    /// A genre's (axis, p5, p95) in raw values, for the axes that split by genre.
    pub fn genre_tails(&self, genre: &str) -> Option<&[(Axis, f64, f64)]> {
        self.genre_tails.get(genre).map(Vec::as_slice)
    }

    /// A table computed from the raw axes of reference pieces.
    pub fn from_pieces(source: &str, pieces: &[RawAxes]) -> Calibration {
        let columns = Axis::ALL
            .iter()
            .map(|a| Column::from_values(pieces.iter().map(|p| p[a.index()]).collect()))
            .collect();
        Calibration {
            source: source.to_string(),
            columns,
            genres: std::collections::BTreeMap::new(),
            genre_tails: std::collections::BTreeMap::new(),
        }
    }

    /// The column of one axis.
    pub fn column(&self, axis: Axis) -> &Column {
        &self.columns[axis.index()]
    }

    /// Number of reference pieces (of the first axis's column).
    pub fn pieces(&self) -> usize {
        self.columns.first().map_or(0, |c| c.values.len())
    }

    /// Every axis's corpus standard deviation (the variation axis's units).
    pub fn sds(&self) -> RawAxes {
        let mut out = [0.0; AXIS_COUNT];
        for a in Axis::ALL {
            out[a.index()] = self.column(a).sd;
        }
        out
    }

    /// The table in the original's JSON format.
    pub fn to_json(&self, names: &[String]) -> Value {
        let mut axes = Map::new();
        for a in Axis::ALL {
            let c = self.column(a);
            let min = c.values.first().copied().unwrap_or(0.0);
            let max = c.values.last().copied().unwrap_or(0.0);
            axes.insert(
                a.id().to_string(),
                json!({
                    "p5": c.p5, "p25": c.p25, "p50": c.p50, "p75": c.p75, "p95": c.p95,
                    "mean": c.mean, "sd": c.sd,
                    "min": round_decimals(min, 4), "max": round_decimals(max, 4),
                    "band": [c.p25, c.p75], "n": c.values.len(), "values": c.values,
                    "category": a.id().split('_').next().map_or("meta", |p| if p == "within" { "meta" } else { p }),
                }),
            );
        }
        json!({
            "header": {
                "reference": format!("Cantus calibration table: {}", self.source),
                "n_songs": self.pieces(),
                "n_axes": AXIS_COUNT,
                "scoring": "percentile(v) = round_half_even(100 * mean(values <= v + 1e-12*|v|))",
                "pieces": names,
            },
            "axes_order": Axis::ALL.iter().map(|a| a.id()).collect::<Vec<_>>(),
            "axes": axes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_table_reads_and_its_quantiles_are_numpys() {
        let t = Calibration::original();
        assert_eq!(t.pieces(), 314);
        // The stored p5..p95 of a column equal numpy's linear percentiles of its
        // values rounded to 4 decimals; recompute one and compare.
        let c = t.column(Axis::RhySyncopationRate);
        let again = Column::from_values(c.values.clone());
        assert_eq!(
            (again.p5, again.p25, again.p50, again.p75, again.p95),
            (0.2846, 0.4413, 0.5291, 0.6199, 0.7509)
        );
        assert_eq!((c.mean, c.sd), (0.527, 0.1379));
    }

    #[test]
    fn percentile_is_the_le_ecdf_rounded_half_even() {
        let c = Column::from_values(vec![1.0, 2.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
        // 2.0: 3 of 8 values <= 2 → 37.5 → 38 (half to even).
        assert_eq!(c.percentile(2.0), 38);
        // 4.0: 5 of 8 = 62.5 → 62 (half to even).
        assert_eq!(c.percentile(4.0), 62);
        assert_eq!(c.percentile(0.5), 0);
        assert_eq!(c.percentile(9.0), 100);
        // A last-ulp lower value still ties with 2.0.
        assert_eq!(c.percentile(2.0 - f64::EPSILON), 38);
        // No absolute epsilon: 0 does not reach a value of 2.2e-16.
        let z = Column::from_values(vec![0.0, 2.220446049250313e-16]);
        assert_eq!(z.percentile(0.0), 50);
    }
}
