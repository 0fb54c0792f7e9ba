//! Phrase rules for the row: explicit rows, historical rows by name, all-interval rows.
//!
//! Row validity is the row engine's business: an explicit row is handed to
//! [`Row::parse`] and its error text is passed on unchanged; a historical name is
//! handed to [`resolve`], which knows how people name the pieces
//! ("Webern's Op. 21", "Berg Lyric Suite", "Op. 25 by Schoenberg").

use super::scan::{Ctx, Effect, Match, UNIT_WORDS, VOICE_UNITS};
use super::tokens::Kind;
use crate::row::{Row, RowError, resolve};
use crate::spec::RowChoice;

const ROW_WORDS: &[&str] = &["row", "series", "set"];
const COMPOSERS: &[&str] = &[
    "schoenberg",
    "schönberg",
    "schonberg",
    "webern",
    "berg",
    "arnold",
    "anton",
    "alban",
];
/// How many tokens a historical name may span ("Schoenberg's Op. 27, No. 4" is 8).
const MAX_NAME_TOKENS: usize = 10;

/// `an all-interval row`, `all-interval series with seed 5`.
pub(crate) fn all_interval(c: Ctx<'_>, i: usize) -> Option<Match> {
    if !(c.is(i, "all") && c.is(i + 1, "interval")) {
        return None;
    }
    let j = c.skip(i + 2, &["tone"]);
    let j = c.skip(j, ROW_WORDS);
    let k = c.skip(c.skip(j, &["with"]), &["random"]);
    if c.is(k, "seed") {
        let k = c.skip(c.skip_sym(k + 1, &[':', '=']), &["of"]);
        if let Some((seed, end)) = c.number(k) {
            return Match::new(end, Effect::AllInterval(Some(seed)));
        }
    }
    Match::new(j, Effect::AllInterval(None))
}

/// Whether token `i` may be one pitch class of a row of numbers: a number, or `T`/`E`.
fn numeric_item(c: Ctx<'_>, i: usize) -> bool {
    match c.kind(i) {
        Some(Kind::Number(_)) => !ends_a_quantity(c, i),
        Some(Kind::Word) => matches!(c.word(i), Some("t" | "e")),
        _ => false,
    }
}

/// A number followed by a unit ("16 bars", "3 voices", "72 bpm") is not a pitch class.
fn ends_a_quantity(c: Ctx<'_>, i: usize) -> bool {
    c.word(i + 1).is_some_and(|w| {
        super::rules::is_bar_unit(w) || VOICE_UNITS.contains(&w) || UNIT_WORDS.contains(&w)
    })
}

/// Whether token `i` is written like a note name (`C`, `F#`, `Bb`, `e♭`).
fn note_item(c: Ctx<'_>, i: usize) -> bool {
    let Some(token) = c.tokens.get(i).filter(|t| t.kind == Kind::Word) else {
        return false;
    };
    let written = c.text.get(token.bytes.clone()).unwrap_or("");
    let mut chars = written.chars();
    let letter_ok = chars.next().is_some_and(|l| "ABCDEFGabcdefg".contains(l));
    letter_ok
        && chars.all(|a| matches!(a, '#' | '♯' | 'b' | '♭' | 'x'))
        && written.chars().count() <= 3
}

/// `the row 0 11 7 8 3 1 2 10 6 5 4 9`, `row: 0, 11, 7, …`, `series [0 1 … T E]`,
/// `tone row C B G G# D# C# D A# F# F E A`. The items go to [`Row::parse`]; a row
/// that is not a twelve-tone row becomes [`Effect::RowError`] with its reason.
pub(crate) fn explicit(c: Ctx<'_>, i: usize) -> Option<Match> {
    let j = c.skip(i, &["tone"]);
    c.any(j, ROW_WORDS)?;
    let j = c.skip_sym(j + 1, &[':', '=']);
    let j = c.skip(j, &["of", "is"]);
    let j = c.skip_sym(j, &['[', '(']);
    let numeric = matches!(c.kind(j), Some(Kind::Number(_)));
    let item = |k: usize| {
        if numeric {
            numeric_item(c, k)
        } else {
            note_item(c, k)
        }
    };
    let mut items = Vec::new();
    let mut k = j;
    loop {
        if items.len() >= 12 && !(numeric && matches!(c.kind(k), Some(Kind::Number(_))) && item(k))
        {
            break;
        }
        if item(k) {
            items.push(k);
            k += 1;
        } else if c.sym(k, ',') && item(k + 1) {
            k += 1;
        } else {
            break;
        }
    }
    if items.len() < 2 {
        return None;
    }
    let end = c.skip_sym(k, &[']', ')']);
    let text: Vec<&str> = items.iter().map(|&k| c.text_of(k, k + 1)).collect();
    let effect = match Row::parse(&text.join(" ")) {
        Ok(row) => Effect::Row(RowChoice::Explicit { pcs: row.pcs() }),
        Err(e) => Effect::RowError(e.to_string()),
    };
    Match::new(end, effect)
}

/// Where a historical name may not reach: quoted text, fractions, symbols other
/// than `.` and `,`, or the edge of the search window.
fn name_limit(c: Ctx<'_>, i: usize) -> usize {
    let mut k = i;
    while k < c.tokens.len() && k < i + MAX_NAME_TOKENS {
        let barrier = match c.kind(k) {
            Some(Kind::Quoted(_) | Kind::Fraction(..)) => true,
            Some(Kind::Symbol(s)) => !matches!(s, '.' | ','),
            _ => false,
        };
        if barrier {
            break;
        }
        k += 1;
    }
    k
}

/// Consumes a trailing "row", "tone row", "'s row" after a name.
fn trailing_row_word(c: Ctx<'_>, end: usize) -> usize {
    let j = c.skip(end, &["tone", "twelve"]);
    if c.any(j, ROW_WORDS).is_some() {
        j + 1
    } else {
        end
    }
}

/// A historical row by name. Two ways in:
///
/// * from a composer's name or `Op.`/`opus` (`Webern's Op. 21`, `Berg Lyric Suite`,
///   `Op. 25 by Schoenberg`): the longest phrase [`resolve`] accepts wins. If none
///   does but the phrase clearly names a row (an opus number, or "row" follows), the
///   resolver's reason ("unknown", "matches several") becomes an error; a bare
///   composer name ("in the style of Webern") is left alone;
/// * a phrase ending right before "row" (`the Lyric Suite row`) that resolves.
pub(crate) fn historical(c: Ctx<'_>, i: usize) -> Option<Match> {
    let first = c.word(i)?;
    let limit = name_limit(c, i);
    if COMPOSERS.contains(&first) || matches!(first, "op" | "opus") {
        for end in (i + 1..=limit).rev() {
            if matches!(c.kind(end - 1), Some(Kind::Symbol(_))) {
                continue;
            }
            if let Ok(found) = resolve(c.text_of(i, end)) {
                let effect = Effect::Row(RowChoice::Historical {
                    id: found.id.clone(),
                });
                return Match::new(trailing_row_word(c, end), effect);
            }
        }
        return named_but_unresolved(c, i, limit);
    }
    // "the Lyric Suite row": a phrase ending right before a row word.
    if matches!(c.kind(i), Some(Kind::Word)) {
        for k in i + 1..limit {
            if c.any(k, ROW_WORDS).is_some() {
                let end = if c.is(k - 1, "tone") { k - 1 } else { k };
                if end > i
                    && let Ok(found) = resolve(c.text_of(i, end))
                {
                    let id = found.id.clone();
                    return Match::new(k + 1, Effect::Row(RowChoice::Historical { id }));
                }
                return None;
            }
        }
    }
    None
}

/// A composer-led phrase that resolves to nothing: an error if it clearly asks for a
/// row, otherwise no match.
fn named_but_unresolved(c: Ctx<'_>, i: usize, limit: usize) -> Option<Match> {
    // Up to a row word, if one follows.
    if let Some(k) = (i + 1..limit).find(|&k| c.any(k, ROW_WORDS).is_some()) {
        let end = if c.is(k - 1, "tone") { k - 1 } else { k };
        let err = resolve(c.text_of(i, end)).err()?;
        return Match::new(k + 1, Effect::RowError(err.to_string()));
    }
    // Up to the last number after "op"/"opus"/"no".
    let mut end = None;
    let mut k = i;
    while k < limit {
        if c.any(k, &["op", "opus", "no", "number"]).is_some() {
            let n = c.skip_sym(k + 1, &['.']);
            if matches!(c.kind(n), Some(Kind::Number(_))) {
                end = Some(n + 1);
                k = n + 1;
                continue;
            }
        }
        k += 1;
    }
    let end = end?;
    let err: RowError = resolve(c.text_of(i, end)).err()?;
    Match::new(end, Effect::RowError(err.to_string()))
}
