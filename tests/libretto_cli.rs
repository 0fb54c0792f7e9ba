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
