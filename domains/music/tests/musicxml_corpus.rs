//! The shared corpus (150 Bach chorales, 3 atonal pieces, all written by
//! music21) read through our MusicXML reader and checked against the facts its
//! manifest records, then written and read back.
//!
//! Needs `$CANTUS_SHARED` (default `<workspace>/../shared`); without it the tests
//! print `SKIPPED: ...` and pass, unless `CANTUS_REQUIRE_SHARED=1`.

use cantus_music::musicxml::{self, ReadReport};
use cantus_music::{Score, Time};
use serde_json::Value;
use std::path::PathBuf;

const SETS: [(&str, usize); 2] = [("bach_chorales", 150), ("atonal", 3)];

/// The shared directory, or `None` after printing why the test is skipped.
fn shared_dir(what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("CANTUS_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        PathBuf::from,
    );
    if dir.join("data/corpus").is_dir() {
        return Some(dir);
    }
    let msg = format!(
        "SKIPPED: {what} (shared data not found at {}; set CANTUS_SHARED)",
        dir.display()
    );
    if std::env::var("CANTUS_REQUIRE_SHARED").as_deref() == Ok("1") {
        panic!("{msg}");
    }
    eprintln!("{msg}");
    None
}

/// One corpus file read, with its manifest item.
struct Item {
    file: String,
    manifest: Value,
    score: Score,
    report: ReadReport,
    xml_path: PathBuf,
}

/// Reads every MusicXML file of every set; any failure to read fails the test.
fn read_corpus(shared: &std::path::Path) -> Vec<Item> {
    let mut items = Vec::new();
    let mut failures = Vec::new();
    for (set, expected_count) in SETS {
        let dir = shared.join("data/corpus").join(set);
        let text = std::fs::read_to_string(dir.join("manifest.json")).expect("manifest");
        let manifest: Value = serde_json::from_str(&text).expect("manifest JSON");
        let list = manifest["items"].as_array().expect("items");
        let with_xml: Vec<&Value> = list
            .iter()
            .filter(|i| i["musicxml_file"].is_string())
            .collect();
        assert_eq!(
            with_xml.len(),
            expected_count,
            "{set}: MusicXML files in the manifest"
        );
        for m in with_xml {
            let file = m["musicxml_file"].as_str().unwrap_or_default().to_string();
            let xml_path = dir.join(&file);
            match musicxml::read_file(&xml_path) {
                Ok((score, report)) => items.push(Item {
                    file: format!("{set}/{file}"),
                    manifest: m.clone(),
                    score,
                    report,
                    xml_path,
                }),
                Err(e) => failures.push(e.to_string()),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "unreadable corpus files:\n{}",
        failures.join("\n")
    );
    items
}

fn int(v: &Value, field: &str) -> usize {
    usize::try_from(v[field].as_u64().unwrap_or_else(|| panic!("field {field}"))).expect("usize")
}

/// A manifest length in quarter notes (a float music21 computed) as an exact time:
/// every length in this corpus is a whole number of 1/10080 quarters.
fn quarters(v: &Value, field: &str) -> Time {
    let q = v[field].as_f64().unwrap_or_else(|| panic!("field {field}"));
    let ticks = (q * 10080.0).round() as i64;
    assert!(
        ((ticks as f64) / 10080.0 - q).abs() < 1e-9,
        "{field} {q} off the 1/10080 grid"
    );
    Time::new(ticks, 10080)
}

fn pitch_count(score: &Score) -> usize {
    score
        .voices
        .iter()
        .flat_map(|v| &v.events)
        .map(|e| e.pitches.len())
        .sum()
}

#[test]
fn every_corpus_file_reads_and_agrees_with_the_manifest() {
    let Some(shared) = shared_dir("MusicXML corpus agreement") else {
        return;
    };
    let items = read_corpus(&shared);
    let mut problems = Vec::new();
    let (mut pitches_total, mut merged_total, mut files_vs_midi) = (0, 0, 0);
    let mut padded = Vec::new();
    let warnings: usize = items.iter().map(|it| it.report.warnings.len()).sum();
    for it in &items {
        let m = &it.manifest;
        let r = &it.report;
        let mut check = |ok: bool, what: String| {
            if !ok {
                problems.push(format!("{}: {what}", it.file));
            }
        };
        let pitches = pitch_count(&it.score);
        pitches_total += pitches;
        merged_total += r.ties_merged;
        // `notes` counts every pitched notehead as notated: each one we read is
        // either a pitch of an event, a tied continuation merged into one, a
        // skipped grace note or a skipped zero-length note.
        let accounted = pitches + r.ties_merged + r.grace_notes_skipped + r.zero_duration_skipped;
        check(
            accounted == int(m, "notes"),
            format!(
                "pitches {pitches} + merged {} + grace {} + zero {} != notes {}",
                r.ties_merged,
                r.grace_notes_skipped,
                r.zero_duration_skipped,
                int(m, "notes")
            ),
        );
        check(
            r.ties_merged == int(m, "tied_continuations"),
            format!(
                "merged {} ties, manifest has {} tied continuations",
                r.ties_merged,
                int(m, "tied_continuations")
            ),
        );
        check(
            r.ties_unmatched == 0,
            format!("{} unmatched tie stops", r.ties_unmatched),
        );
        check(
            r.grace_notes_skipped == int(m, "grace_notes"),
            format!(
                "skipped {} grace notes, manifest has {}",
                r.grace_notes_skipped,
                int(m, "grace_notes")
            ),
        );
        check(
            it.score.voices.len() == int(m, "parts"),
            format!(
                "{} voices for {} parts",
                it.score.voices.len(),
                int(m, "parts")
            ),
        );
        // `duration_ql` is the length of music21's source encoding; its MusicXML
        // export may pad an incomplete final bar with a rest, so our notated
        // length may exceed it, but only by silence.
        let source_length = quarters(m, "duration_ql");
        let sounding_end = it.score.end() - r.pickup_shift;
        check(
            sounding_end <= source_length && source_length <= r.notated_length,
            format!(
                "last note ends at {sounding_end}, duration_ql {source_length}, notated length {}",
                r.notated_length
            ),
        );
        if source_length != r.notated_length {
            padded.push(format!(
                "{} (+{})",
                it.file,
                r.notated_length - source_length
            ));
        }
        check(
            it.score.meter.to_string() == m["time_signature"].as_str().unwrap_or_default(),
            format!("meter {} != {}", it.score.meter, m["time_signature"]),
        );
        check(
            it.score.key.map(|k| i64::from(k.fifths())) == m["key_signature_sharps"].as_i64(),
            format!(
                "key {:?} != {} sharps",
                it.score.key, m["key_signature_sharps"]
            ),
        );
        // The MIDI file plays the notation once through when no repeats were
        // expanded: one note-on per merged note, ending where our last note
        // ends (music21 writes the pickup at time 0, so undo our shift).
        if m["repeats"] == "none" {
            files_vs_midi += 1;
            check(
                pitches == int(m, "midi_notes"),
                format!(
                    "{pitches} notes after merging ties, MIDI has {}",
                    int(m, "midi_notes")
                ),
            );
            let end = it.score.end() - r.pickup_shift;
            check(
                end == quarters(m, "midi_duration_ql"),
                format!("last note ends at {end}, MIDI at {}", m["midi_duration_ql"]),
            );
        }
    }
    assert!(
        problems.is_empty(),
        "{} disagreements:\n{}",
        problems.len(),
        problems.join("\n")
    );
    eprintln!(
        "corpus: {} files, {pitches_total} pitches, {merged_total} ties merged, \
         {files_vs_midi} checked against MIDI, {warnings} warnings; final bar padded by the export: {padded:?}",
        items.len()
    );
}

#[test]
fn every_corpus_file_survives_write_then_read() {
    let Some(shared) = shared_dir("MusicXML corpus round trip") else {
        return;
    };
    let mut problems = Vec::new();
    for it in read_corpus(&shared) {
        let xml = match musicxml::write(&it.score) {
            Ok(xml) => xml,
            Err(e) => {
                problems.push(format!("{}: write failed: {e}", it.file));
                continue;
            }
        };
        match musicxml::read_with_report(&xml) {
            Ok((again, report)) => {
                if again != it.score {
                    problems.push(format!("{}: score changed after write + read", it.file));
                }
                if !report.warnings.is_empty() {
                    problems.push(format!(
                        "{}: re-reading warned: {:?}",
                        it.file, report.warnings
                    ));
                }
            }
            Err(e) => problems.push(format!(
                "{}: our output does not read back: {e}\n(source {})",
                it.file,
                it.xml_path.display()
            )),
        }
    }
    assert!(
        problems.is_empty(),
        "{} failures:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
