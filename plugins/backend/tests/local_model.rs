//! The OpenAI-compatible path against a real model: llama.cpp's `llama-server` with
//! SmolLM2-135M-Instruct, started by `scripts/local-model.sh start` (which prints the
//! URL to put in `CANTUS_LOCAL_MODEL_URL`; `scripts/test.sh` does this). Without the
//! variable these tests print `SKIPPED: …`, and fail if `CANTUS_REQUIRE_MODEL=1`.
//!
//! The model is tiny and its exact words depend on the CPU code path, so the tests
//! assert structure — usage, stop reason, constraints honoured, same answer twice —
//! never stored text.

use cantus_framework::{Constraint, ConstraintUse, Message, ModelBackend, ModelRequest};
use serde_json::json;
use std::sync::Arc;

/// The local model backend, or `None` (after saying SKIPPED) when no server is set.
fn local_model(what: &str) -> Option<Arc<dyn ModelBackend>> {
    local_model_speaking(what, "llama.cpp")
}

/// The local model backend sending constraints in `dialect`'s fields.
fn local_model_speaking(what: &str, dialect: &str) -> Option<Arc<dyn ModelBackend>> {
    let Some(url) = std::env::var("CANTUS_LOCAL_MODEL_URL")
        .ok()
        .filter(|u| !u.is_empty())
    else {
        if std::env::var("CANTUS_REQUIRE_MODEL").as_deref() == Ok("1") {
            panic!(
                "{what}: CANTUS_REQUIRE_MODEL=1 but CANTUS_LOCAL_MODEL_URL is not set (run scripts/local-model.sh start)"
            );
        }
        eprintln!(
            "SKIPPED: {what} (no local model server; set CANTUS_LOCAL_MODEL_URL, e.g. from scripts/local-model.sh start)"
        );
        return None;
    };
    let toml = format!(
        "[backend]\nkind = \"openai\"\nbase_url = \"{url}\"\nmodel = \"smollm2\"\napi_key_env = \"CANTUS_LOCAL_MODEL_KEY\"\n\
         temperature = 0.0\nseed = 42\nmax_tokens = 24\ntimeout_s = 120\nretries = 1\n\
         constraint = \"{dialect}\"\n"
    );
    let config =
        cantus_backend::Config::from_toml_str(&toml, "local-model test").expect("valid config");
    Some(cantus_backend::build(&config).expect("backend builds"))
}

fn question(text: &str) -> ModelRequest {
    ModelRequest::new(vec![
        Message::system("You are a terse assistant."),
        Message::user(text),
    ])
}

#[tokio::test]
async fn a_real_model_answers_with_usage_and_a_stop_reason() {
    let Some(model) = local_model("real model: usage and stop reason") else {
        return;
    };
    let reply = model
        .complete(&question("Name one musical note."))
        .await
        .expect("the local model answers");
    assert!(!reply.text.trim().is_empty(), "empty text: {reply:?}");
    assert!(reply.usage.tokens_in.is_some_and(|n| n > 0), "{reply:?}");
    assert!(reply.usage.tokens_out.is_some_and(|n| n > 0), "{reply:?}");
    assert!(
        matches!(reply.stop_reason.as_deref(), Some("stop" | "length")),
        "{reply:?}"
    );
    assert_eq!(reply.constraint, ConstraintUse::NotRequested);
    assert!(reply.model.is_some());
}

#[tokio::test]
async fn a_real_model_stops_at_max_tokens_and_says_so() {
    let Some(model) = local_model("real model: max_tokens") else {
        return;
    };
    let mut request =
        question("Write a long story about a composer who loved rows of twelve tones.");
    request.sampling.max_tokens = Some(3);
    let reply = model.complete(&request).await.expect("answers");
    assert_eq!(reply.stop_reason.as_deref(), Some("length"), "{reply:?}");
    assert!(reply.truncated());
    assert!(reply.usage.tokens_out.is_some_and(|n| n <= 3), "{reply:?}");
}

#[tokio::test]
async fn a_real_model_follows_a_gbnf_grammar() {
    let Some(model) = local_model("real model: GBNF grammar") else {
        return;
    };
    for prompt in [
        "Is C a pitch class? Answer yes or no.",
        "Write me a poem about the sea.",
    ] {
        let mut request = question(prompt);
        request.constraint = Some(Constraint::Gbnf("root ::= \"yes\" | \"no\"".into()));
        let reply = model.complete(&request).await.expect("answers");
        assert!(
            matches!(reply.text.trim(), "yes" | "no"),
            "grammar not honoured: {:?}",
            reply.text
        );
        assert_eq!(reply.constraint, ConstraintUse::Sent);
    }
}

#[tokio::test]
async fn a_real_model_follows_a_json_schema() {
    let Some(model) = local_model("real model: JSON schema") else {
        return;
    };
    let schema = json!({
        "type": "object",
        "properties": {"pitch_class": {"type": "integer", "minimum": 0, "maximum": 11},
                       "name": {"type": "string", "enum": ["C", "D", "E", "F", "G", "A", "B"]}},
        "required": ["pitch_class", "name"],
        "additionalProperties": false
    });
    let mut request = question("Give a pitch class number and a note name as JSON.");
    request.constraint = Some(Constraint::JsonSchema(schema));
    request.sampling.max_tokens = Some(64);
    let reply = model.complete(&request).await.expect("answers");
    let value: serde_json::Value = serde_json::from_str(reply.text.trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", reply.text));
    let pc = value["pitch_class"]
        .as_u64()
        .unwrap_or_else(|| panic!("{value}"));
    assert!(pc <= 11, "{value}");
    assert!(
        ["C", "D", "E", "F", "G", "A", "B"].contains(&value["name"].as_str().unwrap_or("")),
        "{value}"
    );
    assert_eq!(value.as_object().map(|o| o.len()), Some(2), "{value}");
    assert_eq!(reply.constraint, ConstraintUse::Sent);
}

#[tokio::test]
async fn temperature_zero_and_a_seed_give_the_same_answer_twice() {
    let Some(model) = local_model("real model: determinism") else {
        return;
    };
    let request = question("Suggest a tempo marking for a slow piece.");
    let first = model.complete(&request).await.expect("answers");
    let second = model.complete(&request).await.expect("answers again");
    assert_eq!(first.text, second.text);
    assert_eq!(
        (first.usage.tokens_in, first.usage.tokens_out),
        (second.usage.tokens_in, second.usage.tokens_out)
    );
    // The second asking usually finds its prompt in the server's cache (another client
    // may have taken the slot in between); what came from the cache is part of the prompt.
    let cached = second
        .usage
        .tokens_cached
        .expect("llama-server reports cache hits");
    assert!(
        cached <= second.usage.tokens_in.unwrap_or(0),
        "{:?}",
        second.usage
    );
}

#[tokio::test]
async fn llama_cpp_ignores_the_fields_of_other_engines_and_reports_cached_tokens() {
    // A word the model would not write unprompted: only a grammar makes it say it.
    let grammar = Constraint::Gbnf("root ::= \"maybe\"".into());
    for dialect in ["llama.cpp", "vllm", "vllm-guided", "sglang"] {
        let Some(model) = local_model_speaking("real model: constraint dialects", dialect) else {
            return;
        };
        let mut request = question("Write me a poem about the sea.");
        request.constraint = Some(grammar.clone());
        let reply = model.complete(&request).await.expect("answers");
        // Sent either way: whether the server honoured it shows only in the reply.
        assert_eq!(reply.constraint, ConstraintUse::Sent, "{dialect}");
        let followed = reply.text.trim() == "maybe";
        assert_eq!(
            followed,
            dialect == "llama.cpp",
            "{dialect}: {:?}",
            reply.text
        );
        // llama-server says how much of the prompt came from its cache (0 or more).
        assert!(reply.usage.tokens_cached.is_some(), "{dialect}: {reply:?}");
    }
}
