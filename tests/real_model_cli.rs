//! `cantus compose --config …` end to end through the binary, against the real local
//! model (llama.cpp's server with SmolLM2-135M; `scripts/local-model.sh start` prints
//! the URL to put in `CANTUS_LOCAL_MODEL_URL`).
//!
//! The constrained harness run is recorded to a cassette, then replayed with the
//! server out of the picture (a config pointing at a closed port): the replay must
//! write the same piece byte for byte. The raw run must end in a verdict of the strict
//! gate (released, refused or unreadable), never a crash. Every released piece is judged
//! again by `cantus verify`.
//!
//! Without `CANTUS_LOCAL_MODEL_URL` the tests print `SKIPPED: …` and pass, unless
//! `CANTUS_REQUIRE_MODEL=1`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

const BRIEF: &str = "a 4-bar piece for two voices in 4/4";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cantus-real-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// A config for `url` with the harness `constrained` or not.
fn config(dir: &Path, name: &str, url: &str, constrained: bool) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "[backend]\nkind = \"openai\"\nbase_url = \"{url}\"\nmodel = \"smollm2\"\n\
             api_key_env = \"CANTUS_LOCAL_MODEL_KEY\"\ntemperature = 0.0\nseed = 7\n\
             max_tokens = 320\ntimeout_s = 90.0\nretries = 1\n\n\
             [harness]\nconstrained = {constrained}\nmax_proposer_calls = 6\ndeadline_s = 60.0\n"
        ),
    )
    .expect("config written");
    path
}

fn compose(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cantus"))
        .arg("compose")
        .args(["--brief", BRIEF, "--seed", "3"])
        .args(args)
        .output()
        .expect("cantus runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("cantus compose {args:?}:\n{text}");
    (out.status.code().expect("exit code"), text)
}

fn verify(piece: &Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_cantus"))
        .arg("verify")
        .arg(piece)
        .output()
        .expect("cantus verify runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "a released piece passes verify: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn constrained_harness_records_and_replays_the_same_piece() {
    let Some(url) =
        common::local_model_url("constrained_harness_records_and_replays_the_same_piece")
    else {
        return;
    };
    let dir = scratch("replay");
    let live = config(&dir, "live.toml", &url, true);
    let cassette = dir.join("run.jsonl");
    let first = dir.join("first");
    let (code, text) = compose(&[
        "--config",
        live.to_str().unwrap(),
        "--record",
        cassette.to_str().unwrap(),
        "--out",
        first.to_str().unwrap(),
    ]);
    assert!(
        code == 0 || code == 1,
        "released or explicit failure: {text}"
    );
    assert!(cassette.exists(), "the cassette was written");
    // The replay never reaches a server: this config points at a closed port.
    let offline = config(&dir, "offline.toml", "http://127.0.0.1:9/v1", true);
    let second = dir.join("second");
    let (code2, text2) = compose(&[
        "--config",
        offline.to_str().unwrap(),
        "--replay",
        cassette.to_str().unwrap(),
        "--out",
        second.to_str().unwrap(),
    ]);
    assert_eq!(code, code2, "the replay ends the same way: {text2}");
    let piece = if code == 0 {
        "piece.txt"
    } else {
        "unreleased-piece.txt"
    };
    if first.join(piece).exists() {
        assert_eq!(
            std::fs::read_to_string(first.join(piece)).unwrap(),
            std::fs::read_to_string(second.join(piece)).unwrap(),
            "replay writes the same piece"
        );
    }
    if code == 0 {
        verify(&first.join("piece.txt"));
    }
}

#[test]
fn unconstrained_harness_and_raw_end_in_a_verdict() {
    let Some(url) = common::local_model_url("unconstrained_harness_and_raw_end_in_a_verdict")
    else {
        return;
    };
    let dir = scratch("free");
    let free = config(&dir, "free.toml", &url, false);
    let harness_out = dir.join("harness");
    let (code, text) = compose(&[
        "--config",
        free.to_str().unwrap(),
        "--out",
        harness_out.to_str().unwrap(),
    ]);
    match code {
        0 => verify(&harness_out.join("piece.txt")),
        1 => assert!(
            text.contains("FAILED"),
            "an unreleased run says FAILED and why: {text}"
        ),
        other => panic!("exit {other}: {text}"),
    }
    let raw_out = dir.join("raw");
    let (code, text) = compose(&[
        "--config",
        free.to_str().unwrap(),
        "--raw",
        "--out",
        raw_out.to_str().unwrap(),
    ]);
    assert!(text.contains("raw ("), "the raw verdict is printed: {text}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(raw_out.join("report.json")).unwrap())
            .expect("report.json is JSON");
    assert_eq!(report["mode"], "raw");
    assert_eq!(report["calls"], 1, "raw makes exactly one call");
    assert!(raw_out.join("raw-reply.txt").exists(), "the reply is kept");
    match code {
        0 => verify(&raw_out.join("piece.txt")),
        1 => assert_eq!(report["released"], false),
        other => panic!("exit {other}: {text}"),
    }
}
