//! The command-line program end to end: exit codes, files written, JSON shapes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cantus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args(args)
        .output()
        .expect("the cantus binary runs")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cantus-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const BRIEF: &str = "Write a 16-bar piece for three voices in 3/4 at 72 bpm on Webern's Op. 21 row, \
                     with a canon between the outer voices and strong register contrast";

fn compose(dir: &Path) -> Output {
    cantus(&[
        "compose",
        "--brief",
        BRIEF,
        "--seed",
        "3",
        "--out",
        dir.to_str().unwrap(),
    ])
}

#[test]
fn compose_releases_and_writes_every_format_and_verify_passes_each() {
    let dir = temp("compose");
    let out = compose(&dir);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(
        stdout(&out).starts_with("released (twelve-tone/strict): 16 bars, 3 voices"),
        "{}",
        stdout(&out)
    );
    for f in [
        "piece.txt",
        "piece.musicxml",
        "piece.ly",
        "piece.mid",
        "trace.jsonl",
        "report.json",
        "spec.toml",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["released"], true);
    assert_eq!(report["gate"]["passed"], true);
    assert_eq!(report["spec"]["bars"], 16);
    assert_eq!(report["schedule"].as_array().unwrap().len(), 4);
    let trace = std::fs::read_to_string(dir.join("trace.jsonl")).unwrap();
    assert!(trace.lines().next().unwrap().contains(r#""kind":"run""#));
    assert!(trace.lines().last().unwrap().contains(r#""kind":"timing""#));
    for f in ["piece.txt", "piece.musicxml", "piece.mid"] {
        let v = cantus(&["verify", dir.join(f).to_str().unwrap()]);
        assert_eq!(v.status.code(), Some(0), "{f}: {}", stdout(&v));
    }
    // Against the plan it was written to: the spec file and the seed rebuild the schedule.
    let spec = dir.join("spec.toml");
    let v = cantus(&[
        "verify",
        dir.join("piece.txt").to_str().unwrap(),
        "--spec",
        spec.to_str().unwrap(),
        "--seed",
        "3",
    ]);
    assert_eq!(v.status.code(), Some(0), "{}", stdout(&v));
    // Same seed, same piece.
    let again = temp("compose-again");
    assert_eq!(compose(&again).status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(dir.join("piece.txt")).unwrap(),
        std::fs::read_to_string(again.join("piece.txt")).unwrap()
    );
}

#[test]
fn verify_json_names_predicate_bar_and_voice_of_a_collision() {
    let dir = temp("verify");
    assert_eq!(compose(&dir).status.code(), Some(0));
    // Double the first note of the top voice into the second voice's first bar: a
    // collision (and broken rows), found by pitch alone.
    let text = std::fs::read_to_string(dir.join("piece.txt")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let first_voice_line = lines.iter().position(|l| l.starts_with("  ")).unwrap();
    let token = lines[first_voice_line]
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_owned();
    let (pitch, rest) = token.split_once('@').unwrap();
    let onset_dur = rest.split('{').next().unwrap();
    let other = lines
        .iter()
        .position(|l| l.starts_with("  ") && !l.starts_with(&lines[first_voice_line][..6]))
        .unwrap();
    // Same pitch class an octave lower, same onset and duration, in another voice.
    let letters: String = pitch
        .chars()
        .take_while(|c| !c.is_ascii_digit() && *c != '-')
        .collect();
    let octave: i32 = pitch[letters.len()..].parse().unwrap();
    lines[other] = format!("{} {letters}{}@{onset_dur}", lines[other], octave - 1);
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let v = cantus(&["verify", bad.to_str().unwrap(), "--json"]);
    assert_eq!(v.status.code(), Some(1), "{}{}", stdout(&v), stderr(&v));
    let json: serde_json::Value = serde_json::from_str(&stdout(&v)).unwrap();
    assert_eq!(json["passed"], false);
    let violations = json["violations"].as_array().unwrap();
    let collision = violations
        .iter()
        .find(|v| v["predicate"] == "TT-COLLISION")
        .unwrap_or_else(|| panic!("no collision in {violations:#?}"));
    assert!(collision["bar"].as_u64().is_some() && collision["voice"].as_str().is_some());
}

#[test]
fn bad_input_exits_2_and_says_where() {
    let dir = temp("bad");
    let contradiction = cantus(&[
        "compose",
        "--brief",
        "a trio for four voices",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(contradiction.status.code(), Some(2));
    assert!(
        stderr(&contradiction).contains("contradictory"),
        "{}",
        stderr(&contradiction)
    );
    let missing = cantus(&["verify", "/nonexistent/piece.txt"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("/nonexistent/piece.txt"));
    let malformed = dir.join("m.txt");
    std::fs::write(
        &malformed,
        "KEY: ? | METER: 4/4 | TEMPO: 60 | GRID: 16th | BARS: 1\nVOICES: A\n@1 [-]\n  A: C4@17>1\n",
    )
    .unwrap();
    let m = cantus(&["verify", malformed.to_str().unwrap()]);
    assert_eq!(m.status.code(), Some(2));
    assert!(
        stderr(&m).contains("G-ONSET-RANGE") && stderr(&m).contains("m.txt:4:"),
        "{}",
        stderr(&m)
    );
    let unknown = cantus(&[
        "convert",
        malformed.to_str().unwrap(),
        dir.join("x.pdf").to_str().unwrap(),
    ]);
    assert_eq!(unknown.status.code(), Some(2));
    let usage = cantus(&["compose"]);
    assert_eq!(usage.status.code(), Some(2));
}

#[test]
fn rows_json_agrees_with_music21_in_both_conventions() {
    let oracle: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/domains/twelve-tone/tests/fixtures/row_oracle_sample.json"
        ))
        .unwrap(),
    )
    .unwrap();
    for row in oracle["rows"].as_array().unwrap() {
        let id = row["id"].as_str().unwrap();
        for (convention, key) in [
            ("zero-centred", "forms"),
            ("relative", "forms_original_centered"),
        ] {
            let out = cantus(&["rows", id, "--convention", convention, "--json"]);
            assert_eq!(out.status.code(), Some(0));
            let ours: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
            assert_eq!(ours["forms"], row[key], "{id} {convention}");
            assert_eq!(ours["matrix"], row["matrix"], "{id}");
            assert_eq!(ours["all_interval"], row["is_all_interval"], "{id}");
        }
    }
}

#[test]
fn convert_round_trips_through_musicxml_and_midi() {
    let dir = temp("convert");
    assert_eq!(compose(&dir).status.code(), Some(0));
    let txt = dir.join("piece.txt");
    for ext in ["musicxml", "mid"] {
        let mid = dir.join(format!("via.{ext}"));
        let back = dir.join(format!("back-{ext}.txt"));
        assert_eq!(
            cantus(&["convert", txt.to_str().unwrap(), mid.to_str().unwrap()])
                .status
                .code(),
            Some(0)
        );
        assert_eq!(
            cantus(&["convert", mid.to_str().unwrap(), back.to_str().unwrap()])
                .status
                .code(),
            Some(0)
        );
        let v = cantus(&["verify", back.to_str().unwrap()]);
        assert_eq!(v.status.code(), Some(0), "{ext}: {}", stdout(&v));
    }
}

#[test]
fn bank_composes_every_brief_and_resumes_only_from_runs_whose_files_are_whole() {
    let dir = temp("bank");
    let bank = dir.join("bank.txt");
    std::fs::write(
        &bank,
        "# two briefs\nA 4-bar duet in 3/4\n\nA 4-bar trio on Webern's Op. 21 row\n",
    )
    .unwrap();
    let out = dir.join("out");
    let run = || {
        cantus(&[
            "bank",
            bank.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--seeds",
            "2",
        ])
    };
    let first = run();
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}{}",
        stdout(&first),
        stderr(&first)
    );
    assert!(
        stdout(&first).contains("4 of 4 released"),
        "{}",
        stdout(&first)
    );
    let folder = |line: &str, seed: u32| out.join(format!("runs/L{line}+embedded+harness+r{seed}"));
    for (line, seed) in [("002", 0), ("002", 1), ("004", 0), ("004", 1)] {
        assert!(
            folder(line, seed).join("piece.txt").is_file(),
            "{line} {seed}"
        );
    }
    let summary = || -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
    };
    assert_eq!(summary()["released"], 4);
    assert!(
        summary()["entries"][0]["brief"]
            .as_str()
            .unwrap()
            .ends_with("bank.txt:2"),
        "{}",
        summary()
    );
    // The bank is an experiment: its results read like any other's.
    let report = cantus(&["experiment", "report", out.to_str().unwrap()]);
    assert_eq!(report.status.code(), Some(0), "{}", stderr(&report));
    assert!(out.join("report.md").is_file());
    // A second run counts the earlier runs instead of composing again — but only
    // those whose files are still as they were written: a changed piece is composed
    // again (issue 17: resume checks the size and hash of every file of a run).
    let piece_txt = folder("002", 0).join("piece.txt");
    let piece = std::fs::read_to_string(&piece_txt).unwrap();
    std::fs::write(&piece_txt, "changed by hand").unwrap();
    let second = run();
    assert_eq!(second.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&piece_txt).unwrap(), piece);
    let earlier = |i: usize| summary()["entries"][i]["earlier"].as_bool().unwrap();
    assert_eq!(summary()["entries"][0]["note"], "released");
    assert!(!earlier(0), "the changed run was composed again");
    for i in 1..4 {
        assert!(earlier(i), "entry {i} is counted from the earlier run");
    }
    // A run folder cut short is not trusted either.
    std::fs::remove_file(folder("004", 1).join("report.json")).unwrap();
    let third = run();
    assert_eq!(third.status.code(), Some(0));
    assert!(!earlier(3) && earlier(0));
    assert!(folder("004", 1).join("report.json").is_file());
    // --force composes again, identically.
    let forced = cantus(&[
        "bank",
        bank.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--seeds",
        "2",
        "--force",
    ]);
    assert_eq!(forced.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&piece_txt).unwrap(), piece);
    assert!((0..4).all(|i| !earlier(i)));
    // An edited bank is another experiment: its results are not mixed with these.
    std::fs::write(
        &bank,
        "A 4-bar duet in 3/4
",
    )
    .unwrap();
    let edited = run();
    assert_eq!(edited.status.code(), Some(2));
    assert!(stderr(&edited).contains("--force"), "{}", stderr(&edited));
    // A brief that does not compile is bad input, named by line, before anything runs.
    std::fs::write(&bank, "A 4-bar duet\nA trio for four voices\n").unwrap();
    let bad = run();
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("bank.txt:2:"), "{}", stderr(&bad));
}
