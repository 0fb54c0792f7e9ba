//! What a twelve-tone trace certifies: a reviewed snapshot of the certificates of a
//! short run — one event accepted as proposed and one repaired by each rung that
//! acted — and the properties every certificate of the run has.

use cantus_framework::{Entry, Outcome, Status};
use cantus_twelve_tone::EmbeddedProposer;
use cantus_twelve_tone::compose::{Composer, budget};
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::spec::compile_brief;

const BRIEF: &str = "A 4-bar quartet in 4/4 on Schoenberg's Op. 25 row";

fn run(seed: u64) -> Outcome<cantus_twelve_tone::TwelveTone> {
    let spec = compile_brief(BRIEF).unwrap().spec;
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(Composer::new(GateMode::Strict, budget()).compose(&spec, seed, &EmbeddedProposer))
        .unwrap()
        .outcome
}

#[test]
fn every_certificate_says_where_its_event_came_from_and_how_it_ended() {
    let outcome = run(0);
    assert!(outcome.is_released());
    let trace = outcome.trace();
    let calls: Vec<u64> = trace
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Call(c) => Some(c.call),
            _ => None,
        })
        .collect();
    for cert in trace.certificates() {
        assert!(
            calls.contains(&cert.call),
            "certificate names a call that was made"
        );
        match &cert.status {
            Status::Accepted => {
                assert!(cert.steps.is_empty());
                assert_eq!(cert.accepted.as_ref(), Some(&cert.proposed));
            }
            Status::Repaired { rung } => {
                let last = cert.steps.last().expect("a repair has steps");
                assert_eq!(&last.rung, rung);
                assert!(last.kept && last.verdict.iter().all(|v| !v.is_hard()));
                assert_eq!(cert.accepted.as_ref(), last.after.as_ref());
                assert!(
                    cert.verdict.iter().any(|v| v.is_hard()),
                    "a repair fixed something"
                );
            }
            Status::Dropped => assert!(cert.accepted.is_none()),
        }
    }
    // The deterministic part of the trace depends only on the seed.
    assert_eq!(trace.to_jsonl_string(), run(0).trace().to_jsonl_string());
}

#[test]
fn certificates_of_a_short_quartet() {
    let outcome = run(0);
    let trace = outcome.trace();
    let mut picked = Vec::new();
    let mut seen_rungs = Vec::new();
    for cert in trace.certificates() {
        let keep = match &cert.status {
            Status::Accepted => picked.is_empty(),
            Status::Repaired { rung } if !seen_rungs.contains(rung) => {
                seen_rungs.push(rung.clone());
                true
            }
            _ => false,
        };
        if keep {
            picked.push(serde_json::to_value(cert).unwrap());
        }
    }
    assert!(
        picked.len() >= 2,
        "an accepted and at least one repaired certificate"
    );
    insta::assert_json_snapshot!("quartet_certificates", picked);
}
