//! Every shipped mode × both positions × both species is released by the embedded
//! proposer, and the released score passes the gate judged again from scratch.

use cantus_counterpoint::{
    Assignment, Cantus, EmbeddedProposer, ModeName, Position, ReadOptions, Species, compose,
    judge_score,
};
use cantus_framework::Outcome;

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
        .block_on(f)
}

#[test]
fn every_mode_position_and_species_is_released() {
    let mut released = 0;
    for mode in ModeName::ALL {
        for position in [Position::Above, Position::Below] {
            for species in [Species::First, Species::Second] {
                let assignment = Assignment::new(Cantus::fux(mode), species, position);
                let outcome = block_on(compose(assignment, 7, &EmbeddedProposer));
                let what = format!("{mode} {position} species {}", species.number());
                let Outcome::Released { artefact, trace } = outcome else {
                    let Outcome::Failure { diagnostics, .. } = outcome else {
                        unreachable!()
                    };
                    panic!("{what} not released: {diagnostics:#?}");
                };
                assert_eq!(trace.totals.dropped, 0, "{what}: no note dropped");
                // The gate again, reading the score with nothing told.
                let (report, reading) =
                    judge_score(&artefact, &ReadOptions::default()).expect("a readable exercise");
                assert!(report.passed, "{what}: {:#?}", report.violations);
                assert_eq!(
                    reading.exercise.species, species,
                    "{what}: species inferred"
                );
                assert_eq!(
                    reading.exercise.position, position,
                    "{what}: position inferred"
                );
                assert_eq!(reading.exercise.modality.mode(), Some(mode));
                released += 1;
            }
        }
    }
    assert_eq!(released, 24);
}

/// The online verifier and the gate run the same rule code: for a released
/// exercise, the findings each accepted note got online are exactly the gate's
/// moment-rule findings (the gate adds only line rules such as range and climax).
#[test]
fn online_findings_are_the_gates_moment_findings() {
    use cantus_counterpoint::rules::{Scope, rule_by_id};
    for species in [Species::First, Species::Second] {
        let a = Assignment::new(Cantus::fux(ModeName::Dorian), species, Position::Below);
        let Outcome::Released { trace, .. } = block_on(compose(a, 1, &EmbeddedProposer)) else {
            panic!("released");
        };
        let mut online: Vec<(String, u32)> = trace
            .certificates()
            .flat_map(|c| {
                c.verdict
                    .iter()
                    .map(|v| (v.predicate.to_string(), v.location.bar))
            })
            .collect();
        let gate = trace.gate.expect("gate report");
        let mut judged: Vec<(String, u32)> = gate
            .violations
            .iter()
            .filter(|v| rule_by_id(v.predicate).is_some_and(|r| r.scope() == Scope::Moment))
            .map(|v| (v.predicate.to_string(), v.location.bar))
            .collect();
        online.sort();
        judged.sort();
        assert_eq!(online, judged, "species {}", species.number());
    }
}

/// Second species may also open without the half rest.
#[test]
fn second_species_without_the_opening_rest_is_released() {
    let mut a = Assignment::new(
        Cantus::fux(ModeName::Mixolydian),
        Species::Second,
        Position::Above,
    );
    a.rest_start = false;
    let Outcome::Released { artefact, .. } = block_on(compose(a, 9, &EmbeddedProposer)) else {
        panic!("released");
    };
    let (report, reading) = judge_score(&artefact, &ReadOptions::default()).expect("exercise");
    assert!(report.passed);
    assert!(!reading.rest_start);
    assert_eq!(reading.exercise.moments.len(), 2 * 14 - 1);
}

/// Traces are deterministic per seed (the timing line aside), and another seed
/// gives another exercise.
#[test]
fn traces_are_deterministic_per_seed() {
    let run = |seed| {
        let a = Assignment::new(
            Cantus::fux(ModeName::Lydian),
            Species::Second,
            Position::Above,
        );
        block_on(compose(a, seed, &EmbeddedProposer))
    };
    let (a, b, c) = (run(21), run(21), run(22));
    assert_eq!(a.trace().to_jsonl_string(), b.trace().to_jsonl_string());
    let score = |o: &Outcome<cantus_counterpoint::Counterpoint>| match o {
        Outcome::Released { artefact, .. } => artefact.clone(),
        Outcome::Failure { .. } => panic!("released"),
    };
    assert_eq!(score(&a), score(&b));
    assert_ne!(
        score(&a),
        score(&c),
        "seeds 21 and 22 wrote the same exercise"
    );
}
