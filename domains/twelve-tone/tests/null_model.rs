//! The null model — a proposer that keeps to the constraint and decides everything at
//! random — under the harness: whatever it writes, a piece the loop releases passes the
//! strict gate judged on its own, and a run whose kept sections dropped nothing passes
//! it (the process–audit invariant holds for any proposer that keeps to the
//! constraint). Also: under `freedom = "rules"` the model is offered real choice
//! (bits per note), and under `freedom = "plan"` far less.

use cantus_backend::NullBackend;
use cantus_framework::{AskOptions, Entry, Freedom, Outcome, SectionOutcome};
use cantus_music::Meter;
use cantus_twelve_tone::compose::{Composer, budget};
use cantus_twelve_tone::gate::{GateMode, SerialGate};
use cantus_twelve_tone::proposer::llm::LlmProposer;
use cantus_twelve_tone::spec::{RowChoice, Spec};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::sync::Arc;

fn spec(voices: usize, bars: u32, meter: (u32, u32), row: u8) -> Spec {
    let mut spec = Spec::with_voice_count(voices);
    spec.bars = bars;
    spec.meter = Meter::new(meter.0, meter.1);
    spec.section_bars = spec.section_bars.min(bars);
    spec.row = match row {
        0 => RowChoice::Default,
        1 => RowChoice::Historical {
            id: "WebernOp21".into(),
        },
        _ => RowChoice::AllInterval {
            seed: u64::from(row),
        },
    };
    spec
}

fn null(seed: u64, freedom: Freedom) -> LlmProposer {
    LlmProposer::new(
        Arc::new(NullBackend::new(seed)),
        AskOptions {
            constrained: true,
            freedom,
            ..AskOptions::default()
        },
    )
}

/// What one case came to: (released, bits offered, notes asked).
fn check(
    seed: u64,
    voices: usize,
    bars: u32,
    meter: (u32, u32),
    row: u8,
) -> Result<(bool, f64, u32), TestCaseError> {
    let spec = spec(voices, bars, meter, row);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let composition = runtime
        .block_on(Composer::new(GateMode::Strict, budget()).compose(
            &spec,
            seed,
            &null(seed, Freedom::Rules),
        ))
        .expect("these specs plan");
    let (trace, artefact) = match &composition.outcome {
        Outcome::Released { artefact, trace } => (trace, Some(artefact)),
        Outcome::Failure {
            trace, artefact, ..
        } => (trace, artefact.as_ref()),
    };
    let choice = trace.totals.choice.unwrap_or_default();
    let Some(artefact) = artefact else {
        return Ok((false, choice.bits, choice.notes));
    };
    let report = SerialGate::for_plan(&composition.plan, GateMode::Strict).judge_score(artefact);
    if composition.outcome.is_released() {
        prop_assert!(
            report.passed,
            "released, yet the strict gate refuses: {:?}",
            report.violations
        );
    }
    let kept_drops: usize = trace
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Section(s) if s.outcome == SectionOutcome::Kept => Some(s.dropped),
            _ => None,
        })
        .sum();
    if trace.gate.is_some() && kept_drops == 0 {
        prop_assert!(
            report.passed,
            "no kept section dropped anything, yet the gate refuses: {:?}",
            report.violations
        );
    }
    Ok((composition.outcome.is_released(), choice.bits, choice.notes))
}

#[test]
fn what_the_null_model_releases_passes_the_strict_gate() {
    let strategy = (
        any::<u64>(),
        1usize..=5,
        prop::sample::select(vec![4u32, 8]),
        prop::sample::select(vec![(4u32, 4u32), (3, 4), (6, 8), (5, 4)]),
        0u8..=3,
    );
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases: 40,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let released = std::cell::Cell::new(0u32);
    let cases = std::cell::Cell::new(0u32);
    let bits = std::cell::Cell::new((0.0f64, 0u32));
    runner
        .run(&strategy, |(seed, voices, bars, meter, row)| {
            let (r, b, n) = check(seed, voices, bars, meter, row)?;
            cases.set(cases.get() + 1);
            released.set(released.get() + u32::from(r));
            let (tb, tn) = bits.get();
            bits.set((tb + b, tn + n));
            Ok(())
        })
        .unwrap();
    let (tb, tn) = bits.get();
    println!(
        "null model: {} of {} released; {:.2} bits of choice per note offered",
        released.get(),
        cases.get(),
        tb / f64::from(tn.max(1))
    );
    // Chance under the rules still finishes most pieces: the constraint, not luck,
    // keeps each line clean.
    assert!(
        released.get() * 10 >= cases.get() * 7,
        "{} of {}",
        released.get(),
        cases.get()
    );
    assert!(
        tb / f64::from(tn.max(1)) >= 4.0,
        "{tb} bits over {tn} notes"
    );
}

#[test]
fn the_rules_leave_the_model_choices_the_plan_takes_away() {
    let spec = spec(3, 8, (4, 4), 0);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let per_note = |freedom| {
        let c = runtime
            .block_on(Composer::new(GateMode::Strict, budget()).compose(
                &spec,
                7,
                &null(7, freedom),
            ))
            .unwrap();
        let choice = c
            .outcome
            .trace()
            .totals
            .choice
            .expect("a constraint was counted");
        choice.bits / f64::from(choice.notes)
    };
    let (rules, plan) = (per_note(Freedom::Rules), per_note(Freedom::Plan));
    assert!(rules >= 5.0, "rules: {rules:.2} bits per note");
    assert!(plan <= 2.0, "plan: {plan:.2} bits per note");
}
