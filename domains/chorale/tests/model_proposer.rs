//! The model proposer through the framework's `ModelBackend`: a scripted backend
//! (a "teacher" that knows a good harmonisation and garbles its first answer) gets
//! the chorale released under the grammar, with the re-ask in the trace and every
//! answer inside the grammar; a backend that never answers readably ends the run
//! with an explicit failure; the null model (chance inside the grammar) is released
//! whatever it draws.

use cantus_chorale::{
    EmbeddedProposer, Harmonisation, ModelProposer, PhraseMark, Profile, ReadOptions, compose,
    read_chorale,
};
use cantus_framework::{
    AskOptions, Constraint, Entry, ModelBackend, ModelError, ModelReply, ModelRequest, Outcome,
    async_trait,
};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
        .block_on(f)
}

fn melody() -> Harmonisation {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules/pass-ornamented.txt");
    let loaded = cantus_music::format::read_path(&path, false).expect("reads");
    let options = ReadOptions {
        phrase_ends: Some(vec!["1:4".parse::<PhraseMark>().expect("mark")]),
        ..ReadOptions::default()
    };
    Harmonisation::of(
        "pass",
        &read_chorale(&loaded.score, &options)
            .expect("chorale")
            .chorale,
    )
}

/// Answers each beat with the embedded harmonisation's voicing; its very first
/// answer is prose. Keeps every grammar it is sent, and how many voicings each
/// request says it offers.
struct Teacher {
    answers: Vec<String>,
    calls: AtomicUsize,
    grammars: Mutex<Vec<String>>,
    offered: Mutex<Vec<u64>>,
}

#[async_trait]
impl ModelBackend for Teacher {
    fn name(&self) -> String {
        "teacher".into()
    }
    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        if let Some(Constraint::Gbnf(g)) = &request.constraint {
            self.grammars.lock().expect("lock").push(g.clone());
        }
        if let Some(n) = request.context["offered"].as_u64() {
            self.offered.lock().expect("lock").push(n);
        }
        if self.calls.fetch_add(1, Ordering::SeqCst) == 0 {
            return Ok(ModelReply::text("First I will think about the harmony."));
        }
        let beat = request.context["beat"]
            .as_u64()
            .ok_or_else(|| ModelError::Plugin("no beat".into()))?;
        let answer = self
            .answers
            .get(beat as usize - 1)
            .ok_or_else(|| ModelError::Plugin(format!("no beat {beat}")))?;
        Ok(ModelReply::text(answer.clone()))
    }
}

#[test]
fn a_model_backend_gets_the_chorale_released_inside_the_grammar() {
    let spec = melody();
    let answers = EmbeddedProposer::default()
        .harmonise(&spec, 4)
        .iter()
        .map(|v| v.names())
        .collect();
    let teacher = Arc::new(Teacher {
        answers,
        calls: AtomicUsize::new(0),
        grammars: Mutex::new(Vec::new()),
        offered: Mutex::new(Vec::new()),
    });
    let options = AskOptions {
        constrained: true,
        reasks: 1,
        ..AskOptions::default()
    };
    let proposer = ModelProposer::new(teacher.clone(), options, Profile::Strict);
    let outcome = block_on(compose(&spec, Profile::Strict, 4, &proposer));
    let trace = outcome.trace();
    assert!(outcome.is_released(), "{:#?}", trace.gate);
    let calls: Vec<_> = trace
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Call(c) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 8, "one call per beat");
    let exchanges: Vec<_> = calls.iter().filter_map(|c| c.model.as_ref()).collect();
    assert_eq!(exchanges[0].reasks, 1, "the prose answer was asked again");
    assert!(
        exchanges.iter().all(|x| x.constraint.as_deref() == Some("gbnf")
            && x.constraint_honoured == Some(true)),
        "every answer inside the grammar: {exchanges:#?}"
    );
    // Each exchange records the choice its grammar left: log₂ of the voicings
    // offered at that beat, over its three notes.
    let offered = teacher.offered.lock().expect("lock");
    for x in &exchanges {
        let choice = x.choice.expect("a constrained exchange records its choice");
        assert_eq!(choice.notes, 3);
        let answers = choice.bits.exp2().round() as u64;
        assert!(answers > 1 && offered.contains(&answers), "{choice:?}");
    }
    let grammars = teacher.grammars.lock().expect("lock");
    assert!(grammars.iter().all(|g| g.starts_with("root ::= a0")));
}

struct Babbler;

#[async_trait]
impl ModelBackend for Babbler {
    fn name(&self) -> String {
        "babbler".into()
    }
    async fn complete(&self, _request: &ModelRequest) -> Result<ModelReply, ModelError> {
        Ok(ModelReply::text("Chorales are lovely."))
    }
}

#[test]
fn a_babbling_backend_ends_in_an_explicit_failure() {
    let spec = melody();
    let proposer = ModelProposer::new(
        Arc::new(Babbler),
        AskOptions {
            reasks: 1,
            ..AskOptions::default()
        },
        Profile::Strict,
    );
    let outcome = block_on(compose(&spec, Profile::Strict, 1, &proposer));
    let Outcome::Failure { diagnostics, .. } = &outcome else {
        panic!("a failure")
    };
    let text = diagnostics
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        text.contains("three notes") || text.contains("owes"),
        "{text}"
    );
}

/// Chance inside the grammar: the null model (a uniform draw from each grammar
/// sent) harmonises the fixture under two seeds, and whatever it draws the
/// loop ends in a chorale the strict gate releases — where it walks into a dead
/// end the grammar could not prove, the loop steps back — and every answer it gave
/// was inside the grammar.
#[test]
fn chance_inside_the_grammar_is_released() {
    let spec = melody();
    for seed in 0..2 {
        let options = AskOptions {
            constrained: true,
            ..AskOptions::default()
        };
        let null = Arc::new(cantus_backend::NullBackend::new(seed));
        let proposer = ModelProposer::new(null, options, Profile::Strict);
        let outcome = block_on(compose(&spec, Profile::Strict, seed, &proposer));
        let trace = outcome.trace();
        assert!(outcome.is_released(), "seed {seed}: {:#?}", trace.gate);
        assert!(
            trace
                .entries
                .iter()
                .filter_map(|e| match e {
                    Entry::Call(c) => c.model.as_ref(),
                    _ => None,
                })
                .all(|x| x.constraint_honoured == Some(true)),
            "seed {seed}: an answer outside the grammar"
        );
    }
}
