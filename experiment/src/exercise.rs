//! One run of a counterpoint exercise (the second task set): the counterpoint
//! domain's engine with the embedded search or a model, under the conditions that
//! mean something for an exercise, judged by the species gate alone.
//!
//! What applies: the harness (`proposer = "sections"`: one bar per section), with
//! the full ladder, none (`rungs = []`) or the counterpoint rungs a condition names,
//! its replans, constrained decoding and a prompt instruction. What does not, and
//! says so in the record: whole-piece replies and their prompt styles (the domain
//! has no one-reply baseline), a rung counterpoint does not have, and Libretto's
//! revise loop (its measure is calibrated on serial pieces). There is no relaxed gate: an exercise carries no tags to trust.

use super::cell::{Judged, Made, from_outcome};
use super::conditions::{Condition, ProposerMode};
use super::file::Model;
use super::record::{RunOutcome, Verdict};
use cantus_counterpoint::rules::{Profile, rules_for};
use cantus_counterpoint::{
    Assignment, Counterpoint, EmbeddedProposer, ExerciseGate, ModelProposer, SpeciesGate,
};
use cantus_framework::{Budget, Engine, Proposer, Severity};
use std::collections::BTreeMap;

/// Why `condition` does not apply to an exercise with this model, if it does not.
pub fn not_applicable(condition: &Condition, configured: bool) -> Option<String> {
    if let Some(why) =
        condition.lacks_rung("counterpoint", &cantus_counterpoint::rungs::ladder().ids())
    {
        return Some(why);
    }
    let mut why = Vec::new();
    if condition.proposer == ProposerMode::Whole {
        why.push("a whole-piece reply (the counterpoint domain has no one-reply baseline)");
    }
    if condition.revise_rounds > 0 {
        why.push("Libretto's revise loop (its measure is calibrated on serial pieces)");
    }
    if !why.is_empty() {
        return Some(format!(
            "not for counterpoint exercises: this condition is {}",
            why.join(" and ")
        ));
    }
    if !configured && (condition.constrained || condition.instruction.is_some()) {
        return Some(
            "the embedded search reads no prompt and decodes no tokens; this condition is \
             constrained decoding or a prompt instruction"
                .into(),
        );
    }
    None
}

/// Runs `assignment` with `model` under `condition` at `seed`.
pub(super) async fn run(
    assignment: &Assignment,
    model: &Model,
    condition: &Condition,
    seed: u64,
) -> (Made, Judged) {
    if let Some(why) = not_applicable(condition, model.configured.is_some()) {
        let made = Made {
            outcome: RunOutcome::NotApplicable,
            ..Made::failed(why)
        };
        return (made, Judged::default());
    }
    let base = model
        .configured
        .as_ref()
        .map_or_else(cantus_counterpoint::compose::budget, |m| {
            m.settings
                .harness
                .budget(cantus_counterpoint::compose::budget())
        });
    let budget = Budget {
        replans_per_section: condition.replans.unwrap_or(base.replans_per_section),
        ..base
    };
    // Every rung named is counterpoint's (`not_applicable` refused the condition
    // otherwise), so the selection finds each.
    let whole = cantus_counterpoint::rungs::ladder();
    let ladder = match &condition.rungs {
        Some(ids) => whole.select(ids).unwrap_or_default(),
        None => whole,
    };
    let species = assignment.species;
    let engine = Engine::new(
        Counterpoint,
        cantus_counterpoint::predicates::verifier(species),
        ladder,
        ExerciseGate(species),
    )
    .with_budget(budget);
    let proposer: Box<dyn Proposer<Counterpoint>> = match &model.configured {
        None => Box::new(EmbeddedProposer),
        Some(m) => Box::new(ModelProposer::new(
            condition.backend(&m.backend),
            condition.ask(&m.settings.ask(false)),
        )),
    };
    let outcome = engine.run(assignment, proposer.as_ref(), seed).await;
    let made = from_outcome(None, outcome);
    let judged = Judged {
        strict: made.score.as_ref().map(|s| {
            verdict(
                assignment,
                &SpeciesGate::for_assignment(assignment).judge(s),
            )
        }),
        ..Judged::default()
    };
    (made, judged)
}

/// Hard violations per rule of the species (every hard rule listed, 0 where it held).
fn verdict(
    assignment: &Assignment,
    report: &cantus_framework::GateReport<cantus_counterpoint::Location>,
) -> Verdict {
    let mut violations: BTreeMap<String, u64> = rules_for(assignment.species)
        .filter(|r| Profile::Fux.severity(r) == Severity::Hard)
        .map(|r| (r.id.as_str().to_owned(), 0))
        .collect();
    for v in report.violations.iter().filter(|v| v.is_hard()) {
        *violations
            .entry(v.predicate.as_str().to_owned())
            .or_insert(0) += 1;
    }
    for u in report
        .unlisted
        .iter()
        .filter(|u| u.severity == Severity::Hard)
    {
        *violations
            .entry(u.predicate.as_str().to_owned())
            .or_insert(0) += u.count;
    }
    Verdict {
        passed: report.passed,
        violations,
    }
}
