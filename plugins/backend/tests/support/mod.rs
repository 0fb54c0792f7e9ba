//! Shared helpers of the backend tests: the fake server (`cantus-fake-server`), a
//! config for it, and a request.

#![allow(dead_code)] // each test binary uses part of it

pub use cantus_fake_server::{FakeServer, Reply, openai_reply};

/// A `cantus.toml` for `kind` at `base_url` with fast retries; lines of `extra`
/// (`key = value`) replace the defaults of the same key.
pub fn config_toml(kind: &str, base_url: &str, extra: &str) -> String {
    let defaults = [
        "model = \"test-model\"",
        "connect_timeout_s = 2",
        "timeout_s = 2",
        "retries = 2",
        "backoff_s = 0.01",
    ];
    let key = |line: &str| line.split('=').next().unwrap_or("").trim().to_string();
    let overridden: Vec<String> = extra.lines().map(key).collect();
    let mut text = format!("[backend]\nkind = \"{kind}\"\nbase_url = \"{base_url}\"\n");
    for line in defaults.iter().filter(|l| !overridden.contains(&key(l))) {
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(extra);
    text.push('\n');
    text
}

/// The backend a TOML text describes, built through the registry.
pub fn backend(toml: &str) -> std::sync::Arc<dyn cantus_framework::ModelBackend> {
    let config = cantus_backend::Config::from_toml_str(toml, "test.toml").expect("valid config");
    cantus_backend::build(&config).expect("backend builds")
}

/// A one-message request.
pub fn ask(text: &str) -> cantus_framework::ModelRequest {
    cantus_framework::ModelRequest::new(vec![cantus_framework::Message::user(text)])
}
