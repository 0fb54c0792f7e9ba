//! music21, an independent reader, must find in our MusicXML and MIDI output
//! exactly the notes we meant: same part, onset, duration and MIDI number for
//! every sounding pitch (ties merged). For MIDI each voice is first split into
//! non-overlapping layers (see [`one_layer_per_voice`]).
//!
//! Runs `scripts/music21_check.py` with the venv Python at `$CANTUS_VENV`
//! (default `<repo>/.venv-tools`, made by `scripts/install-music-tools.sh`).
//! Without that venv the test prints `SKIPPED: ...` and passes, unless
//! `CANTUS_REQUIRE_TOOLS=1`.

mod musicxml_common;

use cantus_music::{Score, Time, Voice, midi, musicxml};
use musicxml_common::{Shape, arb_score, hand_made};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Random scores checked besides the hand-made one.
const RANDOM_SCORES: usize = 8;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The venv's Python if it exists and imports music21, else `None` after
/// printing why the test is skipped (or failing when tools are required).
fn music21_python() -> Option<PathBuf> {
    let venv = std::env::var_os("CANTUS_VENV")
        .map_or_else(|| repo_root().join(".venv-tools"), PathBuf::from);
    let python = venv.join("bin/python");
    let works = python.is_file()
        && Command::new(&python)
            .args(["-c", "import music21"])
            .output()
            .is_ok_and(|o| o.status.success());
    if works {
        return Some(python);
    }
    let msg = format!(
        "SKIPPED: music21 venv not found at {} (run scripts/install-music-tools.sh or set CANTUS_VENV)",
        venv.display()
    );
    if std::env::var("CANTUS_REQUIRE_TOOLS").as_deref() == Ok("1") {
        panic!("{msg}");
    }
    eprintln!("{msg}");
    None
}

fn fraction(t: Time) -> String {
    format!("{}/{}", t.numer(), t.denom())
}

/// The expected-notes JSON: one entry per sounding pitch.
fn expected_json(score: &Score) -> String {
    let entries: Vec<serde_json::Value> = score
        .voices
        .iter()
        .enumerate()
        .flat_map(|(vi, v)| {
            v.events.iter().flat_map(move |e| {
                e.pitches.iter().map(move |p| {
                    serde_json::json!({
                        "voice": vi,
                        "onset": fraction(e.onset),
                        "duration": fraction(e.duration),
                        "midi": p.midi,
                    })
                })
            })
        })
        .collect();
    serde_json::to_string_pretty(&entries).expect("JSON")
}

/// Runs the check script; returns its output when it fails.
fn check(python: &Path, file: &Path, expected: &Path, extra: &[&str]) -> Result<String, String> {
    let out = Command::new(python)
        .arg(repo_root().join("scripts/music21_check.py"))
        .arg(file)
        .arg(expected)
        .args(extra)
        .output()
        .map_err(|e| format!("cannot run the check script: {e}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() {
        Ok(text)
    } else {
        Err(text)
    }
}

/// For MIDI: each voice split into layers of non-overlapping events, each layer
/// its own voice. music21's MIDI import turns notes of one track that start
/// together but end apart into voices, and leaves other overlaps in one line
/// whose ties it then cannot strip; one layer per track avoids both.
fn one_layer_per_voice(score: &Score) -> Score {
    let mut out = score.clone();
    out.voices.clear();
    for voice in &score.voices {
        let mut layers: Vec<Voice> = Vec::new();
        for ev in &voice.events {
            let free = layers
                .iter()
                .position(|l| l.events.last().is_none_or(|last| last.end() <= ev.onset));
            let i = free.unwrap_or_else(|| {
                layers.push(Voice::new(format!("{} {}", voice.name, layers.len() + 1)));
                layers.len() - 1
            });
            layers[i].events.push(ev.clone());
        }
        out.voices.extend(layers);
    }
    out
}

/// The hand-made score and fixed-seed random ones.
fn scores() -> Vec<(String, Score)> {
    let shape = Shape {
        max_voices: 3,
        same_pitch_overlaps: true,
    };
    let strategy = arb_score(shape);
    let mut runner = TestRunner::deterministic();
    let mut out = vec![("hand_made".to_string(), hand_made())];
    for i in 0..RANDOM_SCORES {
        let tree = strategy.new_tree(&mut runner).expect("generate a score");
        out.push((format!("random_{i}"), tree.current()));
    }
    out
}

#[test]
fn music21_reads_our_musicxml_and_midi_as_written() {
    let Some(python) = music21_python() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("cantus-music21-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut failures = Vec::new();
    let mut checked = 0;
    for (name, score) in scores() {
        let expected = dir.join(format!("{name}.json"));
        std::fs::write(&expected, expected_json(&score)).expect("write JSON");
        let xml_path = dir.join(format!("{name}.musicxml"));
        std::fs::write(&xml_path, musicxml::write(&score).expect("MusicXML")).expect("write");
        let layered = one_layer_per_voice(&score);
        let expected_midi = dir.join(format!("{name}.midi.json"));
        std::fs::write(&expected_midi, expected_json(&layered)).expect("write JSON");
        let mid_path = dir.join(format!("{name}.mid"));
        std::fs::write(&mid_path, midi::write(&layered).expect("MIDI")).expect("write");
        let runs = [
            (&xml_path, &expected, &[][..]),
            (&mid_path, &expected_midi, &["--skip-empty-parts"][..]),
        ];
        for (file, expected, extra) in runs {
            checked += 1;
            match check(&python, file, expected, extra) {
                Ok(report) => eprint!("{report}"),
                Err(report) => failures.push(format!("{name}: {report}")),
            }
        }
    }
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        failures.is_empty(),
        "music21 disagrees on {} of {checked} files (kept in {}):\n{}",
        failures.len(),
        dir.display(),
        failures.join("\n")
    );
}

#[test]
fn the_check_script_notices_a_wrong_note() {
    let Some(python) = music21_python() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("cantus-music21-neg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let score = hand_made();
    let xml_path = dir.join("hand_made.musicxml");
    std::fs::write(&xml_path, musicxml::write(&score).expect("MusicXML")).expect("write");
    let mut wrong = score.clone();
    wrong.voices[0].events[1].onset += Time::new(1, 6);
    let expected = dir.join("wrong.json");
    std::fs::write(&expected, expected_json(&wrong)).expect("write JSON");
    let result = check(&python, &xml_path, &expected, &[]);
    let _ = std::fs::remove_dir_all(&dir);
    let report = result.expect_err("a moved note must be reported");
    assert!(report.contains("expected but not found (1)"), "{report}");
    assert!(report.contains("found but not expected (1)"), "{report}");
}
