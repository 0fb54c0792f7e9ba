//! Constraint dialects over the wire: for each `[backend] constraint`, the exact JSON
//! body a loopback server receives (grammar field, schema field, or none), what the
//! reply records about the constraint, cached prompt tokens read from each server's
//! reply shape, and a located error for a dialect that does not exist.

mod support;

use cantus_backend::{Config, ConstraintDialect};
use cantus_framework::{Constraint, ConstraintUse, ModelReply};
use serde_json::{Value, json};
use support::{FakeServer, Reply, ask, backend, config_toml, openai_reply};

/// The grammar the counterpoint proposer sends for three notes.
const GRAMMAR: &str =
    "root ::= note \" \" note \" \" note\nnote ::= [A-G] (\"#\" | \"b\")? [0-9]\n";

/// Sends one request carrying `constraint` to a fresh fake server with the
/// `dialect` configured; the body the server read and the reply.
async fn exchange(dialect: &str, constraint: Option<Constraint>) -> (Value, ModelReply) {
    let server = FakeServer::start(vec![Reply::json(openai_reply("A4 C5 D5"))]);
    let toml = config_toml(
        "openai",
        &format!("{}/v1", server.url),
        &format!("constraint = \"{dialect}\"\ntemperature = 0.0\nseed = 5"),
    );
    let mut request = ask("Three notes.");
    request.constraint = constraint;
    let reply = backend(&toml).complete(&request).await.expect("answered");
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    (seen[0].json(), reply)
}

/// The body every dialect sends without its constraint field.
fn base() -> serde_json::Map<String, Value> {
    let Value::Object(map) = json!({
        "model": "test-model",
        "messages": [{"role": "user", "content": "Three notes."}],
        "stream": false,
        "temperature": 0.0,
        "seed": 5,
    }) else {
        unreachable!()
    };
    map
}

fn with(field: Option<(&str, Value)>) -> Value {
    let mut body = base();
    if let Some((k, v)) = field {
        body.insert(k.into(), v);
    }
    Value::Object(body)
}

#[tokio::test]
async fn each_dialect_sends_the_grammar_in_its_servers_field() {
    let cases = [
        ("llama.cpp", Some(("grammar", json!(GRAMMAR)))),
        (
            "vllm",
            Some(("structured_outputs", json!({"grammar": GRAMMAR}))),
        ),
        ("vllm-guided", Some(("guided_grammar", json!(GRAMMAR)))),
        ("sglang", Some(("ebnf", json!(GRAMMAR)))),
        ("json-schema", None),
        ("none", None),
    ];
    for (dialect, field) in cases {
        let sent = field.is_some();
        let (body, reply) = exchange(dialect, Some(Constraint::Gbnf(GRAMMAR.into()))).await;
        assert_eq!(body, with(field), "{dialect}");
        let want = if sent {
            ConstraintUse::Sent
        } else {
            ConstraintUse::Unsupported
        };
        assert_eq!(reply.constraint, want, "{dialect}");
    }
}

#[tokio::test]
async fn each_dialect_sends_a_json_schema_in_its_servers_field() {
    let schema = json!({"type": "object", "properties": {"notes": {"type": "array"}}});
    let response_format = json!({"type": "json_schema",
        "json_schema": {"name": "reply", "schema": schema, "strict": true}});
    let cases = [
        (
            "llama.cpp",
            Some(("response_format", response_format.clone())),
        ),
        (
            "vllm",
            Some(("structured_outputs", json!({"json": schema}))),
        ),
        ("vllm-guided", Some(("guided_json", schema.clone()))),
        ("sglang", Some(("response_format", response_format.clone()))),
        ("json-schema", Some(("response_format", response_format))),
        ("none", None),
    ];
    for (dialect, field) in cases {
        let sent = field.is_some();
        let (body, reply) = exchange(dialect, Some(Constraint::JsonSchema(schema.clone()))).await;
        assert_eq!(body, with(field), "{dialect}");
        assert_eq!(
            reply.constraint,
            if sent {
                ConstraintUse::Sent
            } else {
                ConstraintUse::Unsupported
            },
            "{dialect}"
        );
    }
}

#[tokio::test]
async fn without_a_constraint_every_dialect_sends_the_same_body() {
    for d in ConstraintDialect::ALL {
        let (body, reply) = exchange(d.name(), None).await;
        assert_eq!(body, with(None), "{d}");
        assert_eq!(reply.constraint, ConstraintUse::NotRequested, "{d}");
    }
}

#[tokio::test]
async fn a_grammar_xgrammar_cannot_read_goes_unconstrained_and_says_so() {
    // llama.cpp's token references have no xgrammar spelling.
    let g = "root ::= <[128010]> note\nnote ::= [A-G]\n";
    let (body, reply) = exchange("sglang", Some(Constraint::Gbnf(g.into()))).await;
    assert_eq!(body, with(None));
    assert_eq!(reply.constraint, ConstraintUse::Unsupported);
}

/// `openai_reply` with `extra` merged into the body.
fn reply_with(extra: Value) -> Value {
    let mut body = openai_reply("A4");
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    body
}

#[tokio::test]
async fn cached_prompt_tokens_are_read_from_each_servers_reply() {
    let shapes = [
        // OpenAI, vLLM (--enable-prompt-tokens-details), SGLang (--enable-cache-report).
        (
            "openai/vllm/sglang",
            reply_with(
                json!({"usage": {"prompt_tokens": 120, "completion_tokens": 3,
                "prompt_tokens_details": {"cached_tokens": 96}}}),
            ),
            Some(96),
        ),
        // llama.cpp's llama-server: both, as it answers on this machine.
        (
            "llama.cpp",
            reply_with(
                json!({"usage": {"prompt_tokens": 35, "completion_tokens": 2,
                "prompt_tokens_details": {"cached_tokens": 34}},
                "timings": {"cache_n": 34, "prompt_n": 1, "predicted_n": 2}}),
            ),
            Some(34),
        ),
        // An older llama-server: only `timings.cache_n`.
        (
            "llama.cpp (timings only)",
            reply_with(
                json!({"usage": {"prompt_tokens": 35, "completion_tokens": 2},
                "timings": {"cache_n": 30, "prompt_n": 5}}),
            ),
            Some(30),
        ),
        // A server that does not say (vLLM without the flag): unknown, not zero.
        ("silent", openai_reply("A4"), None),
    ];
    for (name, body, cached) in shapes {
        let server = FakeServer::start(vec![Reply::json(body)]);
        let b = backend(&config_toml("openai", &format!("{}/v1", server.url), ""));
        let reply = b.complete(&ask("go")).await.unwrap();
        assert_eq!(reply.usage.tokens_cached, cached, "{name}");
    }

    let server = FakeServer::start(vec![Reply::json(json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [{"type": "text", "text": "A4"}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 12, "cache_read_input_tokens": 2048,
                  "cache_creation_input_tokens": 0, "output_tokens": 4}
    }))]);
    let b = backend(&config_toml("anthropic", &server.url, ""));
    let reply = b.complete(&ask("go")).await.unwrap();
    assert_eq!(
        (reply.usage.tokens_in, reply.usage.tokens_cached),
        (Some(12), Some(2048)),
        "anthropic counts cache reads apart from input_tokens"
    );
}

#[test]
fn an_unknown_dialect_is_refused_listing_the_known_ones() {
    let text = "[backend]\nkind = \"openai\"\nconstraint = \"vlm\"\n";
    let e = Config::from_toml_str(text, "my.toml")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("my.toml:3:14: unknown variant `vlm`"), "{e}");
    for d in ConstraintDialect::ALL {
        assert!(e.contains(&format!("`{}`", d.name())), "{e}");
    }
    assert!(e.contains("3 | constraint = \"vlm\""), "{e}");
}

#[test]
fn a_dialect_for_a_kind_that_has_its_own_is_refused() {
    let text = "[backend]\nkind = \"ollama\"\nbase_url = \"http://127.0.0.1:11434\"\nconstraint = \"sglang\"\n";
    let e = Config::from_toml_str(text, "my.toml")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("my.toml:4:1: `backend.constraint`"), "{e}");
    assert!(e.contains("kind `ollama` has its own"), "{e}");
    let default = "[backend]\nkind = \"openai\"\n";
    let config = Config::from_toml_str(default, "my.toml").unwrap();
    assert_eq!(config.backend.constraint, ConstraintDialect::LlamaCpp);
}
