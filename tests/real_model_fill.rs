//! `cantus fill --config …` end to end through the binary, against the real local
//! model (llama.cpp's server with SmolLM2-135M; `scripts/local-model.sh start`
//! prints the URL to put in `CANTUS_LOCAL_MODEL_URL`).
//!
//! A constrained fill of two bars of the Libretto fixture is recorded to a
//! cassette and must end in a verdict: the filled piece (read back by the strict
//! reader, the gap bars sounding, the context untouched) or an explicit failure —
//! never a crash or a usage error. The cassette is then replayed with the server
//! out of the picture (a config pointing at a closed port): the replay must reach
//! the same verdict and write the same piece byte for byte. Calls, tokens and
//! wall time go to stderr.
//!
//! Without `CANTUS_LOCAL_MODEL_URL` the test prints `SKIPPED: …` and passes, unless
//! `CANTUS_REQUIRE_MODEL=1`.

mod common;

use cantus_music::grammar::{ParseOptions, parse};
use cantus_music::{Event, Score};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cantus-real-fill-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn config(dir: &Path, name: &str, url: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "[backend]\nkind = \"openai\"\nbase_url = \"{url}\"\nmodel = \"smollm2\"\n\
             temperature = 0.0\nseed = 7\nmax_tokens = 320\ntimeout_s = 60.0\nretries = 1\n"
        ),
    )
    .expect("config written");
    path
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("domains/libretto/tests/fixtures/round1.txt")
}

fn read_strict(path: &Path) -> Score {
    let text = std::fs::read_to_string(path).expect("piece written");
    parse(&text, &ParseOptions::named(path.display().to_string()))
        .unwrap_or_else(|e| panic!("the filled piece reads strictly:\n{e}"))
        .score
}

fn events_in(score: &Score, first: u32, last: u32) -> Vec<(usize, Event)> {
    score
        .voices
        .iter()
        .enumerate()
        .flat_map(|(vi, v)| v.events.iter().map(move |e| (vi, e.clone())))
        .filter(|(_, e)| (first..=last).contains(&score.bar_of(e.onset)))
        .collect()
}

/// Runs `cantus fill` on the fixture's bars 5-6; returns the exit code and the JSON verdict.
fn fill(config: &Path, cassette: (&str, &Path), out: &Path) -> (i32, Value) {
    let output = Command::new(env!("CARGO_BIN_EXE_cantus"))
        .arg("fill")
        .arg(fixture())
        .args([
            "--bars",
            "5-6",
            "--candidates",
            "2",
            "--constrained",
            "--json",
        ])
        .arg("--config")
        .arg(config)
        .arg(cassette.0)
        .arg(cassette.1)
        .arg("--out")
        .arg(out)
        .output()
        .expect("cantus runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let code = output.status.code().expect("exit code");
    assert!(
        code == 0 || code == 1,
        "a verdict, not a usage error or crash (exit {code}):\n{stdout}\n{stderr}"
    );
    let verdict: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("stdout is the JSON verdict ({e}):\n{stdout}\n{stderr}"));
    (code, verdict)
}

#[test]
fn a_real_model_fills_a_gap_or_fails_explicitly_and_the_cassette_replays_it() {
    let Some(url) = common::local_model_url("a_real_model_fills_a_gap_or_fails_explicitly") else {
        return;
    };
    let dir = scratch("gap");
    let live = config(&dir, "live.toml", &url);
    let cassette = dir.join("fill.jsonl");
    let out = dir.join("filled.txt");
    let started = Instant::now();
    let (code, verdict) = fill(&live, ("--record", &cassette), &out);
    let wall = started.elapsed();
    let model = &verdict["model"];
    eprintln!(
        "real model fill: exit {code}, passed {}, calls {}, tokens in {}, out {}, stop reasons {}, wall {:.1} s",
        verdict["passed"],
        model["calls"],
        model["tokens_in"],
        model["tokens_out"],
        model["stop_reasons"],
        wall.as_secs_f64()
    );
    assert_eq!(verdict["proposer"], "model:openai:smollm2");
    assert!(
        model["calls"]
            .as_u64()
            .is_some_and(|c| (1..=2).contains(&c))
    );
    assert_eq!(verdict["passed"] == true, code == 0);
    let original = read_strict(&fixture());
    let written = if verdict["out"].is_string() {
        let filled = read_strict(&out);
        assert!(!events_in(&filled, 5, 6).is_empty(), "the gap bars sound");
        assert_eq!(events_in(&filled, 1, 4), events_in(&original, 1, 4));
        assert_eq!(events_in(&filled, 7, 16), events_in(&original, 7, 16));
        let gates: Vec<&str> = verdict["gates"]
            .as_array()
            .expect("gate outcomes")
            .iter()
            .filter_map(|g| g["gate"].as_str())
            .collect();
        assert_eq!(gates, ["LIB-COPY", "LIB-DEGENERACY"]);
        Some(std::fs::read_to_string(&out).expect("piece"))
    } else {
        // No candidate could be judged: every failure is stated.
        assert_eq!(verdict["passed"], false);
        assert!(!verdict["failures"].as_array().expect("failures").is_empty());
        None
    };

    // Offline: the same verdict and the same piece from the cassette alone.
    let closed = config(&dir, "closed.toml", "http://127.0.0.1:9/v1");
    let replayed_out = dir.join("replayed.txt");
    let (replay_code, replayed) = fill(&closed, ("--replay", &cassette), &replayed_out);
    assert_eq!(replay_code, code);
    assert_eq!(replayed["passed"], verdict["passed"]);
    assert_eq!(replayed["copy_risk"], verdict["copy_risk"]);
    if let Some(text) = written {
        assert_eq!(std::fs::read_to_string(&replayed_out).expect("piece"), text);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
