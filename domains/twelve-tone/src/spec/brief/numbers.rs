//! Numbers as people write them in a brief: digits (`24`), words (`twenty-four`,
//! `a hundred and twelve`, `two dozen`), ordinals (`third`, `3rd`, `last`), and the
//! names of intervals (`the fifth`, `a minor third`) used for canon transpositions.

use super::tokens::{Kind, Token};

const UNITS: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];

const TENS: [&str; 8] = [
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

const ORDINALS: [&str; 12] = [
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    "eleventh", "twelfth",
];

fn word(tokens: &[Token], i: usize) -> Option<&str> {
    tokens
        .get(i)
        .filter(|t| t.kind == Kind::Word)
        .map(|t| t.norm.as_str())
}

fn unit_value(w: &str) -> Option<u64> {
    UNITS.iter().position(|u| *u == w).map(|v| v as u64)
}

fn tens_value(w: &str) -> Option<u64> {
    TENS.iter()
        .position(|t| *t == w)
        .map(|v| 20 + 10 * v as u64)
}

/// A cardinal number starting at token `i`: its value and how many tokens it spans.
pub(crate) fn number_at(tokens: &[Token], i: usize) -> Option<(u64, usize)> {
    if let Some(Token {
        kind: Kind::Number(n),
        ..
    }) = tokens.get(i)
    {
        return Some((*n, 1));
    }
    // "a hundred", "a thousand", "a dozen".
    if matches!(word(tokens, i), Some("a" | "an"))
        && matches!(word(tokens, i + 1), Some("hundred" | "thousand" | "dozen"))
    {
        let (value, len) = words_number(tokens, i + 1, 1)?;
        return Some((value, len + 1));
    }
    words_number(tokens, i, 0)
}

/// What the previous number word was, to know what may follow it.
#[derive(Clone, Copy, PartialEq)]
enum Last {
    Nothing,
    Unit,
    Tens,
    Scale,
}

/// Number words from `i`; `implied` is the value of an implicit leading "a" (1) or 0.
fn words_number(tokens: &[Token], i: usize, implied: u64) -> Option<(u64, usize)> {
    let mut total: u64 = 0;
    let mut current: u64 = implied;
    let mut last = if implied > 0 {
        Last::Unit
    } else {
        Last::Nothing
    };
    let mut j = i;
    let mut used_until = i;
    while let Some(w) = word(tokens, j) {
        if let Some(v) = unit_value(w) {
            let allowed = match last {
                Last::Nothing | Last::Scale => true,
                Last::Tens => v < 10 && v > 0,
                Last::Unit => false,
            };
            if !allowed {
                break;
            }
            current += v;
            last = Last::Unit;
        } else if let Some(v) = tens_value(w) {
            if !matches!(last, Last::Nothing | Last::Scale) {
                break;
            }
            current += v;
            last = Last::Tens;
        } else if w == "hundred" && last != Last::Nothing && current > 0 && current < 100 {
            current *= 100;
            last = Last::Scale;
        } else if w == "dozen" && last != Last::Nothing && current > 0 && current < 100 {
            current *= 12;
            last = Last::Scale;
        } else if w == "thousand" && last != Last::Nothing && (current > 0 || total > 0) {
            total = total.saturating_add(current.max(1).saturating_mul(1000));
            current = 0;
            last = Last::Scale;
        } else if w == "and"
            && last == Last::Scale
            && word(tokens, j + 1)
                .is_some_and(|n| unit_value(n).is_some() || tens_value(n).is_some())
        {
            j += 1;
            continue;
        } else {
            break;
        }
        j += 1;
        used_until = j;
    }
    if used_until == i {
        return None;
    }
    Some((total.saturating_add(current), used_until - i))
}

/// An ordinal position in a list of voices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ordinal {
    /// The n-th (1-based).
    Nth(u64),
    /// The last one.
    Last,
}

/// An ordinal at token `i` (`third`, `3rd`, `last`, `bottom`): its value and length 1.
pub(crate) fn ordinal_at(tokens: &[Token], i: usize) -> Option<Ordinal> {
    match tokens.get(i) {
        Some(Token {
            kind: Kind::Ordinal(n),
            ..
        }) => Some(Ordinal::Nth(*n)),
        Some(t) if t.kind == Kind::Word => match t.norm.as_str() {
            "last" | "final" => Some(Ordinal::Last),
            w => ORDINALS
                .iter()
                .position(|o| *o == w)
                .map(|p| Ordinal::Nth(p as u64 + 1)),
        },
        _ => None,
    }
}

/// An interval name starting at token `i` (`fifth`, `minor third`, `perfect fourth`,
/// `octave`, `tritone`, `unison`): semitones and tokens spanned.
pub(crate) fn interval_at(tokens: &[Token], i: usize) -> Option<(i8, usize)> {
    let quality = word(tokens, i);
    let (minor, skip) = match quality {
        Some("minor") => (Some(true), 1),
        Some("major") => (Some(false), 1),
        Some("perfect") => (None, 1),
        _ => (None, 0),
    };
    let name = word(tokens, i + skip)?;
    let semitones = match (name, minor) {
        ("unison" | "prime", None) => 0,
        ("second", Some(true)) | ("semitone", None) => 1,
        ("second", _) | ("tone", None) => 2,
        ("third", Some(true)) => 3,
        ("third", _) => 4,
        ("fourth", None) => 5,
        ("tritone", None) => 6,
        ("fifth", None) => 7,
        ("sixth", Some(true)) => 8,
        ("sixth", _) => 9,
        ("seventh", Some(true)) => 10,
        ("seventh", _) => 11,
        ("octave", None) => 12,
        _ => return None,
    };
    Some((semitones, skip + 1))
}

#[cfg(test)]
mod tests {
    use super::super::tokens::tokenize;
    use super::*;

    fn value(text: &str) -> Option<(u64, usize)> {
        number_at(&tokenize(text).expect("tokenizes"), 0)
    }

    #[test]
    fn number_words_compose() {
        assert_eq!(value("sixteen bars"), Some((16, 1)));
        assert_eq!(value("twenty-four measures"), Some((24, 2)));
        assert_eq!(value("a hundred and twelve"), Some((112, 4)));
        assert_eq!(value("two thousand"), Some((2000, 2)));
        assert_eq!(value("a thousand bars"), Some((1000, 2)));
        assert_eq!(value("two dozen"), Some((24, 2)));
        assert_eq!(value("32 bar"), Some((32, 1)));
    }

    #[test]
    fn number_words_stop_where_the_number_ends() {
        assert_eq!(value("one two"), Some((1, 1)));
        assert_eq!(value("twenty twenty"), Some((20, 1)));
        assert_eq!(value("three and four"), Some((3, 1)));
        assert_eq!(value("a piece"), None);
        assert_eq!(value("hundred"), None);
    }

    #[test]
    fn ordinals_and_intervals() {
        let t = tokenize("third 2nd last fifth minor third octave").expect("tokenizes");
        assert_eq!(ordinal_at(&t, 0), Some(Ordinal::Nth(3)));
        assert_eq!(ordinal_at(&t, 1), Some(Ordinal::Nth(2)));
        assert_eq!(ordinal_at(&t, 2), Some(Ordinal::Last));
        assert_eq!(interval_at(&t, 3), Some((7, 1)));
        assert_eq!(interval_at(&t, 4), Some((3, 2)));
        assert_eq!(interval_at(&t, 6), Some((12, 1)));
        assert_eq!(interval_at(&t, 2), None);
    }
}
