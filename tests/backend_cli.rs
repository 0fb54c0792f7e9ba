//! The model flags of `cantus compose` end to end: `--config`, `--record`, `--replay`,
//! and the audit that a key given through `api_key_env` appears in no file Cantus
//! writes and no output it prints.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const KEY_VAR: &str = "CANTUS_CLI_TEST_KEY";
const KEY: &str = "sk-cli-test-0b7e4d19-never-print-me";
const BRIEF: &str = "Write a 4-bar piece for two voices in 4/4 at 90 bpm";

fn temp(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("cantus-backend-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `cantus` in `dir` with the key in its environment (the child's only).
fn cantus_with_key(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args(args)
        .current_dir(dir)
        .env(KEY_VAR, KEY)
        .output()
        .expect("the cantus binary runs")
}

/// A loopback server that answers every request with a 401 quoting the bearer token it
/// was sent — the worst case a key can meet. Bounded: at most 64 connections.
fn echoing_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().take(64) {
            let Ok(mut stream) = stream else { continue };
            let mut buf = [0u8; 65536];
            let n = stream.read(&mut buf).unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]).to_string();
            let token = head
                .lines()
                .find_map(|l| l.strip_prefix("authorization: Bearer "))
                .unwrap_or("(none)")
                .trim()
                .to_string();
            let body =
                format!(r#"{{"error":{{"message":"Incorrect API key provided: {token}"}}}}"#);
            let _ = write!(
                stream,
                "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

/// Runs `cantus args…` with a key set and returns every place the key showed up:
/// files under `dir` and the process's stdout and stderr. Reusable for any command.
fn key_leaks(dir: &Path, args: &[&str]) -> (Output, Vec<String>) {
    let out = cantus_with_key(dir, args);
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let found = cantus_backend::leaks(KEY, &[dir], &[&stdout, &stderr]);
    (out, found)
}

fn write_config(dir: &Path, base_url: &str) -> PathBuf {
    let path = dir.join("cantus.toml");
    std::fs::write(
        &path,
        format!(
            "[backend]\nkind = \"openai\"\nbase_url = \"{base_url}\"\nmodel = \"m\"\napi_key_env = \"{KEY_VAR}\"\n\
             timeout_s = 5\nretries = 1\nbackoff_s = 0.01\n"
        ),
    )
    .unwrap();
    path
}

#[test]
fn compose_with_a_keyed_config_leaks_the_key_nowhere() {
    let dir = temp("leak");
    let config = write_config(&dir, &echoing_server());
    let out_dir = dir.join("out");
    let cassette = dir.join("run.jsonl");
    let (out, found) = key_leaks(
        &dir,
        &[
            "compose",
            "--brief",
            BRIEF,
            "--out",
            out_dir.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--record",
            cassette.to_str().unwrap(),
        ],
    );
    assert!(
        found.is_empty(),
        "the key leaked into {found:?}\nstatus {:?}",
        out.status
    );
    assert!(out.status.code().is_some(), "cantus ended by a signal");
    assert!(
        out_dir.join("report.json").is_file(),
        "the audit scanned a real run's files"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn record_and_replay_conflict_and_need_a_config() {
    let dir = temp("flags");
    let config = write_config(&dir, "http://127.0.0.1:9/v1");
    let c = config.to_str().unwrap();
    let both = cantus_with_key(
        &dir,
        &[
            "compose", "--brief", BRIEF, "--config", c, "--record", "a.jsonl", "--replay",
            "b.jsonl",
        ],
    );
    assert_eq!(both.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&both.stderr).contains("cannot be used with"),
        "{both:?}"
    );
    let alone = cantus_with_key(&dir, &["compose", "--brief", BRIEF, "--replay", "b.jsonl"]);
    assert_eq!(alone.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&alone.stderr).contains("--config"),
        "{alone:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn compose_help_documents_the_model_flags() {
    let out = Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args(["compose", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in ["--config <FILE>", "--record <FILE>", "--replay <FILE>"] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
}
