//! How the spec's exact values are written as text: a meter as `"3/4"`, a fraction as
//! `"1/10"` (reading `"10%"`, `"0.1"` and plain numbers too), a seed as an integer
//! (or a string when it does not fit TOML's signed 64-bit integers).
//!
//! Exactness matters here: `max_crossing` is a threshold compared against exact
//! durations, so a decimal such as `0.1` is read as exactly 1/10, never as the
//! nearest binary float.

use cantus_music::Meter;
use num_rational::Ratio;
use serde::de::{self, Visitor};
use serde::{Deserializer, Serializer};
use std::fmt;

/// Reads an exact fraction: `"1/10"`, `"0.125"`, `"12.5%"`, `"0"`, `"1"`.
pub(crate) fn parse_fraction(text: &str) -> Result<Ratio<i64>, String> {
    let trimmed = text.trim();
    let bad = |why: &str| format!("cannot read {text:?} as a fraction: {why}");
    if let Some(percent) = trimmed.strip_suffix('%') {
        let value = parse_decimal(percent.trim()).ok_or_else(|| bad("expected e.g. \"10%\""))?;
        return Ok(value / Ratio::from_integer(100));
    }
    if let Some((num, den)) = trimmed.split_once('/') {
        let num: i64 = num
            .trim()
            .parse()
            .map_err(|_| bad("expected e.g. \"1/10\""))?;
        let den: i64 = den
            .trim()
            .parse()
            .map_err(|_| bad("expected e.g. \"1/10\""))?;
        if den == 0 {
            return Err(bad("the denominator is 0"));
        }
        return Ok(Ratio::new(num, den));
    }
    parse_decimal(trimmed).ok_or_else(|| bad("expected e.g. \"1/10\", \"0.1\" or \"10%\""))
}

/// An exact decimal such as `-0.125`; `None` if malformed or too long for `i64`.
fn parse_decimal(text: &str) -> Option<Ratio<i64>> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty() && frac.is_empty() {
        return None;
    }
    if !whole
        .chars()
        .chain(frac.chars())
        .all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let scale = 10i64.checked_pow(u32::try_from(frac.len()).ok()?)?;
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let frac: i64 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    let numer = whole.checked_mul(scale)?.checked_add(frac)?;
    let value = Ratio::new(numer, scale);
    Some(if negative { -value } else { value })
}

/// Writes a fraction as `"n/d"` (`"0"` and `"1"` for whole numbers).
pub fn format_fraction(value: Ratio<i64>) -> String {
    if value.is_integer() {
        value.to_integer().to_string()
    } else {
        format!("{}/{}", value.numer(), value.denom())
    }
}

struct FractionVisitor;

impl Visitor<'_> for FractionVisitor {
    type Value = Ratio<i64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a fraction such as \"1/10\", \"10%\" or 0.1")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        parse_fraction(v).map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Ratio::from_integer(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        i64::try_from(v)
            .map(Ratio::from_integer)
            .map_err(|_| E::custom(format!("{v} is too large for a fraction")))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        // Rust prints the shortest decimal that reads back as `v`, so `0.1` becomes
        // exactly 1/10 rather than the binary float's 3602879701896397/36028797018963968.
        if !v.is_finite() {
            return Err(E::custom(format!("{v} is not a fraction")));
        }
        parse_decimal(&v.to_string())
            .ok_or_else(|| E::custom(format!("{v} has too many digits; write it as \"n/d\"")))
    }
}

struct MeterVisitor;

impl Visitor<'_> for MeterVisitor {
    type Value = Meter;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a meter such as \"3/4\"")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        v.parse::<Meter>().map_err(E::custom)
    }
}

/// Writes `meter = "3/4"`.
pub fn serialize_meter<S: Serializer>(meter: &Meter, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(meter)
}

/// An optional `meter = "3/4"` (absent means default).
pub mod meter_opt {
    use super::*;

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Meter>, D::Error> {
        d.deserialize_str(MeterVisitor).map(Some)
    }
}

/// Writes `max_crossing = "1/10"`.
pub fn serialize_fraction<S: Serializer>(value: &Ratio<i64>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format_fraction(*value))
}

/// An optional fraction (absent means default).
pub mod fraction_opt {
    use super::*;

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Ratio<i64>>, D::Error> {
        d.deserialize_any(FractionVisitor).map(Some)
    }
}

/// Reads an explicit row's pitch classes through [`crate::row::Row`]'s own deserialiser (a list
/// of integers or row text), so a bad row gets the row engine's explanation.
pub fn row_pcs<'de, D: Deserializer<'de>>(d: D) -> Result<[u8; 12], D::Error> {
    use serde::Deserialize;
    crate::row::Row::deserialize(d).map(|row| row.pcs())
}

/// A `u64` seed: an integer when it fits `i64` (TOML's integers), else a string.
pub mod seed {
    use super::*;

    pub fn serialize<S: Serializer>(seed: &u64, s: S) -> Result<S::Ok, S::Error> {
        match i64::try_from(*seed) {
            Ok(small) => s.serialize_i64(small),
            Err(_) => s.collect_str(seed),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        d.deserialize_any(SeedVisitor)
    }

    struct SeedVisitor;

    impl Visitor<'_> for SeedVisitor {
        type Value = u64;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a seed 0..=18446744073709551615 (an integer, or a string of digits)")
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| E::custom(format!("seed {v} is negative")))
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
            v.trim()
                .parse()
                .map_err(|_| E::custom(format!("cannot read seed {v:?}: expected digits")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_and_percentages_are_exact() {
        assert_eq!(parse_fraction("0.1"), Ok(Ratio::new(1, 10)));
        assert_eq!(parse_fraction("12.5%"), Ok(Ratio::new(1, 8)));
        assert_eq!(parse_fraction(" 3/12 "), Ok(Ratio::new(1, 4)));
        assert_eq!(parse_fraction("1"), Ok(Ratio::from_integer(1)));
        assert!(parse_fraction("1/0").is_err());
        assert!(parse_fraction("ten").is_err());
        assert!(parse_fraction("0.1234567890123456789012").is_err());
    }

    #[test]
    fn meters_read_with_or_without_spaces() {
        assert_eq!("6/8".parse::<Meter>(), Ok(Meter::new(6, 8)));
        assert_eq!(" 3 / 4 ".parse::<Meter>(), Ok(Meter::new(3, 4)));
        assert!("3-4".parse::<Meter>().is_err());
        assert!("/4".parse::<Meter>().is_err());
    }

    #[test]
    fn fractions_print_in_lowest_terms() {
        assert_eq!(format_fraction(Ratio::new(2, 20)), "1/10");
        assert_eq!(format_fraction(Ratio::from_integer(0)), "0");
    }
}
