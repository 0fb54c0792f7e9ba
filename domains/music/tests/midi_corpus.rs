//! Reads every MIDI file of the shared reference corpus (music21 exports: Bach
//! chorales, O'Neill folk tunes, atonal pieces) and checks what we read against
//! the facts the corpus manifest records for each file.

use cantus_music::midi::{self, MidiWarning};
use cantus_music::{Meter, Time};
use serde_json::Value;
use std::path::PathBuf;

const SETS: [&str; 3] = ["bach_chorales", "folk_oneills1850", "atonal"];

/// The shared data directory: `$CANTUS_SHARED`, else `<workspace>/../shared`.
fn shared_dir() -> PathBuf {
    match std::env::var_os("CANTUS_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    }
}

/// `Some(dir)` when the shared data is there; otherwise skips (or fails under
/// `CANTUS_REQUIRE_SHARED=1`).
fn shared_or_skip(what: &str) -> Option<PathBuf> {
    let dir = shared_dir();
    if dir.join("data/corpus").is_dir() {
        return Some(dir);
    }
    let message = format!(
        "SKIPPED: {what} (shared data not found at {}; set CANTUS_SHARED)",
        dir.display()
    );
    if std::env::var("CANTUS_REQUIRE_SHARED").as_deref() == Ok("1") {
        panic!("{message}");
    }
    eprintln!("{message}");
    None
}

#[test]
fn every_corpus_midi_file_reads_with_the_manifest_note_count() {
    let Some(shared) = shared_or_skip("MIDI corpus check") else {
        return;
    };
    let mut files = 0;
    let mut total_notes = 0usize;
    let mut problems = Vec::new();
    for set in SETS {
        let dir = shared.join("data/corpus").join(set);
        let manifest_text = std::fs::read_to_string(dir.join("manifest.json"))
            .unwrap_or_else(|e| panic!("{set}/manifest.json: {e}"));
        let manifest: Value = serde_json::from_str(&manifest_text)
            .unwrap_or_else(|e| panic!("{set}/manifest.json: {e}"));
        let items = manifest["items"].as_array().expect("manifest has items");
        for item in items {
            let file = item["file"].as_str().expect("item has a file");
            let name = format!("{set}/{file}");
            let bytes = std::fs::read(dir.join(file)).unwrap_or_else(|e| panic!("{name}: {e}"));
            files += 1;
            let (score, warnings) = match midi::read_with_warnings(&bytes) {
                Ok(read) => read,
                Err(e) => {
                    problems.push(format!("{name}: {e}"));
                    continue;
                }
            };
            let notes: usize = score
                .voices
                .iter()
                .flat_map(|v| &v.events)
                .map(|e| e.pitches.len())
                .sum();
            total_notes += notes;
            let expected = item["midi_notes"].as_u64().expect("midi_notes");
            if notes as u64 != expected {
                problems.push(format!(
                    "{name}: read {notes} notes, manifest says {expected}"
                ));
            }
            let tracks = item["midi_tracks"].as_u64().expect("midi_tracks");
            if score.voices.len() as u64 != tracks - 1 {
                problems.push(format!(
                    "{name}: {} voices from {tracks} tracks (one is the conductor)",
                    score.voices.len()
                ));
            }
            let meter = item["time_signature"]
                .as_str()
                .and_then(|m| m.parse::<Meter>().ok());
            if meter != Some(score.meter) {
                problems.push(format!(
                    "{name}: meter {} vs manifest {meter:?}",
                    score.meter
                ));
            }
            let sharps = item["key_signature_sharps"].as_i64();
            let fifths = score.key.map(|k| i64::from(k.fifths()));
            if fifths.unwrap_or(0) != sharps.unwrap_or(0) {
                problems.push(format!(
                    "{name}: key {fifths:?} fifths vs manifest {sharps:?}"
                ));
            }
            // The manifest's length is a float of quarter notes; compare in ticks of
            // the file's own resolution (10080 per quarter, exact for the corpus).
            let ppq = item["midi_ticks_per_quarter"].as_i64().expect("ppq");
            let manifest_end = item["midi_duration_ql"].as_f64().expect("midi_duration_ql");
            let end_ticks = score.end() * Time::from_integer(ppq);
            if !end_ticks.is_integer()
                || end_ticks.to_integer() != (manifest_end * ppq as f64).round() as i64
            {
                problems.push(format!(
                    "{name}: last note ends at {} quarters, manifest says {manifest_end}",
                    score.end()
                ));
            }
            let note_warnings: Vec<&MidiWarning> = warnings
                .iter()
                .filter(|w| !matches!(w, MidiWarning::IgnoredChange { .. }))
                .collect();
            let unpaired = item["midi_unpaired_events"].as_u64().unwrap_or(0)
                + item["midi_zero_length_notes"].as_u64().unwrap_or(0);
            if note_warnings.len() as u64 != unpaired {
                problems.push(format!(
                    "{name}: note warnings {note_warnings:?}, manifest counts {unpaired}"
                ));
            }
        }
    }
    assert_eq!(files, 253, "the corpus has 253 MIDI files");
    assert!(
        problems.is_empty(),
        "{} of {files} files disagree with the manifest:\n{}",
        problems.len(),
        problems.join("\n")
    );
    eprintln!("read {files} corpus files, {total_notes} notes");
}

#[test]
fn chorale_voices_carry_the_part_names_and_exact_triplet_free_times() {
    let Some(shared) = shared_or_skip("chorale voice names") else {
        return;
    };
    let path = shared.join("data/corpus/bach_chorales/r001_bwv269.mid");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let score = midi::read(&bytes).expect("chorale reads");
    let names: Vec<&str> = score.voices.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["Soprano", "Alto", "Tenor", "Bass"]);
    assert_eq!(score.meter, Meter::new(3, 4));
    // Chorale rhythms are binary: every onset is a whole number of 16ths.
    for voice in &score.voices {
        for event in &voice.events {
            assert!(
                (event.onset * Time::from_integer(4)).is_integer(),
                "{event:?}"
            );
        }
    }
}
