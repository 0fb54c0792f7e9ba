//! Exact time on the proposer's grid: integer ticks, the meter's pulse, and which
//! bars of a section are triplet bars.
//!
//! Every onset and duration the proposer writes must be something the score formats
//! can notate: sixteenths (or finer, in meters with short beats) in ordinary bars, and
//! triplet eighths in triplet bars. The text grammar picks ONE grid per bar for all
//! voices together, so whether a bar is a triplet bar is decided once per bar (from the
//! run's seed), never per voice; in a triplet bar every voice keeps to multiples of a
//! sixth of a quarter (no sixteenths). Working in integer ticks of 1/48 quarter keeps
//! all of this exact; [`to_time`] converts back to [`Time`] without rounding.

use crate::blueprint::{Blueprint, SectionPlan};
use cantus_framework::ProposerError;
use cantus_music::{Meter, Time};
use num_traits::CheckedMul;

/// Ticks per quarter note: divisible by 4 (sixteenths), 3 (triplet eighths) and 16.
pub(crate) const TICKS_PER_QUARTER: i64 = 48;
/// A sixteenth note.
pub(crate) const SIXTEENTH: i64 = 12;
/// The grid of a triplet bar: a sixth of a quarter (triplet eighths and plain eighths).
pub(crate) const TRIPLET_UNIT: i64 = 8;
/// One in this many plain-quarter bars becomes a triplet bar (on average).
const TRIPLET_BAR_ODDS: u32 = 5;

/// `ticks` as exact time.
pub(crate) fn to_time(ticks: i64) -> Time {
    Time::new(ticks, TICKS_PER_QUARTER)
}

/// `t` in ticks, rounded down; `None` for negative or absurdly large times.
pub(crate) fn floor_ticks(t: Time) -> Option<i64> {
    if t < Time::from_integer(0) {
        return None;
    }
    t.checked_mul(&Time::from_integer(TICKS_PER_QUARTER))
        .map(|x| x.floor().to_integer())
}

/// `t` in ticks, rounded up; `None` for negative or absurdly large times.
pub(crate) fn ceil_ticks(t: Time) -> Option<i64> {
    if t < Time::from_integer(0) {
        return None;
    }
    t.checked_mul(&Time::from_integer(TICKS_PER_QUARTER))
        .map(|x| x.ceil().to_integer())
}

/// How the meter's beat divides, which decides the rhythmic cells that fit it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PulseKind {
    /// A quarter-note pulse (x/4, and x/2, x/1 counted in quarters).
    Quarter,
    /// A dotted-quarter pulse (compound x/8: 6/8, 9/8, 12/8).
    DottedQuarter,
    /// An eighth-note pulse (3/8, 5/8, 7/8 …).
    Eighth,
    /// A pulse of a sixteenth or less (x/16, x/32, x/64).
    Fine,
}

/// The unit the proposer counts a bar in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pulse {
    pub kind: PulseKind,
    /// Length in ticks.
    pub ticks: i64,
}

/// The pulse of `meter` and its bar length in ticks.
fn pulse_of(meter: Meter) -> Result<(Pulse, i64), ProposerError> {
    let unsupported = || {
        ProposerError::BadOutput(format!(
            "the embedded proposer cannot write the meter {meter}: the denominator must be 1, 2, 4, 8, 16, 32 or 64"
        ))
    };
    let den = i64::from(meter.den);
    let num = i64::from(meter.num);
    if den == 0 || 4 * TICKS_PER_QUARTER % den != 0 || num == 0 {
        return Err(unsupported());
    }
    let bar = 4 * TICKS_PER_QUARTER / den * num;
    let pulse = match den {
        1 | 2 | 4 => Pulse {
            kind: PulseKind::Quarter,
            ticks: TICKS_PER_QUARTER,
        },
        8 if num % 3 == 0 && num >= 6 => Pulse {
            kind: PulseKind::DottedQuarter,
            ticks: 72,
        },
        8 => Pulse {
            kind: PulseKind::Eighth,
            ticks: 24,
        },
        16 | 32 | 64 => Pulse {
            kind: PulseKind::Fine,
            ticks: 4 * TICKS_PER_QUARTER / den,
        },
        _ => return Err(unsupported()),
    };
    Ok((pulse, bar))
}

/// One section's clock: bar and pulse lengths, and which of its bars are triplet bars.
#[derive(Clone, Debug)]
pub(crate) struct Clock {
    pub pulse: Pulse,
    /// Bar length in ticks.
    pub bar: i64,
    /// Section start and end in ticks.
    pub start: i64,
    pub end: i64,
    /// Per bar of the section: whether it is a triplet bar.
    triplet: Vec<bool>,
}

impl Clock {
    /// The clock of `section`. Triplet bars are drawn from the seed and the absolute
    /// bar number (so every request about this section agrees), only in x/4 meters,
    /// and kept equal across every canon's delay so a follower's copy of a triplet
    /// bar lands in a triplet bar.
    pub fn new(plan: &Blueprint, section: &SectionPlan, seed: u64) -> Result<Clock, ProposerError> {
        let (pulse, bar) = pulse_of(plan.meter)?;
        let bad_time = || {
            ProposerError::BadOutput(format!(
                "section {} has times the proposer cannot count",
                section.index + 1
            ))
        };
        let start = floor_ticks(section.start).ok_or_else(bad_time)?;
        let end = floor_ticks(section.end).ok_or_else(bad_time)?;
        let bars = usize::try_from(section.bars).unwrap_or(0);
        // Triplet bars only where every voice has room for its row in eighths.
        let longest_tail = (0..plan.limits.voices.len())
            .map(|v| super::canon::tail(&plan.canons, v))
            .max()
            .unwrap_or_default();
        let roomy = floor_ticks(section.end - section.start - longest_tail)
            .is_some_and(|room| room >= 12 * 2 * SIXTEENTH);
        let mut triplet: Vec<bool> = (0..bars)
            .map(|i| {
                roomy && plan.meter.den == 4 && {
                    let absolute = u64::from(section.first_bar) + i as u64;
                    super::rng_for(seed, &[0x7219_1E75, absolute]).u32(..TRIPLET_BAR_ODDS) == 0
                }
            })
            .collect();
        let delays: Vec<usize> = plan
            .canons
            .iter()
            .filter_map(|c| floor_ticks(c.delay))
            .filter(|&d| bar > 0 && d % bar == 0)
            .filter_map(|d| usize::try_from(d / bar).ok())
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for &d in &delays {
                for i in 0..bars.saturating_sub(d) {
                    if triplet[i] != triplet[i + d] {
                        triplet[i] = false;
                        triplet[i + d] = false;
                        changed = true;
                    }
                }
            }
        }
        Ok(Clock {
            pulse,
            bar,
            start,
            end,
            triplet,
        })
    }

    /// Index within the section of the bar holding tick `t` (clamped to the section).
    pub fn bar_index(&self, t: i64) -> usize {
        let i = (t - self.start).max(0) / self.bar.max(1);
        usize::try_from(i).unwrap_or(0)
    }

    /// Start tick of the bar holding `t`.
    pub fn bar_start(&self, t: i64) -> i64 {
        self.start + (t - self.start).max(0) / self.bar.max(1) * self.bar
    }

    /// Whether the bar holding `t` is a triplet bar.
    pub fn is_triplet(&self, t: i64) -> bool {
        self.triplet
            .get(self.bar_index(t))
            .copied()
            .unwrap_or(false)
    }

    /// The grid unit of the bar holding `t`.
    pub fn unit(&self, t: i64) -> i64 {
        if self.is_triplet(t) {
            TRIPLET_UNIT
        } else {
            SIXTEENTH.min(self.pulse.ticks)
        }
    }

    /// Whether a note from `onset` to `end` sits on the grid: both ends on their
    /// bar's grid, and a note touching a triplet bar stays inside one bar.
    pub fn fits(&self, onset: i64, end: i64) -> bool {
        if end <= onset || onset < self.start || end > self.end {
            return false;
        }
        let unit_on = self.unit(onset);
        let same_bar = self.bar_start(onset) == self.bar_start(end - 1);
        let crossing_ok = same_bar || !(self.is_triplet(onset) || self.is_triplet(end - 1));
        crossing_ok
            && (onset - self.start) % unit_on == 0
            && (end - onset) % unit_on == 0
            && (end - self.start) % self.unit(end - 1) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meters_get_the_pulse_their_beat_implies() {
        let kind = |n, d| pulse_of(Meter::new(n, d)).map(|(p, bar)| (p.kind, p.ticks, bar));
        assert_eq!(kind(3, 4), Ok((PulseKind::Quarter, 48, 144)));
        assert_eq!(kind(6, 8), Ok((PulseKind::DottedQuarter, 72, 144)));
        assert_eq!(kind(5, 8), Ok((PulseKind::Eighth, 24, 120)));
        assert_eq!(kind(7, 16), Ok((PulseKind::Fine, 12, 84)));
        assert_eq!(kind(2, 2), Ok((PulseKind::Quarter, 48, 192)));
        assert!(kind(3, 5).is_err());
    }

    #[test]
    fn ticks_round_the_right_way_and_refuse_negative_times() {
        assert_eq!(floor_ticks(Time::new(1, 5)), Some(9));
        assert_eq!(ceil_ticks(Time::new(1, 5)), Some(10));
        assert_eq!(floor_ticks(Time::new(-1, 4)), None);
        assert_eq!(to_time(12), Time::new(1, 4));
    }
}
