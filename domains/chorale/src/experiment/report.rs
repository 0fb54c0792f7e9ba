//! The experiment's figures: for each proposer, delivery beside the calls and
//! tokens it took, agreement with Bach, copy risk and degeneracy (Bach's own beside
//! it), as a Markdown table and as JSON.
//!
//! Means over released chorales are per chorale (each chorale counts once,
//! whatever its length); the per-run table lists every run.

use super::Record;
use serde::Serialize;

/// One proposer's figures over its runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Row {
    pub proposer: String,
    pub runs: usize,
    pub released: usize,
    pub beats: usize,
    pub calls: u64,
    /// Summed over runs that reported them; `None` if no run did.
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    pub repaired: u64,
    pub dropped: u64,
    pub seconds: f64,
    /// Means over released chorales.
    pub bass_agreement: f64,
    pub root_agreement: f64,
    pub copied: f64,
    pub longest_copied_run: usize,
    pub repeated_chord: f64,
    pub chord_variety: f64,
    pub static_lower_parts: f64,
    pub root_position: f64,
    pub soft_per_beat: f64,
}

/// Bach's degeneracy measures over the same chorales (means per chorale).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BachRow {
    pub chorales: usize,
    pub repeated_chord: f64,
    pub chord_variety: f64,
    pub static_lower_parts: f64,
    pub root_position: f64,
}

/// The whole report.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub rows: Vec<Row>,
    pub bach: BachRow,
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 { 0.0 } else { sum / n as f64 }
}

/// The summary of `records`, proposers in the order they first appear.
pub fn summarise(records: &[Record]) -> Summary {
    let mut names: Vec<&str> = Vec::new();
    for r in records {
        if !names.contains(&r.proposer.as_str()) {
            names.push(&r.proposer);
        }
    }
    let rows = names
        .iter()
        .map(|name| {
            let runs: Vec<&Record> = records.iter().filter(|r| r.proposer == *name).collect();
            let ok: Vec<&Record> = runs.iter().copied().filter(|r| r.released).collect();
            let sum_opt = |f: fn(&Record) -> Option<u64>| {
                runs.iter().filter_map(|r| f(r)).reduce(|a, b| a + b)
            };
            let agree = |f: fn(&super::measure::Agreement) -> usize| {
                mean(
                    ok.iter()
                        .filter_map(|r| r.agreement)
                        .map(|a| a.share(f(&a))),
                )
            };
            let degen = |f: fn(&super::measure::Degeneracy) -> f64| {
                mean(ok.iter().filter_map(|r| r.degeneracy.as_ref()).map(f))
            };
            Row {
                proposer: (*name).to_owned(),
                runs: runs.len(),
                released: ok.len(),
                beats: runs.iter().map(|r| r.beats).sum(),
                calls: runs.iter().map(|r| r.calls).sum(),
                tokens_in: sum_opt(|r| r.tokens_in),
                tokens_out: sum_opt(|r| r.tokens_out),
                repaired: runs.iter().map(|r| r.repaired).sum(),
                dropped: runs.iter().map(|r| r.dropped).sum(),
                seconds: runs.iter().map(|r| r.seconds).sum(),
                bass_agreement: agree(|a| a.bass),
                root_agreement: agree(|a| a.root),
                copied: agree(|a| a.copied),
                longest_copied_run: ok
                    .iter()
                    .filter_map(|r| r.agreement)
                    .map(|a| a.longest_copied_run)
                    .max()
                    .unwrap_or(0),
                repeated_chord: degen(|d| d.repeated_chord),
                chord_variety: degen(|d| d.chord_variety),
                static_lower_parts: degen(|d| d.static_lower_parts),
                root_position: degen(|d| d.root_position),
                soft_per_beat: mean(
                    ok.iter()
                        .filter_map(|r| r.soft.map(|s| s as f64 / r.beats.max(1) as f64)),
                ),
            }
        })
        .collect();
    // Bach once per chorale, whichever proposers ran it.
    let mut seen: Vec<&str> = Vec::new();
    let mut bach: Vec<&Record> = Vec::new();
    for r in records {
        if !seen.contains(&r.task.as_str()) {
            seen.push(&r.task);
            bach.push(r);
        }
    }
    let b = |f: fn(&super::measure::Degeneracy) -> f64| {
        mean(bach.iter().map(|r| f(&r.bach_degeneracy)))
    };
    Summary {
        rows,
        bach: BachRow {
            chorales: bach.len(),
            repeated_chord: b(|d| d.repeated_chord),
            chord_variety: b(|d| d.chord_variety),
            static_lower_parts: b(|d| d.static_lower_parts),
            root_position: b(|d| d.root_position),
        },
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn tokens(t: Option<u64>) -> String {
    t.map_or_else(|| "unknown".to_owned(), |t| t.to_string())
}

/// The summary and every run as Markdown.
pub fn markdown(summary: &Summary, records: &[Record]) -> String {
    let mut out = String::from(
        "| proposer | released | calls (per beat) | tokens in / out | repaired | dropped | \
         bass = Bach | root = Bach | copied beats (longest run) | repeated chord | chord variety | \
         static lower parts | root position | soft per beat | seconds |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in &summary.rows {
        out.push_str(&format!(
            "| {} | {} of {} ({}) | {} ({:.2}) | {} / {} | {} | {} | {} | {} | {} ({}) | {} | {} | {} | {} | {:.3} | {:.0} |\n",
            r.proposer,
            r.released,
            r.runs,
            pct(if r.runs == 0 { 0.0 } else { r.released as f64 / r.runs as f64 }),
            r.calls,
            r.calls as f64 / r.beats.max(1) as f64,
            tokens(r.tokens_in),
            tokens(r.tokens_out),
            r.repaired,
            r.dropped,
            pct(r.bass_agreement),
            pct(r.root_agreement),
            pct(r.copied),
            r.longest_copied_run,
            pct(r.repeated_chord),
            pct(r.chord_variety),
            pct(r.static_lower_parts),
            pct(r.root_position),
            r.soft_per_beat,
            r.seconds,
        ));
    }
    let b = &summary.bach;
    out.push_str(&format!(
        "| Bach ({} chorales) | — | — | — | — | — | 100% | 100% | 100% | {} | {} | {} | {} | — | — |\n",
        b.chorales,
        pct(b.repeated_chord),
        pct(b.chord_variety),
        pct(b.static_lower_parts),
        pct(b.root_position),
    ));
    out.push_str(
        "\n| task | proposer | beats | outcome | calls | tokens in / out | repaired | dropped | bass = Bach | root = Bach | copied | seconds |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in records {
        let outcome = if r.released {
            "released".to_owned()
        } else {
            format!(
                "failed: {}",
                r.failure.as_deref().unwrap_or("?").replace('|', "/")
            )
        };
        let (bass, root, copied) =
            r.agreement
                .map_or(("—".into(), "—".into(), "—".into()), |a| {
                    (
                        pct(a.share(a.bass)),
                        pct(a.share(a.root)),
                        pct(a.share(a.copied)),
                    )
                });
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} / {} | {} | {} | {} | {} | {} | {:.1} |\n",
            r.task,
            r.proposer,
            r.beats,
            outcome,
            r.calls,
            tokens(r.tokens_in),
            tokens(r.tokens_out),
            r.repaired,
            r.dropped,
            bass,
            root,
            copied,
            r.seconds
        ));
    }
    out
}
