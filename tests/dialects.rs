//! Constraint dialects with the grammars the domains actually generate: the
//! twelve-tone proposer's GBNF and the counterpoint proposer's, each sent by the
//! `openai` backend to a loopback server configured as llama.cpp, vLLM or SGLang.
//! xgrammar's EBNF needs no change for them (the rewrite is the identity), each
//! server gets them in its own field, and a server that ignores the field — it
//! answers outside the grammar — is recorded per call as `constraint_honoured:
//! false` while the verifier stays the judge.

#[path = "../domains/twelve-tone/tests/llm_support/mod.rs"]
mod llm_support;

use cantus_backend::grammar::to_xgrammar;
use cantus_counterpoint::{Assignment, Cantus, ModeName, ModelProposer, Position, Species};
use cantus_fake_server::{FakeServer, Reply, openai_reply};
use cantus_framework::{
    AskOptions, Constraint, ConstraintUse, Domain, ModelBackend, ModelExchange, ModelRequest,
    Proposal, ProposalRequest, Proposer, RequestKind,
};
use cantus_twelve_tone::proposer::llm::LlmProposer;
use cantus_twelve_tone::spec::Spec;
use cantus_twelve_tone::{Blueprint, ToneEvent, ToneState, TwelveTone};
use llm_support::{Scripted, oracle};
use serde_json::{Value, json};
use std::sync::Arc;

/// The backend for a fake server at `url` speaking `dialect`.
fn http_backend(url: &str, dialect: &str) -> Arc<dyn ModelBackend> {
    let text = format!(
        "[backend]\nkind = \"openai\"\nbase_url = \"{url}/v1\"\nmodel = \"m\"\n\
         constraint = \"{dialect}\"\nretries = 0\ntimeout_s = 5\n"
    );
    let config = cantus_backend::Config::from_toml_str(&text, "test.toml").expect("config");
    cantus_backend::build(&config).expect("backend")
}

fn constrained() -> AskOptions {
    AskOptions {
        constrained: true,
        reasks: 0,
        ..AskOptions::default()
    }
}

/// Two voices planned, the first section begun: the state a first request sees.
fn first_section() -> (Blueprint, ToneState) {
    let mut spec = Spec::with_voice_count(2);
    spec.bars = 8;
    spec.section_bars = 4;
    let plan = Blueprint::new(&spec, 11).unwrap();
    let mut state = ToneState::new(&plan);
    TwelveTone.begin_section(&mut state, &plan.sections[0]);
    (plan, state)
}

/// The twelve-tone proposer's first section request through `backend`.
async fn proposal(backend: Arc<dyn ModelBackend>) -> Proposal<ToneEvent> {
    let (plan, state) = first_section();
    let proposer = LlmProposer::new(backend, constrained());
    proposer
        .propose(ProposalRequest {
            kind: RequestKind::Section,
            spec: &plan,
            plan: &plan.sections,
            section_index: Some(0),
            state: &state,
            feedback: &[],
            attempt: 0,
            seed: 1,
        })
        .await
        .expect("answered")
}

/// The exchange the trace keeps of that request.
async fn propose(backend: Arc<dyn ModelBackend>) -> Option<ModelExchange> {
    proposal(backend).await.exchange
}

/// The request the proposer makes (deterministic for the plan and seed), recorded in
/// process.
async fn twelve_tone_request() -> ModelRequest {
    let scripted = Arc::new(Scripted::oracle());
    propose(scripted.clone()).await;
    scripted.requests.lock().unwrap()[0].clone()
}

/// Where each dialect puts a grammar.
fn grammar_field(body: &Value, dialect: &str) -> Option<Value> {
    let pointer = match dialect {
        "llama.cpp" => "/grammar",
        "vllm" => "/structured_outputs/grammar",
        "vllm-guided" => "/guided_grammar",
        "sglang" => "/ebnf",
        _ => return None,
    };
    body.pointer(pointer).cloned()
}

#[tokio::test]
async fn the_twelve_tone_grammar_reaches_each_server_in_its_field_unchanged() {
    let request = twelve_tone_request().await;
    let Some(Constraint::Gbnf(gbnf)) = &request.constraint else {
        panic!("a constrained request carries a GBNF grammar");
    };
    assert!(gbnf.lines().count() > 20, "a real section grammar:\n{gbnf}");
    assert_eq!(
        &to_xgrammar(gbnf).unwrap(),
        gbnf,
        "xgrammar reads it as it is"
    );
    let answer = oracle(&request, None);
    for dialect in ["llama.cpp", "vllm", "vllm-guided", "sglang"] {
        let server = FakeServer::start(vec![Reply::json(openai_reply(&answer))]);
        let exchange = propose(http_backend(&server.url, dialect)).await.unwrap();
        let body = server.seen()[0].json();
        assert_eq!(
            grammar_field(&body, dialect),
            Some(json!(gbnf)),
            "{dialect}"
        );
        let fields = [
            "grammar",
            "structured_outputs",
            "guided_grammar",
            "ebnf",
            "response_format",
        ];
        let sent: Vec<_> = fields.iter().filter(|f| body.get(**f).is_some()).collect();
        assert_eq!(
            sent.len(),
            1,
            "{dialect}: one constraint field, not {sent:?}"
        );
        assert_eq!(exchange.constraint_use, ConstraintUse::Sent, "{dialect}");
        assert_eq!(exchange.constraint_honoured, Some(true), "{dialect}");
    }
}

#[tokio::test]
async fn a_server_that_ignores_the_grammar_is_recorded_as_not_honouring_it() {
    let request = twelve_tone_request().await;
    // A real server that skipped the field would write whatever the model liked:
    // here the right notes but one pitch class the grammar forbids.
    let outside = oracle(&request, Some((1, 3)));
    for dialect in ["vllm-guided", "sglang", "llama.cpp"] {
        let server = FakeServer::start(vec![Reply::json(openai_reply(&outside))]);
        let exchange = propose(http_backend(&server.url, dialect)).await.unwrap();
        assert_eq!(exchange.constraint.as_deref(), Some("gbnf"));
        assert_eq!(exchange.constraint_use, ConstraintUse::Sent, "{dialect}");
        assert_eq!(exchange.constraint_honoured, Some(false), "{dialect}");
        assert_eq!(exchange.reasks, 0, "a complete reply goes to the verifier");
    }
    // A dialect that cannot carry a grammar sends none and says so.
    let server = FakeServer::start(vec![Reply::json(openai_reply(&outside))]);
    let exchange = propose(http_backend(&server.url, "json-schema"))
        .await
        .unwrap();
    assert!(grammar_field(&server.seen()[0].json(), "sglang").is_none());
    assert_eq!(exchange.constraint_use, ConstraintUse::Unsupported);
}

#[tokio::test]
async fn the_counterpoint_grammar_reaches_each_server_unchanged() {
    for species in [Species::First, Species::Second] {
        let assignment = Assignment::new(Cantus::fux(ModeName::Dorian), species, Position::Above);
        let mut grammars = Vec::new();
        for dialect in ["llama.cpp", "vllm", "sglang"] {
            // Prose is never readable: the run ends after its first call, which is all we need.
            let server = FakeServer::start(vec![Reply::json(openai_reply("lovely"))]);
            let proposer = ModelProposer::new(http_backend(&server.url, dialect), constrained());
            let outcome = cantus_counterpoint::compose(assignment.clone(), 5, &proposer).await;
            assert!(!outcome.is_released());
            let body = server.seen()[0].json();
            let grammar =
                grammar_field(&body, dialect).unwrap_or_else(|| panic!("{dialect}: {body}"));
            grammars.push(grammar.as_str().unwrap().to_owned());
        }
        let gbnf = &grammars[0];
        assert!(gbnf.starts_with("root ::= head\nhead ::= "), "{gbnf}");
        assert_eq!(&to_xgrammar(gbnf).unwrap(), gbnf);
        assert!(grammars.iter().all(|g| g == gbnf), "{grammars:?}");
    }
}

#[tokio::test]
async fn cached_prompt_tokens_reach_the_proposals_cost() {
    let request = twelve_tone_request().await;
    let mut body = openai_reply(&oracle(&request, None));
    body["usage"] = json!({"prompt_tokens": 900, "completion_tokens": 200,
        "prompt_tokens_details": {"cached_tokens": 768}});
    let server = FakeServer::start(vec![Reply::json(body)]);
    let proposal = proposal(http_backend(&server.url, "vllm")).await;
    assert_eq!(
        (proposal.cost.tokens_in, proposal.cost.tokens_cached),
        (Some(900), Some(768))
    );
}
