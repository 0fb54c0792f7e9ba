//! Index pages: tables whose rows link to piece pages, and inline SVG charts.
//!
//! This is the API the experiment report (issue 11) is to call: build
//! [`Table`]s of [`Row`]s (cells plus an optional link), add charts made with
//! [`bar_chart`] (or any inline SVG), and [`write_index`].
//! Until that runner exists, [`write_run_index`] makes the index of a directory
//! of `cantus compose` outputs or a `cantus bank` output: one piece page per run
//! folder (a folder holding a `report.json`), one table row per run.

use super::html::{escape, head, relative_link};
use super::{PageOptions, bar_chart, write_piece};
use crate::error::{RenderError, Result};
use crate::piece::Piece;
use cantus_registry::layout::REPORT;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One row: its cells (text) and the page it links to (relative to the index).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    pub cells: Vec<String>,
    pub link: Option<String>,
}

/// A table with a caption and column names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub caption: String,
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
}

/// An index page: a title, tables, and inline SVG charts (shown above the tables).
pub fn index_html(title: &str, tables: &[Table], charts: &[String]) -> String {
    let mut out = head(title);
    let _ = writeln!(out, "<h1>{}</h1>", escape(title));
    for chart in charts {
        let _ = writeln!(out, "<figure>{chart}</figure>");
    }
    for table in tables {
        let _ = writeln!(
            out,
            "<h2>{}</h2>\n<table class=\"index\"><thead><tr>",
            escape(&table.caption)
        );
        for c in &table.columns {
            let _ = write!(out, "<th>{}</th>", escape(c));
        }
        out.push_str("</tr></thead><tbody>\n");
        for row in &table.rows {
            out.push_str("<tr>");
            for (i, cell) in row.cells.iter().enumerate() {
                match (&row.link, i) {
                    (Some(link), 0) => {
                        let _ = write!(
                            out,
                            "<td><a href=\"{}\">{}</a></td>",
                            escape(link),
                            escape(cell)
                        );
                    }
                    _ => {
                        let _ = write!(out, "<td>{}</td>", escape(cell));
                    }
                }
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody></table>\n");
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// Writes an index page to `path`.
pub fn write_index(path: &Path, title: &str, tables: &[Table], charts: &[String]) -> Result<()> {
    std::fs::write(path, index_html(title, tables, charts)).map_err(|e| RenderError::io(path, e))
}

/// The run folders of `dir`: itself if it holds a `report.json`, else its
/// sub-folders that do, by name — or, for the output of `cantus bank` or of an
/// experiment run with `run_folders = true`, those of its `runs/` folder.
pub fn run_folders(dir: &Path) -> Result<Vec<PathBuf>> {
    if dir.join(REPORT).is_file() {
        return Ok(vec![dir.to_path_buf()]);
    }
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| RenderError::io(dir, e))? {
        let path = entry.map_err(|e| RenderError::io(dir, e))?.path();
        if path.join(REPORT).is_file() {
            out.push(path);
        }
    }
    let runs = dir.join("runs");
    if out.is_empty() && runs.is_dir() {
        return run_folders(&runs);
    }
    out.sort();
    Ok(out)
}

/// What [`write_run_index`] wrote.
#[derive(Clone, Debug)]
pub struct RunIndex {
    pub index: PathBuf,
    /// Piece pages, one per run folder (in the index's order).
    pub pages: Vec<PathBuf>,
    /// `folder: why` for run folders whose page could not be made.
    pub failures: Vec<String>,
    /// LilyPond warnings, `folder: warning`.
    pub warnings: Vec<String>,
}

/// The index of a directory of runs: `out/index.html` and `out/<run>/index.html`.
pub fn write_run_index(dir: &Path, out: &Path, options: &PageOptions) -> Result<RunIndex> {
    let folders = run_folders(dir)?;
    if folders.is_empty() {
        return Err(RenderError::Piece {
            path: dir.to_path_buf(),
            message: "no run folders (folders holding a report.json) in it".into(),
        });
    }
    let mut rows = Vec::new();
    let mut pages = Vec::new();
    let (mut failures, mut warnings) = (Vec::new(), Vec::new());
    let mut released = 0usize;
    let mut rungs: BTreeMap<String, f64> = BTreeMap::new();
    for folder in &folders {
        let name = folder
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "run".into());
        let page_dir = out.join(&name);
        std::fs::create_dir_all(&page_dir).map_err(|e| RenderError::io(&page_dir, e))?;
        let result = Piece::load(folder, None).and_then(|piece| {
            write_piece(&piece, &page_dir, "index", options).map(|page| (piece, page))
        });
        match result {
            Ok((piece, page)) => {
                let report = piece.report.clone().unwrap_or(Value::Null);
                if report.get("released").and_then(Value::as_bool) == Some(true) {
                    released += 1;
                }
                if let Some(Value::Object(by)) = report.pointer("/totals/repairs_by_rung") {
                    for (rung, n) in by {
                        *rungs.entry(rung.clone()).or_default() += n.as_f64().unwrap_or(0.0);
                    }
                }
                warnings.extend(page.warnings.iter().map(|w| format!("{name}: {w}")));
                rows.push(run_row(&name, &piece, &report, &page.verdict));
                pages.push(page.html);
            }
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                rows.push(Row {
                    cells: vec![
                        name.clone(),
                        "—".into(),
                        "could not render".into(),
                        e.to_string(),
                    ],
                    link: None,
                });
            }
        }
    }
    let table = Table {
        caption: format!("{} runs, {released} released", folders.len()),
        columns: [
            "run",
            "domain",
            "released",
            "gate (now)",
            "bars",
            "voices",
            "events",
            "repaired",
            "dropped",
            "replans",
            "brief",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    };
    let mut charts = vec![bar_chart(
        "Runs",
        &[
            ("released".into(), released as f64),
            ("not released".into(), (folders.len() - released) as f64),
        ],
    )];
    if !rungs.is_empty() {
        charts.push(bar_chart(
            "Repairs by rung (all runs)",
            &rungs.into_iter().collect::<Vec<_>>(),
        ));
    }
    let index = out.join("index.html");
    let title = format!("Cantus runs in {}", dir.display());
    write_index(&index, &title, &[table], &charts)?;
    Ok(RunIndex {
        index,
        pages,
        failures,
        warnings,
    })
}

fn run_row(name: &str, piece: &Piece, report: &Value, verdict: &cantus_registry::Verdict) -> Row {
    let total = |key: &str| {
        report
            .pointer(&format!("/totals/{key}"))
            .map(|v| v.to_string())
            .unwrap_or_default()
    };
    let released = match report.get("released").and_then(Value::as_bool) {
        Some(true) => "yes",
        Some(false) => "no",
        None => "?",
    };
    let score = piece.view.score();
    let count =
        |f: fn(&cantus_music::Score) -> usize| score.map_or("—".to_owned(), |s| f(s).to_string());
    let brief = report
        .pointer("/brief/text")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| {
            report
                .pointer("/cantus/id")
                .and_then(Value::as_str)
                .map(|c| format!("cantus {c}"))
        })
        .unwrap_or_default();
    Row {
        cells: vec![
            name.to_owned(),
            piece.domain.id().to_string(),
            released.to_owned(),
            format!(
                "{} {} ({} violations)",
                verdict.gate,
                if verdict.passed { "passed" } else { "failed" },
                verdict.findings.len()
            ),
            count(|s| s.bar_count() as usize),
            count(|s| s.voices.len()),
            count(cantus_music::Score::event_count),
            total("repaired"),
            total("dropped"),
            total("replans"),
            brief,
        ],
        link: Some(relative_link(&[name, "index.html"])),
    }
}
