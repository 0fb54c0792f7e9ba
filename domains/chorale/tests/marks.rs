//! The engraving's harmonic analysis: Roman numerals under the bass, drawn by
//! LilyPond below the violation marks' notes as a harmony class writes them.

use cantus_chorale::ReadOptions;
use cantus_chorale::marks::roman_numerals;
use cantus_music::annotation::MarkKind;
use cantus_music::lilypond::{self, Options};
use std::path::Path;

fn fixture(name: &str) -> cantus_music::Score {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules")
        .join(name);
    cantus_music::format::read_path(&path, false)
        .expect("fixture")
        .score
}

#[test]
fn every_chord_is_named_under_the_bass() {
    let score = fixture("pass.txt");
    let marks = roman_numerals(&score, &ReadOptions::default());
    let bass = score.voice_index("Bass").expect("a bass");
    let named: Vec<(usize, String)> = marks
        .marks
        .iter()
        .map(|m| match &m.kind {
            MarkKind::Numeral(n) => (m.at.voice, n.clone()),
            other => panic!("only numerals, not {other:?}"),
        })
        .collect();
    let numerals: Vec<&str> = named.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(numerals, ["I", "IV", "V", "I", "vi", "ii", "V", "I"]);
    assert!(named.iter().all(|(v, _)| *v == bass));
}

#[test]
fn a_melody_alone_gets_no_numerals() {
    let mut score = fixture("pass.txt");
    score.voices.truncate(1);
    assert!(roman_numerals(&score, &ReadOptions::default()).is_empty());
}

#[test]
fn lilypond_engraves_the_numerals_below_the_bass() {
    let score = fixture("pass.txt");
    let marks = roman_numerals(&score, &ReadOptions::default());
    let ly = lilypond::write_annotated(&score, &marks, &Options::default()).expect("written");
    for n in ["\"IV\"", "\"vi\"", "\"ii\""] {
        assert!(
            ly.contains(&format!("_\\markup \\small {n}")),
            "{n} below a note:\n{ly}"
        );
    }
    let found = std::process::Command::new("lilypond")
        .arg("--version")
        .output();
    if found.is_err() {
        let msg = "SKIPPED: engraving the numerals (LilyPond not found)";
        assert!(
            std::env::var("CANTUS_REQUIRE_TOOLS").as_deref() != Ok("1"),
            "{msg}"
        );
        eprintln!("{msg}");
        return;
    }
    let dir = std::env::temp_dir().join(format!("cantus-chorale-marks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    std::fs::write(dir.join("numerals.ly"), &ly).expect("written");
    let out = std::process::Command::new("lilypond")
        .args([
            "--loglevel=ERROR",
            "-dno-point-and-click",
            "--svg",
            "numerals.ly",
        ])
        .current_dir(&dir)
        .output()
        .expect("LilyPond runs");
    let svg = std::fs::read_to_string(dir.join("numerals.svg")).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        svg.contains(">vi<") && svg.contains(">ii<"),
        "the numerals are drawn"
    );
}
