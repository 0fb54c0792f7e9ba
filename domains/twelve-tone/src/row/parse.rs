//! Reading a row from the text people actually write: `0 11 7 8 …`, `[0, 11, 7, …]`,
//! `0 1 2 … 9 T E`, `0123456789AB`, or note names `C C# D Eb …`.

use super::{PitchClass, Row, RowError};

/// One whitespace/comma-separated token and its 1-based character column.
struct Token<'a> {
    text: &'a str,
    column: usize,
}

fn tokens(text: &str) -> Vec<Token<'_>> {
    let is_separator =
        |c: char| c.is_whitespace() || matches!(c, ',' | ';' | '[' | ']' | '(' | ')');
    let mut out = Vec::new();
    let mut start: Option<(usize, usize)> = None; // (byte offset, column)
    for (column0, (offset, c)) in text.char_indices().enumerate() {
        if is_separator(c) {
            if let Some((begin, column)) = start.take() {
                out.push(Token {
                    text: &text[begin..offset],
                    column,
                });
            }
        } else if start.is_none() {
            start = Some((offset, column0 + 1));
        }
    }
    if let Some((begin, column)) = start {
        out.push(Token {
            text: &text[begin..],
            column,
        });
    }
    out
}

/// Parses row text (see [`Row::parse`] for the accepted spellings).
pub(super) fn parse_row(text: &str) -> Result<Row, RowError> {
    let mut toks = tokens(text);
    // A compact row: one 12-character token of digits and T/E/A/B.
    if let [only] = toks.as_slice()
        && only.text.chars().count() == 12
        && only.text.chars().all(|c| compact_digit(c).is_some())
    {
        let column = only.column;
        toks = only
            .text
            .char_indices()
            .enumerate()
            .map(|(i, (offset, c))| Token {
                text: &only.text[offset..offset + c.len_utf8()],
                column: column + i,
            })
            .collect();
    }
    let note_mode = toks.iter().any(|t| looks_like_note_name(t.text));
    let mut pcs = Vec::with_capacity(toks.len());
    let mut out_of_range = None;
    for (position, tok) in toks.iter().enumerate() {
        let value = if note_mode {
            note_pc(tok.text).map(i64::from)
        } else {
            number(tok.text)
        };
        match value {
            Some(v) if (0..12).contains(&v) => pcs.push(v as PitchClass),
            Some(v) => {
                out_of_range.get_or_insert(RowError::OutOfRange { value: v, position });
                pcs.push(u8::MAX);
            }
            None => {
                return Err(RowError::Unreadable {
                    token: tok.text.to_string(),
                    column: tok.column,
                });
            }
        }
    }
    if pcs.len() == 12
        && let Some(err) = out_of_range
    {
        return Err(err);
    }
    Row::new(&pcs)
}

fn compact_digit(c: char) -> Option<i64> {
    match c.to_ascii_uppercase() {
        d @ '0'..='9' => Some(i64::from(d as u8 - b'0')),
        'T' | 'A' => Some(10),
        'E' | 'B' => Some(11),
        _ => None,
    }
}

/// A number, or `T`/`A` (10), `E`/`B` (11).
fn number(text: &str) -> Option<i64> {
    let mut chars = text.chars();
    if let (Some(c), None) = (chars.next(), chars.next())
        && let Some(v) = compact_digit(c)
    {
        return Some(v);
    }
    text.parse::<i64>().ok()
}

/// Whether a token can only be a note name: a letter C, D, F or G, or any letter
/// followed by an accidental. (Bare A, B, E are also 10, 11 and 11 in numeric rows.)
fn looks_like_note_name(text: &str) -> bool {
    let mut chars = text.chars();
    match chars.next().map(|c| c.to_ascii_uppercase()) {
        Some('C' | 'D' | 'F' | 'G') => true,
        Some('A' | 'B' | 'E') => chars.next().is_some() && note_pc(text).is_some(),
        _ => false,
    }
}

/// The pitch class of a note name such as `C`, `F#`, `Bb`, `E♭`, `B-`, `Cx`.
fn note_pc(text: &str) -> Option<PitchClass> {
    let mut chars = text.chars();
    let base: i32 = match chars.next()?.to_ascii_uppercase() {
        'C' => 0,
        'D' => 2,
        'E' => 4,
        'F' => 5,
        'G' => 7,
        'A' => 9,
        'B' => 11,
        _ => return None,
    };
    let mut shift = 0i32;
    for c in chars {
        shift += match c {
            '#' | '♯' => 1,
            'x' | '𝄪' => 2,
            'b' | '♭' | '-' => -1,
            '♮' => 0,
            _ => return None,
        };
        if shift.abs() > 2 {
            return None;
        }
    }
    Some((base + shift).rem_euclid(12) as PitchClass)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn note_names_cover_common_spellings() {
        assert_eq!(note_pc("C"), Some(0));
        assert_eq!(note_pc("c#"), Some(1));
        assert_eq!(note_pc("Db"), Some(1));
        assert_eq!(note_pc("E♭"), Some(3));
        assert_eq!(note_pc("B-"), Some(10));
        assert_eq!(note_pc("Cb"), Some(11));
        assert_eq!(note_pc("H"), None);
        assert_eq!(note_pc("C###"), None);
    }

    #[test]
    fn token_columns_are_one_based_characters() {
        let toks = tokens("[0, 11,  7]");
        let got: Vec<(&str, usize)> = toks.iter().map(|t| (t.text, t.column)).collect();
        assert_eq!(got, [("0", 2), ("11", 5), ("7", 10)]);
    }
}
