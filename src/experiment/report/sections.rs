//! The report's sections that appear only when some cell has them: a registered
//! domain's own measures, and what the model decided beside the null model.

use super::{num, pct};
use crate::experiment::metrics::Summary;
use std::fmt::Write as _;

/// The domain's own measures (a registered domain's `Tried::measures`), one column
/// each; no section when no cell has any, so reports of the built-in task sets are
/// as they were.
pub(super) fn measures_table(md: &mut String, s: &Summary) {
    let names: std::collections::BTreeSet<&String> =
        s.cells.iter().flat_map(|c| c.measures.keys()).collect();
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
