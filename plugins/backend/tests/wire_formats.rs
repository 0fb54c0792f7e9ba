//! Each kind reaches its endpoint with its own wire format and reads its own replies;
//! switching backend takes an edit of the TOML file and nothing else.

mod support;

use cantus_framework::{Constraint, ConstraintUse, Message, ModelRequest};
use serde_json::json;
use support::{FakeServer, Reply, ask, backend, config_toml, openai_reply};

fn anthropic_reply(text: &str) -> serde_json::Value {
    json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn", "usage": {"input_tokens": 21, "output_tokens": 4}
    })
}

fn ollama_reply(text: &str) -> serde_json::Value {
    json!({
        "model": "llama-test", "created_at": "2026-11-30T00:00:00Z",
        "message": {"role": "assistant", "content": text},
        "done": true, "done_reason": "stop", "prompt_eval_count": 17, "eval_count": 5
    })
}

/// The one code path a user's program takes: read the config file, build, ask.
async fn run_with_config_file(path: &std::path::Path) -> cantus_framework::ModelReply {
    let config = cantus_backend::Config::load(path).expect("config loads");
    let backend = cantus_backend::build(&config).expect("backend builds");
    let mut request = ModelRequest::new(vec![
        Message::system("You write notes."),
        Message::user("Next note?"),
    ]);
    request.sampling.temperature = Some(0.0);
    backend.complete(&request).await.expect("answered")
}

#[tokio::test]
async fn switching_backend_by_editing_only_the_toml_file() {
    let openai = FakeServer::start(vec![Reply::json(openai_reply("from openai"))]);
    let ollama = FakeServer::start(vec![Reply::json(ollama_reply("from ollama"))]);
    let dir = std::env::temp_dir().join(format!("cantus-switch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cantus.toml");

    std::fs::write(
        &path,
        config_toml("openai", &format!("{}/v1", openai.url), ""),
    )
    .unwrap();
    let first = run_with_config_file(&path).await;
    std::fs::write(&path, config_toml("ollama", &ollama.url, "")).unwrap();
    let second = run_with_config_file(&path).await;
    std::fs::remove_dir_all(&dir).unwrap();

    assert_eq!(
        (first.text.as_str(), second.text.as_str()),
        ("from openai", "from ollama")
    );
    let (a, b) = (openai.seen(), ollama.seen());
    assert_eq!(
        (a.len(), b.len()),
        (1, 1),
        "each server got exactly its own call"
    );
    assert_eq!(a[0].path, "/v1/chat/completions");
    assert_eq!(b[0].path, "/api/chat");
    assert_eq!(a[0].json()["temperature"], 0.0);
    assert_eq!(b[0].json()["options"]["temperature"], 0.0);
    assert_eq!(b[0].json()["stream"], false);
    assert_eq!(
        (first.usage.tokens_in, second.usage.tokens_in),
        (Some(11), Some(17))
    );
}

#[tokio::test]
async fn openai_kind_sends_the_chat_completions_format() {
    let server = FakeServer::start(vec![Reply::json(openai_reply("E4@0>1"))]);
    let b = backend(&config_toml(
        "openai",
        &format!("{}/v1/", server.url),
        "temperature = 0.3\nseed = 42\nmax_tokens = 99",
    ));
    assert_eq!(b.name(), "openai:test-model");
    let mut request = ask("go");
    request.constraint = Some(Constraint::Gbnf("root ::= \"yes\" | \"no\"".into()));
    let reply = b.complete(&request).await.unwrap();
    let seen = &server.seen()[0];
    assert_eq!(
        (seen.method.as_str(), seen.path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(seen.header("content-type"), Some("application/json"));
    assert_eq!(
        seen.header("authorization"),
        None,
        "no api_key_env, no auth"
    );
    let body = seen.json();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["messages"], json!([{"role": "user", "content": "go"}]));
    assert_eq!(
        (
            body["temperature"].as_f64(),
            body["seed"].as_u64(),
            body["max_tokens"].as_u64()
        ),
        (Some(0.3), Some(42), Some(99))
    );
    assert_eq!(body["grammar"], "root ::= \"yes\" | \"no\"");
    assert!(
        body.get("context").is_none(),
        "structured context is not sent over HTTP"
    );
    assert_eq!(reply.constraint, ConstraintUse::Sent);
    assert_eq!(reply.stop_reason.as_deref(), Some("stop"));
    assert_eq!(reply.model.as_deref(), Some("fake-model"));
    assert_eq!(
        (reply.usage.tokens_in, reply.usage.tokens_out, reply.retries),
        (Some(11), Some(3), 0)
    );
}

#[tokio::test]
async fn openai_kind_sends_a_json_schema_as_response_format() {
    let server = FakeServer::start(vec![Reply::json(openai_reply("{\"ok\":true}"))]);
    let b = backend(&config_toml("openai", &format!("{}/v1", server.url), ""));
    let mut request = ask("go");
    let schema =
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]});
    request.constraint = Some(Constraint::JsonSchema(schema.clone()));
    let reply = b.complete(&request).await.unwrap();
    let body = server.seen()[0].json();
    assert_eq!(
        body["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "reply", "schema": schema, "strict": true}})
    );
    assert!(body.get("grammar").is_none());
    assert_eq!(reply.constraint, ConstraintUse::Sent);
}

#[tokio::test]
async fn anthropic_kind_sends_the_messages_format() {
    let server = FakeServer::start(vec![Reply::json(anthropic_reply("G4@0>2"))]);
    let b = backend(&config_toml("anthropic", &server.url, ""));
    assert_eq!(b.name(), "anthropic:test-model");
    let mut request = ModelRequest::new(vec![Message::system("Rules."), Message::user("go")]);
    request.constraint = Some(Constraint::JsonSchema(json!({"type": "object"})));
    let reply = b.complete(&request).await.unwrap();
    let seen = &server.seen()[0];
    assert_eq!(seen.path, "/v1/messages");
    assert_eq!(
        seen.header("anthropic-version"),
        Some(cantus_backend::anthropic::API_VERSION)
    );
    let body = seen.json();
    assert_eq!(body["system"], "Rules.");
    assert_eq!(body["messages"], json!([{"role": "user", "content": "go"}]));
    assert!(body["max_tokens"].as_u64().is_some());
    assert!(body.get("response_format").is_none() && body.get("grammar").is_none());
    assert_eq!(reply.text, "G4@0>2");
    assert_eq!(
        reply.constraint,
        ConstraintUse::Unsupported,
        "recorded, not silently dropped"
    );
    assert_eq!(reply.stop_reason.as_deref(), Some("end_turn"));
    assert_eq!(
        (reply.usage.tokens_in, reply.usage.tokens_out),
        (Some(21), Some(4))
    );
}

#[tokio::test]
async fn ollama_kind_sends_the_native_format_with_a_schema() {
    let server = FakeServer::start(vec![Reply::json(ollama_reply("{\"n\":1}"))]);
    let b = backend(&config_toml(
        "ollama",
        &server.url,
        "seed = 5\nmax_tokens = 12",
    ));
    let mut request = ask("go");
    request.constraint = Some(Constraint::JsonSchema(json!({"type": "object"})));
    let reply = b.complete(&request).await.unwrap();
    let body = server.seen()[0].json();
    assert_eq!(body["format"], json!({"type": "object"}));
    assert_eq!(
        (
            body["options"]["seed"].as_u64(),
            body["options"]["num_predict"].as_u64()
        ),
        (Some(5), Some(12))
    );
    assert_eq!(reply.constraint, ConstraintUse::Sent);
    assert_eq!(reply.stop_reason.as_deref(), Some("stop"));
    assert_eq!(
        (reply.usage.tokens_in, reply.usage.tokens_out),
        (Some(17), Some(5))
    );
}

#[tokio::test]
async fn lenient_replies_from_other_servers_are_read() {
    // vLLM-style: content as parts, no usage, `stop_reason` instead of `finish_reason`, extra fields.
    let body = json!({"choices": [{"message": {"content": [{"type": "text", "text": "A4"}, {"type": "text", "text": "@0>1"}]},
                                    "stop_reason": "length", "logprobs": null}], "system_fingerprint": "x"});
    let server = FakeServer::start(vec![Reply::json(body)]);
    let reply = backend(&config_toml("openai", &server.url, ""))
        .complete(&ask("go"))
        .await
        .unwrap();
    assert_eq!(reply.text, "A4@0>1");
    assert_eq!(reply.usage.tokens_in, None);
    assert!(reply.truncated(), "`length` means the text is a prefix");
}

#[test]
fn the_three_http_kinds_are_registered() {
    let kinds: Vec<_> = cantus_backend::factories().iter().map(|f| f.kind).collect();
    for kind in ["anthropic", "ollama", "openai"] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }
    let infos = cantus_backend::infos();
    assert!(
        infos
            .iter()
            .any(|i| i.name == "openai" && i.kind == "backend" && i.origin == "built-in")
    );
    let config =
        cantus_backend::Config::from_toml_str("[backend]\nkind = \"gpt5\"\n", "t.toml").unwrap();
    let Err(err) = cantus_backend::build(&config) else {
        panic!("unknown kind built")
    };
    assert!(
        err.to_string().contains("unknown backend kind `gpt5`")
            && err.to_string().contains("openai"),
        "{err}"
    );
}

#[test]
fn a_missing_base_url_or_model_is_a_config_error() {
    let config = cantus_backend::Config::from_toml_str(
        "[backend]\nkind = \"openai\"\nmodel = \"m\"\n",
        "t.toml",
    )
    .unwrap();
    let Err(err) = cantus_backend::build(&config) else {
        panic!("built without base_url")
    };
    assert!(err.to_string().contains("needs `base_url`"), "{err}");
    let config = cantus_backend::Config::from_toml_str(
        "[backend]\nkind = \"ollama\"\nbase_url = \"http://127.0.0.1:1\"\n",
        "t.toml",
    )
    .unwrap();
    let Err(err) = cantus_backend::build(&config) else {
        panic!("built without model")
    };
    assert!(err.to_string().contains("needs `model`"), "{err}");
}
