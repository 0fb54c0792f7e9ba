//! The report's Delivery table: how many runs each cell's strict gate released, and,
//! only where some cell was judged by them, a domain's second gates (a lenient gate,
//! [`cantus_registry::Trials::lenient_gate`] — twelve-tone's trusts row tags — and
//! the collision-only check), described in that domain's words.

use super::pct;
use crate::metrics::Summary;
use crate::record::RunOutcome;
use cantus_registry::LenientGate;
use std::fmt::Write as _;

/// Whether some cell was judged by a domain's second gates (a lenient gate, the
/// collision-only check): only then does the report show their columns, which mean
/// nothing for another domain's pieces.
pub(super) fn has_second_gates(s: &Summary) -> bool {
    s.cells.iter().any(|c| {
        c.delivery_relaxed.is_some()
            || c.collision_only_pass.is_some()
            || c.tag_dependent_releases > 0
    })
}

/// The Delivery section of `report.md`.
pub(super) fn delivery_table(md: &mut String, s: &Summary) {
    let second = has_second_gates(s);
    if second {
        let gates = s.words.lenient_gate.unwrap_or(LenientGate {
            strict: "the strict gate",
            lenient: "the domain's lenient gate",
        });
        let rule = s.words.collision_rule.map_or("–", |r| r.as_str());
        let _ = write!(
            md,
            "\n## Delivery\n\nStrict: released by {}. Relaxed: {}. *Tag-dependent*: \
             relaxed releases the strict gate refused. *Collision only*: the piece has no vertical \
             collision (`{rule}`), whatever else is wrong.\n\n\
             | model | condition | runs | strict | relaxed | gap | tag-dependent | collision only | failed |\n\
             |---|---|---|---|---|---|---|---|---|\n",
            gates.strict, gates.lenient,
        );
    } else {
        md.push_str(
            "\n## Delivery\n\nStrict: released by the domain's strict gate.\n\n\
             | model | condition | runs | strict | failed |\n|---|---|---|---|---|\n",
        );
    }
    for c in &s.cells {
        if c.runs == 0 {
            continue;
        }
        let failed = c.outcomes.get(&RunOutcome::Failed).copied().unwrap_or(0);
        if !second {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {failed} |",
                c.model,
                c.condition,
                c.runs,
                pct(c.delivery_strict),
            );
            continue;
        }
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {failed} |",
            c.model,
            c.condition,
            c.runs,
            pct(c.delivery_strict),
            pct(c.delivery_relaxed),
            c.gap
                .map_or("–".into(), |g| format!("{:+.1} pp", 100.0 * g)),
            c.tag_dependent_releases,
            pct(c.collision_only_pass),
        );
    }
}
