//! Reading the ratings raters exported: CSV files (the export's header, then a row
//! per pair and criterion), streamed line by line with a cap per line, each answer
//! turned from sides (A, B) into conditions by the key.
//!
//! An answer is one (rater, pair, criterion). The same answer met again — the same
//! file given twice, or a rater exporting twice — counts once: its fields are
//! merged (an empty field is no answer yet, so a later export may fill it in), and
//! two different values for one field are refused, naming both rows, rather than
//! both counted.

use super::key::Key;
use super::{CSV_HEADER, Criterion};
use crate::error::{RenderError, Result};
use cantus_bounded as bounded;
use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// The most one line of a ratings CSV may hold (a row is a few dozen bytes).
pub const RATINGS_LINE_CAP: usize = 64 * 1024;

/// One answer: a preferred condition (index 0 or 1, `None` for no preference;
/// `None` outside for no answer) and the ratings of each condition's piece.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Answer {
    pub rater: String,
    pub pair: String,
    pub criterion: Criterion,
    pub preferred: Option<Option<usize>>,
    pub ratings: [Option<u8>; 2],
}

/// Every answer of every ratings file read so far, each once.
#[derive(Debug, Default)]
pub struct Ratings {
    pub(super) answers: Vec<Answer>,
    /// Where each answer was first read, by (rater, pair, criterion).
    seen: HashMap<(String, String, Criterion), (usize, PathBuf, usize)>,
    /// CSV rows read (the header aside).
    pub rows: usize,
    /// Rows that repeated an answer already read (counted once).
    pub repeated: usize,
}

fn at(path: &Path, line: usize, column: usize, why: String) -> RenderError {
    RenderError::Blind {
        path: path.to_path_buf(),
        message: format!("line {line}, column {column}: {why}"),
    }
}

impl Ratings {
    /// Reads the ratings CSV at `path` into these ratings.
    pub fn read_file(&mut self, path: &Path, key: &Key) -> Result<()> {
        let file = bounded::open_regular(path)
            .map_err(|e| RenderError::io(path, e))?
            .ok_or_else(|| {
                RenderError::io(path, std::io::Error::from(std::io::ErrorKind::NotFound))
            })?;
        self.read(file, path, key)
    }

    /// Reads a ratings CSV from `reader` (`path` names it in errors) into these
    /// ratings; errors name the file, line and column.
    pub fn read(&mut self, reader: impl BufRead, path: &Path, key: &Key) -> Result<()> {
        let mut header = false;
        for line in bounded::Lines::new(reader, RATINGS_LINE_CAP) {
            let line = line.map_err(|e| RenderError::io(path, e))?;
            let n = line.number;
            let bytes = match line.text {
                bounded::LineText::Whole(b) | bounded::LineText::Unfinished(b) => b,
                bounded::LineText::TooLong => {
                    return Err(at(
                        path,
                        n,
                        1,
                        format!(
                            "longer than {}, the most a line of a ratings file may hold",
                            bounded::size_text(RATINGS_LINE_CAP as u64)
                        ),
                    ));
                }
            };
            let text = std::str::from_utf8(&bytes)
                .map_err(|e| at(path, n, e.valid_up_to() + 1, "not UTF-8 text".into()))?;
            let text = text.strip_suffix('\r').unwrap_or(text);
            if text.trim().is_empty() {
                continue;
            }
            if !header {
                if text.trim() != CSV_HEADER {
                    return Err(at(
                        path,
                        n,
                        1,
                        format!("expected the header {CSV_HEADER:?}"),
                    ));
                }
                header = true;
                continue;
            }
            let answer = parse_row(text, key).map_err(|(column, why)| at(path, n, column, why))?;
            self.rows += 1;
            self.add(answer, path, n, key)?;
        }
        if !header {
            return Err(at(
                path,
                1,
                1,
                format!("expected the header {CSV_HEADER:?}"),
            ));
        }
        Ok(())
    }

    /// Adds `answer`, read at `path` line `line`: a new one, or merged into the same
    /// (rater, pair, criterion) read before.
    fn add(&mut self, answer: Answer, path: &Path, line: usize, key: &Key) -> Result<()> {
        let id = (answer.rater.clone(), answer.pair.clone(), answer.criterion);
        let Some((index, first_path, first_line)) = self.seen.get(&id) else {
            self.seen
                .insert(id, (self.answers.len(), path.to_path_buf(), line));
            self.answers.push(answer);
            return Ok(());
        };
        let earlier = &mut self.answers[*index];
        let conflict = |what: &str, there: String, here: String| {
            at(
                path,
                line,
                1,
                format!(
                    "rater {:?} answers {} {} again, differently from {} line {first_line} \
                     ({what} {there} there, {here} here); keep one of the two rows",
                    answer.rater,
                    answer.pair,
                    answer.criterion.id(),
                    first_path.display()
                ),
            )
        };
        let preferred = merge(earlier.preferred, answer.preferred).map_err(|(a, b)| {
            let name = |p: Option<usize>| {
                p.map_or("no preference".to_owned(), |c| key.conditions[c].clone())
            };
            conflict("preference", name(a), name(b))
        })?;
        let mut ratings = earlier.ratings;
        for (side, new) in answer.ratings.iter().enumerate() {
            ratings[side] = merge(ratings[side], *new)
                .map_err(|(a, b)| conflict("rating", a.to_string(), b.to_string()))?;
        }
        earlier.preferred = preferred;
        earlier.ratings = ratings;
        self.repeated += 1;
        Ok(())
    }
}

/// Two readings of one field: the one given, or both when they differ.
fn merge<T: PartialEq + Copy>(
    a: Option<T>,
    b: Option<T>,
) -> std::result::Result<Option<T>, (T, T)> {
    match (a, b) {
        (Some(x), Some(y)) if x != y => Err((x, y)),
        (Some(x), _) | (None, Some(x)) => Ok(Some(x)),
        (None, None) => Ok(None),
    }
}

/// One row as an answer in conditions, or the column and why not.
fn parse_row(line: &str, key: &Key) -> std::result::Result<Answer, (usize, String)> {
    let fields = split_csv(line).map_err(|why| (1, why))?;
    let n = fields.len();
    let [rater, pair, criterion, preference, rating_a, rating_b] = <[String; 6]>::try_from(fields)
        .map_err(|_| (1, format!("{n} fields; expected 6 ({CSV_HEADER})")))?;
    let side = key
        .sides(&pair)
        .ok_or_else(|| (2, format!("pair {pair:?} is not in the key")))?;
    let criterion = Criterion::from_id(&criterion)
        .ok_or_else(|| (3, format!("unknown criterion {criterion:?}")))?;
    let preferred = match preference.as_str() {
        "" => None,
        "A" => Some(Some(side[0])),
        "B" => Some(Some(side[1])),
        "none" => Some(None),
        other => {
            return Err((
                4,
                format!("preference {other:?}: expected A, B, none or empty"),
            ));
        }
    };
    let rating = |text: &str, column: usize| match text {
        "" => Ok(None),
        t => t
            .parse::<u8>()
            .ok()
            .filter(|r| (1..=5).contains(r))
            .map(Some)
            .ok_or_else(|| (column, format!("rating {t:?}: expected 1 to 5 or empty"))),
    };
    let (ra, rb) = (rating(&rating_a, 5)?, rating(&rating_b, 6)?);
    let mut ratings = [None, None];
    ratings[side[0]] = ra;
    ratings[side[1]] = rb;
    Ok(Answer {
        rater,
        pair,
        criterion,
        preferred,
        ratings,
    })
}

/// Splits one CSV line (RFC 4180 quoting).
fn split_csv(line: &str) -> std::result::Result<Vec<String>, String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        let field = fields.last_mut().ok_or("empty")?;
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', true) => quoted = false,
            ('"', false) if field.is_empty() => quoted = true,
            (',', false) => fields.push(String::new()),
            (c, _) => field.push(c),
        }
    }
    if quoted {
        return Err("a quoted field is not closed".into());
    }
    Ok(fields)
}
