//! The report's sections that appear only when some cell has them: a registered
//! domain's own measures, and what the model decided beside the null model.

use super::{num, pct};
use crate::metrics::Summary;
use cantus_render::report::index::{Row, Table};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The names of the domain's own measures any cell has, in order.
fn measure_names(s: &Summary) -> BTreeSet<&String> {
    s.cells.iter().flat_map(|c| c.measures.keys()).collect()
}

/// The domain's own measures (a registered domain's `Tried::measures`), one column
/// each; no section when no cell has any, so reports of the built-in task sets are
/// as they were.
pub(super) fn measures_table(md: &mut String, s: &Summary) {
    let names = measure_names(s);
    if names.is_empty() {
        return;
    }
    md.push_str(
        "\n## The domain's measures\n\nWhat the task set's domain measures of each piece, \
         averaged over the cell's runs that have it (intervals over task families).\n\n\
         | model | condition |",
    );
    for n in &names {
        let _ = write!(md, " {n} |");
    }
    md.push_str("\n|---|---|");
    md.push_str(&"---|".repeat(names.len()));
    md.push('\n');
    for c in s.cells.iter().filter(|c| c.runs > 0) {
        let _ = write!(md, "| {} | {} |", c.model, c.condition);
        for n in &names {
            let _ = write!(
                md,
                " {} |",
                c.measures.get(*n).map_or("–".into(), |i| i.plain())
            );
        }
        md.push('\n');
    }
}

/// The same measures as a table of `report.html` (none when no cell has any), each
/// row linking to its cell's page as the main table's rows do.
pub(super) fn measures_html(s: &Summary, link: impl Fn(&str, &str) -> String) -> Option<Table> {
    let names = measure_names(s);
    if names.is_empty() {
        return None;
    }
    let rows = s
        .cells
        .iter()
        .filter(|c| c.runs > 0)
        .map(|c| {
            let mut cells = vec![c.model.clone(), c.condition.clone()];
            cells.extend(
                names
                    .iter()
                    .map(|n| c.measures.get(*n).map_or("–".into(), |i| i.plain())),
            );
            Row {
                cells,
                link: Some(link(&c.model, &c.condition)),
            }
        })
        .collect();
    let mut columns = vec!["model".to_owned(), "condition".to_owned()];
    columns.extend(names.into_iter().cloned());
    Some(Table {
        caption: "The domain's measures: mean over the cell's runs that have it \
                  (intervals over task families)"
            .into(),
        columns,
        rows,
    })
}

/// The "What the model decided" section: per cell, the bits its constraints offered per
/// note, the share of notes asked written unlike the plan, agreement with the null model's pieces.
pub(super) fn choice_table(md: &mut String, s: &Summary) {
    md.push_str(
        "\n## What the model decided\n\nBits per note: log₂ of the answers the constraints \
         admitted (a pitch counted once however it is spelled), summed over a run's requests, \
         over the notes asked — how much the grammar left to choose. Decided: the share of the \
         notes asked that the answers wrote otherwise (voice, onset, pitch) than the \
         planner's line for the request, counted as each answer was read. Agreement with the null model: the share of \
         a piece's notes that the null model's piece (uniform draws from the same \
         constraints; a model with `kind = \"null\"`) for the same task, condition and run \
         has too — what chance under identical rules also writes.\n\n\
         | model | condition | bits/note | notes asked/run | decided | agreement with null (pairs) | calls/section |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for c in s.cells.iter().filter(|c| c.runs > 0) {
        let k = &c.choice;
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} |",
            c.model,
            c.condition,
            num(k.bits_per_note, 2),
            num(k.notes_asked_per_run, 1),
            pct(k.decided),
            if k.null_pairs > 0 {
                format!("{} ({})", pct(k.null_agreement), k.null_pairs)
            } else {
                "–".into()
            },
            num(k.calls_per_section, 2),
        );
    }
}
