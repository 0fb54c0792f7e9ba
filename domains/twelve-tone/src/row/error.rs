//! What can be wrong with a would-be row, said precisely enough to fix it: which value,
//! at which order position, and what is missing; for names, which historical rows come
//! closest.

use std::fmt::Write as _;

use super::PitchClass;

/// Why a row could not be built, parsed or looked up.
///
/// Order positions in the fields are 0-based; messages print them as ordinals
/// ("the 3rd position") so nobody has to guess where counting starts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RowError {
    /// Not exactly twelve pitch classes.
    #[error(
        "a twelve-tone row has 12 pitch classes, got {got}{}",
        missing_note(missing)
    )]
    WrongLength {
        /// How many were given.
        got: usize,
        /// Pitch classes 0..=11 that do not occur (in-range values only).
        missing: Vec<PitchClass>,
    },
    /// A value outside 0..=11.
    #[error(
        "pitch class {value} at the {} position is out of range (pitch classes are 0..=11)",
        ordinal(*position)
    )]
    OutOfRange {
        /// The offending value.
        value: i64,
        /// Its 0-based order position.
        position: usize,
    },
    /// A pitch class occurs more than once (so another one is missing).
    #[error(
        "pitch class {pc} occurs {} times, at the {} positions{}",
        positions.len(),
        ordinal_list(positions),
        missing_note(missing)
    )]
    Duplicate {
        /// The repeated pitch class (the first one found, in order).
        pc: PitchClass,
        /// Every 0-based order position where it occurs.
        positions: Vec<usize>,
        /// Pitch classes 0..=11 that do not occur.
        missing: Vec<PitchClass>,
    },
    /// A token of row text that is neither a number, `T`/`E`/`A`/`B`, nor a note name.
    #[error(
        "cannot read {token:?} (column {column}) as a pitch class: expected 0..=11, T/A = 10, E/B = 11, or a note name such as C, F#, Bb"
    )]
    Unreadable {
        /// The token as written.
        token: String,
        /// 1-based character column of the token in the text.
        column: usize,
    },
    /// No historical row matches the name.
    #[error("unknown historical row {name:?}{}", suggestion_note(suggestions))]
    UnknownHistorical {
        /// The name as given.
        name: String,
        /// Up to three closest ids.
        suggestions: Vec<String>,
    },
    /// Several historical rows match the name.
    #[error("{name:?} matches several historical rows: {}; say which", candidates.join(", "))]
    AmbiguousHistorical {
        /// The name as given.
        name: String,
        /// Ids of every matching row.
        candidates: Vec<String>,
    },
}

/// "1st", "2nd", "3rd", "11th", … for a 0-based position.
fn ordinal(position: usize) -> String {
    let n = position + 1;
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// "3rd and 6th" / "1st, 2nd and 5th".
fn ordinal_list(positions: &[usize]) -> String {
    let words: Vec<String> = positions.iter().map(|&p| ordinal(p)).collect();
    match words.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

fn missing_note(missing: &[PitchClass]) -> String {
    if missing.is_empty() {
        return String::new();
    }
    let mut out = String::from("; missing ");
    for (i, pc) in missing.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{pc}");
    }
    out
}

fn suggestion_note(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", suggestions.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_read_naturally() {
        let got: Vec<String> = [0, 1, 2, 3, 10, 11, 12, 20, 21]
            .iter()
            .map(|&p| ordinal(p))
            .collect();
        assert_eq!(
            got,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd"
            ]
        );
        assert_eq!(ordinal_list(&[2, 5]), "3rd and 6th");
        assert_eq!(ordinal_list(&[0, 1, 4]), "1st, 2nd and 5th");
    }
}
