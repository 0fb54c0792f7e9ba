//! `cantus experiment report DIR`: reads only `DIR/results.jsonl` (its header holds
//! the experiment file and the reference distributions; `--reference` measures
//! against another set of scores instead, read then) and writes `report.md`,
//! `report.json`, CSV tables (`delivery.csv`, `predicates.csv`, `cost.csv`,
//! `paired.csv`), SVG plots (`delivery.svg` with interval bars, `cost.svg` cost
//! against delivery, `predicates.svg`) and `report.html` (the render crate's index
//! page, with the plots inline).

use super::cell::write_atomically;
use super::conditions::{Condition, shipped};
use super::file::Metrics;
use super::metrics::bootstrap::{Bootstrap, Interval};
use super::metrics::{Cell, Options, Price, Summary, summarize};
use super::record::{Header, Record, file_name_part};
use super::run::{RunError, read_whole_results, results_path};
use cantus_registry::Analyser;
use cantus_render::report::index::{Row, Table, index_html};
use charts::{cost_chart, delivery_chart, predicate_chart};
use delivery::{delivery_table, has_second_gates};
use sections::{choice_table, measures_html, measures_table};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

mod charts;
mod delivery;
mod sections;

/// The parts of the experiment file the report needs (everything else ignored: it
/// was checked when the experiment ran).
#[derive(Deserialize)]
struct Settings {
    #[serde(default)]
    metrics: Metrics,
    #[serde(default)]
    models: Vec<ModelPrice>,
    #[serde(default)]
    conditions: Vec<String>,
    #[serde(default)]
    custom_conditions: Vec<Condition>,
}

#[derive(Deserialize)]
struct ModelPrice {
    name: String,
    #[serde(default)]
    price_in: Option<f64>,
    #[serde(default)]
    price_out: Option<f64>,
}

/// The files written.
pub struct Written {
    pub files: Vec<PathBuf>,
    pub summary: Summary,
    pub records: usize,
}

/// Reads `dir/results.jsonl` and writes the report beside it, measuring the pieces
/// against the reference set the results' header holds, or, when `reference` names
/// score files or directories, against those (the records are not changed; the
/// report says which set it used).
pub fn report(dir: &Path, reference: Option<&[PathBuf]>) -> Result<Written, RunError> {
    let path = results_path(dir);
    let (header, records) = read_whole_results(&path)?;
    let Some(mut header) = header else {
        return Err(RunError::Results {
            path,
            line: 1,
            message: "no experiment header: is this the output of `cantus experiment run`?".into(),
        });
    };
    let settings: Settings = toml::from_str(&header.text).map_err(|e| RunError::Results {
        path: path.clone(),
        line: 1,
        message: format!("the experiment file in the header does not parse: {e}"),
    })?;
    // In key order, whatever order the file holds them in (completion order with
    // --jobs, key order after a merge): every sum runs over the same records in the
    // same order, so the report of a merge is byte for byte the report of one run.
    let mut records: Vec<Record> = records
        .into_iter()
        .filter(|r| r.experiment == header.hash)
        .collect();
    records.sort_by(|a, b| a.key.cmp(&b.key));
    let given_reference = reference.is_some();
    if let Some(paths) = reference {
        // Analysed by the records' domain's analyser, as the run's own set was.
        let domain = super::registered::trials_of_only(records.iter().map(|r| &r.domain));
        header.reference =
            super::reference::read(paths, |p| super::run::tidy(p).display().to_string(), domain)?;
    }
    let models: Vec<String> = settings.models.iter().map(|m| m.name.clone()).collect();
    let prices: BTreeMap<String, Price> = settings
        .models
        .iter()
        .map(|m| {
            (
                m.name.clone(),
                Price {
                    input: m.price_in,
                    output: m.price_out,
                },
            )
        })
        .collect();
    let m = &settings.metrics;
    let options = Options {
        bootstrap: Bootstrap {
            resamples: m.resamples,
            seed: m.seed,
        },
        weights: &m.degeneracy,
        perturbation: m.perturbation,
        perturbation_draws: m.perturbation_draws,
        mmd_sigma: m.mmd_sigma,
        references: &header.reference,
        prices: &prices,
        models: &models,
        conditions: &settings.conditions,
    };
    let summary = summarize(&records, &options);
    let mut known = shipped().map_err(RunError::Conditions)?;
    known.extend(settings.custom_conditions);
    let descriptions: BTreeMap<String, String> = known
        .into_iter()
        .map(|c| (c.name.0, c.description))
        .collect();

    let mut files = Vec::new();
    let mut put = |name: &str, text: String| -> Result<(), RunError> {
        let p = dir.join(name);
        write_atomically(&p, text.as_bytes()).map_err(|source| RunError::Io {
            path: p.clone(),
            source,
        })?;
        files.push(p);
        Ok(())
    };
    let charts = [
        ("delivery.svg", delivery_chart(&summary.cells)),
        ("cost.svg", cost_chart(&summary.cells)),
        ("predicates.svg", predicate_chart(&summary.cells)),
    ];
    put(
        "report.md",
        markdown(
            &header,
            &summary,
            records.len(),
            &descriptions,
            given_reference,
        ),
    )?;
    put(
        "report.json",
        serde_json::to_string_pretty(&summary).unwrap_or_default() + "\n",
    )?;
    for (name, text) in csvs(&summary) {
        put(name, text)?;
    }
    for (name, svg) in &charts {
        put(name, svg.clone() + "\n")?;
    }
    // Every piece as its own file, and one page per (model, condition) listing its
    // runs, each linking to its piece (`cantus render PIECE --html` engraves one).
    for r in &records {
        if let Some(text) = &r.piece {
            put(&piece_path(r), text.clone())?;
        }
    }
    for cell in summary.cells.iter().filter(|c| c.runs > 0) {
        let runs: Vec<&Record> = records
            .iter()
            .filter(|r| r.key.model == cell.model && r.key.condition.0 == cell.condition)
            .collect();
        put(
            &cell_page(&cell.model, &cell.condition),
            index_html(
                &format!("{} / {}", cell.model, cell.condition),
                &[runs_table(&runs)],
                &[],
            ),
        )?;
    }
    let tables = html_tables(&summary);
    let svgs: Vec<String> = charts.iter().map(|(_, s)| s.clone()).collect();
    put(
        "report.html",
        index_html(&format!("Experiment {}", header.name), &tables, &svgs),
    )?;
    Ok(Written {
        files,
        records: records.len(),
        summary,
    })
}

/// Where a record's piece is written, relative to the output directory.
fn piece_path(r: &Record) -> String {
    format!("pieces/{}.txt", r.key.file_stem())
}

/// The page of one (model, condition) cell, relative to the output directory.
fn cell_page(model: &str, condition: &str) -> String {
    format!(
        "cells/{}+{}.html",
        file_name_part(model),
        file_name_part(condition)
    )
}

/// A cell's runs: task, run, outcome, strict violations, calls, each row linking to
/// the run's piece (pages in `cells/` link one level up).
fn runs_table(runs: &[&Record]) -> Table {
    Table {
        caption: "Runs (a row links to its piece in the text grammar)".into(),
        columns: [
            "task",
            "run",
            "outcome",
            "strict violations",
            "calls",
            "why",
        ]
        .map(String::from)
        .to_vec(),
        rows: runs
            .iter()
            .map(|r| Row {
                cells: vec![
                    r.key.task.0.clone(),
                    r.key.run.to_string(),
                    format!("{:?}", r.outcome).to_lowercase(),
                    r.strict.as_ref().map_or("–".into(), |v| {
                        v.violations.values().sum::<u64>().to_string()
                    }),
                    r.cost.calls.to_string(),
                    r.reason.lines().next().unwrap_or("").to_owned(),
                ],
                link: r.piece.as_ref().map(|_| format!("../{}", piece_path(r))),
            })
            .collect(),
    }
}

fn pct(i: Option<Interval>) -> String {
    i.map_or("–".into(), |i| i.percent())
}

fn num(x: Option<f64>, digits: usize) -> String {
    x.map_or("–".into(), |x| format!("{x:.digits$}"))
}

fn markdown(
    header: &Header,
    s: &Summary,
    records: usize,
    descriptions: &BTreeMap<String, String>,
    given_reference: bool,
) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Experiment `{}`\n", header.name);
    let _ = writeln!(
        md,
        "{records} records; experiment file SHA-256 `{}`. Intervals are 95% bootstrap \
         intervals over task families ({} resamples, seed {}). Rates count every applicable \
         run; a failed run delivered nothing.\n",
        header.hash, s.resamples, s.seed
    );
    md.push_str("## Conditions\n\n| condition | what it does |\n|---|---|\n");
    let mut seen = Vec::new();
    for c in &s.cells {
        if !seen.contains(&&c.condition) {
            seen.push(&c.condition);
            let _ = writeln!(
                md,
                "| {} | {} |",
                c.condition,
                descriptions.get(&c.condition).map_or("", String::as_str)
            );
        }
    }
    delivery_table(&mut md, s);
    let na: Vec<&Cell> = s.cells.iter().filter(|c| c.not_applicable > 0).collect();
    if !na.is_empty() {
        md.push_str("\n### Not applicable (not run, not counted)\n\n");
        for c in na {
            let _ = writeln!(
                md,
                "- {} / {}: {} runs — {}",
                c.model,
                c.condition,
                c.not_applicable,
                c.not_applicable_reason.as_deref().unwrap_or("")
            );
        }
    }
    let collisions = s.cells.iter().any(|c| c.collision_rate.is_some());
    md.push_str("\n## The loop\n\n");
    if collisions {
        md.push_str("Collision rate: colliding pairs among pairs of overlapping events of different voices, pooled. ");
    }
    md.push_str("Process acceptance: events accepted as proposed over events proposed.\n\n| model | condition |");
    if collisions {
        md.push_str(" collision rate |");
    }
    md.push_str(" process acceptance | repairs per run by rung | drops per run | replans per run |\n|---|---|");
    if collisions {
        md.push_str("---|");
    }
    md.push_str("---|---|---|---|\n");
    for c in s.cells.iter().filter(|c| c.runs > 0) {
        let rungs: Vec<String> = c
            .repairs_by_rung
            .iter()
            .map(|(k, v)| format!("{k} {v:.1}"))
            .collect();
        let collision = if collisions {
            format!(
                " {} |",
                c.collision_rate
                    .map_or("–".into(), |r| format!("{:.2}%", 100.0 * r))
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            md,
            "| {} | {} |{collision} {} | {} | {} | {} |",
            c.model,
            c.condition,
            c.process_acceptance
                .map_or("–".into(), |r| format!("{:.1}%", 100.0 * r)),
            if rungs.is_empty() {
                "–".into()
            } else {
                rungs.join(", ")
            },
            num(c.drops_per_run, 1),
            num(c.replans_per_run, 1)
        );
    }
    // Only where a model was asked under a constraint: the embedded planner alone
    // decides everything by definition.
    if s.cells.iter().any(|c| c.choice.bits_per_note.is_some()) {
        choice_table(&mut md, s);
    }
    let _ = writeln!(
        md,
        "\n## Degeneracy\n\nScore in [0, 1] (0 varied): weighted mean of long-note fill, sparse texture, repeated cells, register collapse and rhythmic monotony; weights {:?}. Libretto: share of pieces its degeneracy gate passed (29 axes, serial reference table).\n\n| model | condition | degeneracy | Libretto gate passed |\n|---|---|---|---|",
        s.weights.as_array()
    );
    for c in s.cells.iter().filter(|c| c.runs > 0) {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} |",
            c.model,
            c.condition,
            c.degeneracy.map_or("–".into(), |i| i.plain()),
            c.libretto_degeneracy_pass
                .map_or("–".into(), |r| format!("{:.1}%", 100.0 * r))
        );
    }
    if let Some(sens) = &s.sensitivity {
        let _ = writeln!(
            md,
            "\nSensitivity: {} draws, each weight × U[{:.2}, {:.2}]. The ranking (least degenerate first: {}) held in {:.1}% of draws; mean Kendall τ {:.3}.",
            sens.draws,
            1.0 - sens.perturbation,
            1.0 + sens.perturbation,
            sens.ranking.join(" < "),
            100.0 * sens.same_ranking,
            sens.mean_kendall_tau
        );
    }
    md.push_str("\n## Corpus distance\n\n");
    if s.references.is_empty() {
        md.push_str("No reference set named (`metrics.reference`): not computed.\n");
    } else {
        if given_reference {
            md.push_str(
                "The reference set was given to `cantus experiment report --reference`, not \
                 the one the experiment ran with.\n\n",
            );
        }
        let _ = writeln!(
            md,
            "Against {} ({} pieces). KL(pieces ‖ reference) in nats, smoothed; MMD with a Gaussian kernel, σ = {}.\n\n| model | condition | KL pc | MMD pc | KL ic | MMD ic |\n|---|---|---|---|---|---|",
            reference_names(&s.references),
            s.references.len(),
            s.mmd_sigma
        );
        for c in s.cells.iter().filter(|c| c.runs > 0) {
            let d = &c.distance;
            let p = |i: Option<Interval>| i.map_or("–".into(), |i| i.plain());
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} |",
                c.model,
                c.condition,
                p(d.kl_pitch_class),
                p(d.mmd_pitch_class),
                p(d.kl_interval_class),
                p(d.mmd_interval_class)
            );
        }
    }
    if s.cells.iter().any(|c| c.analysis_share.is_some()) {
        analysis_table(&mut md, s);
    }
    measures_table(&mut md, s);
    md.push_str("\n## Cost\n\nSeconds are wall time on the machine that ran the experiment.\n\nCached is the part of the prompt tokens the server answered from its prefix cache, where it said.\n\n| model | condition | calls/run | tokens in/run | cached in/run | tokens out/run | s/run | calls/delivered | tokens/delivered | s/delivered | money/delivered |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for c in s.cells.iter().filter(|c| c.runs > 0) {
        let k = &c.cost;
        let _ = writeln!(
            md,
            "| {} | {} | {:.1} | {} | {} | {} | {:.3} | {} | {} | {} | {} |",
            c.model,
            c.condition,
            k.calls_per_run,
            num(k.tokens_in_per_run, 0),
            num(k.tokens_cached_per_run, 0),
            num(k.tokens_out_per_run, 0),
            k.seconds_per_run,
            num(k.calls_per_delivered, 1),
            num(k.tokens_per_delivered, 0),
            num(k.seconds_per_delivered, 3),
            num(k.money_per_delivered, 4)
        );
    }
    md.push_str("\n## Against raw\n\n");
    if s.paired.is_empty() {
        md.push_str("No run here has a run of the same model, task and run under `raw` (one whole-piece reply, judged as it comes) to be paired with: nothing to compare.\n");
    } else {
        md.push_str("Strict delivery of each condition minus raw's, for the same model, task and run.\n\n| model | condition | pairs | difference |\n|---|---|---|---|\n");
    }
    for p in &s.paired {
        let d = p.delivery_difference;
        let _ = writeln!(
            md,
            "| {} | {} | {} | {:+.1} pp [{:+.1}, {:+.1}] |",
            p.model,
            p.condition,
            p.pairs,
            100.0 * d.estimate,
            100.0 * d.low,
            100.0 * d.high
        );
    }
    md
}

/// The analysis: the share of each cell's pieces its domain's analyser explains, in
/// that analyser's words (twelve-tone's: the serial analysis, by rows).
fn analysis_table(md: &mut String, s: &Summary) {
    let words = s.words.analyser.unwrap_or(Analyser::UNNAMED);
    let _ = write!(
        md,
        "\n## {}\n\n{}, averaged over the cell's pieces.",
        words.title, words.explains
    );
    match s.reference_analysis_share {
        Some(share) => {
            let _ = writeln!(
                md,
                " The reference set's pieces: {:.1}% on average.",
                100.0 * share
            );
        }
        None => md.push('\n'),
    }
    let _ = write!(
        md,
        "\n| model | condition | {} |\n|---|---|---|\n",
        words.column
    );
    for c in s.cells.iter().filter(|c| c.runs > 0) {
        let _ = writeln!(
            md,
            "| {} | {} | {} |",
            c.model,
            c.condition,
            pct(c.analysis_share)
        );
    }
}

fn csvs(s: &Summary) -> Vec<(&'static str, String)> {
    let i = |x: Option<Interval>| {
        x.map_or(",,".into(), |i| {
            format!("{},{},{}", i.estimate, i.low, i.high)
        })
    };
    let o = |x: Option<f64>| x.map_or(String::new(), |x| x.to_string());
    let mut delivery = String::from(
        "model,condition,runs,not_applicable,strict,strict_low,strict_high,relaxed,relaxed_low,relaxed_high,tag_dependent,collision_only,collision_only_low,collision_only_high,collision_rate,process_acceptance,drops_per_run,degeneracy,degeneracy_low,degeneracy_high,libretto_pass\n",
    );
    let mut predicates = String::from("model,condition,predicate,pass_rate\n");
    let mut cost = String::from(
        "model,condition,calls_per_run,tokens_in_per_run,tokens_cached_per_run,tokens_out_per_run,seconds_per_run,money_per_run,calls_per_delivered,tokens_per_delivered,seconds_per_delivered,money_per_delivered\n",
    );
    for c in &s.cells {
        let _ = writeln!(
            delivery,
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            c.model,
            c.condition,
            c.runs,
            c.not_applicable,
            i(c.delivery_strict),
            i(c.delivery_relaxed),
            c.tag_dependent_releases,
            i(c.collision_only_pass),
            o(c.collision_rate),
            o(c.process_acceptance),
            o(c.drops_per_run),
            i(c.degeneracy),
            o(c.libretto_degeneracy_pass),
        );
        for (p, r) in &c.predicate_pass {
            let _ = writeln!(predicates, "{},{},{p},{r}", c.model, c.condition);
        }
        let k = &c.cost;
        let _ = writeln!(
            cost,
            "{},{},{},{},{},{},{},{},{},{},{},{}",
            c.model,
            c.condition,
            k.calls_per_run,
            o(k.tokens_in_per_run),
            o(k.tokens_cached_per_run),
            o(k.tokens_out_per_run),
            k.seconds_per_run,
            o(k.money_per_run),
            o(k.calls_per_delivered),
            o(k.tokens_per_delivered),
            o(k.seconds_per_delivered),
            o(k.money_per_delivered)
        );
    }
    let mut choice = String::from(
        "model,condition,bits_per_note,notes_asked_per_run,decided,decided_low,decided_high,null_agreement,null_agreement_low,null_agreement_high,null_pairs,calls_per_section\n",
    );
    for c in &s.cells {
        let k = &c.choice;
        let _ = writeln!(
            choice,
            "{},{},{},{},{},{},{},{}",
            c.model,
            c.condition,
            o(k.bits_per_note),
            o(k.notes_asked_per_run),
            i(k.decided),
            i(k.null_agreement),
            k.null_pairs,
            o(k.calls_per_section),
        );
    }
    let mut paired = String::from("model,condition,pairs,difference,low,high\n");
    for p in &s.paired {
        let d = p.delivery_difference;
        let _ = writeln!(
            paired,
            "{},{},{},{},{},{}",
            p.model, p.condition, p.pairs, d.estimate, d.low, d.high
        );
    }
    let mut out = vec![
        ("delivery.csv", delivery),
        ("predicates.csv", predicates),
        ("cost.csv", cost),
        ("choice.csv", choice),
        ("paired.csv", paired),
    ];
    // A registered domain's own measures, one line per (cell, measure); no file when
    // no cell has any.
    if s.cells.iter().any(|c| !c.measures.is_empty()) {
        let mut measures = String::from("model,condition,measure,estimate,low,high\n");
        for c in &s.cells {
            for (name, x) in &c.measures {
                let name = if name.contains([',', '"']) {
                    format!("\"{}\"", name.replace('"', "\"\""))
                } else {
                    name.clone()
                };
                let _ = writeln!(
                    measures,
                    "{},{},{name},{}",
                    c.model,
                    c.condition,
                    i(Some(*x))
                );
            }
        }
        out.push(("measures.csv", measures));
    }
    out
}

fn escape(s: &str) -> String {
    cantus_render::report::escape(s)
}

fn html_tables(s: &Summary) -> Vec<Table> {
    let second = has_second_gates(s);
    let rows = s
        .cells
        .iter()
        .filter(|c| c.runs > 0)
        .map(|c| {
            let mut cells = vec![
                c.model.clone(),
                c.condition.clone(),
                c.runs.to_string(),
                pct(c.delivery_strict),
            ];
            if second {
                cells.extend([
                    pct(c.delivery_relaxed),
                    c.tag_dependent_releases.to_string(),
                    pct(c.collision_only_pass),
                ]);
            }
            cells.extend([
                c.degeneracy.map_or("–".into(), |i| i.plain()),
                num(c.choice.bits_per_note, 2),
                pct(c.choice.decided),
                pct(c.choice.null_agreement),
                format!("{:.1}", c.cost.calls_per_run),
            ]);
            Row {
                cells,
                link: Some(cell_page(&c.model, &c.condition)),
            }
        })
        .collect();
    let mut columns = vec!["model", "condition", "runs", "strict"];
    if second {
        columns.extend(["relaxed", "tag-dependent", "collision only"]);
    }
    columns.extend([
        "degeneracy",
        "bits/note",
        "decided",
        "agreement with null",
        "calls/run",
    ]);
    let main = Table {
        caption:
            "Delivery, degeneracy and cost per model and condition (see report.md for all metrics)"
                .into(),
        columns: columns.into_iter().map(String::from).collect(),
        rows,
    };
    std::iter::once(main)
        .chain(measures_html(s, cell_page))
        .collect()
}

/// How the report names a reference set: its directory (`corpus/second-viennese/`)
/// when every piece is in one, else every piece.
fn reference_names(names: &[String]) -> String {
    let dir = |name: &str| name.rfind('/').map(|i| name[..=i].to_owned());
    match names.first().and_then(|n| dir(n)) {
        Some(first) if names.len() > 1 && names.iter().all(|n| dir(n).as_ref() == Some(&first)) => {
            first
        }
        _ => names.join(", "),
    }
}
