//! `cantus fingerprint`, `compare`, `calibrate` and `fill` run as a user runs them.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cantus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args(args)
        .output()
        .expect("the cantus binary runs")
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("domains/libretto/tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cantus-libretto-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

#[test]
fn fingerprint_json_has_every_axis_with_the_originals_percentiles() {
    let out = cantus(&["fingerprint", &fixture("round2.txt"), "--json"]);
    let doc = json_of(&out);
    let axes = doc["axes"].as_object().unwrap();
    assert_eq!(axes.len(), 29);
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("round2.json")).unwrap()).unwrap();
    for (axis, pct) in stored.as_object().unwrap() {
        assert_eq!(&axes[axis]["percentile"], pct, "{axis}");
        assert!(axes[axis]["raw"].is_number());
    }
    // round2 sits at the 97th percentile of mean note length: flagged high.
    assert_eq!(axes["rhy_mean_dur_beats"]["extreme"], "high");
}

#[test]
fn fingerprint_text_output_lists_axes_and_extremes() {
    let out = cantus(&["fingerprint", &fixture("round1.txt")]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("rhy_syncopation_rate"), "{text}");
    assert!(text.contains("high (≥ 95th)"), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("form_")).count(), 4);
}

#[test]
fn bad_input_exits_2_naming_line_and_column_and_lenient_reads_on() {
    let bad = tmp("bad.txt");
    std::fs::write(
        &bad,
        "KEY: C major | METER: 4/4 | GRID: 16th\nVOICES: A\n@1 [C]\n  A: C4@1>4 Z9@3>1\n",
    )
    .unwrap();
    let bad = bad.display().to_string();
    let out = cantus(&["fingerprint", &bad]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.txt:4:13"), "{err}");
    let out = cantus(&["fingerprint", &bad, "--lenient", "--json"]);
    let doc = json_of(&out);
    // Only C4 is left: one pitch, no range.
    assert_eq!(doc["axes"]["mel_pitch_range"]["raw"], 0.0);
    let missing = cantus(&["fingerprint", "/no/such/piece.txt"]);
    assert_eq!(missing.status.code(), Some(2));
    let table = cantus(&[
        "fingerprint",
        &fixture("round1.txt"),
        "--calibration",
        &fixture("round1.txt"),
    ]);
    assert_eq!(table.status.code(), Some(2));
}

#[test]
fn compare_reports_copy_risk_and_distance() {
    let same = json_of(&cantus(&[
        "compare",
        &fixture("round1.txt"),
        &fixture("round1.txt"),
        "--json",
    ]));
    // Against itself: every (bar, onset, pitch) is found; a little under 1 because
    // notes doubled across voices count in the total but once in the bar set.
    let risk = same["copy_risk"].as_f64().unwrap();
    assert!(risk > 0.9 && risk <= 1.0, "{risk}");
    assert_eq!(same["distance"], 0.0);
    let other = json_of(&cantus(&[
        "compare",
        &fixture("round1.txt"),
        &fixture("round2.txt"),
        "--json",
    ]));
    assert!(other["copy_risk"].as_f64().unwrap() < 0.30);
    assert!(other["distance"].as_f64().unwrap() > 5.0);
}

#[test]
fn calibrate_writes_a_table_fingerprint_reads_back() {
    let dir = tmp("corpus");
    let nested = dir.join("nested");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::copy(fixture("round1.txt"), dir.join("a.txt")).unwrap();
    std::fs::copy(fixture("round2.txt"), nested.join("b.txt")).unwrap();
    std::fs::write(dir.join("notes.md"), "not a score").unwrap();
    let table = tmp("table.json");
    let out = cantus(&[
        "calibrate",
        &dir.display().to_string(),
        "--out",
        &table.display().to_string(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&table).unwrap()).unwrap();
    assert_eq!(
        doc["axes"]["rhy_syncopation_rate"]["values"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // round1 against a table of {round1, round2}: its syncopation (1.0) is the
    // larger, so 2 of 2 values are ≤ it → 100; round2's (0.0) → 50.
    let fp = json_of(&cantus(&[
        "fingerprint",
        &fixture("round2.txt"),
        "--json",
        "--calibration",
        &table.display().to_string(),
    ]));
    assert_eq!(fp["axes"]["rhy_syncopation_rate"]["percentile"], 50);
    let empty = tmp("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = cantus(&[
        "calibrate",
        &empty.display().to_string(),
        "--out",
        &tmp("x.json").display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn fill_writes_a_piece_whose_gap_passes_the_gates() {
    let out_path = tmp("filled.txt");
    let out = cantus(&[
        "fill",
        &fixture("round1.txt"),
        "--bars",
        "5-8",
        "--out",
        &out_path.display().to_string(),
        "--json",
    ]);
    let doc = json_of(&out);
    assert_eq!(doc["passed"], true);
    assert!(doc["copy_risk"].as_f64().unwrap() < 0.30);
    assert_eq!(doc["proposer"], "embedded");
    assert_eq!(doc["candidates"], 24);
    assert!(doc["model"].is_null());
    let gates: Vec<(&str, bool)> = doc["gates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["gate"].as_str().unwrap(), g["passed"].as_bool().unwrap()))
        .collect();
    assert_eq!(gates, [("LIB-COPY", true), ("LIB-DEGENERACY", true)]);
    // The written piece reads back strictly and still has 16 bars of music.
    let back = json_of(&cantus(&[
        "fingerprint",
        &out_path.display().to_string(),
        "--json",
    ]));
    assert_eq!(back["axes"].as_object().unwrap().len(), 29);
    let beyond = cantus(&["fill", &fixture("round1.txt"), "--bars", "15-20"]);
    assert_eq!(beyond.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&beyond.stderr).contains("16 bars"));
    let garbled = cantus(&["fill", &fixture("round1.txt"), "--bars", "x"]);
    assert_eq!(garbled.status.code(), Some(2));
}

/// A config naming an OpenAI-compatible server on a closed local port: every call
/// fails at once with a connection error, no network needed.
fn closed_port_config(name: &str) -> PathBuf {
    let path = tmp(name);
    std::fs::write(
        &path,
        "[backend]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\n\
         retries = 0\nconnect_timeout_s = 2\ntimeout_s = 5\n",
    )
    .unwrap();
    path
}

/// The bar and voice lines of bars `first..=last` of a grammar text.
fn bars_of(text: &str, first: u32, last: u32) -> String {
    let mut out = String::new();
    let mut keep = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix('@') {
            let bar: u32 = rest.split(' ').next().unwrap().parse().unwrap();
            keep = (first..=last).contains(&bar);
        }
        if keep {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[test]
fn fill_with_a_model_that_never_answers_is_an_explicit_failure() {
    let config = closed_port_config("closed.toml");
    let config = config.display().to_string();
    let out_path = tmp("never.txt").display().to_string();
    let out = cantus(&[
        "fill",
        &fixture("round1.txt"),
        "--bars",
        "5-8",
        "--config",
        &config,
        "--candidates",
        "2",
        "--out",
        &out_path,
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["passed"], false);
    assert!(doc["out"].is_null());
    assert_eq!(doc["proposer"], "model:openai:m");
    assert_eq!(doc["model"]["calls"], 2);
    let failures = doc["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 2);
    assert!(
        failures[0].as_str().unwrap().contains("the call failed"),
        "{failures:?}"
    );
    // Text verdict on stderr says the same.
    let text = cantus(&[
        "fill",
        &fixture("round1.txt"),
        "--bars",
        "5-8",
        "--config",
        &config,
        "--candidates",
        "1",
    ]);
    assert_eq!(text.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&text.stderr);
    assert!(stderr.contains("NOT filled by model:openai:m"), "{stderr}");
    // No call was answered: the tokens are unknown, not 0.
    assert!(
        stderr.contains("model: 1 call, tokens not reported"),
        "{stderr}"
    );
    // --raw means nothing for fill; model flags need --config.
    let raw = cantus(&[
        "fill",
        &fixture("round1.txt"),
        "--bars",
        "5-8",
        "--config",
        &config,
        "--raw",
    ]);
    assert_eq!(raw.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&raw.stderr).contains("--raw"));
    let orphan = cantus(&[
        "fill",
        &fixture("round1.txt"),
        "--bars",
        "5-8",
        "--constrained",
    ]);
    assert_eq!(orphan.status.code(), Some(2));
}

#[test]
fn fill_replays_a_model_answer_from_a_cassette_and_reports_the_calls() {
    // The requests fill sends are recorded against a server that never answers …
    let config = closed_port_config("replay.toml").display().to_string();
    let cassette = tmp("fill.jsonl");
    let recorded = cantus(&[
        "fill",
        &fixture("round1.txt"),
        "--bars",
        "5-8",
        "--config",
        &config,
        "--candidates",
        "1",
        "--record",
        &cassette.display().to_string(),
    ]);
    assert_eq!(recorded.status.code(), Some(1));
    // … and the recorded error is replaced by an answer: the embedded filler's bars.
    let embedded = cantus(&[
        "fill",
        &fixture("round1.txt"),
        "--bars",
        "5-8",
        "--seed",
        "3",
    ]);
    assert!(embedded.status.success());
    let answer = bars_of(&String::from_utf8_lossy(&embedded.stdout), 5, 8);
    assert!(answer.starts_with("@5 "), "{answer}");
    let line = std::fs::read_to_string(&cassette).unwrap();
    let mut entry: Value = serde_json::from_str(line.trim()).unwrap();
    let map = entry.as_object_mut().unwrap();
    assert!(map.remove("error").is_some(), "{line}");
    map.insert(
        "reply".into(),
        serde_json::json!({"text": answer, "usage": {"tokens_in": 1700, "tokens_out": 300}, "stop_reason": "stop"}),
    );
    std::fs::write(&cassette, serde_json::to_string(&entry).unwrap() + "\n").unwrap();
    let out_path = tmp("replayed.txt");
    let out = cantus(&[
        "fill",
        &fixture("round1.txt"),
        "--bars",
        "5-8",
        "--config",
        &config,
        "--candidates",
        "1",
        "--replay",
        &cassette.display().to_string(),
        "--out",
        &out_path.display().to_string(),
        "--json",
    ]);
    let doc = json_of(&out);
    assert_eq!(doc["passed"], true);
    assert_eq!(doc["proposer"], "model:openai:m");
    assert_eq!(doc["model"]["calls"], 1);
    assert_eq!(doc["model"]["tokens_in"], 1700);
    assert_eq!(doc["model"]["stop_reasons"], serde_json::json!(["stop"]));
    let written = std::fs::read_to_string(&out_path).unwrap();
    assert_eq!(bars_of(&written, 5, 8), answer);
    // The context is the piece's own, as the embedded run wrote it too.
    let embedded_text = String::from_utf8_lossy(&embedded.stdout);
    assert_eq!(bars_of(&written, 1, 4), bars_of(&embedded_text, 1, 4));
    assert_eq!(bars_of(&written, 9, 16), bars_of(&embedded_text, 9, 16));
}
