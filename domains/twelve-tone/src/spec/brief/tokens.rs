//! Cutting a brief into tokens that remember where they came from.
//!
//! Every token keeps its character position (for error messages: "at character 24")
//! and its byte range (so a phrase can be quoted exactly as the user wrote it).
//! Words are lower-cased and their possessive `'s` is dropped (`Webern's` → `webern`);
//! hyphens separate words (`16-bar` → `16`, `bar`; `twenty-four` → `twenty`, `four`)
//! so that rules see one spelling for each phrase. `3/4` is one fraction token,
//! `1st` one ordinal, `"…"` (straight or curly quotes) one quoted token.
//!
//! Every quantity in a brief is a whole positive number, so a number written any
//! other way is refused here, quoted, rather than misread: `72.5` (a decimal point
//! is not a separator: that was read as 72 and 5), `-3` (a minus before digits is
//! not a hyphen: that was read as 3), and digits past `u64::MAX` (which saturated).
//! A decimal whose fraction is all zeros (`60.0`) is the whole number it equals.

use std::ops::Range;

/// What a token is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A word, lower-case, possessive removed (`norm`); may contain `#`, `♯`, `♭`
    /// after a letter (note names such as `F#`).
    Word,
    /// Digits (a whole number that fits a `u64`; see [`BadNumber`]).
    Number(u64),
    /// `n/d` written without spaces or with spaces around the slash.
    Fraction(u64, u64),
    /// `1st`, `2nd`, `3rd`, `4th`, …
    Ordinal(u64),
    /// Text between quotation marks, without them.
    Quoted(String),
    /// Any other single character: punctuation, `♩`, `=`, `%`, …
    Symbol(char),
}

/// One token of a brief.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    /// What it is.
    pub kind: Kind,
    /// Lower-case word without possessive (words only; empty otherwise).
    pub norm: String,
    /// 0-based character index of its first character in the brief.
    pub start: usize,
    /// Byte range in the brief, quotes included for quoted text.
    pub bytes: Range<usize>,
}

/// Why a brief could not be cut into tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TokenError {
    /// A quotation mark opened at this 0-based character index is never closed.
    UnclosedQuote { start: usize },
    /// A number that is not a whole number a brief can mean.
    Number(BadNumber),
}

/// A number written in a way no quantity of a brief can take, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BadNumber {
    /// 0-based character index of its first character.
    pub start: usize,
    /// The number as written (`72.5`, `-3`).
    pub written: String,
    /// Why it cannot be read.
    pub why: &'static str,
}

/// The reasons of [`BadNumber`].
const NOT_WHOLE: &str = "is not a whole number: tempi are whole beats per minute, and lengths \
                         and counts are whole too";
const NEGATIVE: &str = "is negative: tempi, lengths and counts are positive";
const TOO_LARGE: &str = "is too large: no number in a brief may exceed 18446744073709551615";

fn is_open_quote(c: char) -> bool {
    matches!(c, '"' | '“' | '„' | '«')
}

fn is_close_quote(c: char) -> bool {
    matches!(c, '"' | '”' | '“' | '»')
}

fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '’')
}

/// Cuts `text` into tokens (see the module docs).
pub(crate) fn tokenize(text: &str) -> Result<Vec<Token>, TokenError> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let byte_at = |i: usize| chars.get(i).map_or(text.len(), |&(b, _)| b);
    let is_digit = |i: usize| chars.get(i).is_some_and(|&(_, d)| d.is_ascii_digit());
    let bad = |start: usize, end: usize, why| {
        TokenError::Number(BadNumber {
            start,
            written: text
                .get(byte_at(start)..byte_at(end))
                .unwrap_or("")
                .to_string(),
            why,
        })
    };
    let mut tokens = Vec::new();
    let mut i = 0;
    while let Some(&(byte, c)) = chars.get(i) {
        // A minus sign: before digits, and not joining a word or number to them
        // (`16-bar`, `P0-R6` are hyphens).
        if matches!(c, '-' | '−')
            && is_digit(i + 1)
            && (i == 0 || !chars[i - 1].1.is_alphanumeric())
        {
            let mut end = i + 1;
            while is_digit(end) {
                end += 1;
            }
            return Err(bad(i, end, NEGATIVE));
        }
        if c.is_whitespace() || c == '-' || c == '–' || c == '—' {
            i += 1;
            continue;
        }
        let start = i;
        if is_open_quote(c) {
            let close = (i + 1..chars.len()).find(|&j| is_close_quote(chars[j].1));
            let Some(close) = close else {
                return Err(TokenError::UnclosedQuote { start });
            };
            let inner = text.get(byte_at(i + 1)..byte_at(close)).unwrap_or("");
            tokens.push(Token {
                kind: Kind::Quoted(inner.trim().to_string()),
                norm: String::new(),
                start,
                bytes: byte..byte_at(close + 1),
            });
            i = close + 1;
            continue;
        }
        if c.is_ascii_digit() {
            let mut j = i;
            while chars.get(j).is_some_and(|&(_, d)| d.is_ascii_digit()) {
                j += 1;
            }
            let digits = text.get(byte..byte_at(j)).unwrap_or("");
            // Only digits: parsing fails only past u64::MAX.
            let value = digits
                .parse::<u64>()
                .map_err(|_| bad(start, j, TOO_LARGE))?;
            // A decimal point between digits: `60.0` is 60, `72.5` is refused.
            if chars.get(j).is_some_and(|&(_, p)| p == '.') && is_digit(j + 1) {
                let mut end = j + 1;
                while is_digit(end) {
                    end += 1;
                }
                if !chars[j + 1..end].iter().all(|&(_, d)| d == '0') {
                    return Err(bad(start, end, NOT_WHOLE));
                }
                tokens.push(Token {
                    kind: Kind::Number(value),
                    norm: String::new(),
                    start,
                    bytes: byte..byte_at(end),
                });
                i = end;
                continue;
            }
            // A fraction: digits, optional spaces, '/', optional spaces, digits.
            let mut k = j;
            while chars.get(k).is_some_and(|&(_, s)| s == ' ') {
                k += 1;
            }
            if chars.get(k).is_some_and(|&(_, s)| s == '/') {
                let mut m = k + 1;
                while chars.get(m).is_some_and(|&(_, s)| s == ' ') {
                    m += 1;
                }
                let mut e = m;
                while chars.get(e).is_some_and(|&(_, d)| d.is_ascii_digit()) {
                    e += 1;
                }
                if e > m {
                    let den = text
                        .get(byte_at(m)..byte_at(e))
                        .and_then(|d| d.parse().ok())
                        .unwrap_or(u64::MAX);
                    tokens.push(Token {
                        kind: Kind::Fraction(value, den),
                        norm: String::new(),
                        start,
                        bytes: byte..byte_at(e),
                    });
                    i = e;
                    continue;
                }
            }
            // An ordinal: digits immediately followed by st/nd/rd/th.
            let suffix: String = chars
                .get(j..(j + 2).min(chars.len()))
                .unwrap_or(&[])
                .iter()
                .map(|&(_, s)| s.to_ascii_lowercase())
                .collect();
            let after_suffix_is_letter =
                chars.get(j + 2).is_some_and(|&(_, s)| s.is_alphanumeric());
            if matches!(suffix.as_str(), "st" | "nd" | "rd" | "th") && !after_suffix_is_letter {
                tokens.push(Token {
                    kind: Kind::Ordinal(value),
                    norm: String::new(),
                    start,
                    bytes: byte..byte_at(j + 2),
                });
                i = j + 2;
                continue;
            }
            tokens.push(Token {
                kind: Kind::Number(value),
                norm: String::new(),
                start,
                bytes: byte..byte_at(j),
            });
            i = j;
            continue;
        }
        if c.is_alphabetic() {
            let mut j = i;
            loop {
                match chars.get(j) {
                    Some(&(_, w)) if w.is_alphanumeric() => j += 1,
                    Some(&(_, '#' | '♯' | '♭')) => j += 1,
                    // An apostrophe inside a word ("Webern's", "don't").
                    Some(&(_, a))
                        if is_apostrophe(a)
                            && chars.get(j + 1).is_some_and(|&(_, n)| n.is_alphabetic()) =>
                    {
                        j += 1
                    }
                    _ => break,
                }
            }
            let word = text.get(byte..byte_at(j)).unwrap_or("");
            let mut norm = word.to_lowercase().replace('’', "'");
            if let Some(stem) = norm.strip_suffix("'s") {
                norm = stem.to_string();
            }
            tokens.push(Token {
                kind: Kind::Word,
                norm,
                start,
                bytes: byte..byte_at(j),
            });
            i = j;
            continue;
        }
        tokens.push(Token {
            kind: Kind::Symbol(c),
            norm: String::new(),
            start,
            bytes: byte..byte_at(i + 1),
        });
        i += 1;
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<String> {
        tokenize(text)
            .expect("tokenizes")
            .iter()
            .map(|t| match &t.kind {
                Kind::Word => t.norm.clone(),
                Kind::Number(n) => format!("#{n}"),
                Kind::Fraction(a, b) => format!("{a}/{b}"),
                Kind::Ordinal(n) => format!("{n}th"),
                Kind::Quoted(q) => format!("«{q}»"),
                Kind::Symbol(c) => format!("'{c}'"),
            })
            .collect()
    }

    #[test]
    fn hyphens_split_and_possessives_drop() {
        assert_eq!(kinds("a 16-bar piece"), ["a", "#16", "bar", "piece"]);
        assert_eq!(kinds("twenty-four"), ["twenty", "four"]);
        assert_eq!(kinds("Webern’s Op. 21"), ["webern", "op", "'.'", "#21"]);
    }

    #[test]
    fn fractions_ordinals_quotes_and_symbols() {
        assert_eq!(kinds("in 3/4 time"), ["in", "3/4", "time"]);
        assert_eq!(kinds("6 / 8"), ["6/8"]);
        assert_eq!(kinds("the 1st and 3rd"), ["the", "1th", "and", "3th"]);
        assert_eq!(kinds("title “Night Music”"), ["title", "«Night Music»"]);
        assert_eq!(
            kinds("♩=96, F# Bb"),
            ["'♩'", "'='", "#96", "','", "f#", "bb"]
        );
    }

    #[test]
    fn positions_are_characters_not_bytes() {
        let tokens = tokenize("♩ = 96").expect("tokenizes");
        assert_eq!(
            tokens.iter().map(|t| t.start).collect::<Vec<_>>(),
            [0, 2, 4]
        );
        assert_eq!(tokens[2].bytes, 6..8);
    }

    #[test]
    fn an_unclosed_quote_is_reported_where_it_opens() {
        assert_eq!(
            tokenize("title \"Nocturne"),
            Err(TokenError::UnclosedQuote { start: 6 })
        );
    }

    fn bad(text: &str) -> (usize, String) {
        match tokenize(text) {
            Err(TokenError::Number(b)) => (b.start, b.written),
            other => panic!("{text:?}: {other:?}"),
        }
    }

    #[test]
    fn numbers_are_whole_positive_and_fit() {
        assert_eq!(kinds("at 60.0 bpm"), ["at", "#60", "bpm"]);
        assert_eq!(bad("at 72.5 bpm"), (3, "72.5".into()));
        assert_eq!(bad("a -3-bar piece"), (2, "-3".into()));
        assert_eq!(bad("at −72 bpm"), (3, "−72".into()));
        assert_eq!(
            bad("at 100000000000000000000000000000 bpm"),
            (3, "100000000000000000000000000000".into())
        );
        // Hyphens between words and numbers, and a full stop after one, stay as they were.
        assert_eq!(kinds("a 16-bar piece"), ["a", "#16", "bar", "piece"]);
        assert_eq!(
            kinds("P0-R6 and bars 1-4"),
            ["p0", "r6", "and", "bars", "#1", "#4"]
        );
        assert_eq!(kinds("Op. 21."), ["op", "'.'", "#21", "'.'"]);
        assert_eq!(kinds("18446744073709551615"), ["#18446744073709551615"]);
    }
}
