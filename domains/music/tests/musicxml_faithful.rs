//! Issue 14's reader fixes, one fixture each (see `fixtures/README.md`):
//! transposing parts, grace notes, files without `<divisions>`, part names the
//! grammar cannot carry, bars off the grammar's usual grids; and well-formed
//! XML only (issue 17, item 9).

use cantus_music::format::{self, Format, ReadOptions};
use cantus_music::musicxml::{self, MusicXmlError};
use cantus_music::{Grace, Letter, PitchLevel, Spelling, Time, time};
use std::path::{Path, PathBuf};

mod musicxml_common;
use musicxml_common::timed_events as events;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/musicxml")
        .join(name)
}

fn read(name: &str, opts: &ReadOptions) -> format::Loaded {
    format::read_path_with(&fixture(name), opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn t(n: i64) -> Time {
    Time::from_integer(n)
}

#[test]
fn transposing_parts_sound_at_concert_pitch_unless_written_pitch_is_asked_for() {
    let sounding = read("transposing.musicxml", &ReadOptions::default()).score;
    // Every part sounds C major's tonic triad.
    assert_eq!(
        events(&sounding, 0),
        vec![
            (t(0), t(1), vec![72]),
            (t(1), t(1), vec![76]),
            (t(2), t(1), vec![79])
        ],
        "B♭ clarinet: written D F♯ A sound C E G"
    );
    let spelled: Vec<Spelling> = sounding.voices[0]
        .events
        .iter()
        .map(|e| e.pitches[0].spelling.expect("spelled"))
        .collect();
    let natural = |letter| Spelling { letter, alter: 0 };
    assert_eq!(
        spelled,
        vec![natural(Letter::C), natural(Letter::E), natural(Letter::G)]
    );
    assert_eq!(
        events(&sounding, 1),
        vec![
            (t(0), t(1), vec![60]),
            (t(1), t(1), vec![64]),
            (t(2), t(1), vec![67])
        ],
        "horn in F: a fifth down, its steps inferred from the semitones"
    );
    assert_eq!(
        events(&sounding, 2),
        vec![(t(0), t(3), vec![60])],
        "tenor sax: a ninth down"
    );
    assert_eq!(
        sounding.key.map(|k| k.fifths()),
        Some(0),
        "D major written is C major sounding"
    );

    let written = read(
        "transposing.musicxml",
        &ReadOptions {
            pitch: PitchLevel::Written,
            ..ReadOptions::default()
        },
    )
    .score;
    assert_eq!(
        events(&written, 0),
        vec![
            (t(0), t(1), vec![74]),
            (t(1), t(1), vec![78]),
            (t(2), t(1), vec![81])
        ]
    );
    assert_eq!(written.key.map(|k| k.fifths()), Some(2));
}

#[test]
fn grace_notes_are_skipped_and_the_user_is_told_how_many() {
    let loaded = read("grace-notes.musicxml", &ReadOptions::default());
    assert_eq!(
        events(&loaded.score, 0),
        vec![
            (t(0), t(1), vec![72]),
            (t(1), t(1), vec![76]),
            (t(2), t(2), vec![79])
        ],
        "grace notes take no time"
    );
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w
                == "4 grace notes skipped (they take no notated time; kept when grace notes are asked for)"),
        "{:?}",
        loaded.warnings
    );
}

#[test]
fn grace_notes_asked_for_are_events_without_time_before_their_note() {
    let opts = ReadOptions {
        grace_notes: true,
        ..ReadOptions::default()
    };
    let loaded = read("grace-notes.musicxml", &opts);
    let voice = &loaded.score.voices[0];
    let seen: Vec<(Time, Time, Vec<u8>, Option<Grace>)> = voice
        .events
        .iter()
        .map(|e| {
            let midi = e.pitches.iter().map(|p| p.midi).collect();
            (e.onset, e.duration, midi, e.grace)
        })
        .collect();
    let (acc, app) = (Some(Grace::Acciaccatura), Some(Grace::Appoggiatura));
    assert_eq!(
        seen,
        vec![
            (t(0), t(0), vec![74], acc), // slashed D5 before C5
            (t(0), t(1), vec![72], None),
            (t(1), t(0), vec![77, 81], app), // the grace chord F5+A5 is one event
            (t(1), t(1), vec![76], None),
            (t(2), t(0), vec![79], app), // grace G5, not tied into the G5 it leads to
            (t(2), t(2), vec![79], None),
        ]
    );
    assert!(
        !loaded.warnings.iter().any(|w| w.contains("grace")),
        "{:?}",
        loaded.warnings
    );
}

#[test]
fn a_file_without_divisions_is_timed_by_its_note_types() {
    let loaded = read("no-divisions.musicxml", &ReadOptions::default());
    assert_eq!(
        events(&loaded.score, 0),
        vec![
            (t(0), t(1), vec![76]),
            (t(1), time(1, 2), vec![74]),
            (time(3, 2), time(1, 2), vec![72]),
            (t(3), t(1), vec![67]),
        ]
    );
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("no <divisions> before the first note: 4 per quarter")),
        "{:?}",
        loaded.warnings
    );
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("timed by its <type>"))
    );
}

#[test]
fn part_names_fall_back_to_the_id_and_convert_to_the_grammar_with_warnings() {
    let loaded = read("part-names.musicxml", &ReadOptions::default());
    let names: Vec<&str> = loaded
        .score
        .voices
        .iter()
        .map(|v| v.name.as_str())
        .collect();
    assert_eq!(
        names,
        vec![
            "P1",
            "Violin",
            "Violin",
            "  Viola  ",
            "Cello, Bass: tutti",
            "Piano\nright hand"
        ],
        "an empty name becomes the part id; others are kept as written"
    );
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("empty <part-name>"))
    );
    // Exact writing refuses; converting renames, one warning per voice renamed.
    assert!(format::render(&loaded.score, Format::Grammar).is_err());
    let dir = std::env::temp_dir().join(format!("cantus-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join("names.txt");
    let renamed = format::write_path(&out, &loaded.score).expect("convert never refuses names");
    assert_eq!(renamed.len(), 4, "{renamed:?}");
    let back = format::read_path(&out, false).expect("the grammar text reads strictly");
    let names: Vec<&str> = back.score.voices.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "P1",
            "Violin",
            "Violin #2",
            "Viola",
            "Cello Bass tutti",
            "Piano right hand"
        ]
    );
    assert_eq!(back.score.event_count(), 6, "no note lost");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bars_of_128ths_and_tuplets_convert_to_the_grammar_exactly() {
    let loaded = read("tuplets-and-128ths.musicxml", &ReadOptions::default());
    let text = String::from_utf8(
        format::render(&loaded.score, Format::Grammar).expect("a grid per bar holds them"),
    )
    .expect("UTF-8");
    // Each bar has its own grid; the header takes the smallest of the three
    // (each is used once), so bar 2 needs no override.
    for grid in [
        "GRID: 20th",
        "@1 [-] (grid:128)",
        "@2 [-]\n",
        "@3 [-] (grid:28)",
    ] {
        assert!(text.contains(grid), "{grid}:\n{text}");
    }
    let back = cantus_music::grammar::parse(&text, &Default::default()).expect("reads back");
    for (a, b) in back.score.voices[0]
        .events
        .iter()
        .zip(&loaded.score.voices[0].events)
    {
        assert_eq!(
            (a.onset, a.duration, &a.pitches),
            (b.onset, b.duration, &b.pitches)
        );
    }
    assert_eq!(back.score.event_count(), loaded.score.event_count());
}

fn xml_error(xml: &str) -> (usize, usize, String) {
    match musicxml::read(xml) {
        Err(MusicXmlError::Xml {
            line,
            column,
            message,
        }) => (line, column, message),
        other => panic!("expected a malformed-XML error, got {other:?}"),
    }
}

const SMALL: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<score-partwise>\n<part-list><score-part id=\"P1\"><part-name>V</part-name></score-part></part-list>\n<part id=\"P1\"><measure number=\"1\"><attributes><divisions>1</divisions></attributes><note><pitch><step>C</step><octave>4</octave></pitch><duration>4</duration></note></measure></part>\n</score-partwise>\n";

#[test]
fn only_well_formed_xml_is_read() {
    assert!(musicxml::read(SMALL).is_ok());
    // A NUL byte between elements (issue 17, item 9).
    let nul = SMALL.replace("<part id", "\0<part id");
    let (line, column, message) = xml_error(&nul);
    assert_eq!((line, column), (4, 1));
    assert!(message.contains("U+0000"), "{message}");
    // A control character as a character reference.
    let (_, _, message) = xml_error(&SMALL.replace(">V<", ">V&#1;<"));
    assert!(message.contains("U+0001"), "{message}");
    // A UTF-16 declaration on UTF-8 bytes.
    let (line, _, message) = xml_error(&SMALL.replace("UTF-8", "UTF-16"));
    assert_eq!(line, 1);
    assert!(message.contains("encoding=\"utf-16\""), "{message}");
    // Pure ASCII declared as Latin-1 reads the same, so it is accepted.
    assert!(musicxml::read(&SMALL.replace("UTF-8", "ISO-8859-1")).is_ok());
}

#[test]
fn the_writer_never_writes_what_xml_cannot_hold() {
    let mut score = musicxml::read(SMALL).expect("reads");
    score.voices[0].name = "Vio\u{1}la".into();
    let err = musicxml::write(&score).expect_err("a control character in a name");
    assert!(err.to_string().contains("U+0001"), "{err}");
    // Converting drops the character, says so, and writes a file that reads back.
    let rendered = format::render_converting(&score, Format::MusicXml).expect("converts");
    assert_eq!(rendered.warnings.len(), 1, "{:?}", rendered.warnings);
    let back =
        musicxml::read(std::str::from_utf8(&rendered.bytes).expect("UTF-8")).expect("well-formed");
    assert_eq!(back.voices[0].name, "Viola");
}

#[test]
fn invalid_utf8_is_located_by_line_and_byte_offset() {
    let dir = std::env::temp_dir().join(format!("cantus-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut bytes = SMALL.as_bytes().to_vec();
    let at = SMALL.find(">V<").expect("name") + 1;
    bytes[at] = 0xFF;
    for (name, content) in [
        ("bad.musicxml", bytes.clone()),
        (
            "bad.txt",
            b"KEY: ? | METER: 4/4 | GRID: 16th\nVOICES: A\xFF\n".to_vec(),
        ),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, &content).expect("write");
        let err = format::read_path(&path, false).expect_err("not UTF-8");
        let text = err.to_string();
        let offset = content.iter().position(|&b| b == 0xFF).expect("bad byte");
        let line = 1 + content[..offset].iter().filter(|&&b| b == b'\n').count();
        assert!(
            text.contains(&format!("line {line}, byte offset {offset}")) && text.contains(name),
            "{text}"
        );
    }
    let err = musicxml::read_file(&dir.join("bad.musicxml")).expect_err("not UTF-8");
    assert!(
        err.to_string().contains(&format!("byte offset {at}")),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
