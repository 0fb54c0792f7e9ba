//! Tempo between exact beats per minute and MIDI's microseconds per quarter note.
//!
//! MIDI stores a tempo as a whole number of microseconds per quarter (a 24-bit
//! field), so most tempi are rounded on the way out. On the way back we do not
//! return the raw quotient `60 000 000 / µs` (for 7 bpm that would be
//! `60000000/8571429`): we return the fraction with the smallest denominator
//! (up to [`MAX_TEMPO_DENOMINATOR`]) that rounds to the same microseconds. Integral
//! tempi and simple fractions (`135/2`) therefore survive a round trip exactly, and
//! `micros_per_quarter(bpm_from_micros(µs)) == µs` holds for every µs.

use super::MidiError;
use crate::score::Time;

/// Microseconds in a minute.
const MICROS_PER_MINUTE: i128 = 60_000_000;

/// Largest tempo MIDI can store, in microseconds per quarter (2²⁴ − 1).
pub(crate) const MAX_MICROS: u32 = 0x00FF_FFFF;

/// Denominators tried when turning microseconds back into beats per minute.
pub(crate) const MAX_TEMPO_DENOMINATOR: i64 = 100;

/// Microseconds per quarter note for an exact tempo in quarter-note beats per
/// minute, rounded to the nearest microsecond (halves up).
///
/// Errors when the tempo is not positive or is too slow for MIDI's 24-bit field
/// (below about 3.58 bpm).
pub(crate) fn micros_per_quarter(bpm: Time) -> Result<u32, MidiError> {
    let (n, d) = (i128::from(*bpm.numer()), i128::from(*bpm.denom()));
    // A Ratio keeps its denominator positive; guard anyway so odd values cannot divide by 0.
    if n <= 0 || d <= 0 {
        return Err(MidiError::Unwritable(format!(
            "tempo {bpm} bpm is not positive"
        )));
    }
    let micros = (2 * MICROS_PER_MINUTE * d + n) / (2 * n);
    match u32::try_from(micros) {
        Ok(m) if (1..=MAX_MICROS).contains(&m) => Ok(m),
        _ => Err(MidiError::Unwritable(format!(
            "tempo {bpm} bpm is outside what MIDI can store (1..={MAX_MICROS} µs per quarter)"
        ))),
    }
}

/// The simplest exact tempo (quarter-note bpm) that [`micros_per_quarter`] turns into
/// `micros`: the fraction with the smallest denominator up to
/// [`MAX_TEMPO_DENOMINATOR`], else exactly `60 000 000 / micros`.
/// `None` for 0 µs (no finite tempo).
pub(crate) fn bpm_from_micros(micros: u32) -> Option<Time> {
    if micros == 0 {
        return None;
    }
    let us = i128::from(micros);
    // round(60e6 / x) == us  ⟺  120e6 / (2us + 1) < x ≤ 120e6 / (2us − 1).
    let lo_den = 2 * us + 1;
    let hi_den = 2 * us - 1;
    for q in 1..=i128::from(MAX_TEMPO_DENOMINATOR) {
        // Smallest p with p/q strictly above the lower bound.
        let p = 2 * MICROS_PER_MINUTE * q / lo_den + 1;
        if p * hi_den <= 2 * MICROS_PER_MINUTE * q {
            // p ≤ 120e6·q and q ≤ 100: both fit i64.
            let (p, q) = (i64::try_from(p).ok()?, i64::try_from(q).ok()?);
            return Some(Time::new(p, q));
        }
    }
    Some(Time::new(60_000_000, i64::from(micros)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::time;

    #[test]
    fn integral_and_simple_tempi_round_trip() {
        for bpm in 4..=400 {
            let t = time(bpm, 1);
            let us = micros_per_quarter(t).expect("writable");
            assert_eq!(bpm_from_micros(us), Some(t), "{bpm} bpm via {us} µs");
        }
        for t in [time(135, 2), time(200, 3), time(241, 4)] {
            let us = micros_per_quarter(t).expect("writable");
            assert_eq!(bpm_from_micros(us), Some(t));
        }
        assert_eq!(micros_per_quarter(time(120, 1)), Ok(500_000));
        assert_eq!(micros_per_quarter(time(7, 1)), Ok(8_571_429));
    }

    #[test]
    fn reading_then_writing_keeps_the_microseconds() {
        for us in [1, 2, 3, 499_999, 500_000, 500_001, 857_143, MAX_MICROS] {
            let bpm = bpm_from_micros(us).expect("finite");
            assert_eq!(micros_per_quarter(bpm), Ok(us), "{us} µs via {bpm}");
        }
        assert_eq!(bpm_from_micros(0), None);
    }

    #[test]
    fn unwritable_tempi_are_errors() {
        assert!(micros_per_quarter(time(0, 1)).is_err());
        assert!(micros_per_quarter(time(-60, 1)).is_err());
        assert!(
            micros_per_quarter(time(3, 1)).is_err(),
            "20 000 000 µs > 2^24"
        );
        assert!(
            micros_per_quarter(time(120_000_001, 1)).is_err(),
            "rounds to 0 µs"
        );
    }
}
