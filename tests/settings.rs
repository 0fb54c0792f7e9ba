//! `cantus.toml` errors name the file, line, column and key; every duration and count
//! has a documented bound; the shipped example configs load, build and document every
//! key.

use cantus_backend::Config;
use cantus_backend::PluginConfig;
use cantus_framework::Budget;
use cantus_twelve_tone::gate::GateMode;
use std::path::PathBuf;
use std::time::Duration;

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/config")
}

fn error_of(text: &str) -> String {
    Config::from_toml_str(text, "my.toml")
        .unwrap_err()
        .to_string()
}

#[test]
fn a_misspelt_key_is_refused_naming_it_and_its_line() {
    let text = "[backend]\nkind = \"openai\"\ntemprature = 0.2\n";
    let message = error_of(text);
    assert!(
        message.starts_with("my.toml:3:1: unknown field `temprature`"),
        "{message}"
    );
    assert!(
        message.contains("3 | temprature = 0.2\n  | ^^^^^^^^^^"),
        "{message}"
    );
    let message = error_of("[gate]\nmode = \"strict\"\n[harnes]\nreasks = 1\n");
    assert!(
        message.starts_with("my.toml:3:") && message.contains("`harnes`"),
        "{message}"
    );
}

#[test]
fn a_file_that_cannot_be_read_is_named() {
    let err = Config::load(&examples().join("no-such.toml"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("no-such.toml"), "{err}");
}

#[test]
fn unusable_values_are_refused_naming_key_and_line() {
    let cases = [
        (
            "[backend]\nkind = \"openai\"\ntimeout_s = 0\n",
            "my.toml:3:1: `backend.timeout_s` must be a positive number",
        ),
        (
            "[backend]\nkind = \"openai\"\n  connect_timeout_s = -1.5\n",
            "my.toml:3:3: `backend.connect_timeout_s`",
        ),
        (
            "[backend]\nkind = \"openai\"\nbase_url = \"not a url\"\n",
            "my.toml:3:1: `backend.base_url` is unusable",
        ),
        (
            "[backend]\nkind = \"openai\"\nbase_url = \"ftp://host/v1\"\n",
            "must start with http:// or https://",
        ),
        (
            "[backend]\nkind = \"openai\"\nconcurrency = 0\n",
            "my.toml:3:1: `backend.concurrency` must be from 1 to 1024, not 0",
        ),
        (
            "[backend]\nkind = \"openai\"\nbackoff_s = nan\n",
            "`backend.backoff_s`",
        ),
        (
            "[backend]\nkind = \"openai\"\ntemperature = -1\n",
            "`backend.temperature` must be from 0 to 10, not -1",
        ),
        (
            "[backend]\nkind = \"openai\"\nmax_tokens = 0\n",
            "`backend.max_tokens`",
        ),
        (
            "[harness]\ndeadline_s = 0\n",
            "my.toml:2:1: `harness.deadline_s`",
        ),
        (
            "[gate]\nmode = \"lax\"\n",
            "my.toml:2:8: unknown variant `lax`, expected `strict` or `relaxed`",
        ),
        ("[backend]\nkind = \"\"\n", "`backend.kind`"),
    ];
    for (text, expected) in cases {
        let message = error_of(text);
        assert!(
            message.contains(expected),
            "{text:?}\n gave: {message}\n wanted: {expected}"
        );
    }
}

#[test]
fn a_valid_file_keeps_its_values() {
    let text = "[backend]\nkind = \"ollama\"\nbase_url = \"http://[::1]:11434\"\nmodel = \"m\"\nretries = 0\n\
                backoff_s = 0\n[harness]\nconstrained = true\n[gate]\nmode = \"relaxed\"\n";
    let config = Config::from_toml_str(text, "ok.toml").unwrap();
    assert_eq!(config.backend.kind, "ollama");
    assert_eq!(
        (config.backend.retries, config.backend.timeout_s),
        (0, 120.0)
    );
    assert!(config.harness.constrained);
    assert_eq!(config.gate.mode, GateMode::Relaxed);
}

#[test]
fn durations_and_counts_past_their_bounds_are_refused_with_the_key_and_line() {
    // Each was accepted before and then panicked (1e20 s overflows a Duration) or ran
    // for ever (two billion retries).
    let cases = [
        (
            "[harness]\ndeadline_s = 1e20\n",
            "my.toml:2:1: `harness.deadline_s` must be a positive number of seconds, at most 604800, not 100000000000000000000",
        ),
        ("[harness]\ndeadline_s = 1e308\n", "`harness.deadline_s`"),
        (
            "[harness]\ndeadline_s = 18446744073709551615\n",
            "`harness.deadline_s`",
        ),
        ("[harness]\ndeadline_s = inf\n", "`harness.deadline_s`"),
        ("[harness]\ndeadline_s = -3\n", "`harness.deadline_s`"),
        (
            "[backend]\nkind = \"openai\"\nretries = 2147483648\n",
            "my.toml:3:1: `backend.retries` must be from 0 to 20, not 2147483648",
        ),
        (
            "[backend]\nkind = \"openai\"\ntimeout_s = 1e20\n",
            "`backend.timeout_s` must be a positive number of seconds, at most 86400",
        ),
        (
            "[backend]\nkind = \"openai\"\nconnect_timeout_s = 1e9\n",
            "`backend.connect_timeout_s`",
        ),
        (
            "[backend]\nkind = \"openai\"\nbackoff_s = 1e12\n",
            "`backend.backoff_s` must be 0 or more seconds, at most 3600",
        ),
        (
            "[backend]\nkind = \"openai\"\nconcurrency = 100000\n",
            "`backend.concurrency` must be from 1 to 1024",
        ),
        (
            "[backend]\nkind = \"openai\"\nmax_tokens = 4294967295\n",
            "`backend.max_tokens` must be from 1 to 1000000",
        ),
        (
            "[harness]\nattempts_per_event = 4294967295\n",
            "`harness.attempts_per_event` must be from 0 to 100",
        ),
        (
            "[harness]\nreplans_per_section = 1000\n",
            "`harness.replans_per_section` must be from 0 to 100",
        ),
        (
            "[harness]\nmax_proposer_calls = 0\n",
            "`harness.max_proposer_calls` must be from 1 to 1000000",
        ),
        (
            "[harness]\nreasks = 99\n",
            "`harness.reasks` must be from 0 to 20",
        ),
    ];
    for (text, expected) in cases {
        let message = error_of(text);
        assert!(
            message.contains(expected),
            "{text:?}\n gave: {message}\n wanted: {expected}"
        );
    }
}

#[test]
fn the_harness_section_is_the_one_budget_mapping() {
    let settings = Config::from_toml_str(
        "[harness]\nattempts_per_event = 5\nmax_proposer_calls = 9\ndeadline_s = 2.5\n",
        "h.toml",
    )
    .unwrap();
    let base = Budget {
        replans_per_section: 4,
        ..Budget::default()
    };
    let b = settings.harness.budget(base);
    assert_eq!(
        (
            b.attempts_per_event,
            b.replans_per_section,
            b.max_proposer_calls
        ),
        (5, 4, Some(9))
    );
    assert_eq!(b.deadline, Some(Duration::from_millis(2500)));
    let ask = settings.ask(true);
    assert!(ask.constrained && !ask.json_schema);
    assert_eq!(ask.reasks, 2);
}

#[test]
fn a_server_that_takes_only_json_schemas_is_asked_with_one() {
    let text = "[backend]\nkind = \"openai\"\nconstraint = \"json-schema\"\n";
    let settings = Config::from_toml_str(text, "my.toml").unwrap();
    let ask = settings.ask(true);
    assert!(ask.constrained && ask.json_schema);
    for dialect in ["llama.cpp", "vllm", "vllm-guided", "sglang", "none"] {
        let text = format!("[backend]\nkind = \"openai\"\nconstraint = \"{dialect}\"\n");
        let settings = Config::from_toml_str(&text, "my.toml").unwrap();
        assert!(!settings.ask(true).json_schema, "{dialect} takes a grammar");
    }
}

#[test]
fn every_example_config_loads_builds_and_has_base_url_and_api_key_env() {
    let mut seen = 0;
    for entry in std::fs::read_dir(examples()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        seen += 1;
        let config = Config::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let raw: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
        let backend = raw["backend"].as_table().unwrap();
        // The null model draws from the grammar in-process: no server, no key.
        let served = backend.get("kind").and_then(|k| k.as_str()) != Some("null");
        for key in ["base_url", "api_key_env"].into_iter().filter(|_| served) {
            assert!(
                backend.contains_key(key),
                "{}: [backend] lacks `{key}`",
                path.display()
            );
        }
        match cantus_backend::build(&config) {
            Ok(b) => assert!(b.name().starts_with(&config.backend.kind)),
            // Hosted servers need their key variable; the error names it.
            Err(e) => {
                let var = config.backend.api_key_env.as_deref().unwrap();
                assert!(e.to_string().contains(var), "{}: {e}", path.display());
            }
        }
    }
    assert!(
        seen >= 8,
        "cantus, local, null, anthropic, ollama, vllm, sglang, json-schema: found {seen}"
    );
}

#[test]
fn the_local_example_points_at_the_local_model_server() {
    let config = Config::load(&examples().join("local.toml")).unwrap();
    let b = &config.backend;
    assert_eq!(b.kind, "openai");
    assert_eq!(b.base_url.as_deref(), Some("http://127.0.0.1:8088/v1"));
    assert_eq!(b.model.as_deref(), Some("smollm2"));
    assert_eq!(b.api_key_env.as_deref(), Some("CANTUS_LOCAL_MODEL_KEY"));
}

#[test]
fn the_commented_example_documents_every_key() {
    let text = std::fs::read_to_string(examples().join("cantus.toml")).unwrap();
    let mut keys = Vec::new();
    let config = serde_json::to_value(Config::default()).unwrap();
    for table in ["backend", "harness", "gate"] {
        for key in config[table].as_object().unwrap().keys() {
            keys.push(key.clone());
        }
        assert!(text.contains(&format!("[{table}]")), "[{table}] missing");
    }
    let plugin = PluginConfig {
        kind: "dynamic".into(),
        path: None,
        command: None,
    };
    keys.extend(
        serde_json::to_value(plugin)
            .unwrap()
            .as_object()
            .unwrap()
            .keys()
            .cloned(),
    );
    for key in keys {
        let written = text.lines().any(|l| {
            let l = l.trim_start_matches('#').trim_start();
            l.starts_with(&format!("{key} =")) || l.starts_with(&format!("{key}  "))
        });
        assert!(written, "examples/config/cantus.toml does not show `{key}`");
    }
    assert!(text.contains("[[plugins]]"));
}
