//! Musicians' tools on the pieces `cantus compose` releases: music21 reads them (as
//! MusicXML and as MIDI) and finds the same pitches, onsets and durations as our score
//! model, and LilyPond engraves them cleanly.
//!
//! Uses `scripts/music21_check.py` with the venv Python at `$CANTUS_VENV` (default
//! `.venv-tools`), installed by `scripts/install-music-tools.sh`. Without it the test
//! prints `SKIPPED: …`, unless `CANTUS_REQUIRE_TOOLS=1`, when it fails.
//! (The format-level checks on random scores live in
//! `domains/music/tests/music21_agreement.rs`; this one checks real compositions.)

mod common;

use cantus_music::{Score, Time, midi, musicxml};
use std::path::{Path, PathBuf};
use std::process::Command;

const BRIEFS: [&str; 3] = [
    "Write a 16-bar piece for three voices in 3/4 at 72 bpm on Webern's Op. 21 row, with a canon between the outer voices",
    "A 12-bar quartet in 6/8 at 100 bpm on an all-interval row",
    "A 8-bar sextet in 4/4 with strong register contrast",
];

fn music21_python() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let venv =
        std::env::var_os("CANTUS_VENV").map_or_else(|| root.join(".venv-tools"), PathBuf::from);
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
        "SKIPPED: music21 venv not found at {} (run scripts/install-music-tools.sh)",
        venv.display()
    );
    assert!(
        std::env::var("CANTUS_REQUIRE_TOOLS").as_deref() != Ok("1"),
        "{msg}"
    );
    eprintln!("{msg}");
    None
}

fn fraction(t: Time) -> String {
    format!("{}/{}", t.numer(), t.denom())
}

fn expected_json(score: &Score) -> String {
    let mut entries = Vec::new();
    for (vi, v) in score.voices.iter().enumerate() {
        for e in &v.events {
            for p in &e.pitches {
                entries.push(serde_json::json!({
                    "voice": vi, "onset": fraction(e.onset), "duration": fraction(e.duration), "midi": p.midi,
                }));
            }
        }
    }
    serde_json::to_string(&entries).unwrap()
}

fn check(python: &Path, file: &Path, expected: &Path, extra: &[&str]) -> Result<(), String> {
    let out = Command::new(python)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/music21_check.py"
        ))
        .arg(file)
        .arg(expected)
        .args(extra)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

#[test]
fn music21_reads_composed_pieces_as_we_wrote_them() {
    let Some(python) = music21_python() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("cantus-m21-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, brief) in BRIEFS.iter().enumerate() {
        let artefact = &common::released(brief, 1);
        let expected = dir.join(format!("{i}.json"));
        std::fs::write(&expected, expected_json(artefact)).unwrap();
        let xml = dir.join(format!("{i}.musicxml"));
        std::fs::write(&xml, musicxml::write(artefact).unwrap()).unwrap();
        let mid = dir.join(format!("{i}.mid"));
        std::fs::write(&mid, midi::write(artefact).unwrap()).unwrap();
        check(&python, &xml, &expected, &[])
            .unwrap_or_else(|e| panic!("{brief} as MusicXML:\n{e}"));
        check(&python, &mid, &expected, &["--skip-empty-parts"])
            .unwrap_or_else(|e| panic!("{brief} as MIDI:\n{e}"));
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// LilyPond engraves the composed pieces with no warning, error or failed bar check.
#[test]
fn lilypond_engraves_composed_pieces_cleanly() {
    let found = Command::new("lilypond")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("CANTUS_REQUIRE_TOOLS").as_deref() != Ok("1"),
            "lilypond not on PATH"
        );
        eprintln!("SKIPPED: lilypond not on PATH");
        return;
    }
    let dir = std::env::temp_dir().join(format!("cantus-ly-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, brief) in BRIEFS.iter().enumerate() {
        let artefact = &common::released(brief, 2);
        let ly = dir.join(format!("{i}.ly"));
        std::fs::write(&ly, cantus_music::lilypond::write(artefact).unwrap()).unwrap();
        let out = Command::new("lilypond")
            .arg("--loglevel=WARN")
            .arg("-o")
            .arg(dir.join(i.to_string()))
            .arg(&ly)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let complaints: Vec<&str> = stderr
            .lines()
            .filter(|l| {
                let l = l.to_ascii_lowercase();
                l.contains("warning") || l.contains("error") || l.contains("barcheck")
            })
            .collect();
        assert!(
            out.status.success() && complaints.is_empty(),
            "{brief}: {complaints:#?}\n{stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}
