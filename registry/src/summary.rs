//! The short human summary every domain's compose job prints: the loop's totals in
//! one line, and a failure's first diagnostics.

use cantus_framework::Totals;
use std::fmt::Write;

/// "3 repaired (retag 1, model-patch 2), 1 dropped, 1 replan; 11 proposer calls".
pub fn totals_line(t: &Totals) -> String {
    let mut s = format!(
        "{} events proposed, {} accepted as proposed, {} repaired",
        t.events_proposed, t.accepted, t.repaired
    );
    if !t.repairs_by_rung.is_empty() {
        let parts: Vec<String> = t
            .repairs_by_rung
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let _ = write!(s, " ({})", parts.join(", "));
    }
    let _ = write!(
        s,
        ", {} dropped, {} replan{}",
        t.dropped,
        t.replans,
        if t.replans == 1 { "" } else { "s" }
    );
    let _ = write!(
        s,
        "; {} proposer call{}",
        t.proposer_calls,
        if t.proposer_calls == 1 { "" } else { "s" }
    );
    if t.continues > 0 {
        let _ = write!(
            s,
            " ({} continue request{} for what a reply left owed)",
            t.continues,
            if t.continues == 1 { "" } else { "s" }
        );
    }
    match (t.usage.tokens_in, t.usage.tokens_out) {
        (None, None) => {}
        (i, o) => {
            let _ = write!(
                s,
                ", tokens in/out {}/{}",
                i.map_or("?".into(), |v| v.to_string()),
                o.map_or("?".into(), |v| v.to_string())
            );
        }
    }
    if let Some(cached) = t.usage.tokens_cached {
        let _ = write!(s, " ({cached} prompt tokens from the server's cache)");
    }
    s
}

/// "FAILED (gate): N problems" and the first twelve diagnostics, pointing at
/// `report.json` for the rest.
pub fn failure_lines(gate: &str, diagnostics: &[impl std::fmt::Display]) -> Vec<String> {
    let mut lines = vec![format!(
        "FAILED ({gate}): {} problem{}",
        diagnostics.len(),
        if diagnostics.len() == 1 { "" } else { "s" }
    )];
    for d in diagnostics.iter().take(12) {
        lines.push(format!("  {d}"));
    }
    if diagnostics.len() > 12 {
        lines.push(format!(
            "  … {} more in {}",
            diagnostics.len() - 12,
            crate::layout::REPORT
        ));
    }
    lines
}
