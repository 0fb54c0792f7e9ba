//! [`Time`] as text: `"3"`, `"9/2"`, `"-1/3"`. Used with `#[serde(with = ...)]` where
//! people read the JSON (traces, reports), instead of num-rational's `[9, 2]` pairs.

use crate::score::Time;
use serde::{Deserialize, Deserializer, Serializer};

/// `"n"` for integers, `"n/d"` otherwise (always in lowest terms).
pub fn format(t: Time) -> String {
    if *t.denom() == 1 {
        t.numer().to_string()
    } else {
        format!("{}/{}", t.numer(), t.denom())
    }
}

/// Why a text is not a time.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeTextError {
    /// Not `"n"` or `"n/d"` with 64-bit integers.
    #[error("{0:?} is not a time in quarter notes (expected \"n\" or \"n/d\")")]
    Malformed(String),
    /// `"n/0"`.
    #[error("{0:?} has a zero denominator")]
    ZeroDenominator(String),
}

/// Reads `"n"` or `"n/d"` (denominator non-zero).
pub fn parse(text: &str) -> Result<Time, TimeTextError> {
    let text = text.trim();
    let bad = || TimeTextError::Malformed(text.to_string());
    match text.split_once('/') {
        None => text
            .parse::<i64>()
            .map(Time::from_integer)
            .map_err(|_| bad()),
        Some((n, d)) => {
            let n: i64 = n.trim().parse().map_err(|_| bad())?;
            let d: i64 = d.trim().parse().map_err(|_| bad())?;
            if d == 0 {
                return Err(TimeTextError::ZeroDenominator(text.to_string()));
            }
            Ok(Time::new(n, d))
        }
    }
}

/// Serializes a [`Time`] as text.
pub fn serialize<S: Serializer>(t: &Time, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format(*t))
}

/// Deserializes a [`Time`] from text.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Time, D::Error> {
    let text = String::deserialize(d)?;
    parse(&text).map_err(serde::de::Error::custom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for t in [
            Time::new(9, 2),
            Time::from_integer(3),
            Time::new(-1, 3),
            Time::new(4, 8),
        ] {
            assert_eq!(parse(&format(t)).unwrap(), t);
        }
        assert_eq!(format(Time::new(4, 8)), "1/2");
        assert!(matches!(
            parse("1/0"),
            Err(TimeTextError::ZeroDenominator(_))
        ));
        assert!(
            parse("1/0")
                .unwrap_err()
                .to_string()
                .contains("zero denominator")
        );
        assert!(parse("x").is_err());
    }
}
