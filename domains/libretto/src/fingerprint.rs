//! A piece's fingerprint: every axis's raw value, its percentile against a
//! calibration table, and whether it sits at an extreme (≤ 5th or ≥ 95th).

use crate::axes::{AXIS_COUNT, Axis, RawAxes, measure_layout};
use crate::calibration::Calibration;
use crate::song::{Layout, LayoutError};
use cantus_music::Score;

/// Why a piece has no fingerprint.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MeasureError {
    /// The text or score cannot be laid out.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// Not a single note sounds (the original measures nothing then).
    #[error("no pitched notes to measure")]
    Silent,
}

/// Which side of the corpus an axis is pinned at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extreme {
    /// At or below the 5th percentile.
    Low,
    /// At or above the 95th percentile.
    High,
}

/// One axis of a fingerprint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AxisReading {
    /// Which axis.
    pub axis: Axis,
    /// The raw value, as the original computes it.
    pub raw: f64,
    /// Percentile 0..=100 against the calibration table.
    pub percentile: u8,
}

impl AxisReading {
    /// The extreme this reading sits at (the gates' inclusive rule: ≤ 5 or ≥ 95).
    pub fn extreme(&self) -> Option<Extreme> {
        match self.percentile {
            0..=5 => Some(Extreme::Low),
            95.. => Some(Extreme::High),
            _ => None,
        }
    }
}

/// Every axis's reading, in [`Axis::ALL`] order.
#[derive(Clone, Debug, PartialEq)]
pub struct Fingerprint {
    /// One reading per axis.
    pub readings: Vec<AxisReading>,
}

impl Fingerprint {
    /// Places raw axes against a table.
    pub fn place(raw: &RawAxes, table: &Calibration) -> Fingerprint {
        let readings = Axis::ALL
            .iter()
            .map(|&axis| AxisReading {
                axis,
                raw: raw[axis.index()],
                percentile: table.column(axis).percentile(raw[axis.index()]),
            })
            .collect();
        Fingerprint { readings }
    }

    /// The reading of one axis.
    pub fn get(&self, axis: Axis) -> &AxisReading {
        &self.readings[axis.index()]
    }

    /// The raw values.
    pub fn raw(&self) -> RawAxes {
        let mut out = [0.0; AXIS_COUNT];
        for r in &self.readings {
            out[r.axis.index()] = r.raw;
        }
        out
    }

    /// The readings at an extreme.
    pub fn extremes(&self) -> impl Iterator<Item = &AxisReading> {
        self.readings.iter().filter(|r| r.extreme().is_some())
    }

    /// The original's proximity `D(a, b)`: mean absolute percentile difference
    /// over all axes.
    pub fn distance(&self, other: &Fingerprint) -> f64 {
        self.profile().distance(&other.profile())
    }

    /// The percentiles as a [`Profile`].
    pub fn profile(&self) -> Profile {
        let mut out = [0.0; AXIS_COUNT];
        for r in &self.readings {
            out[r.axis.index()] = f64::from(r.percentile);
        }
        Profile(out)
    }
}

/// A place among the reference pieces: one percentile per axis (indexed by
/// [`Axis::index`]) — a piece's, or a style's centre, which may fall between
/// whole percentiles.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Profile(pub [f64; AXIS_COUNT]);

impl Profile {
    /// The original's proximity `D(a, b)`: the mean absolute percentile
    /// difference over the 29 axes.
    pub fn distance(&self, other: &Profile) -> f64 {
        let total: f64 = self
            .0
            .iter()
            .zip(&other.0)
            .map(|(a, b)| (a - b).abs())
            .sum();
        total / AXIS_COUNT as f64
    }

    /// The mean profile of `profiles` (a style's centroid); `None` for none.
    pub fn centroid<'a>(profiles: impl IntoIterator<Item = &'a Profile>) -> Option<Profile> {
        let mut sum = [0.0; AXIS_COUNT];
        let mut count = 0usize;
        for p in profiles {
            for (s, v) in sum.iter_mut().zip(&p.0) {
                *s += v;
            }
            count += 1;
        }
        (count > 0).then(|| Profile(sum.map(|s| s / count as f64)))
    }

    /// The percentile of one axis.
    pub fn get(&self, axis: Axis) -> f64 {
        self.0[axis.index()]
    }
}

/// The raw axes of a laid-out piece (variation measured in the original table's
/// standard deviations, as the original always does). A layout of more than
/// [`MAX_MEASURED_BARS`](crate::song::MAX_MEASURED_BARS) bars is refused, however
/// it was built.
pub fn raw_axes(layout: &Layout) -> Result<RawAxes, MeasureError> {
    if layout.blocks.len() > crate::song::MAX_MEASURED_BARS {
        return Err(MeasureError::Layout(LayoutError::TooManyBars {
            bars: layout.blocks.len() as u64,
            limit: crate::song::MAX_MEASURED_BARS,
        }));
    }
    measure_layout(layout, &Calibration::original().sds()).ok_or(MeasureError::Silent)
}

/// A score's fingerprint against `table`.
pub fn fingerprint(score: &Score, table: &Calibration) -> Result<Fingerprint, MeasureError> {
    let layout = Layout::from_score(score)?;
    Ok(Fingerprint::place(&raw_axes(&layout)?, table))
}

/// A grammar text's fingerprint against `table`, read as the original reads it.
pub fn fingerprint_text(text: &str, table: &Calibration) -> Result<Fingerprint, MeasureError> {
    let layout = Layout::from_text(text)?;
    Ok(Fingerprint::place(&raw_axes(&layout)?, table))
}
