//! Written note values: how an exact duration becomes `<type>`, `<dot/>` and
//! `<time-modification>`, and exact decimal numbers for MusicXML's decimal fields.
//!
//! MusicXML stores a note's length twice: exactly, as `<duration>` in divisions,
//! and visually, as a note type with dots and an optional tuplet ratio. Readers
//! (this one included) trust `<duration>`; notation programs draw the type. This
//! module finds, for any exact duration, a short list of drawable values that
//! add up to it exactly, so the writer can tie them together.

use crate::score::Time;
use num_traits::{CheckedMul, Zero};

/// A base note type, from the 1024th note to the maxima (32 quarter notes);
/// each variant is the MusicXML `<type>` of the same name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoteType {
    N1024th,
    N512th,
    N256th,
    N128th,
    N64th,
    N32nd,
    N16th,
    Eighth,
    Quarter,
    Half,
    Whole,
    Breve,
    Long,
    Maxima,
}

impl NoteType {
    /// Longest first.
    const DESCENDING: [NoteType; 14] = [
        NoteType::Maxima,
        NoteType::Long,
        NoteType::Breve,
        NoteType::Whole,
        NoteType::Half,
        NoteType::Quarter,
        NoteType::Eighth,
        NoteType::N16th,
        NoteType::N32nd,
        NoteType::N64th,
        NoteType::N128th,
        NoteType::N256th,
        NoteType::N512th,
        NoteType::N1024th,
    ];

    /// Length of the undotted, untupleted type in quarter notes.
    pub fn quarters(self) -> Time {
        match self {
            NoteType::N1024th => Time::new(1, 256),
            NoteType::N512th => Time::new(1, 128),
            NoteType::N256th => Time::new(1, 64),
            NoteType::N128th => Time::new(1, 32),
            NoteType::N64th => Time::new(1, 16),
            NoteType::N32nd => Time::new(1, 8),
            NoteType::N16th => Time::new(1, 4),
            NoteType::Eighth => Time::new(1, 2),
            NoteType::Quarter => Time::from_integer(1),
            NoteType::Half => Time::from_integer(2),
            NoteType::Whole => Time::from_integer(4),
            NoteType::Breve => Time::from_integer(8),
            NoteType::Long => Time::from_integer(16),
            NoteType::Maxima => Time::from_integer(32),
        }
    }

    /// The type a MusicXML `<type>` text names (MEI's `dur` values are read
    /// through [`NoteType::from_mei_dur`]).
    pub fn from_musicxml_name(name: &str) -> Option<NoteType> {
        NoteType::DESCENDING
            .into_iter()
            .find(|t| t.musicxml_name() == name)
    }

    /// The type an MEI `@dur` names: `long`, `breve`, `1`, `2`, `4` … `1024`.
    pub fn from_mei_dur(dur: &str) -> Option<NoteType> {
        Some(match dur {
            "maxima" => NoteType::Maxima,
            "long" => NoteType::Long,
            "breve" => NoteType::Breve,
            "1" => NoteType::Whole,
            "2" => NoteType::Half,
            "4" => NoteType::Quarter,
            "8" => NoteType::Eighth,
            "16" => NoteType::N16th,
            "32" => NoteType::N32nd,
            "64" => NoteType::N64th,
            "128" => NoteType::N128th,
            "256" => NoteType::N256th,
            "512" => NoteType::N512th,
            "1024" => NoteType::N1024th,
            _ => return None,
        })
    }

    /// Length of this type with `dots` dots, in quarter notes.
    pub fn dotted(self, dots: u32) -> Time {
        let base = self.quarters();
        let mut total = base;
        let mut add = base;
        for _ in 0..dots.min(8) {
            add /= 2;
            total += add;
        }
        total
    }

    /// The MusicXML `<type>` text.
    pub fn musicxml_name(self) -> &'static str {
        match self {
            NoteType::N1024th => "1024th",
            NoteType::N512th => "512th",
            NoteType::N256th => "256th",
            NoteType::N128th => "128th",
            NoteType::N64th => "64th",
            NoteType::N32nd => "32nd",
            NoteType::N16th => "16th",
            NoteType::Eighth => "eighth",
            NoteType::Quarter => "quarter",
            NoteType::Half => "half",
            NoteType::Whole => "whole",
            NoteType::Breve => "breve",
            NoteType::Long => "long",
            NoteType::Maxima => "maxima",
        }
    }
}

/// One drawable value: a type, up to three dots, an optional tuplet ratio
/// (`actual` notes in the time of `normal`), and the exact duration it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NoteValue {
    pub note_type: NoteType,
    pub dots: u8,
    /// `(actual, normal)`, e.g. `(3, 2)` for triplets.
    pub tuplet: Option<(u32, u32)>,
    /// Exact sounding duration in quarter notes.
    pub duration: Time,
}

/// Most pieces one duration may be split into before the writer gives up on
/// note types and writes the duration alone.
const MAX_PIECES: usize = 8;
/// Largest odd tuplet numerator handled (3, 5, 7, ..., 15).
const MAX_TUPLET: i64 = 15;

/// Drawable values, longest first, whose durations add up to `duration` exactly.
///
/// Dyadic durations use plain types with dots; a duration whose denominator has
/// an odd factor `m` (3 → triplets, 5 → quintuplets, ...) uses the tuplet
/// `m : largest power of two below m`. `None` when no short exact list exists
/// (zero or negative duration, a 2048th, a 17-tuplet, more than eight pieces):
/// the writer then writes `<duration>` without a type, which MusicXML allows.
pub fn notated_values(duration: Time) -> Option<Vec<NoteValue>> {
    if duration <= Time::zero() {
        return None;
    }
    let mut odd = *duration.denom();
    while odd % 2 == 0 {
        odd /= 2;
    }
    let (tuplet, scale) = if odd == 1 {
        (None, Time::from_integer(1))
    } else if odd <= MAX_TUPLET {
        let mut normal = 1;
        while normal * 2 < odd {
            normal *= 2;
        }
        let ratio = (u32::try_from(odd).ok()?, u32::try_from(normal).ok()?);
        (Some(ratio), Time::new(odd, normal))
    } else {
        return None;
    };
    // The value as drawn (before the tuplet shortens it) is dyadic.
    let mut drawn = duration.checked_mul(&scale)?;
    let smallest = NoteType::N1024th.quarters();
    let mut pieces = Vec::new();
    while drawn > Time::zero() {
        if pieces.len() == MAX_PIECES {
            return None;
        }
        let note_type = NoteType::DESCENDING
            .into_iter()
            .find(|t| t.quarters() <= drawn)?;
        let base = note_type.quarters();
        let mut dots = 0u8;
        let mut value = base;
        let mut dot_value = base / 2;
        while dots < 3 && dot_value >= smallest && value + dot_value <= drawn {
            value += dot_value;
            dot_value /= 2;
            dots += 1;
        }
        drawn -= value;
        pieces.push(NoteValue {
            note_type,
            dots,
            tuplet,
            duration: value / scale,
        });
    }
    Some(pieces)
}

/// Formats a non-negative exact number as a decimal: exactly when its
/// denominator has no prime factor but 2 and 5 (and at most 18 decimals are
/// needed), else rounded half-up to six decimals. Trailing zeros are dropped.
pub(crate) fn format_decimal(value: Time) -> String {
    let numer = i128::from(*value.numer());
    let denom = i128::from(*value.denom());
    let mut rest = denom;
    let (mut twos, mut fives) = (0u32, 0u32);
    while rest % 2 == 0 {
        rest /= 2;
        twos += 1;
    }
    while rest % 5 == 0 {
        rest /= 5;
        fives += 1;
    }
    let digits = if rest == 1 && twos.max(fives) <= 18 {
        twos.max(fives)
    } else {
        6
    };
    let scale = 10i128.pow(digits);
    let negative = numer < 0;
    // numer * scale fits: |numer| < 2^63, scale ≤ 10^18 < 2^60.
    let scaled = (numer.abs() * scale * 2 + denom) / (denom * 2);
    let int_part = scaled / scale;
    let frac_part = scaled % scale;
    let mut out = String::new();
    if negative && scaled != 0 {
        out.push('-');
    }
    out.push_str(&int_part.to_string());
    if frac_part != 0 {
        let frac = format!("{:0width$}", frac_part, width = digits as usize);
        out.push('.');
        out.push_str(frac.trim_end_matches('0'));
    }
    out
}

/// Parses an XML Schema decimal (`12`, `-0.5`, `.25`, `3.`) exactly; `None` for
/// anything else or more than 18 digits.
pub(crate) fn parse_decimal(text: &str) -> Option<Time> {
    let text = text.trim();
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, text.get(1..)?),
        Some(b'+') => (false, text.get(1..)?),
        _ => (false, text),
    };
    let (int_digits, frac_digits) = match body.split_once('.') {
        Some((i, f)) => (i, f),
        None => (body, ""),
    };
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int_digits.len() + frac_digits.len() == 0
        || int_digits.len() + frac_digits.len() > 18
        || !all_digits(int_digits)
        || !all_digits(frac_digits)
    {
        return None;
    }
    let mut numer: i64 = 0;
    for b in int_digits.bytes().chain(frac_digits.bytes()) {
        numer = numer * 10 + i64::from(b - b'0');
    }
    let denom = 10i64.pow(u32::try_from(frac_digits.len()).ok()?);
    let value = Time::new(numer, denom);
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::time;

    fn sum(values: &[NoteValue]) -> Time {
        values.iter().map(|v| v.duration).sum()
    }

    #[test]
    fn plain_and_dotted_values_are_single_notes() {
        let q = notated_values(time(1, 1)).expect("quarter");
        assert_eq!(q.len(), 1);
        assert_eq!(
            (q[0].note_type, q[0].dots, q[0].tuplet),
            (NoteType::Quarter, 0, None)
        );
        let dd = notated_values(time(7, 2)).expect("double-dotted half");
        assert_eq!(dd.len(), 1);
        assert_eq!((dd[0].note_type, dd[0].dots), (NoteType::Half, 2));
    }

    #[test]
    fn awkward_durations_split_into_exact_pieces() {
        let five = notated_values(time(5, 1)).expect("whole + quarter");
        assert_eq!(
            five.iter().map(|v| v.note_type).collect::<Vec<_>>(),
            vec![NoteType::Whole, NoteType::Quarter]
        );
        for d in [
            time(5, 3),
            time(7, 12),
            time(2, 5),
            time(9, 7),
            time(13, 16),
        ] {
            let v = notated_values(d).expect("notatable");
            assert_eq!(sum(&v), d, "{d}");
        }
    }

    #[test]
    fn triplets_use_three_in_two() {
        let t = notated_values(time(1, 3)).expect("triplet eighth");
        assert_eq!(t.len(), 1);
        assert_eq!(
            (t[0].note_type, t[0].tuplet),
            (NoteType::Eighth, Some((3, 2)))
        );
        let q = notated_values(time(2, 5)).expect("quintuplet eighth");
        assert_eq!(
            (q[0].note_type, q[0].tuplet),
            (NoteType::Eighth, Some((5, 4)))
        );
    }

    #[test]
    fn unnotatable_durations_are_none() {
        assert!(notated_values(time(0, 1)).is_none());
        assert!(
            notated_values(time(1, 512)).is_none(),
            "shorter than a 1024th"
        );
        assert!(notated_values(time(1, 17)).is_none(), "17-tuplet");
    }

    #[test]
    fn decimals_are_exact_when_they_terminate() {
        assert_eq!(format_decimal(time(120, 1)), "120");
        assert_eq!(format_decimal(time(225, 2)), "112.5");
        assert_eq!(format_decimal(time(1, 80)), "0.0125");
        assert_eq!(format_decimal(time(100, 3)), "33.333333");
        assert_eq!(format_decimal(time(200, 3)), "66.666667");
        assert_eq!(parse_decimal("112.5"), Some(time(225, 2)));
        assert_eq!(parse_decimal(" .25 "), Some(time(1, 4)));
        assert_eq!(parse_decimal("-3."), Some(time(-3, 1)));
        assert_eq!(parse_decimal("1e3"), None);
        assert_eq!(parse_decimal("."), None);
        assert_eq!(parse_decimal("1234567890123456789"), None);
    }
}
