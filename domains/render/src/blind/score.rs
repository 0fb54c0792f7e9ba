//! Scoring the ratings: which condition raters preferred, how sure that is, and
//! how much raters agreed.
//!
//! * Preference rates per criterion: the share of answers preferring each
//!   condition (and no preference), with 95% percentile bootstrap intervals that
//!   resample pairs (a pair's answers are not independent), 2000 resamples,
//!   seeded by the key's seed.
//! * Fleiss' κ per criterion over the pairs every rater answered, the categories
//!   being the first condition, the second, and no preference.
//! * Per rater: answers given, and the share agreeing with the majority of the
//!   other raters on the same pair and criterion (ties among the others skipped).
//! * Mean 1–5 rating of each condition per criterion.

use super::stats::{bootstrap_interval, fleiss_kappa};
use super::{CRITERIA, CSV_HEADER, Criterion};
use crate::error::{RenderError, Result};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Bootstrap resamples per interval.
pub const RESAMPLES: usize = 2000;

/// One answer: a preferred condition (index 0 or 1, `None` for no preference) and
/// the ratings of each condition's piece.
#[derive(Clone, Debug, PartialEq)]
struct Answer {
    rater: String,
    pair: String,
    criterion: Criterion,
    preferred: Option<Option<usize>>,
    ratings: [Option<u8>; 2],
}

/// The results for one criterion.
#[derive(Clone, Debug, Serialize)]
pub struct CriterionResult {
    pub criterion: Criterion,
    /// Answers with a preference given (including "no preference").
    pub answers: usize,
    /// Per condition, then no preference: count, rate and 95% interval.
    pub preferences: Vec<Preference>,
    /// Fleiss' κ over `kappa_pairs` pairs (`None` when undefined).
    pub kappa: Option<f64>,
    pub kappa_pairs: usize,
    /// Mean 1–5 rating per condition.
    pub mean_rating: [Option<f64>; 2],
}

/// One preference category's share.
#[derive(Clone, Debug, Serialize)]
pub struct Preference {
    /// A condition's name, or `no preference`.
    pub choice: String,
    pub count: usize,
    pub rate: f64,
    pub interval: Option<(f64, f64)>,
}

/// How one rater agreed with the others.
#[derive(Clone, Debug, Serialize)]
pub struct RaterAgreement {
    pub rater: String,
    pub answers: usize,
    /// Answers compared with a majority of the others.
    pub compared: usize,
    /// Share of those agreeing with it.
    pub agreement: Option<f64>,
}

/// Everything [`score`] computes.
#[derive(Clone, Debug, Serialize)]
pub struct Scores {
    pub conditions: [String; 2],
    pub raters: usize,
    /// CSV rows read.
    pub rows: usize,
    /// Pairs with at least one answer.
    pub pairs_rated: usize,
    pub criteria: Vec<CriterionResult>,
    pub per_rater: Vec<RaterAgreement>,
}

fn blind_error(path: &Path, message: String) -> RenderError {
    RenderError::Blind {
        path: path.to_path_buf(),
        message,
    }
}

/// Reads the key and every ratings CSV and computes the [`Scores`].
pub fn score(key_path: &Path, ratings: &[PathBuf]) -> Result<Scores> {
    let text = std::fs::read_to_string(key_path).map_err(|e| RenderError::io(key_path, e))?;
    let key: Value =
        serde_json::from_str(&text).map_err(|e| blind_error(key_path, format!("not JSON: {e}")))?;
    let conditions: [String; 2] = key
        .get("conditions")
        .and_then(Value::as_array)
        .and_then(|c| {
            let names: Vec<String> = c
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect();
            names.try_into().ok()
        })
        .ok_or_else(|| blind_error(key_path, "needs \"conditions\": two names".into()))?;
    let seed = key.get("seed").and_then(Value::as_u64).unwrap_or(0);
    // pair → condition index of side A and of side B.
    let mut sides: BTreeMap<String, [usize; 2]> = BTreeMap::new();
    for p in key
        .get("pairs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let id = p
            .get("pair")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let side = |s: &str| {
            let c = p
                .pointer(&format!("/{s}/condition"))
                .and_then(Value::as_str)?;
            conditions.iter().position(|x| x == c)
        };
        match (side("A"), side("B")) {
            (Some(a), Some(b)) => {
                sides.insert(id, [a, b]);
            }
            _ => {
                return Err(blind_error(
                    key_path,
                    format!("pair {id:?} names no known conditions"),
                ));
            }
        }
    }
    let mut answers = Vec::new();
    let mut rows = 0usize;
    for path in ratings {
        let text = std::fs::read_to_string(path).map_err(|e| RenderError::io(path, e))?;
        let parsed = parse_csv(path, &text, &sides)?;
        rows += parsed.len();
        answers.extend(parsed);
    }
    let raters: BTreeSet<&str> = answers.iter().map(|a| a.rater.as_str()).collect();
    let pairs_rated: BTreeSet<&str> = answers
        .iter()
        .filter(|a| a.preferred.is_some())
        .map(|a| a.pair.as_str())
        .collect();
    let criteria = CRITERIA
        .iter()
        .map(|&c| criterion_result(c, &answers, &conditions, raters.len(), seed))
        .collect();
    let per_rater = raters.iter().map(|r| agreement(r, &answers)).collect();
    Ok(Scores {
        conditions,
        raters: raters.len(),
        rows,
        pairs_rated: pairs_rated.len(),
        criteria,
        per_rater,
    })
}

/// Reads one ratings CSV (the export's header, then one row per pair and
/// criterion); errors name the file, line and column.
fn parse_csv(path: &Path, text: &str, sides: &BTreeMap<String, [usize; 2]>) -> Result<Vec<Answer>> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    match lines.next() {
        Some((_, header)) if header.trim() == CSV_HEADER => {}
        other => {
            let line = other.map_or(1, |(i, _)| i + 1);
            return Err(blind_error(
                path,
                format!("line {line}: expected the header {CSV_HEADER:?}"),
            ));
        }
    }
    let mut out = Vec::new();
    for (i, line) in lines {
        let at = |column: usize, why: String| {
            blind_error(path, format!("line {}, column {column}: {why}", i + 1))
        };
        let fields = split_csv(line).map_err(|why| at(1, why))?;
        if fields.len() != 6 {
            return Err(at(
                1,
                format!("{} fields; expected 6 ({CSV_HEADER})", fields.len()),
            ));
        }
        let [rater, pair, criterion, preference, rating_a, rating_b] =
            <[String; 6]>::try_from(fields).map_err(|_| at(1, "6 fields expected".into()))?;
        let side = *sides
            .get(&pair)
            .ok_or_else(|| at(2, format!("pair {pair:?} is not in the key")))?;
        let criterion = Criterion::from_id(&criterion)
            .ok_or_else(|| at(3, format!("unknown criterion {criterion:?}")))?;
        let preferred = match preference.as_str() {
            "" => None,
            "A" => Some(Some(side[0])),
            "B" => Some(Some(side[1])),
            "none" => Some(None),
            other => {
                return Err(at(
                    4,
                    format!("preference {other:?}: expected A, B, none or empty"),
                ));
            }
        };
        let rating = |text: &str, column: usize| -> Result<Option<u8>> {
            match text {
                "" => Ok(None),
                t => t
                    .parse::<u8>()
                    .ok()
                    .filter(|r| (1..=5).contains(r))
                    .map(Some)
                    .ok_or_else(|| at(column, format!("rating {t:?}: expected 1 to 5 or empty"))),
            }
        };
        let (ra, rb) = (rating(&rating_a, 5)?, rating(&rating_b, 6)?);
        let mut ratings = [None, None];
        ratings[side[0]] = ra;
        ratings[side[1]] = rb;
        out.push(Answer {
            rater,
            pair,
            criterion,
            preferred,
            ratings,
        });
    }
    Ok(out)
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

fn criterion_result(
    criterion: Criterion,
    all: &[Answer],
    conditions: &[String; 2],
    raters: usize,
    seed: u64,
) -> CriterionResult {
    let answers: Vec<&Answer> = all
        .iter()
        .filter(|a| a.criterion == criterion && a.preferred.is_some())
        .collect();
    // Category of an answer: 0, 1 (conditions) or 2 (no preference).
    let category = |a: &Answer| match a.preferred {
        Some(Some(c)) => c,
        _ => 2,
    };
    let mut by_pair: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for a in &answers {
        by_pair
            .entry(a.pair.as_str())
            .or_default()
            .push(category(a));
    }
    let clusters: Vec<&Vec<usize>> = by_pair.values().collect();
    let names = [
        conditions[0].clone(),
        conditions[1].clone(),
        "no preference".to_owned(),
    ];
    let preferences = (0..3)
        .map(|k| {
            let count = answers.iter().filter(|a| category(a) == k).count();
            let rate = |sample: &[&&Vec<usize>]| {
                let total: usize = sample.iter().map(|c| c.len()).sum();
                let hits: usize = sample
                    .iter()
                    .map(|c| c.iter().filter(|&&x| x == k).count())
                    .sum();
                if total == 0 {
                    f64::NAN
                } else {
                    hits as f64 / total as f64
                }
            };
            Preference {
                choice: names[k].clone(),
                count,
                rate: if answers.is_empty() {
                    0.0
                } else {
                    count as f64 / answers.len() as f64
                },
                interval: bootstrap_interval(
                    &clusters,
                    rate,
                    RESAMPLES,
                    0.95,
                    seed.wrapping_add(k as u64),
                ),
            }
        })
        .collect();
    let complete: Vec<Vec<u32>> = by_pair
        .values()
        .filter(|cats| cats.len() == raters && raters >= 2)
        .map(|cats| {
            (0..3)
                .map(|k| cats.iter().filter(|&&x| x == k).count() as u32)
                .collect()
        })
        .collect();
    let mean_rating = [0, 1].map(|c| {
        let values: Vec<f64> = all
            .iter()
            .filter(|a| a.criterion == criterion)
            .filter_map(|a| a.ratings[c].map(f64::from))
            .collect();
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    });
    CriterionResult {
        criterion,
        answers: answers.len(),
        preferences,
        kappa: fleiss_kappa(&complete),
        kappa_pairs: complete.len(),
        mean_rating,
    }
}

fn agreement(rater: &str, all: &[Answer]) -> RaterAgreement {
    let category = |a: &Answer| a.preferred.map(|p| p.unwrap_or(2));
    let mine: Vec<&Answer> = all
        .iter()
        .filter(|a| a.rater == rater && a.preferred.is_some())
        .collect();
    let (mut compared, mut agreed) = (0usize, 0usize);
    for a in &mine {
        let mut counts = [0usize; 3];
        for o in all
            .iter()
            .filter(|o| o.rater != rater && o.pair == a.pair && o.criterion == a.criterion)
        {
            if let Some(c) = category(o) {
                counts[c] += 1;
            }
        }
        let best = counts.iter().copied().max().unwrap_or(0);
        if best == 0 || counts.iter().filter(|&&c| c == best).count() > 1 {
            continue;
        }
        compared += 1;
        if category(a).is_some_and(|c| counts[c] == best) {
            agreed += 1;
        }
    }
    RaterAgreement {
        rater: rater.to_owned(),
        answers: mine.len(),
        compared,
        agreement: (compared > 0).then(|| agreed as f64 / compared as f64),
    }
}

impl Scores {
    /// The scores as text for people: counts, then per criterion the preference
    /// rates with their intervals, κ and mean ratings, then each rater's agreement.
    pub fn text(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} raters, {} rows, {} pairs rated; conditions {} vs {}",
            self.raters, self.rows, self.pairs_rated, self.conditions[0], self.conditions[1]
        );
        for c in &self.criteria {
            let _ = write!(out, "{} ({} answers):", c.criterion.id(), c.answers);
            for p in &c.preferences {
                let interval = p
                    .interval
                    .map(|(lo, hi)| format!(" [{:.1}%, {:.1}%]", 100.0 * lo, 100.0 * hi))
                    .unwrap_or_default();
                let _ = write!(
                    out,
                    " {} {} ({:.1}%{interval});",
                    p.choice,
                    p.count,
                    100.0 * p.rate
                );
            }
            let kappa = c
                .kappa
                .map_or("undefined".to_owned(), |k| format!("{k:.3}"));
            let mean = |m: Option<f64>| m.map_or("–".to_owned(), |m| format!("{m:.2}"));
            let _ = writeln!(
                out,
                " Fleiss' kappa {kappa} over {} pairs; mean rating {} {}, {} {}",
                c.kappa_pairs,
                self.conditions[0],
                mean(c.mean_rating[0]),
                self.conditions[1],
                mean(c.mean_rating[1])
            );
        }
        for r in &self.per_rater {
            let agreement = r
                .agreement
                .map_or("–".to_owned(), |a| format!("{:.1}%", 100.0 * a));
            let _ = writeln!(
                out,
                "rater {}: {} answers, agrees with the others' majority on {agreement} of {}",
                r.rater, r.answers, r.compared
            );
        }
        out
    }
}
