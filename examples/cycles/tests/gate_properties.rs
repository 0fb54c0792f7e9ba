//! Properties over seeds: released strings pass the gate; failures name a predicate.

use cantus_example_cycles::*;
use cantus_framework::{Outcome, ReleaseGate};
use proptest::prelude::*;

fn run(spec: &CycleSpec, mistakes: f64, seed: u64) -> Outcome<Cycles> {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
        .block_on(engine().run(spec, &SloppyProposer { mistakes }, seed))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn released_passes_the_gate_and_failures_name_a_predicate(
        seed in any::<u64>(),
        alphabet in 3usize..7,
        window_less in 0usize..3,
        cycles in 1usize..5,
        mistakes in 0.0f64..0.8,
    ) {
        let spec = CycleSpec { alphabet, window: alphabet.saturating_sub(window_less).max(1), cycles };
        match run(&spec, mistakes, seed) {
            Outcome::Released { artefact, trace } => {
                let report = CycleGate.judge(&spec, &artefact);
                prop_assert!(report.passed, "released but the gate says {:?}", report.violations);
                prop_assert!(trace.gate.as_ref().is_some_and(|g| g.passed));
                prop_assert!(artefact.symbols.iter().all(Option::is_some));
            }
            Outcome::Failure { diagnostics, .. } => {
                prop_assert!(!diagnostics.is_empty());
                prop_assert!(diagnostics.iter().any(|d| d.predicate.is_some()), "{diagnostics:?}");
            }
        }
    }
}

#[test]
fn the_gate_judges_a_hand_written_string_alone() {
    let ok = CyclesString {
        alphabet: 3,
        window: 2,
        cycles: 2,
        symbols: "ABCABC".chars().map(Some).collect(),
    };
    let spec = CycleSpec {
        alphabet: 3,
        window: 2,
        cycles: 2,
    };
    assert!(CycleGate.judge(&spec, &ok).passed);
    let bad = CyclesString {
        symbols: "ABCCAB".chars().map(Some).collect(),
        ..ok.clone()
    };
    let report = CycleGate.judge(&spec, &bad);
    assert!(!report.passed);
    let ids: Vec<_> = report
        .hard()
        .map(|v| (v.predicate.as_str(), v.location.to_string()))
        .collect();
    assert_eq!(ids, vec![("CY-WINDOW", "cycle 2, slot 1".to_owned())]);
    let short = CyclesString {
        symbols: vec![Some('A'), None, Some('C')],
        cycles: 1,
        ..ok
    };
    let report = CycleGate.judge(&CycleSpec { cycles: 1, ..spec }, &short);
    let ids: Vec<_> = report.hard().map(|v| v.predicate.as_str()).collect();
    assert_eq!(ids, vec!["CY-COMPLETE"]);
}
