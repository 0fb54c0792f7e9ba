//! `cantus compose --revise N` run as a user runs it: each round's verdict line,
//! the rounds in report.json and the trace, and the flag's bad uses.
//!
//! The brief and seed are one where the embedded proposer's first piece is legal
//! but sits at too many extremes of the serial reference, so the loop has work:
//! round 1 fails the degeneracy gate, round 2 passes it.

#[path = "../plugins/host/tests/support/mod.rs"]
mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BRIEF: &str =
    "An 8-bar monophonic piece in 3/4 at 60 bpm on the row 0 11 7 8 3 1 2 10 6 5 4 9";
const SEED: &str = "6";

fn cantus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args(args)
        .output()
        .expect("the cantus binary runs")
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cantus-revise-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn compose(out: &Path, extra: &[&str]) -> Output {
    let out = out.display().to_string();
    let mut args = vec!["compose", "--brief", BRIEF, "--seed", SEED, "--out", &out];
    args.extend_from_slice(extra);
    cantus(&args)
}

fn json(path: PathBuf) -> Value {
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The trace's lines of one kind.
fn trace_lines(dir: &Path, kind: &str) -> Vec<Value> {
    std::fs::read_to_string(dir.join("trace.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["kind"] == kind)
        .collect()
}

#[test]
fn revise_releases_after_the_rounds_it_needed_and_says_so() {
    let dir = tmp("three");
    let out = compose(&dir, &["--revise", "3"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0]
            .starts_with("round 1/3: strict gate passed; degeneracy failed (6 extremes, budget 5:")
            && lines[0].ends_with("; best so far"),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("round 2/3: strict gate passed; degeneracy passed"),
        "{stdout}"
    );
    assert!(stdout.contains("revise: released after 2 of at most 3 rounds"));
    assert!(stdout.contains("released (twelve-tone/strict)"));
    // report.json counts the rounds; the trace holds one line per round.
    let report = json(dir.join("report.json"));
    assert_eq!(report["released"], true);
    assert_eq!(report["totals"]["rounds"], 2);
    let rounds = trace_lines(&dir, "round");
    assert_eq!(rounds.len(), 2);
    assert_eq!(rounds[0]["converged"], false);
    let feedback = rounds[0]["feedback"].as_array().unwrap();
    assert!(
        feedback[0]
            .as_str()
            .unwrap()
            .starts_with("non-degeneracy: 6 traits sit at an extreme"),
        "{feedback:?}"
    );
    assert_eq!(rounds[1]["converged"], true);
    assert_eq!(trace_lines(&dir, "run")[0]["mode"], "revise-harness");
    // Round 2's section requests came after round 1's: the harness ran twice.
    let calls = trace_lines(&dir, "call");
    assert!(calls.iter().filter(|c| c["request"] == "section").count() >= 2);
    // The released piece verifies with the strict gate on its own.
    let spec = dir.join("spec.toml").display().to_string();
    let piece = dir.join("piece.txt").display().to_string();
    let verified = cantus(&["verify", &piece, "--spec", &spec, "--seed", SEED]);
    assert_eq!(verified.status.code(), Some(0));
}

#[test]
fn one_round_of_a_degenerate_piece_is_an_explicit_failure() {
    let dir = tmp("one");
    let out = compose(&dir, &["--revise", "1"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("revise: nothing released after 1 of at most 1 round"));
    assert!(
        stdout.contains("measure `libretto-degeneracy` not satisfied"),
        "{stdout}"
    );
    let report = json(dir.join("report.json"));
    assert_eq!(report["released"], false);
    assert_eq!(report["totals"]["rounds"], 1);
    // The legal but degenerate piece is kept, marked unreleased.
    assert!(dir.join("unreleased-piece.txt").exists());
    assert!(!dir.join("piece.txt").exists());
}

#[test]
fn without_revise_compose_runs_the_harness_once() {
    let dir = tmp("plain");
    let out = compose(&dir, &[]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("round 1/"), "{stdout}");
    assert_eq!(json(dir.join("report.json"))["totals"]["rounds"], 0);
    assert!(trace_lines(&dir, "round").is_empty());
}

#[test]
fn bad_uses_of_revise_are_bad_input() {
    let dir = tmp("bad");
    // Zero rounds would release nothing and say nothing: refused by the parser.
    let zero = compose(&dir, &["--revise", "0"]);
    assert_eq!(zero.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&zero.stderr).contains("'--revise <N>'"));
    // The raw baseline asks for one whole piece: no harness to revise.
    let raw = compose(&dir, &["--revise", "2", "--config", "cantus.toml", "--raw"]);
    assert_eq!(raw.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&raw.stderr).contains("cannot be used with"));
    // Counterpoint has no serial reference.
    let out = dir.display().to_string();
    let counterpoint = cantus(&[
        "compose",
        "--domain",
        "counterpoint",
        "--revise",
        "2",
        "--out",
        &out,
    ]);
    assert_eq!(counterpoint.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&counterpoint.stderr).contains("twelve-tone only"));
}

#[test]
fn a_model_proposer_gets_the_feedback_in_its_section_prompts() {
    // The Python example plugin answers every section the same way whatever it
    // is told: legal, but — for six voices, whatever rhythm plan the request
    // carries — degenerate against the serial reference (voice count,
    // simultaneity, chord width). The loop must hand it the feedback in round 2
    // and still refuse to release.
    let Some(python) = support::python3("compose --revise with a subprocess model") else {
        return;
    };
    let root = support::workspace_root(env!("CARGO_MANIFEST_DIR"));
    let script = support::python_example(&root).display().to_string();
    let dir = tmp("model");
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("cantus.toml");
    let quoted = |t: &str| serde_json::to_string(t).unwrap();
    std::fs::write(
        &config,
        format!(
            "[backend]\nkind = \"subprocess\"\ncommand = [{}, {}]\ntimeout_s = 20\n",
            quoted(&python),
            quoted(&script)
        ),
    )
    .unwrap();
    let cassette = dir.join("calls.jsonl");
    let out_dir = dir.join("out");
    let out = cantus(&[
        "compose",
        "--brief",
        "a 16-bar piece for six voices in 4/4",
        "--config",
        &config.display().to_string(),
        "--record",
        &cassette.display().to_string(),
        "--revise",
        "2",
        "--out",
        &out_dir.display().to_string(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("revise: nothing released after 2 of at most 2 rounds"));
    assert_eq!(trace_lines(&out_dir, "round").len(), 2);
    // Round 1's section prompts carry no degeneracy feedback; round 2's carry it
    // (the ladder's patch and rewrite requests are about one event, not the round).
    let sections: Vec<bool> = std::fs::read_to_string(&cassette)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|c| c["request"]["context"]["request"] == "section")
        .map(|c| c["request"].to_string().contains("non-degeneracy:"))
        .collect();
    let first_told = sections.iter().position(|t| *t).expect("round 2 is told");
    assert!(
        first_told >= 4,
        "round 1 asks for each of its 4 sections: {sections:?}"
    );
    assert!(sections[first_told..].iter().all(|t| *t), "{sections:?}");
}
