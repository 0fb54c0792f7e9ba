//! The MEI reader on hand-written MEI 4 and 5 fixtures (see `fixtures/README.md`),
//! its round trip to the text grammar, and malformed MEI located by line.

use cantus_music::format::{self, Format, ReadOptions};
use cantus_music::mei::{self, MeiError};
use cantus_music::{PitchLevel, Time, time};
use std::path::{Path, PathBuf};

mod musicxml_common;
use musicxml_common::timed_events as events;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mei")
        .join(name)
}

fn t(n: i64) -> Time {
    Time::from_integer(n)
}

#[test]
fn an_mei_grace_note_asked_for_is_an_event_without_time_at_its_note() {
    let opts = ReadOptions {
        grace_notes: true,
        ..ReadOptions::default()
    };
    let loaded = format::read_path_with(&fixture("serial-duet.mei"), &opts).expect("reads");
    let clarinet = &loaded.score.voices[0];
    let graces: Vec<_> = clarinet.events.iter().filter(|e| e.is_grace()).collect();
    assert_eq!(graces.len(), 1);
    // Written B5 sounds A5 on the B♭ clarinet, at the onset of the C6 (B♭5) it leads to.
    assert_eq!(
        (
            graces[0].onset,
            graces[0].duration,
            graces[0].pitches[0].midi
        ),
        (t(4), t(0), 81)
    );
    assert_eq!(
        graces[0].grace,
        Some(cantus_music::Grace::Appoggiatura),
        "grace=\"acc\""
    );
    let k = clarinet.events.iter().position(|e| e.is_grace()).unwrap();
    assert_eq!(
        clarinet.events[k + 1].pitches[0].midi,
        82,
        "then the note itself"
    );
    assert!(!loaded.warnings.iter().any(|w| w.contains("grace")));
}

#[test]
fn an_mei_5_score_reads_with_pickup_transposition_tuplets_ties_and_accidentals() {
    let loaded = format::read_path(&fixture("serial-duet.mei"), false).expect("reads");
    assert_eq!(loaded.format, Format::Mei);
    let s = &loaded.score;
    assert_eq!(s.title.as_deref(), Some("Row duet"));
    assert_eq!((s.meter.num, s.meter.den), (3, 4));
    assert_eq!(s.tempo, Some(t(60)));
    assert_eq!(s.key.map(|k| k.fifths()), Some(-1));
    let names: Vec<&str> = s.voices.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, vec!["Clarinet in B♭", "Cello"]);
    // The pickup quarter is shifted so it ends a full first bar (as MusicXML pickups are).
    assert_eq!(
        events(s, 0),
        vec![
            (t(2), t(1), vec![74]),              // written E5 sounds D5
            (t(3), time(1, 3), vec![76]),        // triplet: written F♯5 → E5
            (time(10, 3), time(1, 3), vec![77]), // G5 → F5
            (time(11, 3), time(1, 3), vec![79]), // A5 → G5
            (t(4), t(3), vec![82]), // C6 → B♭5 (after the grace B5, skipped), tied over the barline by @tie
            (t(8), t(1), vec![76]), // F5, sharp from the written key → E5
        ]
    );
    let b_flat = s.voices[0].events[4].pitches[0].spelling.expect("spelled");
    assert_eq!((b_flat.letter, b_flat.alter), (cantus_music::Letter::B, -1));
    assert_eq!(
        events(s, 1),
        vec![
            (t(3), t(1), vec![48, 51]), // chord C3 E♭3
            (t(4), t(1), vec![51]),     // E3 keeps the flat written earlier in the measure
            (t(5), t(2), vec![55]),     // G3 tied by <tie startid endid> into the next measure
            (t(7), t(2), vec![46]),     // B2 flat from the score's key signature
        ]
    );
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w
                == "1 grace note skipped (they take no notated time; kept when grace notes are asked for)"),
        "{:?}",
        loaded.warnings
    );

    let written = format::read_path_with(
        &fixture("serial-duet.mei"),
        &ReadOptions {
            pitch: PitchLevel::Written,
            ..ReadOptions::default()
        },
    )
    .expect("reads");
    assert_eq!(
        events(&written.score, 0)[0],
        (t(2), t(1), vec![76]),
        "written E5"
    );
}

#[test]
fn an_mei_4_score_reads_attributes_beams_tremolos_and_readings() {
    let (s, warnings) =
        mei::read(&std::fs::read_to_string(fixture("mei4-attributes.mei")).expect("fixture"))
            .expect("reads");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!((s.meter.num, s.meter.den), (2, 4));
    assert_eq!(s.voices[0].name, "Horn in F");
    assert_eq!(
        events(&s, 0),
        vec![
            (t(0), time(1, 2), vec![65]),
            (time(1, 2), time(1, 2), vec![67]),
            (t(1), t(2), vec![69, 72]), // a tied chord, a fifth below as written
        ]
    );
    assert_eq!(
        events(&s, 1),
        vec![(t(0), t(2), vec![69]), (t(2), t(2), vec![71])],
        "the lemma"
    );
    assert_eq!(s.bars, Some(3), "the empty third measure is kept");
}

#[test]
fn mei_round_trips_through_the_text_grammar() {
    for name in ["serial-duet.mei", "mei4-attributes.mei"] {
        let loaded = format::read_path(&fixture(name), false).expect("reads");
        let text = format::render(&loaded.score, Format::Grammar).expect("writes the grammar");
        let back = cantus_music::grammar::parse(
            std::str::from_utf8(&text).expect("UTF-8"),
            &Default::default(),
        )
        .expect("reads back strictly")
        .score;
        let mut expected = loaded.score.clone();
        expected.title = None; // the grammar has no title
        expected.bars = Some(expected.bar_count());
        assert_eq!(back, expected, "{name}");
    }
}

fn invalid(xml: &str) -> (usize, String) {
    match mei::read(xml) {
        Err(MeiError::Invalid { line, message, .. }) | Err(MeiError::Xml { line, message, .. }) => {
            (line, message)
        }
        Ok(_) => panic!("expected an error for\n{xml}"),
    }
}

#[test]
fn malformed_mei_is_located_by_line() {
    let doc = |body: &str| {
        format!(
            "<mei>\n<music><body><mdiv><score>\n<scoreDef meter.count=\"4\" meter.unit=\"4\"/>\n<section><measure>\n<staff n=\"1\"><layer>\n{body}\n</layer></staff>\n</measure></section></score></mdiv></body></music></mei>\n"
        )
    };
    let (line, message) = invalid(&doc("<note pname=\"h\" oct=\"4\" dur=\"4\"/>"));
    assert_eq!(line, 6);
    assert!(message.contains("@pname"), "{message}");
    let (line, message) = invalid(&doc("<note pname=\"c\" oct=\"4\"/>"));
    assert_eq!(line, 6);
    assert!(message.contains("@dur"), "{message}");
    let (line, message) = invalid(&doc("<note pname=\"c\" oct=\"4\" dur=\"3\"/>"));
    assert_eq!(line, 6);
    assert!(message.contains("@dur \"3\""), "{message}");
    let (line, _) = invalid(&doc("<note pname=\"c\" oct=\"4\" dur=\"4\">"));
    assert!(
        line >= 6,
        "an unclosed element is a malformed-XML error with its line"
    );
    let (line, message) = invalid("<score-partwise/>");
    assert_eq!(line, 1);
    assert!(message.contains("<mei>"), "{message}");
    // Through the format layer the error names the file and the line.
    let dir = std::env::temp_dir().join(format!("cantus-mei-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("bad.mei");
    std::fs::write(&path, doc("<note pname=\"c\" oct=\"x\" dur=\"4\"/>")).expect("write");
    let err = format::read_path(&path, false)
        .expect_err("bad octave")
        .to_string();
    assert!(
        err.contains("bad.mei: line 6, column 1: <note>: @oct"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_transposition_written_as_a_decimal_whole_number_is_read() {
    // Verovio and music21 write `trans.semi="-2.000000"`; a fraction is still refused.
    let doc = |semi: &str| {
        format!(
            "<mei>\n<music><body><mdiv><score>\n<scoreDef meter.count=\"4\" meter.unit=\"4\"><staffGrp><staffDef n=\"1\" lines=\"5\" trans.semi=\"{semi}\"/></staffGrp></scoreDef>\n<section><measure>\n<staff n=\"1\"><layer>\n<note pname=\"e\" oct=\"5\" dur=\"1\"/>\n</layer></staff>\n</measure></section></score></mdiv></body></music></mei>\n"
        )
    };
    let (score, _) = mei::read(&doc("-2.000000")).expect("a decimal whole number reads");
    assert_eq!(events(&score, 0), vec![(t(0), t(4), vec![74])]);
    let (line, message) = invalid(&doc("-2.5"));
    assert_eq!(line, 3);
    assert!(message.contains("@trans.semi"), "{message}");
}

#[test]
fn each_staff_keeps_its_own_key_and_transposing_staves_raise_no_warning() {
    // An orchestral score written without key signatures, as Webern's Op. 21
    // encoding is: at sounding pitch the clarinet's and the horn's signatures differ
    // from the strings' by their transposition. Only the viola changing its own key
    // in bar 2 is a change the model cannot hold.
    let staff = |n: u32, label: &str, extra: &str| {
        format!("<staffDef n=\"{n}\" lines=\"5\" label=\"{label}\" key.sig=\"0\"{extra}/>")
    };
    let defs = [
        staff(1, "Clarinet in Bb", " trans.semi=\"-2\" trans.diat=\"-1\""),
        staff(2, "Horn in F", " trans.semi=\"-7\" trans.diat=\"-4\""),
        staff(3, "Violin", ""),
        staff(4, "Viola", ""),
    ]
    .join("");
    let bar = |_: u32| {
        (1..=4)
            .map(|s| format!("<staff n=\"{s}\"><layer><note pname=\"c\" oct=\"5\" dur=\"1\"/></layer></staff>"))
            .collect::<String>()
    };
    let xml = format!(
        "<mei><music><body><mdiv><score><scoreDef meter.count=\"4\" meter.unit=\"4\"><staffGrp>{defs}</staffGrp></scoreDef>\
         <section><measure n=\"1\">{}</measure>\
         <scoreDef><staffGrp><staffDef n=\"4\" key.sig=\"2f\"/></staffGrp></scoreDef>\
         <measure n=\"2\">{}</measure></section></score></mdiv></body></music></mei>",
        bar(1),
        bar(2)
    );
    let (score, warnings) = mei::read_with(&xml, &ReadOptions::default()).expect("reads");
    let fifths: Vec<Option<i32>> = score
        .voices
        .iter()
        .map(|v| score.part_key(v).map(|k| k.fifths()))
        .collect();
    assert_eq!(fifths, vec![Some(-2), Some(-1), Some(0), Some(0)]);
    // The score's key is the first staff's, which thus has none of its own.
    assert_eq!(score.key.map(|k| k.fifths()), Some(-2));
    assert_eq!(score.voices[0].key, None);
    let keys: Vec<&String> = warnings.iter().filter(|w| w.contains("key")).collect();
    assert_eq!(keys.len(), 1, "{warnings:?}");
    assert!(
        keys[0]
            .ends_with("staff 4: key change to -2 fifths ignored; the staff keeps its first key"),
        "{keys:?}"
    );
}
