//! Three pieces written for the analyser (`fixtures/analysis/`, made by
//! `make_fixtures.py`), each analysed with the row inferred: a piano texture whose
//! row tones are partly grace notes (MusicXML), a two-voice mirror canon whose strands
//! interleave note by note and share notes (text grammar), and an orchestral score
//! whose transposing parts are written in their own keys (MusicXML). Every statement
//! must be found with its label and exactly its notes.

use cantus_music::format::read_path_with;
use cantus_music::{ReadOptions, time_text};
use cantus_twelve_tone::analysis::{Analysis, CanonRelation, NoteRole, Options, analyze};
use std::path::PathBuf;

const NAMES: [&str; 12] = [
    "C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B",
];

fn analysed(name: &str) -> (Analysis, Vec<String>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/analysis")
        .join(name);
    // As `cantus analyze` reads: grace notes kept.
    let options = ReadOptions {
        grace_notes: true,
        ..ReadOptions::default()
    };
    let loaded = read_path_with(&path, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
    let analysis = analyze(&loaded.score, &Options::default()).expect("analysable");
    (analysis, loaded.warnings)
}

/// Each statement as `LABEL: pos:NOTE@onset…` (`g` a grace note, `s` a note shared
/// with a statement sounding at the same time), in position order.
fn statements(a: &Analysis) -> Vec<String> {
    a.statements
        .iter()
        .map(|s| {
            let mut notes: Vec<_> = s
                .notes
                .iter()
                .filter(|n| {
                    matches!(
                        n.role,
                        NoteRole::Position | NoteRole::Elided | NoteRole::Shared
                    )
                })
                .collect();
            notes.sort_by_key(|n| n.position);
            let notes: Vec<String> = notes
                .iter()
                .map(|n| {
                    format!(
                        "{}:{}{}@{}{}{}",
                        n.position.unwrap_or(0),
                        NAMES[usize::from(n.pc)],
                        i32::from(n.midi) / 12 - 1,
                        time_text::format(n.onset),
                        if n.grace { "g" } else { "" },
                        if n.role == NoteRole::Shared { "s" } else { "" }
                    )
                })
                .collect();
            let labels: Vec<String> = s
                .labels
                .zero_centred
                .iter()
                .map(|l| l.to_string())
                .collect();
            format!("{}: {}", labels.join("="), notes.join(" "))
        })
        .collect()
}

fn assert_whole(a: &Analysis, name: &str, row: &str) {
    assert_eq!(a.row_name.as_deref(), Some(row), "{name}: {a}");
    assert_eq!(a.explained, a.notes, "{name}: every note is explained\n{a}");
    assert!(a.statements.iter().all(|s| s.complete), "{name}\n{a}");
}

#[test]
fn row_tones_written_as_grace_notes_are_positions_of_their_statements() {
    let (a, warnings) = analysed("piano_grace_notes.musicxml");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_whole(&a, "piano", "SchoenbergOp25");
    assert_eq!(
        statements(&a),
        [
            // The right hand's P4, positions 2, 6 and 10 slashed grace notes.
            "P4: 1:E5@0 2:F5@1g 3:G4@1 4:C#5@2 5:F#5@3 6:D#6@4g 7:G#5@4 8:D5@5 9:B4@6 10:C6@7g 11:A5@7 12:A#4@15/2",
            // The left hand's I9, ending on a grace chord (positions 11 and 12).
            "I9: 1:A3@2 2:G#2@5/2 3:F#3@3g 4:C3@3 5:G2@4 6:A#3@5 7:F2@6 8:B3@7g 9:D3@7 10:C#2@8 11:E3@10g 12:D#3@10g",
            // RI4 from the left hand to the right, positions 4 and 5 a grace pair.
            "RI4: 1:A#2@10 2:B3@11 3:G#5@12 4:A5@13g 5:F#5@13g 6:C4@13 7:F5@14 8:D4@14 9:G5@15 10:C#4@31/2 11:D#5@16 12:E4@17",
        ]
    );
    // Without the grace notes (as a command that skips them reads the file), no
    // statement is whole: the right hand's lacks (at least) its grace notes.
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/analysis/piano_grace_notes.musicxml");
    let skipped = read_path_with(&path, &ReadOptions::default())
        .unwrap()
        .score;
    let row = cantus_twelve_tone::row::resolve("SchoenbergOp25")
        .unwrap()
        .row;
    let without = analyze(
        &skipped,
        &Options {
            row: Some(row),
            ..Options::default()
        },
    )
    .unwrap();
    assert!(without.statements.iter().all(|s| !s.complete), "{without}");
    let p4 = &without.statements[0].missing;
    assert!([2, 6, 10].iter().all(|k| p4.contains(k)), "{without}");
}

#[test]
fn a_mirror_canon_interleaved_note_by_note_is_read_strand_by_strand() {
    let (a, warnings) = analysed("mirror_canon.txt");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_whole(&a, "mirror canon", "SchoenbergOp33A");
    assert_eq!(
        statements(&a),
        [
            "P10: 1:A#3@0 2:F5@1/2 3:C5@1 4:B3@3/2 5:A5@2 6:F#4@5/2 7:C#5@3 8:D#4@7/2 9:G4@4 10:G#5@9/2 11:D5@5 12:E4@11/2",
            // The follower shares the leader's last note: one E4 sounds both.
            "I8: 1:G#5@1/2 2:C#4@1 3:F#4@3/2 4:G5@2 5:A3@5/2 6:C5@3 7:F4@7/2 8:D#5@4 9:B4@9/2 10:A#3@5 11:E4@11/2s 12:D5@6",
            "P5: 1:F5@6 2:C5@13/2 3:G4@7 4:F#5@15/2 5:E4@8 6:C#5@17/2 7:G#4@9 8:A#4@19/2 9:D5@10 10:D#4@21/2 11:A5@11 12:B4@23/2",
            "I1: 1:C#4@13/2 2:F#4@7 3:B4@15/2 4:C4@8 5:D5@17/2 6:F4@9 7:A#4@19/2s 8:G#4@10 9:E4@21/2 10:D#5@11 11:A3@23/2 12:G4@12",
            "R10: 1:E5@12 2:D4@25/2 3:G#4@13 4:G5@27/2 5:D#5@14 6:C#4@29/2 7:F#4@15 8:A5@31/2 9:B4@16 10:C4@33/2 11:F5@17 12:A#4@35/2",
            "RI8: 1:D4@25/2s 2:E5@13 3:A#4@27/2 4:B3@14 5:D#4@29/2 6:F5@15 7:C5@31/2 8:A3@16 9:G4@33/2 10:F#5@17 11:C#4@35/2 12:G#4@18",
        ]
    );
    // Each leader and its mirror: a canon by inversion about A (index 6), an eighth
    // note (1/2 quarter) apart, all twelve positions keeping the delay.
    for (leader, follower) in [(1, 2), (3, 4), (5, 6)] {
        let c = a
            .canons
            .iter()
            .find(|c| (c.leader, c.follower) == (leader, follower))
            .unwrap_or_else(|| panic!("canon {leader}-{follower}\n{a}"));
        assert_eq!(c.relation, CanonRelation::Inversion);
        assert_eq!((c.interval, c.positions), (6, 12));
        assert_eq!(c.delay, cantus_music::time(1, 2));
        assert!(c.free_positions.is_empty());
    }
    assert!(
        a.to_string()
            .contains("follows statement 1 by inversion (index 6), 1/2 quarter notes later"),
        "{a}"
    );
}

#[test]
fn transposing_parts_in_their_own_keys_read_at_sounding_pitch_without_a_warning() {
    let (a, warnings) = analysed("orchestra_transposing.musicxml");
    assert!(
        warnings.is_empty(),
        "no key warning for parts in their own keys: {warnings:?}"
    );
    assert_whole(&a, "orchestra", "SchoenbergOp25");
    assert_eq!(
        statements(&a),
        [
            // One note per instrument, the clarinet, horn and trumpet at sounding pitch.
            "P4: 1:E5@0 2:F4@1 3:G4@2 4:C#5@3 5:F#3@4 6:D#2@5 7:G#5@6 8:D4@7 9:B4@8 10:C5@9 11:A3@10 12:A#2@11",
            "I0: 1:C2@12 2:B3@13 3:A2@14 4:D#3@15 5:A#2@16 6:C#3@17 7:G#2@18 8:D3@19 9:F2@20 10:E3@21 11:G2@22 12:F#3@23",
            // In dyads passed among the winds.
            "R7: 1:C#5@24 2:C4@24 3:D#4@26 4:D4@26 5:F4@28 6:B4@28 7:F#5@30 8:A5@30 9:E5@32 10:A#4@32 11:G#4@34 12:G4@34",
        ]
    );
    let voices = &a.statements[0].voices;
    assert_eq!(
        voices[..4],
        ["Flute", "Clarinet in Bb", "Horn in F", "Trumpet in D"]
    );
}
