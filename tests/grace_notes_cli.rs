//! Grace notes through the commands: `verify --lenient` judges them as row tones,
//! strict reading leaves them out and says so, `convert --grace-notes` keeps them
//! in the text grammar and leaves them out of MIDI with a warning.

use std::path::PathBuf;
use std::process::{Command, Output};

/// One statement of Schoenberg's Op. 37 row; positions 2, 5 and 9 are grace notes.
const PIECE: &str = "\
KEY: ? | METER: 4/4 | TEMPO: ? | GRID: 16 | BARS: 3
VOICES: Piano
@1 [-]
  Piano: C5@1>4 B4@5>g/ G4@5>4 Ab4@9>4 Eb5@13>g C#5@13>4
@2 [-]
  Piano: D5@1>4 Bb4@5>4 F#4@9>g F4@9>4 E4@13>4
@3 [-]
  Piano: A4@1>8
";
const ROW: &str = "0 11 7 8 3 1 2 10 6 5 4 9";

fn cantus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args(args)
        .output()
        .expect("the cantus binary runs")
}

fn piece(name: &str) -> (PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("cantus-grace-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("grace.txt");
    std::fs::write(&path, PIECE).unwrap();
    let text = path.display().to_string();
    (dir, text)
}

#[test]
fn verify_lenient_judges_grace_notes_as_row_tones_and_strict_reading_leaves_them_out() {
    let (dir, path) = piece("verify");
    let lenient = cantus(&["verify", &path, "--row", ROW, "--lenient"]);
    let stdout = String::from_utf8_lossy(&lenient.stdout);
    assert!(lenient.status.success(), "{stdout}");
    assert!(
        stdout.contains("PASSED") && stdout.contains("12 events"),
        "{stdout}"
    );

    let strict = cantus(&["verify", &path, "--row", ROW]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&strict.stdout),
        String::from_utf8_lossy(&strict.stderr),
    );
    assert_eq!(strict.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("missing 3 (D#), 6 (F#), 11 (B)"),
        "{stdout}"
    );
    assert_eq!(stderr.matches("G-GRACE-SKIPPED").count(), 3, "{stderr}");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn convert_keeps_grace_notes_in_the_grammar_and_leaves_them_out_of_midi() {
    let (dir, path) = piece("convert");
    let txt = dir.join("out.txt").display().to_string();
    let o = cantus(&["convert", &path, &txt, "--grace-notes"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let written = std::fs::read_to_string(&txt).unwrap();
    assert!(written.contains("B4@2>g/ G4@2>1"), "{written}");

    let mid = dir.join("out.mid").display().to_string();
    let o = cantus(&["convert", &path, &mid, "--grace-notes"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("3 grace notes left out: the MIDI writer does not write grace notes"),
        "{stderr}"
    );
    assert!(
        stderr.contains("9 events"),
        "the written count is the score's: {stderr}"
    );
    std::fs::remove_dir_all(dir).ok();
}
