//! A proposer that fails (a crashed plugin, a server outage) gets the section's
//! replans, as a bad section would; when they run out the run fails explicitly,
//! naming the proposer's error.

use cantus_example_cycles::*;
use cantus_framework::{
    Budget, Entry, Outcome, Proposal, ProposalRequest, Proposer, ProposerError, RequestKind,
    async_trait,
};
use std::sync::atomic::{AtomicU32, Ordering};

fn spec() -> CycleSpec {
    CycleSpec {
        alphabet: 4,
        window: 3,
        cycles: 2,
    }
}

/// Fails its first `failures` section requests, then answers like the sloppy proposer.
struct Flaky {
    failures: u32,
    seen: AtomicU32,
    feedback_after_failure: std::sync::Mutex<Vec<String>>,
}

#[async_trait]
impl Proposer<Cycles> for Flaky {
    fn name(&self) -> &str {
        "flaky"
    }
    async fn propose(
        &self,
        request: ProposalRequest<'_, Cycles>,
    ) -> Result<Proposal<<Cycles as cantus_framework::Domain>::Event>, ProposerError> {
        if matches!(request.kind, RequestKind::Section) {
            let n = self.seen.fetch_add(1, Ordering::SeqCst);
            if n == self.failures {
                *self.feedback_after_failure.lock().unwrap() =
                    request.feedback.iter().map(ToString::to_string).collect();
            }
            if n < self.failures {
                return Err(ProposerError::Unavailable("HTTP 503: try later".into()));
            }
        }
        SloppyProposer { mistakes: 0.0 }.propose(request).await
    }
}

fn flaky(failures: u32) -> Flaky {
    Flaky {
        failures,
        seen: AtomicU32::new(0),
        feedback_after_failure: Default::default(),
    }
}

#[tokio::test]
async fn a_failed_section_request_is_replanned_and_the_run_goes_on() {
    let proposer = flaky(1);
    let outcome = engine().run(&spec(), &proposer, 3).await;
    let Outcome::Released { trace, .. } = &outcome else {
        panic!("one outage is absorbed by a replan");
    };
    assert_eq!(trace.totals.replans, 1);
    let failed_calls: Vec<_> = trace
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Call(c) if c.error.is_some() => Some(c.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(failed_calls.len(), 1, "the failed call is in the trace");
    assert!(
        failed_calls[0]
            .error
            .as_deref()
            .unwrap()
            .contains("HTTP 503")
    );
    let feedback = proposer.feedback_after_failure.lock().unwrap();
    assert!(
        feedback
            .iter()
            .any(|f| f.contains("the last request failed") && f.contains("HTTP 503")),
        "the retry says what went wrong: {feedback:?}"
    );
}

#[tokio::test]
async fn a_proposer_that_keeps_failing_ends_the_run_naming_its_error() {
    let budget = Budget {
        replans_per_section: 2,
        ..Budget::default()
    };
    let proposer = flaky(u32::MAX);
    let outcome = engine()
        .with_budget(budget)
        .run(&spec(), &proposer, 3)
        .await;
    let Outcome::Failure {
        diagnostics, trace, ..
    } = &outcome
    else {
        panic!("a dead proposer cannot release");
    };
    assert_eq!(trace.totals.proposer_calls, 3, "one call and two replans");
    assert!(
        diagnostics[0].reason.contains("HTTP 503"),
        "{:?}",
        diagnostics[0]
    );
}

#[tokio::test]
async fn a_spent_call_budget_is_not_replanned() {
    let budget = Budget {
        replans_per_section: 5,
        max_proposer_calls: Some(1),
        ..Budget::default()
    };
    let proposer = flaky(u32::MAX);
    let outcome = engine()
        .with_budget(budget)
        .run(&spec(), &proposer, 3)
        .await;
    assert!(!outcome.is_released());
    assert_eq!(outcome.trace().totals.proposer_calls, 1);
}
