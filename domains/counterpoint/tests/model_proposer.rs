//! The model proposer through the framework's `ModelBackend`: a scripted backend
//! (a "teacher" that knows a correct line and garbles its first answer) gets the
//! exercise released, with the re-ask in the trace; a backend that never answers
//! readably ends the run with an explicit failure.

use cantus_counterpoint::{
    Assignment, Beat, Cantus, ModeName, ModelProposer, Position, Species, compose,
    proposer::complete,
};
use cantus_framework::{
    AskOptions, Entry, ModelBackend, ModelError, ModelReply, ModelRequest, Outcome, async_trait,
};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
        .block_on(f)
}

fn slot_name(bar: usize, beat: Beat) -> String {
    match beat {
        Beat::Down => format!("bar {} downbeat", bar + 1),
        Beat::Up => format!("bar {} upbeat", bar + 1),
    }
}

/// Answers with the notes of a known line for the slots the request names; its
/// very first answer is prose.
struct Teacher {
    line: HashMap<String, String>,
    calls: AtomicUsize,
}

#[async_trait]
impl ModelBackend for Teacher {
    fn name(&self) -> String {
        "teacher".into()
    }
    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        if self.calls.fetch_add(1, Ordering::SeqCst) == 0 {
            return Ok(ModelReply::text("Let me think about the cantus first."));
        }
        let slots = request.context["slots"]
            .as_array()
            .ok_or_else(|| ModelError::Plugin("no slots".into()))?;
        let notes: Vec<String> = slots
            .iter()
            .filter_map(|s| s.as_str().and_then(|s| self.line.get(s)).cloned())
            .collect();
        Ok(ModelReply::text(notes.join(" ")))
    }
}

#[test]
fn a_model_backend_gets_the_exercise_released() {
    let a = Assignment::new(
        Cantus::fux(ModeName::Aeolian),
        Species::Second,
        Position::Above,
    );
    let line = complete(&a.empty_exercise(), &a.slots(), 5, 0, None);
    let line = line
        .iter()
        .map(|e| {
            let n = cantus_counterpoint::Note {
                midi: e.midi,
                spelling: e.spelling,
            };
            (slot_name(e.bar, e.beat), n.to_string())
        })
        .collect();
    let teacher = Arc::new(Teacher {
        line,
        calls: AtomicUsize::new(0),
    });
    let proposer = ModelProposer::new(
        teacher.clone(),
        AskOptions {
            reasks: 2,
            constrained: true,
            ..AskOptions::default()
        },
    );
    let outcome = block_on(compose(a, 5, &proposer));
    let Outcome::Released { trace, .. } = outcome else {
        panic!("released")
    };
    let exchanges: Vec<_> = trace
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Call(c) => c.model.clone(),
            _ => None,
        })
        .collect();
    assert!(!exchanges.is_empty());
    assert!(
        exchanges
            .iter()
            .all(|x| x.backend == "teacher" && x.constraint.as_deref() == Some("gbnf"))
    );
    assert_eq!(exchanges[0].reasks, 1, "the prose answer was asked again");
    assert_eq!(trace.totals.dropped, 0);
}

struct Babbler;

#[async_trait]
impl ModelBackend for Babbler {
    fn name(&self) -> String {
        "babbler".into()
    }
    async fn complete(&self, _: &ModelRequest) -> Result<ModelReply, ModelError> {
        Ok(ModelReply::text("counterpoint is lovely"))
    }
}

#[test]
fn an_unreadable_model_ends_in_an_explicit_failure() {
    let a = Assignment::new(
        Cantus::fux(ModeName::Dorian),
        Species::First,
        Position::Above,
    );
    let outcome = block_on(compose(
        a,
        0,
        &ModelProposer::new(
            Arc::new(Babbler),
            AskOptions {
                reasks: 1,
                ..AskOptions::default()
            },
        ),
    ));
    let Outcome::Failure { diagnostics, .. } = outcome else {
        panic!("must fail")
    };
    let text: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
    assert!(text.iter().any(|d| d.contains("re-asks")), "{text:#?}");
}
