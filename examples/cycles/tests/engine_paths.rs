//! The engine's paths on the cycles domain: repair, drop, replan, budgets, revise.

use cantus_example_cycles::*;
use cantus_framework::{Budget, Entry, Outcome, ReleaseGate, Revise, SectionOutcome, Status};
use std::time::Duration;

fn spec(cycles: usize) -> CycleSpec {
    CycleSpec {
        alphabet: 4,
        window: 3,
        cycles,
    }
}

const SLOPPY: SloppyProposer = SloppyProposer { mistakes: 0.35 };

/// The trace as pretty JSON values, one per line, for a reviewable snapshot.
fn trace_values(outcome: &Outcome<Cycles>) -> Vec<serde_json::Value> {
    outcome
        .trace()
        .to_jsonl_string()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every trace line is JSON"))
        .collect()
}

#[tokio::test]
async fn a_trace_with_a_repair_a_drop_and_a_replan() {
    // Seed 10 was chosen because its run shows every path in 9 proposer calls (its
    // third pass at the dropped symbol asks nothing: both answers were already judged).
    let outcome = engine().run(&spec(2), &SLOPPY, 10).await;
    let Outcome::Released { artefact, trace } = &outcome else {
        panic!("seed 10 releases");
    };
    let statuses: Vec<&Status> = trace.certificates().map(|c| &c.status).collect();
    assert!(
        statuses
            .iter()
            .any(|s| matches!(s, Status::Repaired { .. }))
    );
    assert!(statuses.contains(&&Status::Dropped));
    let replanned = trace
        .entries
        .iter()
        .any(|e| matches!(e, Entry::Section(s) if s.outcome == SectionOutcome::Replanned && s.dropped > 0));
    assert!(replanned, "the section with the drop was replanned");
    assert_eq!(trace.totals.replans, 1);
    // The replan's request carried the reason for the drop.
    let kept = trace
        .entries
        .iter()
        .find_map(|e| match e {
            Entry::Section(s) if s.replan == 1 => Some(s),
            _ => None,
        })
        .expect("a second attempt at the section");
    assert!(
        kept.feedback.iter().any(|f| f.contains("dropped at")),
        "{:?}",
        kept.feedback
    );
    assert!(CycleGate.judge(&spec(2), artefact).passed);
    insta::assert_json_snapshot!("cycles_trace_seed10", trace_values(&outcome));
}

#[tokio::test]
async fn traces_are_deterministic_per_seed() {
    for seed in [1, 10, 99] {
        let a = engine().run(&spec(3), &SLOPPY, seed).await;
        let b = engine().run(&spec(3), &SLOPPY, seed).await;
        assert_eq!(a.trace().to_jsonl_string(), b.trace().to_jsonl_string());
    }
    let a = engine().run(&spec(3), &SLOPPY, 1).await;
    let b = engine().run(&spec(3), &SLOPPY, 2).await;
    assert_ne!(a.trace().to_jsonl_string(), b.trace().to_jsonl_string());
}

#[tokio::test]
async fn timing_is_only_in_the_last_line() {
    let outcome = engine().run(&spec(2), &SLOPPY, 3).await;
    let mut buf = Vec::new();
    outcome.trace().write_jsonl(&mut buf, true).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines
            .last()
            .unwrap()
            .starts_with(r#"{"kind":"timing","wall_ms":"#)
    );
    assert_eq!(
        lines[..lines.len() - 1].join("\n") + "\n",
        outcome.trace().to_jsonl_string()
    );
}

#[tokio::test]
async fn a_dropped_symbol_still_advances_the_cursor() {
    // Without replans and with a ladder that cannot help, drops leave holes in
    // place: later symbols keep their positions.
    let engine = cantus_framework::Engine::new(
        Cycles,
        verifier(),
        cantus_framework::Ladder::new(),
        CycleGate,
    )
    .with_budget(Budget {
        replans_per_section: 0,
        ..Budget::default()
    });
    let outcome = engine
        .run(&spec(3), &SloppyProposer { mistakes: 0.5 }, 4)
        .await;
    let Outcome::Failure {
        artefact: Some(artefact),
        diagnostics,
        ..
    } = &outcome
    else {
        panic!("holes fail the gate");
    };
    assert_eq!(
        artefact.symbols.len(),
        12,
        "one entry per position, dropped or not"
    );
    let holes: Vec<usize> = (0..12).filter(|&i| artefact.symbols[i].is_none()).collect();
    assert!(!holes.is_empty());
    for cert in outcome.trace().certificates() {
        if let Some(accepted) = &cert.accepted {
            assert_eq!(artefact.symbols[accepted.position], Some(accepted.symbol));
        }
    }
    assert!(
        diagnostics
            .iter()
            .any(|d| d.predicate.is_some_and(|p| p == "CY-COMPLETE"))
    );
}

#[tokio::test]
async fn the_gate_fails_explicitly_when_budgets_run_out() {
    // One ladder pass and no replans: a careless proposer leaves holes.
    let engine = engine().with_budget(Budget {
        attempts_per_event: 1,
        replans_per_section: 0,
        ..Budget::default()
    });
    let mut failures = 0;
    for seed in 0..20 {
        if let Outcome::Failure {
            diagnostics,
            artefact,
            ..
        } = engine
            .run(&spec(3), &SloppyProposer { mistakes: 0.6 }, seed)
            .await
        {
            failures += 1;
            assert!(artefact.is_some(), "the partial artefact is kept");
            // The gate's findings, then why they were kept: the replan budget ran out.
            assert!(diagnostics.iter().any(|d| d.predicate.is_none()
                && d.reason.contains("kept with dropped events")));
            assert!(
                diagnostics
                    .iter()
                    .any(|d| d.predicate.is_some_and(|p| p == "CY-COMPLETE"))
            );
        }
    }
    assert!(failures > 0, "some seeds must exhaust the budget");
}

#[tokio::test]
async fn the_proposer_call_budget_ends_the_run_with_what_was_made() {
    let engine = engine().with_budget(Budget {
        max_proposer_calls: Some(1),
        ..Budget::default()
    });
    let outcome = engine
        .run(&spec(3), &SloppyProposer { mistakes: 0.0 }, 0)
        .await;
    let Outcome::Failure {
        diagnostics,
        artefact,
        trace,
    } = outcome
    else {
        panic!("three cycles need three calls");
    };
    assert_eq!(trace.totals.proposer_calls, 1);
    assert!(
        diagnostics[0]
            .reason
            .contains("proposer call budget of 1 calls exhausted"),
        "{}",
        diagnostics[0].reason
    );
    let artefact = artefact.expect("the first cycle is kept");
    assert_eq!(artefact.symbols.len(), 4);
}

#[tokio::test]
async fn a_past_deadline_fails_before_calling_the_proposer() {
    let engine = engine().with_budget(Budget {
        deadline: Some(Duration::ZERO),
        ..Budget::default()
    });
    std::thread::sleep(Duration::from_millis(2));
    let outcome = engine.run(&spec(2), &SLOPPY, 0).await;
    let Outcome::Failure {
        diagnostics, trace, ..
    } = outcome
    else {
        panic!("deadline passed");
    };
    assert!(
        diagnostics[0].reason.contains("deadline of 0 ms exceeded"),
        "{}",
        diagnostics[0].reason
    );
    assert_eq!(trace.totals.proposer_calls, 0);
}

#[tokio::test]
async fn an_impossible_spec_is_a_plan_failure() {
    let bad = CycleSpec {
        alphabet: 3,
        window: 5,
        cycles: 2,
    };
    let Outcome::Failure { diagnostics, .. } = engine().run(&bad, &SLOPPY, 0).await else {
        panic!("window larger than alphabet");
    };
    assert!(
        diagnostics[0]
            .reason
            .contains("cannot be kept with only 3 symbols")
    );
}

#[tokio::test]
async fn the_revise_loop_keeps_the_best_round_and_stops_on_convergence() {
    struct Holes;
    impl cantus_framework::Measure<Cycles> for Holes {
        fn name(&self) -> &str {
            "holes"
        }
        fn assess(&self, a: &CyclesString) -> cantus_framework::Assessment {
            let holes = a.symbols.iter().filter(|s| s.is_none()).count();
            cantus_framework::Assessment {
                score: holes as f64,
                converged: holes == 0,
                feedback: if holes > 0 {
                    vec![format!("{holes} slots are empty: fill every slot")]
                } else {
                    vec![]
                },
                ..Default::default()
            }
        }
    }
    let outcome = engine()
        .revise_whole(
            &spec(3),
            &SloppyProposer { mistakes: 0.5 },
            &Holes,
            7,
            Revise::gate_only(6),
        )
        .await;
    let rounds: Vec<_> = outcome
        .trace()
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Round(r) => Some(r.clone()),
            _ => None,
        })
        .collect();
    assert!(!rounds.is_empty() && rounds.len() <= 6);
    assert!(rounds[0].hard_violations > 0, "round 1 is sloppy");
    assert!(
        rounds[1].feedback.is_empty() || rounds[0].feedback.iter().any(|f| f.starts_with("fix ["))
    );
    if outcome.is_released() {
        assert!(
            rounds.last().unwrap().converged,
            "stops at the first converged round"
        );
    }
    // The kept round is the best one: no later round beat it.
    let best = rounds.iter().rev().find(|r| r.best).unwrap();
    assert!(
        rounds.iter().all(
            |r| r.hard_violations >= best.hard_violations || !r.gate_passed && best.gate_passed
        )
    );
}
