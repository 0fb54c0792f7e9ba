//! The revise loop in harness mode: every round runs the full propose–verify–repair
//! loop, section requests carry the round's feedback, rounds are re-seeded, and with
//! `require_measure` an artefact the measure never accepted is not released.

use cantus_example_cycles::*;
use cantus_framework::{
    Assessment, Entry, Measure, Outcome, Proposal, ProposalRequest, Proposer, ProposerError,
    RequestKind, Revise, RunMode, async_trait,
};
use std::sync::Mutex;

fn spec() -> CycleSpec {
    CycleSpec {
        alphabet: 4,
        window: 3,
        cycles: 2,
    }
}

const SLOPPY: SloppyProposer = SloppyProposer { mistakes: 0.35 };

/// Satisfied when the string does not start with `avoid`.
struct NotStartingWith(Option<char>);

impl Measure<Cycles> for NotStartingWith {
    fn name(&self) -> &str {
        "opening"
    }
    fn assess(&self, a: &CyclesString) -> Assessment {
        let same = a.symbols.first().copied().flatten() == self.0;
        Assessment {
            score: if same { 1.0 } else { 0.0 },
            converged: !same,
            feedback: if same {
                vec!["the opening symbol is the usual one: begin elsewhere".into()]
            } else {
                vec![]
            },
            ..Default::default()
        }
    }
}

/// Never satisfied.
struct Never;

impl Measure<Cycles> for Never {
    fn name(&self) -> &str {
        "never"
    }
    fn assess(&self, _: &CyclesString) -> Assessment {
        Assessment {
            score: 1.0,
            converged: false,
            feedback: vec!["always more to do".into()],
            ..Default::default()
        }
    }
}

/// Records the feedback of every section request, then asks the sloppy proposer.
struct Recording(Mutex<Vec<Vec<String>>>);

#[async_trait]
impl Proposer<Cycles> for Recording {
    fn name(&self) -> &str {
        "recording"
    }
    async fn propose(
        &self,
        request: ProposalRequest<'_, Cycles>,
    ) -> Result<Proposal<<Cycles as cantus_framework::Domain>::Event>, ProposerError> {
        if matches!(request.kind, RequestKind::Section) {
            self.0
                .lock()
                .unwrap()
                .push(request.feedback.iter().map(ToString::to_string).collect());
        }
        SLOPPY.propose(request).await
    }
}

fn rounds(outcome: &Outcome<Cycles>) -> Vec<cantus_framework::RoundRecord> {
    outcome
        .trace()
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Round(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn harness_rounds_are_reseeded_fed_back_and_stop_when_the_measure_is_met() {
    let seed = 7;
    let Outcome::Released {
        artefact: first, ..
    } = engine().run(&spec(), &SLOPPY, seed).await
    else {
        panic!("seed 7 releases in a plain run");
    };
    let usual = first.symbols[0];
    let recording = Recording(Mutex::new(Vec::new()));
    let outcome = engine()
        .revise_harness(
            &spec(),
            &recording,
            &NotStartingWith(usual),
            seed,
            Revise::measured(6),
        )
        .await;
    let rounds = rounds(&outcome);
    assert!(
        rounds.len() >= 2,
        "round 1 repeats the plain run, so it cannot converge"
    );
    assert!(!rounds[0].converged && rounds.last().unwrap().converged);
    assert!(
        rounds.iter().all(|r| r.gate_passed),
        "the ladder keeps every round legal"
    );
    let Outcome::Released { artefact, trace } = &outcome else {
        panic!("a later round converges and is released");
    };
    assert_ne!(
        artefact.symbols[0], usual,
        "the released string meets the measure"
    );
    assert_eq!(trace.header.mode, RunMode::ReviseHarness);
    let seen = recording.0.lock().unwrap();
    assert!(
        seen[0].is_empty(),
        "round 1's first section has no feedback"
    );
    assert!(
        seen.iter().any(|f| f.first().map(String::as_str)
            == Some("the opening symbol is the usual one: begin elsewhere")),
        "later rounds' section requests carry the measure's feedback first: {seen:?}"
    );
}

#[tokio::test]
async fn an_artefact_the_measure_never_accepted_is_not_released() {
    let outcome = engine()
        .revise_harness(&spec(), &SLOPPY, &Never, 3, Revise::measured(3))
        .await;
    let Outcome::Failure {
        diagnostics,
        artefact,
        trace,
    } = &outcome
    else {
        panic!("require_measure refuses an unaccepted artefact");
    };
    assert!(artefact.is_some(), "the best round is kept for inspection");
    assert!(
        trace.gate.as_ref().is_some_and(|g| g.passed),
        "the trace keeps the gate's verdict: it passed, the measure did not"
    );
    assert!(
        diagnostics[0]
            .reason
            .contains("measure `never` not satisfied after 3 rounds")
    );
    assert!(
        diagnostics
            .iter()
            .any(|d| d.reason.contains("always more to do"))
    );
    assert_eq!(rounds(&outcome).len(), 3);
    // Without require_measure the same best round is released: the gate passed.
    let lenient = Revise {
        require_measure: false,
        ..Revise::measured(3)
    };
    assert!(
        engine()
            .revise_harness(&spec(), &SLOPPY, &Never, 3, lenient)
            .await
            .is_released()
    );
}
