//! The 71 historical rows of music21's `serial.historicalDict` (music21 10.5.1), shipped
//! inside the program, and a resolver that finds one from the way people name pieces:
//! `"WebernOp21"`, `"webern op. 21"`, `"Webern's Op. 21"`, `"Op 21 by Webern"`,
//! `"Berg Lyric Suite"`, `"RowSchoenbergOp25"`.
//!
//! music21 stores *a* form of each row, not necessarily the one the literature calls
//! P0, so compare historical rows up to their 48 forms, not by their stored pitch classes.

use std::sync::OnceLock;

use serde::Deserialize;

use super::{Row, RowError};

/// The shipped table (a copy of `shared/data/rows/historical_rows.json`; see `data/README.md`).
const HISTORICAL_JSON: &str = include_str!("../../data/historical_rows.json");

/// One row from music21's historical table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoricalRow {
    /// music21's key, e.g. `SchoenbergOp25`.
    pub id: String,
    /// The pre-music21-6 class name, e.g. `RowSchoenbergOp25`.
    pub legacy_class_name: String,
    /// Composer surname as music21 has it: `Schoenberg`, `Webern` or `Berg`.
    pub composer: String,
    /// music21's `opus` field (e.g. `Op. 26`); for the Lulu rows it holds the act and scene.
    pub opus: Option<String>,
    /// music21's `title` field.
    pub title: String,
    /// The row as music21 stores it.
    pub row: Row,
}

#[derive(Deserialize)]
struct Entry {
    id: String,
    legacy_class_name: String,
    composer: String,
    opus: Option<String>,
    title: String,
    pcs: Vec<u8>,
}

/// Every historical row, sorted by id; parsed once from the shipped JSON.
pub fn historical_rows() -> &'static [HistoricalRow] {
    static ROWS: OnceLock<Vec<HistoricalRow>> = OnceLock::new();
    ROWS.get_or_init(|| {
        // The table is compiled into the program and checked by tests; failing here
        // means the build shipped a corrupt file, not that a user gave bad input.
        let entries: Vec<Entry> = serde_json::from_str(HISTORICAL_JSON)
            .expect("shipped data/historical_rows.json is valid JSON");
        entries
            .into_iter()
            .map(|e| {
                let row = Row::new(&e.pcs).unwrap_or_else(|err| {
                    panic!("shipped historical row {} is invalid: {err}", e.id)
                });
                HistoricalRow {
                    id: e.id,
                    legacy_class_name: e.legacy_class_name,
                    composer: e.composer,
                    opus: e.opus,
                    title: e.title,
                    row,
                }
            })
            .collect()
    })
}

/// Finds a historical row by id (case- and punctuation-insensitive), legacy class name,
/// or natural phrasing (composer and opus or title in any order, `'s`, `by`, `opus`).
///
/// A name that fits several rows (e.g. `"Schoenberg Op. 33"`, which is Op. 33A and
/// Op. 33B) is an [`RowError::AmbiguousHistorical`] listing them; a name that fits none
/// is [`RowError::UnknownHistorical`] with up to three closest ids.
pub fn resolve(name: &str) -> Result<&'static HistoricalRow, RowError> {
    let query = normalise(name);
    let rows = historical_rows();
    let keyed: Vec<(&'static HistoricalRow, Keys)> =
        rows.iter().map(|r| (r, Keys::of(r))).collect();

    if !query.is_empty() {
        if let Some((row, _)) = keyed.iter().find(|(_, k)| k.exact.contains(&query)) {
            return Ok(row);
        }
        let tiers: [&dyn Fn(&Keys) -> bool; 2] =
            [&|k: &Keys| k.all().any(|key| key == query), &|k: &Keys| {
                k.all().any(|key| is_word_prefix(&query, key))
            }];
        for matches in tiers {
            let found: Vec<&'static HistoricalRow> = keyed
                .iter()
                .filter(|(_, k)| matches(k))
                .map(|(r, _)| *r)
                .collect();
            match found.as_slice() {
                [] => continue,
                [one] => return Ok(one),
                many => {
                    return Err(RowError::AmbiguousHistorical {
                        name: name.to_string(),
                        candidates: many.iter().map(|r| r.id.clone()).collect(),
                    });
                }
            }
        }
    }

    let mut scored: Vec<(usize, &str)> = keyed
        .iter()
        .map(|(r, k)| {
            let distance = k
                .all()
                .map(|key| edit_distance(&query, key))
                .min()
                .unwrap_or(usize::MAX);
            (distance, r.id.as_str())
        })
        .collect();
    scored.sort();
    Err(RowError::UnknownHistorical {
        name: name.to_string(),
        suggestions: scored
            .iter()
            .take(3)
            .map(|(_, id)| id.to_string())
            .collect(),
    })
}

/// The normalised names a row answers to.
struct Keys {
    /// Id and legacy class name.
    exact: Vec<String>,
    /// Composer + opus, composer + title, title, opus, id without composer.
    alias: Vec<String>,
}

impl Keys {
    fn of(row: &HistoricalRow) -> Keys {
        let composer = normalise(&row.composer);
        let id = normalise(&row.id);
        let mut alias = vec![
            normalise(&format!("{} {}", row.composer, row.title)),
            normalise(&row.title),
        ];
        if let Some(opus) = &row.opus {
            alias.push(normalise(&format!("{} {opus}", row.composer)));
            alias.push(normalise(opus));
        }
        if let Some(rest) = id.strip_prefix(&composer) {
            alias.push(rest.to_string());
        }
        Keys {
            exact: vec![id, normalise(&row.legacy_class_name)],
            alias,
        }
    }

    fn all(&self) -> impl Iterator<Item = &str> {
        self.exact.iter().chain(&self.alias).map(String::as_str)
    }
}

/// Words that carry no identity in a row's name.
const NOISE: [&str; 10] = [
    "s", "by", "the", "row", "a", "an", "arnold", "anton", "alban", "von",
];
/// Composer surnames, moved to the front so "Op 21 by Webern" reads as "Webern Op 21".
const COMPOSERS: [&str; 3] = ["schoenberg", "webern", "berg"];

/// Lower-case alphanumeric words with synonyms unified, composer first, concatenated.
fn normalise(text: &str) -> String {
    let lowered = text
        .to_lowercase()
        .replace('ö', "oe")
        .replace('ü', "ue")
        .replace('ä', "ae");
    let mut words: Vec<&str> = lowered
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty() && !NOISE.contains(w))
        .map(|w| match w {
            "opus" => "op",
            "schonberg" => "schoenberg",
            "mvt" | "movement" | "mov" => "mvmt",
            "number" | "nr" => "no",
            other => other,
        })
        .collect();
    if let Some(at) = words.iter().position(|w| COMPOSERS.contains(w)) {
        let composer = words.remove(at);
        words.insert(0, composer);
    }
    words.concat()
}

/// `query` begins `key`, and does not stop in the middle of a number
/// ("webernop2" is not a prefix of "webernop21").
fn is_word_prefix(query: &str, key: &str) -> bool {
    if query.len() < 3 || !key.starts_with(query) {
        return false;
    }
    let ends_in_digit = query.ends_with(|c: char| c.is_ascii_digit());
    let next_is_digit = key[query.len()..].starts_with(|c: char| c.is_ascii_digit());
    !(ends_in_digit && next_is_digit)
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = Vec::with_capacity(b.len() + 1);
        current.push(i + 1);
        for (j, &cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != cb);
            let delete = previous[j + 1] + 1;
            let insert = current[j] + 1;
            current.push(substitute.min(delete).min(insert));
        }
        previous = current;
    }
    previous[b.len()]
}

/// A row given as pitch classes or note names ([`Row::parse`]), or else by historical
/// name ([`resolve`]); the historical entry too when it was a name. When both fail,
/// the message gives both reasons.
pub fn row_or_name(text: &str) -> Result<(Row, Option<&'static HistoricalRow>), RowOrNameError> {
    match Row::parse(text) {
        Ok(row) => Ok((row, None)),
        Err(as_row) => resolve(text)
            .map(|h| (h.row, Some(h)))
            .map_err(|as_name| RowOrNameError {
                text: text.into(),
                as_row: Box::new(as_row),
                as_name: Box::new(as_name),
            }),
    }
}

/// Why a text is neither a row nor the name of a historical one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is neither a row ({as_row}) nor a historical row name ({as_name})")]
pub struct RowOrNameError {
    /// The text given.
    pub text: String,
    /// Why it is not a row.
    pub as_row: Box<RowError>,
    /// Why it names no historical row.
    pub as_name: Box<RowError>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalising_puts_the_composer_first() {
        assert_eq!(normalise("Op 21 by Webern"), "webernop21");
        assert_eq!(normalise("Webern's Op. 21"), "webernop21");
        assert_eq!(normalise("Arnold Schönberg, opus 25"), "schoenbergop25");
    }

    #[test]
    fn prefixes_do_not_split_numbers() {
        assert!(is_word_prefix("schoenbergop33", "schoenbergop33a"));
        assert!(!is_word_prefix("webernop2", "webernop21"));
    }

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("webern", "webern"), 0);
        assert_eq!(edit_distance("webern", "weber"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
