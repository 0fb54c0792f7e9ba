//! Exact time and the meter: a [`Time`] is a rational number of quarter notes, so no
//! float decides where a barline falls.

use num_rational::Ratio;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Exact musical time in quarter notes.
pub type Time = Ratio<i64>;

/// Builds a [`Time`] from a numerator and denominator (quarter notes).
pub fn time(numer: i64, denom: i64) -> Time {
    Ratio::new(numer, denom)
}

/// A time signature `num/den`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Meter {
    pub num: u32,
    pub den: u32,
}

impl Meter {
    pub const COMMON: Meter = Meter { num: 4, den: 4 };

    pub fn new(num: u32, den: u32) -> Self {
        Meter { num, den }
    }

    /// Length of one bar in quarter notes: `4 * num / den`.
    pub fn bar_length(self) -> Time {
        Ratio::new(4 * i64::from(self.num), i64::from(self.den))
    }
}

/// Why a text is not a meter: it must be `num/den` with both parts whole numbers in
/// 1..=[`MAX_METER`](crate::grammar::MAX_METER) (spaces around the slash allowed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MeterError {
    pub text: String,
}

impl fmt::Display for MeterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot read meter {:?}: write it like \"3/4\" (whole numbers 1 to {})",
            self.text,
            crate::grammar::MAX_METER
        )
    }
}

impl std::error::Error for MeterError {}

/// Reads `"num/den"`: the one meter reader, used by the text grammar and by specs.
///
/// ```
/// use cantus_music::Meter;
/// assert_eq!("6 / 8".parse(), Ok(Meter::new(6, 8)));
/// assert!("0/4".parse::<Meter>().is_err());
/// ```
impl std::str::FromStr for Meter {
    type Err = MeterError;

    fn from_str(text: &str) -> Result<Meter, MeterError> {
        let bad = || MeterError { text: text.into() };
        let (num, den) = text.split_once('/').ok_or_else(bad)?;
        let part = |s: &str| {
            let s = s.trim();
            (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<u32>().ok())
                .flatten()
                .filter(|n| (1..=crate::grammar::MAX_METER).contains(n))
        };
        Ok(Meter::new(
            part(num).ok_or_else(bad)?,
            part(den).ok_or_else(bad)?,
        ))
    }
}

impl Default for Meter {
    fn default() -> Self {
        Meter::COMMON
    }
}

impl fmt::Display for Meter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.num, self.den)
    }
}
