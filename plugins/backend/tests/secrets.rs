//! A key set through `api_key_env` is sent to the server and appears nowhere else: not
//! in an error (even when the server echoes it), not in `name()`, not on a cassette.

mod support;

use cantus_backend::{Cassette, leaks};
use cantus_framework::{ModelBackend, ModelError};
use std::sync::{Arc, Once};
use support::{FakeServer, Reply, ask, backend, config_toml, openai_reply};

const VAR: &str = "CANTUS_TEST_SECRET_KEY";
const KEY: &str = "sk-test-5f1c9e2a-do-not-print";
const UNSET: &str = "CANTUS_TEST_KEY_THAT_IS_NEVER_SET_7F3A";

/// Sets the key variable once, before any test of this binary reads the environment.
fn env() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: every test of this binary calls `env()` first, so no thread reads
        // the environment while it is written.
        unsafe { std::env::set_var(VAR, KEY) };
    });
}

fn with_key(kind: &str, url: &str) -> String {
    config_toml(kind, url, &format!("api_key_env = \"{VAR}\""))
}

#[tokio::test]
async fn the_key_is_sent_as_each_wire_format_wants() {
    env();
    let server = FakeServer::start(vec![Reply::json(openai_reply("ok"))]);
    backend(&with_key("openai", &server.url))
        .complete(&ask("go"))
        .await
        .unwrap();
    assert_eq!(
        server.seen()[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );

    let body = serde_json::json!({"content": [{"type": "text", "text": "ok"}]});
    let server = FakeServer::start(vec![Reply::json(body)]);
    backend(&with_key("anthropic", &server.url))
        .complete(&ask("go"))
        .await
        .unwrap();
    assert_eq!(server.seen()[0].header("x-api-key"), Some(KEY));
    assert_eq!(server.seen()[0].header("authorization"), None);
}

#[tokio::test]
async fn a_key_echoed_by_the_server_is_scrubbed_from_errors() {
    env();
    let echo = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {KEY}. Find yours at …"}}}}"#
    );
    let embedded = format!(r#"{{"error":"bad key {KEY}"}}"#);
    let prose = format!("Unauthorized: {KEY}");
    let mut messages = Vec::new();
    for reply in [
        Reply::status(401, &echo),
        Reply::status(500, &echo),
        Reply::status(200, &embedded),
        Reply::status(200, &prose),
    ] {
        let server = FakeServer::start(vec![reply]);
        let b = backend(&with_key("openai", &server.url));
        let err = b.complete(&ask("go")).await.unwrap_err();
        messages.push(err.to_string());
        messages.push(format!("{err:?}"));
        messages.push(serde_json::to_string(&err).unwrap());
        messages.push(b.name());
    }
    let refs: Vec<&str> = messages.iter().map(String::as_str).collect();
    assert_eq!(
        leaks(KEY, &[], &refs),
        Vec::<String>::new(),
        "{messages:#?}"
    );
    assert!(
        messages[0].contains("Incorrect API key provided: [redacted]"),
        "{}",
        messages[0]
    );
}

#[tokio::test]
async fn no_cassette_holds_the_key() {
    env();
    let dir = std::env::temp_dir().join(format!("cantus-secret-cassette-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let server = FakeServer::start(vec![
        Reply::json(openai_reply("first")),
        Reply::status(
            401,
            &format!(r#"{{"error":{{"message":"key {KEY} revoked"}}}}"#),
        ),
    ]);
    let inner = backend(&with_key("openai", &server.url));
    let cassette = Cassette::record(inner, &dir.join("run.jsonl")).unwrap();
    cassette.complete(&ask("one")).await.unwrap();
    cassette.complete(&ask("two")).await.unwrap_err();
    let found = leaks(KEY, &[&dir], &[]);
    let text = std::fs::read_to_string(dir.join("run.jsonl")).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(text.lines().count(), 2, "both exchanges recorded");
    assert!(found.is_empty(), "key leaked into {found:?}");
    assert!(
        server
            .seen()
            .iter()
            .all(|s| s.header("authorization").is_some()),
        "the key was really in play"
    );
}

#[test]
fn a_missing_key_variable_is_an_error_naming_the_variable_for_a_hosted_server() {
    env();
    let text = config_toml(
        "openai",
        "https://api.example.invalid/v1",
        &format!("api_key_env = \"{UNSET}\""),
    );
    let config = cantus_backend::Config::from_toml_str(&text, "t.toml").unwrap();
    let Err(err) = cantus_backend::build(&config) else {
        panic!("built without its key")
    };
    assert!(matches!(err, ModelError::Config(_)), "{err}");
    assert!(err.to_string().contains(UNSET), "{err}");
}

#[tokio::test]
async fn a_missing_key_variable_means_no_auth_for_a_loopback_server() {
    env();
    let server = FakeServer::start(vec![Reply::json(openai_reply("ok"))]);
    let text = config_toml(
        "openai",
        &server.url.replace("127.0.0.1", "localhost"),
        &format!("api_key_env = \"{UNSET}\""),
    );
    let b: Arc<dyn ModelBackend> = backend(&text);
    b.complete(&ask("go")).await.unwrap();
    assert_eq!(server.seen()[0].header("authorization"), None);
}

#[test]
fn a_key_pasted_into_api_key_env_is_refused_without_quoting_it() {
    env();
    let text = "[backend]\nkind = \"openai\"\napi_key_env = \"sk-live-abc123\"\n";
    let err = cantus_backend::Config::from_toml_str(text, "cantus.toml").unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with("cantus.toml:3:1: `backend.api_key_env`"),
        "{message}"
    );
    assert!(!message.contains("sk-live-abc123"), "{message}");
}

#[test]
fn a_key_pasted_under_an_unknown_name_is_not_quoted_back() {
    env();
    let text = "[backend]\nkind = \"openai\"\nopenai_api_key = \"sk-live-abc123\"\n";
    let message = cantus_backend::Config::from_toml_str(text, "cantus.toml")
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("cantus.toml:3:1: unknown field `openai_api_key`"),
        "{message}"
    );
    assert!(!message.contains("sk-live-abc123"), "{message}");
}
