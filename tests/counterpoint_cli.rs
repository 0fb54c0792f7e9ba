//! `cantus compose|verify --domain counterpoint` end to end: exit codes (0 pass,
//! 1 fail, 2 bad input), the files written, the JSON shape, the cantus voice.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cantus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args(args)
        .output()
        .expect("the cantus binary runs")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cantus-cp-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("domains/counterpoint/tests/fixtures/rules")
        .join(format!("{name}.txt"))
        .display()
        .to_string()
}

fn json(o: &Output) -> Value {
    serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("JSON ({e}): {}", stdout(o)))
}

fn compose(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "compose",
        "--domain",
        "counterpoint",
        "--out",
        dir.to_str().expect("utf-8 path"),
    ];
    args.extend_from_slice(extra);
    cantus(&args)
}

#[test]
fn compose_writes_every_output_and_verify_passes_them() {
    let dir = temp("compose");
    let o = compose(
        &dir,
        &[
            "--cantus",
            "dorian",
            "--species",
            "2",
            "--below",
            "--seed",
            "4",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).starts_with("released (counterpoint/species-2)"),
        "{}",
        stdout(&o)
    );
    for f in [
        "piece.txt",
        "piece.musicxml",
        "piece.mid",
        "piece.ly",
        "trace.jsonl",
        "report.json",
    ] {
        assert!(dir.join(f).is_file(), "{f} written");
    }
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).expect("report"))
            .expect("report.json is JSON");
    assert_eq!(report["released"], true);
    assert_eq!(report["species"], 2);
    assert_eq!(report["position"], "below");
    assert_eq!(report["cantus"]["id"], "fux-cf-d");
    assert_eq!(report["gate"]["passed"], true);
    assert!(report["gate"]["facts"]["soft_scores"].is_object());
    let trace = std::fs::read_to_string(dir.join("trace.jsonl")).expect("trace");
    assert!(
        trace
            .lines()
            .next()
            .is_some_and(|l| l.contains("\"domain\":\"counterpoint\""))
    );
    for f in ["piece.txt", "piece.musicxml", "piece.mid"] {
        let path = dir.join(f);
        let o = cantus(&[
            "verify",
            "--domain",
            "counterpoint",
            path.to_str().expect("utf-8"),
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{f}: {}{}",
            stdout(&o),
            stderr(&o)
        );
    }
    // MIDI carries no spelling: the verifier says it inferred it from the mode.
    let midi = dir.join("piece.mid");
    let o = cantus(&[
        "verify",
        "--domain",
        "counterpoint",
        "--json",
        midi.to_str().expect("utf-8"),
    ]);
    let v = json(&o);
    assert_eq!(v["passed"], true);
    assert!(
        v["facts"]["spelling"]
            .as_str()
            .is_some_and(|s| s.starts_with("inferred from the mode")),
        "{v}"
    );
    // The same seed gives the same exercise.
    let again = temp("compose-again");
    let o = compose(
        &again,
        &[
            "--cantus",
            "dorian",
            "--species",
            "2",
            "--below",
            "--seed",
            "4",
        ],
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(dir.join("piece.txt")).ok(),
        std::fs::read_to_string(again.join("piece.txt")).ok()
    );
}

#[test]
fn compose_takes_a_cantus_file() {
    let dir = temp("cantus-file");
    // The cantus lives beside the run directory: --out holds a run's files only.
    let file = dir.with_extension("cf.json");
    std::fs::write(
        &file,
        r#"{"id": "mine", "cantus": [67, 69, 70, 67, 72, 70, 69, 67]}"#,
    )
    .expect("write");
    let o = compose(
        &dir,
        &["--cantus", file.to_str().expect("utf-8"), "--seed", "1"],
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).expect("report"))
            .expect("JSON");
    // G A B-flat ... on G: the one-flat collection, so G dorian.
    assert_eq!(report["cantus"]["mode"], "dorian");
    assert_eq!(report["cantus"]["notes"][2], "Bb4");
}

#[test]
fn verify_reports_rule_bar_and_voice() {
    let file = fixture("fs-p-parallel-perfect");
    let o = cantus(&["verify", "--domain", "counterpoint", &file]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("error[FS-P-parallel-perfect] at bars 2-3 (Counterpoint)"),
        "{}",
        stdout(&o)
    );
    let o = cantus(&["verify", "--domain", "counterpoint", "--json", &file]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["passed"], false);
    let hard: Vec<&Value> = v["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .filter(|x| x["severity"] == "hard")
        .collect();
    assert_eq!(hard.len(), 1, "{v}");
    for key in ["predicate", "severity", "bar", "voice", "onset", "reason"] {
        assert!(hard[0].get(key).is_some(), "field {key}");
    }
    assert_eq!(hard[0]["predicate"], "FS-P-parallel-perfect");
    assert_eq!(hard[0]["bar"], 3);
    assert_eq!(hard[0]["voice"], "Counterpoint");
    assert_eq!(hard[0]["onset"], "8");
    assert!(
        v["soft_scores"]["FS-M-climax"].as_u64().is_some(),
        "soft scores listed: {v}"
    );
}

#[test]
fn verify_finds_the_cantus_voice_by_name_or_flag() {
    let dir = temp("voices");
    let text = std::fs::read_to_string(fixture("pass-first-above"))
        .expect("fixture")
        .replace("Counterpoint", "Alto")
        .replace("Cantus", "Tenor");
    let file = dir.join("renamed.txt");
    std::fs::write(&file, &text).expect("write");
    let path = file.to_str().expect("utf-8");
    let o = cantus(&["verify", "--domain", "counterpoint", path]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("--cantus-voice"), "{}", stderr(&o));
    let o = cantus(&[
        "verify",
        "--domain",
        "counterpoint",
        "--cantus-voice",
        "tenor",
        path,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    // "cantus firmus" in any case is found without the flag.
    let lower = dir.join("lower.txt");
    std::fs::write(&lower, text.replace("Tenor", "cantus firmus")).expect("write");
    let o = cantus(&[
        "verify",
        "--domain",
        "counterpoint",
        lower.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

#[test]
fn the_lenient_profile_turns_the_battuta_into_a_warning() {
    let file = fixture("fs-p-battuta");
    let o = cantus(&["verify", "--domain", "counterpoint", &file]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let o = cantus(&[
        "verify",
        "--domain",
        "counterpoint",
        "--profile",
        "lenient",
        &file,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("warning[FS-P-battuta]"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_species_given_overrides_the_inferred_one() {
    let o = cantus(&[
        "verify",
        "--domain",
        "counterpoint",
        "--species",
        "2",
        &fixture("pass-first-above"),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("SP-rhythm"), "{}", stdout(&o));
}

#[test]
fn bad_input_exits_2_without_a_panic() {
    let dir = temp("bad");
    let one_voice = dir.join("one.txt");
    std::fs::write(&one_voice, "KEY: ? | METER: 4/4 | TEMPO: ? | GRID: 4th | BARS: 1\nVOICES: Cantus\n@1 [-]\n  Cantus: D4@1>4\n").expect("write");
    let chord = dir.join("chord.txt");
    let text = std::fs::read_to_string(fixture("pass-first-above"))
        .expect("fixture")
        .replace("A4@1>4", "A4+C5@1>4");
    std::fs::write(&chord, text).expect("write");
    let garbage = dir.join("garbage.txt");
    std::fs::write(&garbage, "this is not a score").expect("write");
    let cases: Vec<Vec<String>> = vec![
        vec![
            "verify".into(),
            "--domain".into(),
            "counterpoint".into(),
            dir.join("missing.txt").display().to_string(),
        ],
        vec![
            "verify".into(),
            "--domain".into(),
            "counterpoint".into(),
            one_voice.display().to_string(),
        ],
        vec![
            "verify".into(),
            "--domain".into(),
            "counterpoint".into(),
            chord.display().to_string(),
        ],
        vec![
            "verify".into(),
            "--domain".into(),
            "counterpoint".into(),
            garbage.display().to_string(),
        ],
        vec![
            "verify".into(),
            "--domain".into(),
            "counterpoint".into(),
            "--species".into(),
            "3".into(),
            fixture("pass-first-above"),
        ],
        vec![
            "compose".into(),
            "--domain".into(),
            "counterpoint".into(),
            "--out".into(),
            dir.display().to_string(),
        ],
        vec![
            "compose".into(),
            "--domain".into(),
            "counterpoint".into(),
            "--cantus".into(),
            "locrian".into(),
            "--out".into(),
            dir.display().to_string(),
        ],
        vec![
            "compose".into(),
            "--domain".into(),
            "counterpoint".into(),
            "--cantus".into(),
            garbage.display().to_string(),
            "--out".into(),
            dir.display().to_string(),
        ],
        vec![
            "compose".into(),
            "--domain".into(),
            "counterpoint".into(),
            "--cantus".into(),
            "dorian".into(),
            "--config".into(),
            dir.join("no-such-cantus.toml").display().to_string(),
            "--out".into(),
            dir.display().to_string(),
        ],
    ];
    for args in cases {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = cantus(&refs);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{args:?}: {}{}",
            stdout(&o),
            stderr(&o)
        );
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).trim().is_empty(), "{args:?}: says why");
    }
}

/// Parallel fifths in every bar of a 1,500-bar exercise: the gate lists the first
/// thousand violations and counts the rest by rule, in the text and in `--json`.
#[test]
fn verify_lists_at_most_a_thousand_violations_and_counts_the_rest() {
    let bars = 1500;
    let mut text = format!(
        "KEY: ? | METER: 4/4 | TEMPO: ? | GRID: 4th | BARS: {bars}\nVOICES: Counterpoint, Cantus\n"
    );
    for bar in 1..=bars {
        let (cantus, counterpoint) = if bar % 2 == 0 {
            ("F4", "C5")
        } else {
            ("G4", "D5")
        };
        text.push_str(&format!(
            "@{bar} [-]\n  Cantus: {cantus}@1>4\n  Counterpoint: {counterpoint}@1>4\n"
        ));
    }
    let file = temp("cap").join("long.txt");
    std::fs::write(&file, text).expect("write");
    let file = file.display().to_string();
    let o = cantus(&["verify", "--domain", "counterpoint", &file]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    let listed = out.lines().filter(|l| l.starts_with("  error[")).count()
        + out.lines().filter(|l| l.starts_with("  warning[")).count();
    assert_eq!(listed, 1000, "{}", &out[..out.len().min(2000)]);
    assert!(
        out.contains("more violations not listed (") && out.contains("FS-P-parallel-perfect: "),
        "{}",
        out.lines().rev().take(8).collect::<Vec<_>>().join("\n")
    );
    let v = json(&cantus(&[
        "verify",
        "--domain",
        "counterpoint",
        "--json",
        &file,
    ]));
    assert_eq!(v["violations"].as_array().expect("list").len(), 1000);
    let unlisted: u64 = v["unlisted"]
        .as_array()
        .expect("unlisted")
        .iter()
        .map(|u| u["count"].as_u64().expect("count"))
        .sum();
    assert!(unlisted >= 400, "{v:?}");
}
