//! The shipped reference corpus `corpus/second-viennese`: every file is the one its
//! manifest names (SHA-256); Cantus reads as many sounding spans (per pitch, the
//! stretches in which it sounds) and grace notes as music21 did when the manifest was
//! made (and, with the music21 venv, the same spans: onset, length and pitch); Webern's Op. 27 is not in it; the README's table is what
//! `cantus analyze corpus/second-viennese` prints, the twelve-tone excerpt's row is the
//! one the literature names; and the reference numbers twelve-tone ships for its
//! experiments (`domains/twelve-tone/src/plugin/second_viennese.json`) are what the
//! experiment runner reads from the corpus.
//!
//! `CANTUS_BLESS=1 cargo test --test corpus` rewrites the README table and that JSON
//! after a change to the corpus or the analyser; the commit says why.

use cantus::corpus::{Corpus, analyze_dir};
use cantus::experiment::record::Reference;
use cantus::experiment::reference;
use cantus_music::format::read_path_with;
use cantus_music::{ReadOptions, Score, Time};
use cantus_registry::Trials;
use cantus_twelve_tone::analysis::{Options, Verdict};
use cantus_twelve_tone::plugin::reference::{CORPUS as SHIPPED, NUMBERS, shipped};
use cantus_twelve_tone::plugin::trials::TwelveToneTrials;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn corpus_dir() -> PathBuf {
    root().join(SHIPPED)
}

fn manifest() -> Value {
    let text = std::fs::read_to_string(corpus_dir().join("manifest.json")).expect("manifest");
    serde_json::from_str(&text).expect("manifest is JSON")
}

fn items() -> Vec<Value> {
    manifest()["items"].as_array().expect("items").clone()
}

fn blessing() -> bool {
    std::env::var("CANTUS_BLESS").as_deref() == Ok("1")
}

fn read(path: &Path, grace_notes: bool) -> Score {
    let options = ReadOptions {
        grace_notes,
        ..ReadOptions::default()
    };
    read_path_with(path, &options)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .score
}

fn pitches(score: &Score, grace: bool) -> usize {
    score
        .voices
        .iter()
        .flat_map(|v| &v.events)
        .filter(|e| e.is_grace() == grace)
        .map(|e| e.pitches.len())
        .sum()
}

/// Per pitch, the stretches of time in which it sounds in some part, notes of one
/// pitch that touch or overlap joined (grace notes left out): what
/// `scripts/music21_check.py --sounding` compares, whatever the readers make of ties.
fn sounding_spans(score: &Score) -> usize {
    let mut notes: Vec<(u8, Time, Time)> = score
        .voices
        .iter()
        .flat_map(|v| &v.events)
        .filter(|e| !e.is_grace() && e.duration > Time::from_integer(0))
        .flat_map(|e| {
            e.pitches
                .iter()
                .map(|p| (p.midi, e.onset, e.onset + e.duration))
        })
        .collect();
    notes.sort();
    let mut spans = 0;
    let mut last: Option<(u8, Time)> = None;
    for (midi, onset, end) in notes {
        match &mut last {
            Some((m, until)) if *m == midi && onset <= *until => *until = (*until).max(end),
            _ => {
                spans += 1;
                last = Some((midi, end));
            }
        }
    }
    spans
}

#[test]
fn every_file_is_the_one_the_manifest_names_and_reads_as_music21_read_it() {
    let items = items();
    assert_eq!(manifest()["count"], items.len());
    assert!(items.len() >= 21, "{} pieces", items.len());
    let listed: Vec<&str> = items.iter().map(|i| i["file"].as_str().unwrap()).collect();
    let files = cantus::corpus::score_files(&corpus_dir()).unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let mut sorted = listed.clone();
    sorted.sort_unstable();
    assert_eq!(
        names, sorted,
        "score files in the directory = manifest items"
    );
    for item in &items {
        let path = corpus_dir().join(item["file"].as_str().unwrap());
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(
            format!("{:x}", Sha256::digest(&bytes)),
            item["sha256"].as_str().unwrap(),
            "{}",
            path.display()
        );
        assert!(item["licence"].as_str().is_some_and(|l| !l.is_empty()));
        assert!(!item["source"].is_null());
        let Some(spans) = item["music21_sounding_spans"].as_u64() else {
            continue;
        };
        let score = read(&path, true);
        assert_eq!(sounding_spans(&score) as u64, spans, "{}", path.display());
        assert_eq!(
            pitches(&score, true) as u64,
            item["music21_grace_notes"].as_u64().unwrap(),
            "{}",
            path.display()
        );
    }
}

#[test]
fn webern_op27_is_held_out() {
    let text = std::fs::read_to_string(corpus_dir().join("manifest.json")).unwrap();
    let items_text = serde_json::to_string(&manifest()["items"]).unwrap();
    for needle in [
        "Op. 27",
        "Op.27",
        "op27",
        "Op 27",
        "Variationen",
        "Variations",
    ] {
        assert!(
            !items_text.contains(needle),
            "{needle} in the manifest's items"
        );
    }
    assert!(text.contains("Op. 27"), "the manifest says it is held out");
    for path in cantus::corpus::score_files(&corpus_dir()).unwrap() {
        let name = path.file_name().unwrap().to_string_lossy().to_lowercase();
        assert!(!name.contains("op27"), "{name}");
        let title = read(&path, false).title.unwrap_or_default().to_lowercase();
        assert!(
            !title.contains("27") && !title.contains("variation"),
            "{name}: {title}"
        );
    }
}

/// The expected-notes JSON of `scripts/music21_check.py`: every sounding pitch.
fn expected_json(score: &Score) -> String {
    let fraction = |t: Time| format!("{}/{}", t.numer(), t.denom());
    let entries: Vec<Value> = score
        .voices
        .iter()
        .flat_map(|v| &v.events)
        .filter(|e| !e.is_grace())
        .flat_map(|e| {
            e.pitches.iter().map(move |p| {
                serde_json::json!({
                    "voice": 0,
                    "onset": fraction(e.onset),
                    "duration": fraction(e.duration),
                    "midi": p.midi,
                })
            })
        })
        .collect();
    serde_json::to_string(&entries).unwrap()
}

#[test]
fn music21_reads_the_same_notes() {
    let venv =
        std::env::var_os("CANTUS_VENV").map_or_else(|| root().join(".venv-tools"), PathBuf::from);
    let python = venv.join("bin/python");
    let works = python.is_file()
        && Command::new(&python)
            .args(["-c", "import music21"])
            .output()
            .is_ok_and(|o| o.status.success());
    if !works {
        let msg = format!(
            "SKIPPED: music21 venv not found at {} (run scripts/install-music-tools.sh or set CANTUS_VENV)",
            venv.display()
        );
        assert!(
            std::env::var("CANTUS_REQUIRE_TOOLS").as_deref() != Ok("1"),
            "{msg}"
        );
        eprintln!("{msg}");
        return;
    }
    let tmp = std::env::temp_dir().join(format!("cantus-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut failures = Vec::new();
    for item in items() {
        if item["music21_sounding_spans"].is_null() {
            continue; // the Cantus text grammar: music21 cannot read it
        }
        let path = corpus_dir().join(item["file"].as_str().unwrap());
        let expected = tmp.join("expected.json");
        std::fs::write(&expected, expected_json(&read(&path, false))).unwrap();
        let out = Command::new(&python)
            .arg(root().join("scripts/music21_check.py"))
            .arg(&path)
            .arg(&expected)
            .arg("--sounding")
            .output()
            .expect("run music21_check.py");
        if !out.status.success() {
            failures.push(format!(
                "{}\n{}{}",
                path.display(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn analysed() -> Corpus {
    analyze_dir(&corpus_dir(), &ReadOptions::default(), &Options::default()).unwrap()
}

const BEGIN: &str = "<!-- cantus analyze corpus/second-viennese -->\n";
const END: &str = "<!-- end -->";

#[test]
fn the_readme_table_is_the_analysis_and_the_twelve_tone_excerpt_has_the_literatures_row() {
    let corpus = analysed();
    for p in &corpus.pieces {
        assert!(p.error.is_none(), "{}: {:?}", p.file, p.error);
    }
    let (mut serial, mut atonal) = (Vec::new(), Vec::new());
    for item in items() {
        let file = item["file"].as_str().unwrap();
        let piece = corpus.pieces.iter().find(|p| p.file == file).unwrap();
        match item["style"].as_str().unwrap() {
            "twelve-tone" => {
                assert_eq!(piece.verdict, Some(Verdict::TwelveTone), "{file}");
                assert!(piece.share > 0.95, "{file}: {}", piece.share);
                assert!(piece.canons >= 2, "{file}: {} canons", piece.canons);
                let chance = piece.control_complete_share.expect("a control");
                assert!(piece.complete_share - chance >= 0.2, "{file}: {chance}");
                // The literature's row (A F# G G# E F B Bb D C# C Eb) is Webern Op. 21's.
                assert_eq!(piece.row_name.as_deref(), Some("WebernOp21"), "{file}");
                serial.push(piece.share);
            }
            _ => {
                // Issue 29: judged against its shuffled copies, no free-atonal song is
                // twelve-tone, and none is given a historical row's name.
                assert_eq!(piece.verdict, Some(Verdict::NotTwelveTone), "{file}");
                assert_eq!(piece.row_name, None, "{file}");
                atonal.push((piece.share, file.to_owned()));
            }
        }
    }
    // The analyser over-reads free atonality (the README says how far): what can be
    // held to is the order, the twelve-tone excerpt above every song written without
    // a row.
    let least_serial = serial.iter().copied().fold(1.0, f64::min);
    for (share, file) in atonal {
        assert!(share < least_serial, "{file}: {share} >= {least_serial}");
    }
    let table = corpus.to_string();
    let readme_path = corpus_dir().join("README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let start = readme
        .find(BEGIN)
        .expect("README has the table's start marker")
        + BEGIN.len();
    let end = start + readme[start..].find(END).expect("and its end marker");
    let shown = readme[start..end].trim_start_matches("\n").trim_end();
    if blessing() {
        let new = format!(
            "{}\n{}\n{}",
            &readme[..start],
            table.trim_end(),
            &readme[end..]
        );
        std::fs::write(&readme_path, new).unwrap();
        return;
    }
    assert_eq!(
        shown,
        table.trim_end(),
        "README table out of date: CANTUS_BLESS=1 cargo test --test corpus"
    );
}

#[test]
fn the_built_in_reference_set_is_the_corpus() {
    let found = reference::read(
        &[corpus_dir()],
        |p| format!("{SHIPPED}/{}", p.file_name().unwrap().to_string_lossy()),
        Some(&TwelveToneTrials),
    )
    .unwrap();
    assert_eq!(found.len(), items().len());
    assert_eq!(
        TwelveToneTrials.reference(),
        shipped(),
        "what the domain offers"
    );
    let json_path = root().join(NUMBERS);
    if blessing() {
        let text = serde_json::to_string_pretty(&found).unwrap();
        std::fs::write(&json_path, text + "\n").unwrap();
        return;
    }
    let built_in: Vec<Reference> = shipped();
    assert_eq!(
        built_in, found,
        "{NUMBERS} out of date: CANTUS_BLESS=1 cargo test --test corpus"
    );
}
