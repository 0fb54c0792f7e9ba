//! Every number of the report, computed from records alone (and the reference
//! distributions in the results' header): per (model, condition) cell, and paired
//! against `raw` for the same model, task and run.
//!
//! Rates count every applicable run (a failed run is a run that delivered nothing);
//! not-applicable runs are counted apart and never enter a rate. Per-predicate pass
//! rates and the collision rate are over runs that made a piece.

pub mod bootstrap;
pub mod choice;
pub mod degeneracy;
pub mod distance;
pub mod texture;

use super::conditions::BASELINE;
use super::record::{Record, Reference, RunOutcome};
use super::tasks::FamilyId;
use bootstrap::{Bootstrap, Interval, mean};
use cantus_framework::RuleId;
use cantus_registry::{Analyser, LenientGate};
use degeneracy::{Features, Sensitivity, Weights};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// What was measured of one record's piece (parsed once).
pub struct Measured<'a> {
    pub record: &'a Record,
    pub features: Option<Features>,
    pub distributions: Option<texture::Distributions>,
    pub collisions: Option<texture::Collisions>,
    /// Share of its notes its domain's analyser explains
    /// ([`cantus_registry::Trials::explained_share`]: twelve-tone's by rows); none
    /// for a domain without one (a chorale read as rows is noise).
    pub analysis_share: Option<f64>,
    /// Its notes (voice, onset, pitch), for agreement with the null model.
    pub notes: Option<BTreeSet<choice::Note>>,
}

impl<'a> Measured<'a> {
    /// Reads the record's piece and measures it.
    pub fn of(record: &'a Record) -> Measured<'a> {
        let score = record.piece.as_deref().and_then(texture::read_piece);
        Measured {
            record,
            features: score.as_ref().and_then(degeneracy::features),
            distributions: score.as_ref().and_then(texture::distributions),
            collisions: score.as_ref().map(texture::collisions),
            analysis_share: score.as_ref().and_then(|score| {
                crate::registered::trials_of(&record.domain)?.explained_share(score)
            }),
            notes: score.as_ref().map(choice::notes),
        }
    }
}

/// Prices of a model, per million tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Price {
    pub input: Option<f64>,
    pub output: Option<f64>,
}

/// Means per run and per delivered piece.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CostSummary {
    pub calls_per_run: f64,
    pub tokens_in_per_run: Option<f64>,
    pub tokens_out_per_run: Option<f64>,
    /// Prompt tokens the server answered from its prefix cache (of `tokens_in`);
    /// `None` when no server of the cell reported them.
    pub tokens_cached_per_run: Option<f64>,
    pub seconds_per_run: f64,
    pub money_per_run: Option<f64>,
    /// Totals over the cell divided by the pieces delivered (strict); `None` when none was.
    pub calls_per_delivered: Option<f64>,
    pub tokens_per_delivered: Option<f64>,
    pub seconds_per_delivered: Option<f64>,
    pub money_per_delivered: Option<f64>,
}

/// KL and MMD against the reference set, with intervals.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Distance {
    pub kl_pitch_class: Option<Interval>,
    pub mmd_pitch_class: Option<Interval>,
    pub kl_interval_class: Option<Interval>,
    pub mmd_interval_class: Option<Interval>,
}

/// One (model, condition) cell.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    pub model: String,
    pub condition: String,
    /// Applicable runs.
    pub runs: usize,
    pub not_applicable: usize,
    /// Why it does not apply, when it does not.
    pub not_applicable_reason: Option<String>,
    pub outcomes: BTreeMap<RunOutcome, usize>,
    pub delivery_strict: Option<Interval>,
    pub delivery_relaxed: Option<Interval>,
    /// Relaxed minus strict.
    pub gap: Option<f64>,
    /// Relaxed releases the strict gate refused: they rely on trusting tags.
    pub tag_dependent_releases: usize,
    pub collision_only_pass: Option<Interval>,
    /// Predicate id → share of runs with a piece where it held.
    pub predicate_pass: BTreeMap<String, f64>,
    /// Colliding pairs over overlapping pairs, pooled over the cell's pieces.
    pub collision_rate: Option<f64>,
    /// Events accepted as proposed over events proposed (harness runs).
    pub process_acceptance: Option<f64>,
    /// Mean successful repairs per run, by rung.
    pub repairs_by_rung: BTreeMap<String, f64>,
    pub drops_per_run: Option<f64>,
    pub replans_per_run: Option<f64>,
    pub degeneracy: Option<Interval>,
    /// Share of pieces Libretto's degeneracy gate passed.
    pub libretto_degeneracy_pass: Option<f64>,
    pub distance: Distance,
    /// Mean share of a piece's notes its domain's analyser explains (twelve-tone's: by
    /// row statements, the row inferred), over the cell's pieces.
    pub analysis_share: Option<Interval>,
    /// What the proposer decided, beside chance.
    pub choice: Choices,
    pub cost: CostSummary,
    /// A registered domain's own measures (`Record::measures`), each the mean over
    /// the cell's runs that have it, with its interval; absent when there are none.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub measures: BTreeMap<String, Interval>,
}

/// What a cell's proposer decided, beside chance under the same constraints.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Choices {
    /// Bits of choice the constraints offered per note asked (log₂ of the answers
    /// admitted, each pitch counted once however it is spelled), pooled over the cell's
    /// runs; `None` where no constraint was sent or counted.
    pub bits_per_note: Option<f64>,
    /// Notes asked of the model per run.
    pub notes_asked_per_run: Option<f64>,
    /// Share of a piece's notes the plan's piece (same task and seed) does not have.
    pub decided: Option<Interval>,
    /// Share of a piece's notes (voice, onset, pitch) the null model's piece for the
    /// same task, condition and run has too; `None` without a null model beside it.
    pub null_agreement: Option<Interval>,
    /// Runs paired with a null model's run for `null_agreement`.
    pub null_pairs: usize,
    /// Proposer calls per section worked on, pooled over the cell's runs.
    pub calls_per_section: Option<f64>,
}

/// A condition against `raw` for the same model, task and run: the mean difference
/// in strict delivery (−1, 0 or +1 per pair) with its clustered interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Paired {
    pub model: String,
    pub condition: String,
    pub pairs: usize,
    pub delivery_difference: Interval,
}

/// Everything the report shows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub cells: Vec<Cell>,
    pub paired: Vec<Paired>,
    /// Ranking of (model, condition) cells by mean degeneracy under perturbed weights.
    pub sensitivity: Option<Sensitivity>,
    pub resamples: u32,
    pub seed: u64,
    pub weights: Weights,
    pub mmd_sigma: f64,
    pub references: Vec<String>,
    /// Mean share of the reference pieces' notes the domain's analyser explains, over
    /// the pieces where it was measured.
    pub reference_analysis_share: Option<f64>,
    /// How the report words what the records' domains declare (not in `report.json`:
    /// words, not figures).
    #[serde(skip)]
    pub words: Words,
}

/// How the report words what the records' domains declare beyond delivery: for
/// each, the first domain (in key order) that declares it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Words {
    /// Its two gates ([`cantus_registry::Trials::lenient_gate`]).
    pub lenient_gate: Option<LenientGate>,
    /// The rule reported alone ([`cantus_registry::Trials::collision_rule`]).
    pub collision_rule: Option<RuleId>,
    /// The analyser of a domain whose pieces had a share measured
    /// ([`cantus_registry::Trials::analyser`]).
    pub analyser: Option<Analyser>,
}

impl Words {
    fn of(measured: &[Measured]) -> Words {
        let mut words = Words::default();
        let mut seen = BTreeSet::new();
        for m in measured {
            if !seen.insert(&m.record.domain) {
                continue;
            }
            let Some(trials) = crate::registered::trials_of(&m.record.domain) else {
                continue;
            };
            words.lenient_gate = words.lenient_gate.or_else(|| trials.lenient_gate());
            words.collision_rule = words.collision_rule.or_else(|| trials.collision_rule());
        }
        words.analyser = measured
            .iter()
            .find(|m| m.analysis_share.is_some())
            .and_then(|m| crate::registered::trials_of(&m.record.domain))
            .map(|t| t.analyser());
        words
    }
}

/// How the metrics are computed.
pub struct Options<'a> {
    pub bootstrap: Bootstrap,
    pub weights: &'a Weights,
    pub perturbation: f64,
    pub perturbation_draws: u32,
    pub mmd_sigma: f64,
    pub references: &'a [Reference],
    pub prices: &'a BTreeMap<String, Price>,
    /// Report order of models and conditions.
    pub models: &'a [String],
    pub conditions: &'a [String],
}

fn share(n: usize, d: usize) -> Option<f64> {
    (d > 0).then(|| n as f64 / d as f64)
}

/// The summary of `records`.
pub fn summarize(records: &[Record], o: &Options<'_>) -> Summary {
    let measured: Vec<Measured> = records.iter().map(Measured::of).collect();
    // The null model's pieces, by (task, condition, run).
    let null: BTreeMap<(&str, &str, u32), &BTreeSet<choice::Note>> = measured
        .iter()
        .filter(|m| m.record.control == Some(super::record::Control::Null))
        .filter_map(|m| {
            let k = &m.record.key;
            m.notes
                .as_ref()
                .map(|n| ((k.task.0.as_str(), k.condition.0.as_str(), k.run), n))
        })
        .collect();
    let mut cells = Vec::new();
    let mut groups: Vec<(String, Vec<Features>)> = Vec::new();
    for model in o.models {
        for condition in o.conditions {
            let all: Vec<&Measured> = measured
                .iter()
                .filter(|m| &m.record.key.model == model && &m.record.key.condition.0 == condition)
                .collect();
            if all.is_empty() {
                continue;
            }
            let cell = cell(model, condition, &all, &null, o);
            let features: Vec<Features> = all
                .iter()
                .filter(|m| m.record.applies())
                .filter_map(|m| m.features)
                .collect();
            if !features.is_empty() {
                groups.push((format!("{model} / {condition}"), features));
            }
            cells.push(cell);
        }
    }
    let sensitivity = (groups.len() > 1).then(|| {
        degeneracy::sensitivity(
            &groups,
            o.weights,
            o.perturbation,
            o.perturbation_draws,
            o.bootstrap.seed,
        )
    });
    Summary {
        paired: paired(records, o),
        cells,
        sensitivity,
        resamples: o.bootstrap.resamples,
        seed: o.bootstrap.seed,
        weights: o.weights.clone(),
        mmd_sigma: o.mmd_sigma,
        references: o.references.iter().map(|r| r.name.clone()).collect(),
        reference_analysis_share: {
            let shares: Vec<f64> = o
                .references
                .iter()
                .filter_map(|r| r.analysis_share)
                .collect();
            (!shares.is_empty()).then(|| shares.iter().sum::<f64>() / shares.len() as f64)
        },
        words: Words::of(&measured),
    }
}

fn rate(o: &Options<'_>, runs: &[&Measured], yes: impl Fn(&Record) -> bool) -> Option<Interval> {
    let items: Vec<(&FamilyId, f64)> = runs
        .iter()
        .map(|m| (&m.record.family, if yes(m.record) { 1.0 } else { 0.0 }))
        .collect();
    o.bootstrap.interval(&items, mean)
}

/// The null model's notes by (task, condition, run).
type NullPieces<'a> = BTreeMap<(&'a str, &'a str, u32), &'a BTreeSet<choice::Note>>;

fn choices(runs: &[&Measured], null: &NullPieces<'_>, o: &Options<'_>) -> Choices {
    let offered: Vec<cantus_framework::Choice> =
        runs.iter().filter_map(|m| m.record.choice).collect();
    let notes: u64 = offered.iter().map(|c| u64::from(c.notes)).sum();
    let bits: f64 = offered.iter().map(|c| c.bits).sum();
    let decided: Vec<(&FamilyId, f64)> = runs
        .iter()
        .filter_map(|m| {
            m.record
                .choice
                .and_then(|c| c.decided())
                .map(|s| (&m.record.family, s))
        })
        .collect();
    let is_null = runs
        .iter()
        .any(|m| m.record.control == Some(super::record::Control::Null));
    let agreement: Vec<(&FamilyId, f64)> = if is_null {
        Vec::new()
    } else {
        runs.iter()
            .filter_map(|m| {
                let k = &m.record.key;
                let theirs = null.get(&(k.task.0.as_str(), k.condition.0.as_str(), k.run))?;
                choice::agreement(m.notes.as_ref()?, theirs).map(|a| (&m.record.family, a))
            })
            .collect()
    };
    Choices {
        bits_per_note: (notes > 0).then(|| bits / notes as f64),
        notes_asked_per_run: (!offered.is_empty()).then(|| notes as f64 / runs.len() as f64),
        decided: o.bootstrap.interval(&decided, mean),
        null_pairs: agreement.len(),
        null_agreement: o.bootstrap.interval(&agreement, mean),
        calls_per_section: {
            let (calls, sections) = runs
                .iter()
                .filter_map(|m| {
                    m.record
                        .counts
                        .as_ref()
                        .map(|c| (m.record.cost.calls, c.sections))
                })
                .fold((0u64, 0u64), |(a, b), (c, s)| (a + c, b + s));
            (sections > 0).then(|| calls as f64 / sections as f64)
        },
    }
}

fn cell(
    model: &str,
    condition: &str,
    all: &[&Measured],
    null: &NullPieces<'_>,
    o: &Options<'_>,
) -> Cell {
    let runs: Vec<&Measured> = all.iter().copied().filter(|m| m.record.applies()).collect();
    let mut outcomes = BTreeMap::new();
    for m in all {
        *outcomes.entry(m.record.outcome).or_default() += 1;
    }
    let not_applicable = all.len() - runs.len();
    // What the runs' domain reports beside delivery: a lenient gate and a collision
    // rule are twelve-tone's; an exercise or a chorale has neither.
    let domain = crate::registered::trials_of_only(runs.iter().map(|m| &m.record.domain));
    let lenient = domain.and_then(|d| d.lenient_gate()).is_some();
    let collision = domain.and_then(|d| d.collision_rule());
    let delivery_strict = rate(o, &runs, Record::released);
    let delivery_relaxed = lenient
        .then(|| rate(o, &runs, |r| r.released_relaxed))
        .flatten();
    let with_piece: Vec<&Record> = runs
        .iter()
        .map(|m| m.record)
        .filter(|r| r.strict.is_some())
        .collect();
    let mut predicate_pass = BTreeMap::new();
    if let Some(first) = with_piece.first().and_then(|r| r.strict.as_ref()) {
        for id in first.violations.keys() {
            let held = with_piece
                .iter()
                .filter(|r| r.strict.as_ref().is_some_and(|v| v.holds(id)))
                .count();
            predicate_pass.insert(id.clone(), held as f64 / with_piece.len() as f64);
        }
    }
    let (overlapping, colliding) = runs
        .iter()
        .filter_map(|m| m.collisions)
        .fold((0, 0), |(o, c), x| (o + x.overlapping, c + x.colliding));
    let counts: Vec<_> = runs
        .iter()
        .filter_map(|m| m.record.counts.as_ref())
        .collect();
    let proposed: u64 = counts.iter().map(|c| c.proposed).sum();
    let accepted: u64 = counts.iter().map(|c| c.accepted_as_proposed).sum();
    let mut repairs_by_rung = BTreeMap::new();
    for c in &counts {
        for (rung, n) in &c.repairs_by_rung {
            *repairs_by_rung.entry(rung.clone()).or_insert(0.0) += *n as f64;
        }
    }
    for v in repairs_by_rung.values_mut() {
        *v /= counts.len() as f64;
    }
    let per_run = |f: &dyn Fn(&super::record::Counts) -> u64| {
        (!counts.is_empty())
            .then(|| counts.iter().map(|c| f(c) as f64).sum::<f64>() / counts.len() as f64)
    };
    let degeneracy_items: Vec<(&FamilyId, f64)> = runs
        .iter()
        .filter_map(|m| {
            m.features.map(|f| {
                (
                    &m.record.family,
                    degeneracy::score(&f, &o.weights.as_array()),
                )
            })
        })
        .collect();
    let libretto: Vec<bool> = runs
        .iter()
        .filter_map(|m| m.record.libretto_degeneracy_passed)
        .collect();
    Cell {
        model: model.to_owned(),
        condition: condition.to_owned(),
        runs: runs.len(),
        not_applicable,
        not_applicable_reason: all
            .iter()
            .find(|m| !m.record.applies())
            .map(|m| m.record.reason.clone()),
        outcomes,
        gap: delivery_strict
            .zip(delivery_relaxed)
            .map(|(s, r)| r.estimate - s.estimate),
        delivery_strict,
        delivery_relaxed,
        tag_dependent_releases: runs.iter().filter(|m| m.record.depends_on_tags()).count(),
        collision_only_pass: collision.and_then(|rule| {
            rate(o, &runs, |r| {
                r.strict.as_ref().is_some_and(|v| v.holds(rule.as_str()))
            })
        }),
        predicate_pass,
        collision_rate: (collision.is_some() && overlapping > 0)
            .then(|| colliding as f64 / overlapping as f64),
        process_acceptance: (proposed > 0).then(|| accepted as f64 / proposed as f64),
        repairs_by_rung,
        drops_per_run: per_run(&|c| c.dropped),
        replans_per_run: per_run(&|c| c.replans),
        degeneracy: o.bootstrap.interval(&degeneracy_items, mean),
        libretto_degeneracy_pass: share(libretto.iter().filter(|p| **p).count(), libretto.len()),
        distance: distance(&runs, o),
        analysis_share: {
            let items: Vec<(&FamilyId, f64)> = runs
                .iter()
                .filter_map(|m| m.analysis_share.map(|s| (&m.record.family, s)))
                .collect();
            o.bootstrap.interval(&items, mean)
        },
        choice: choices(&runs, null, o),
        cost: cost(&runs, o.prices.get(model).copied().unwrap_or_default()),
        measures: measures(&runs, o),
    }
}

/// Each measure a registered domain gave, over the runs that have it.
fn measures(runs: &[&Measured], o: &Options<'_>) -> BTreeMap<String, Interval> {
    let names: BTreeSet<&String> = runs.iter().flat_map(|m| m.record.measures.keys()).collect();
    names
        .into_iter()
        .filter_map(|name| {
            let items: Vec<(&FamilyId, f64)> = runs
                .iter()
                .filter_map(|m| m.record.measures.get(name).map(|x| (&m.record.family, *x)))
                .collect();
            o.bootstrap
                .interval(&items, mean)
                .map(|i| (name.clone(), i))
        })
        .collect()
}

fn distance(runs: &[&Measured], o: &Options<'_>) -> Distance {
    if o.references.is_empty() {
        return Distance::default();
    }
    type Pick = fn(&texture::Distributions) -> &[f64];
    let pc: Pick = |d| d.pitch_classes.as_slice();
    let ic: Pick = |d| d.interval_classes.as_slice();
    let items: Vec<(&FamilyId, &texture::Distributions)> = runs
        .iter()
        .filter_map(|m| m.distributions.as_ref().map(|d| (&m.record.family, d)))
        .collect();
    let refs_pc: Vec<&[f64]> = o
        .references
        .iter()
        .map(|r| r.pitch_classes.as_slice())
        .collect();
    let refs_ic: Vec<&[f64]> = o
        .references
        .iter()
        .map(|r| r.interval_classes.as_slice())
        .collect();
    let kl = |pick: Pick, refs: &[&[f64]]| {
        let q = distance::pooled(refs)?;
        o.bootstrap
            .interval(&items, |ds: &[&&texture::Distributions]| {
                let xs: Vec<&[f64]> = ds.iter().map(|d| pick(d)).collect();
                distance::pooled(&xs).map(|p| distance::kl(&p, &q))
            })
    };
    let mmd = |pick: Pick, refs: &[&[f64]]| {
        o.bootstrap
            .interval(&items, |ds: &[&&texture::Distributions]| {
                let xs: Vec<&[f64]> = ds.iter().map(|d| pick(d)).collect();
                distance::mmd(&xs, refs, o.mmd_sigma)
            })
    };
    Distance {
        kl_pitch_class: kl(pc, &refs_pc),
        mmd_pitch_class: mmd(pc, &refs_pc),
        kl_interval_class: kl(ic, &refs_ic),
        mmd_interval_class: mmd(ic, &refs_ic),
    }
}

fn cost(runs: &[&Measured], price: Price) -> CostSummary {
    if runs.is_empty() {
        return CostSummary::default();
    }
    let n = runs.len() as f64;
    let sum = |f: &dyn Fn(&Record) -> f64| runs.iter().map(|m| f(m.record)).sum::<f64>();
    let tokens = |f: fn(&Record) -> Option<u64>| {
        runs.iter()
            .any(|m| f(m.record).is_some())
            .then(|| sum(&|r| f(r).unwrap_or(0) as f64))
    };
    let calls = sum(&|r| r.cost.calls as f64);
    let seconds = sum(&|r| r.cost.seconds);
    let t_in = tokens(|r| r.cost.tokens.tokens_in);
    let t_out = tokens(|r| r.cost.tokens.tokens_out);
    let t_cached = tokens(|r| r.cost.tokens.tokens_cached);
    let money = match (price.input, price.output) {
        (None, None) => None,
        (pi, po) => Some(
            (t_in.unwrap_or(0.0) * pi.unwrap_or(0.0) + t_out.unwrap_or(0.0) * po.unwrap_or(0.0))
                / 1e6,
        ),
    };
    let delivered = runs.iter().filter(|m| m.record.released()).count() as f64;
    let per = |x: f64| (delivered > 0.0).then(|| x / delivered);
    let tokens_total =
        (t_in.is_some() || t_out.is_some()).then(|| t_in.unwrap_or(0.0) + t_out.unwrap_or(0.0));
    CostSummary {
        calls_per_run: calls / n,
        tokens_in_per_run: t_in.map(|t| t / n),
        tokens_out_per_run: t_out.map(|t| t / n),
        tokens_cached_per_run: t_cached.map(|t| t / n),
        seconds_per_run: seconds / n,
        money_per_run: money.map(|m| m / n),
        calls_per_delivered: per(calls),
        tokens_per_delivered: tokens_total.and_then(per),
        seconds_per_delivered: per(seconds),
        money_per_delivered: money.and_then(per),
    }
}

fn paired(records: &[Record], o: &Options<'_>) -> Vec<Paired> {
    let raw: BTreeMap<(&str, &str, u32), &Record> = records
        .iter()
        .filter(|r| r.key.condition.0 == BASELINE && r.applies())
        .map(|r| ((r.key.model.as_str(), r.key.task.0.as_str(), r.key.run), r))
        .collect();
    let mut out = Vec::new();
    for model in o.models {
        for condition in o.conditions.iter().filter(|c| *c != BASELINE) {
            let items: Vec<(&FamilyId, f64)> = records
                .iter()
                .filter(|r| &r.key.model == model && &r.key.condition.0 == condition && r.applies())
                .filter_map(|r| {
                    let base = raw.get(&(model.as_str(), r.key.task.0.as_str(), r.key.run))?;
                    let d =
                        f64::from(u8::from(r.released())) - f64::from(u8::from(base.released()));
                    Some((&r.family, d))
                })
                .collect();
            if let Some(delivery_difference) = o.bootstrap.interval(&items, mean) {
                out.push(Paired {
                    model: model.clone(),
                    condition: condition.clone(),
                    pairs: items.len(),
                    delivery_difference,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
