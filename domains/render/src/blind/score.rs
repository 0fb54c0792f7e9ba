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
//!
//! Each (rater, pair, criterion) is one answer however often it is read (see
//! `ratings`), and every count is made in one pass over the answers: scoring is
//! linear in the rows.

use super::key::Key;
use super::ratings::{Answer, Ratings};
use super::stats::{bootstrap_interval, fleiss_kappa};
use super::{CRITERIA, Criterion};
use crate::error::Result;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Bootstrap resamples per interval.
pub const RESAMPLES: usize = 2000;

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
    /// Rows that repeated an answer already read (the same file twice, a second
    /// export): each answer counts once.
    pub repeated: usize,
    /// Pairs with at least one answer.
    pub pairs_rated: usize,
    pub criteria: Vec<CriterionResult>,
    pub per_rater: Vec<RaterAgreement>,
}

/// Reads the key and every ratings CSV and computes the [`Scores`].
pub fn score(key_path: &Path, ratings: &[PathBuf]) -> Result<Scores> {
    let key = Key::read(key_path)?;
    let mut read = Ratings::default();
    for path in ratings {
        read.read_file(path, &key)?;
    }
    Ok(scores(&key, &read))
}

/// The [`Scores`] of `ratings` under `key`.
pub fn scores(key: &Key, ratings: &Ratings) -> Scores {
    let answers = &ratings.answers;
    let raters: BTreeSet<&str> = answers.iter().map(|a| a.rater.as_str()).collect();
    let pairs_rated: BTreeSet<&str> = answers
        .iter()
        .filter(|a| a.preferred.is_some())
        .map(|a| a.pair.as_str())
        .collect();
    let criteria = CRITERIA
        .iter()
        .map(|&c| criterion_result(c, answers, &key.conditions, raters.len(), key.seed))
        .collect();
    Scores {
        conditions: key.conditions.clone(),
        raters: raters.len(),
        rows: ratings.rows,
        repeated: ratings.repeated,
        pairs_rated: pairs_rated.len(),
        criteria,
        per_rater: agreements(answers),
    }
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
    // Per pair, the answers in each category: a resample of the pairs then costs one
    // step per pair, whatever the number of raters.
    let mut by_pair: BTreeMap<&str, [usize; 3]> = BTreeMap::new();
    for a in &answers {
        by_pair.entry(a.pair.as_str()).or_default()[category(a)] += 1;
    }
    let clusters: Vec<[usize; 3]> = by_pair.values().copied().collect();
    let names = [
        conditions[0].clone(),
        conditions[1].clone(),
        "no preference".to_owned(),
    ];
    let preferences = (0..3)
        .map(|k| {
            let count = answers.iter().filter(|a| category(a) == k).count();
            let rate = |sample: &[&[usize; 3]]| {
                let total: usize = sample.iter().map(|c| c.iter().sum::<usize>()).sum();
                let hits: usize = sample.iter().map(|c| c[k]).sum();
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
    let complete: Vec<Vec<u32>> = clusters
        .iter()
        .filter(|counts| counts.iter().sum::<usize>() == raters && raters >= 2)
        .map(|counts| counts.iter().map(|&n| n as u32).collect())
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

/// Each rater's agreement with the others' majority, in one pass: the answers per
/// (pair, criterion) are counted once, and a rater's own answer taken out of them.
fn agreements(all: &[Answer]) -> Vec<RaterAgreement> {
    let category = |a: &Answer| a.preferred.map(|p| p.unwrap_or(2));
    let mut totals: HashMap<(&str, Criterion), [usize; 3]> = HashMap::new();
    for a in all {
        if let Some(c) = category(a) {
            totals.entry((a.pair.as_str(), a.criterion)).or_default()[c] += 1;
        }
    }
    // rater → (answers, compared, agreed)
    let mut per: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for a in all {
        let entry = per.entry(a.rater.as_str()).or_default();
        let Some(mine) = category(a) else {
            continue;
        };
        entry.0 += 1;
        let mut others = totals
            .get(&(a.pair.as_str(), a.criterion))
            .copied()
            .unwrap_or_default();
        others[mine] -= 1;
        let best = others.iter().copied().max().unwrap_or(0);
        if best == 0 || others.iter().filter(|&&c| c == best).count() > 1 {
            continue;
        }
        entry.1 += 1;
        if others[mine] == best {
            entry.2 += 1;
        }
    }
    per.into_iter()
        .map(|(rater, (answers, compared, agreed))| RaterAgreement {
            rater: rater.to_owned(),
            answers,
            compared,
            agreement: (compared > 0).then(|| agreed as f64 / compared as f64),
        })
        .collect()
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
        if self.repeated > 0 {
            let _ = writeln!(
                out,
                "{} rows repeated an answer already read (the same file twice, or a second \
                 export); each answer is counted once",
                self.repeated
            );
        }
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
