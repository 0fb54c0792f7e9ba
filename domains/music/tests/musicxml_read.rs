//! Reading hand-written MusicXML: the situations real files contain (pickups,
//! divisions changes, backup/forward, several voices and staves, partial ties,
//! grace and percussion notes, meter and key changes) and the errors bad files
//! must get, with their line and column.

use cantus_music::musicxml::{self, MusicXmlError};
use cantus_music::{Letter, Meter, Mode, Pitch, Score, Spelling, Time, time};

/// A score-partwise document with one part per `(name, measures)` pair.
fn doc(parts: &[(&str, &str)]) -> String {
    let mut out = String::from("<?xml version=\"1.0\"?>\n<score-partwise version=\"4.0\">\n");
    out.push_str("<part-list>\n");
    for (i, (name, _)) in parts.iter().enumerate() {
        out.push_str(&format!(
            "<score-part id=\"P{}\"><part-name>{name}</part-name></score-part>\n",
            i + 1
        ));
    }
    out.push_str("</part-list>\n");
    for (i, (_, measures)) in parts.iter().enumerate() {
        out.push_str(&format!("<part id=\"P{}\">\n{measures}\n</part>\n", i + 1));
    }
    out.push_str("</score-partwise>\n");
    out
}

/// A `<note>` with a pitch like `C4`, `F#3`, `Bb2` and a duration in divisions.
fn note(pitch: &str, duration: u32, extra: &str) -> String {
    let (step, rest) = pitch.split_at(1);
    let (alter, octave) = match rest.chars().next() {
        Some('#') => (1, &rest[1..]),
        Some('b') => (-1, &rest[1..]),
        _ => (0, rest),
    };
    format!(
        "<note><pitch><step>{step}</step><alter>{alter}</alter><octave>{octave}</octave></pitch>\
         <duration>{duration}</duration>{extra}</note>\n"
    )
}

fn rest(duration: u32) -> String {
    format!("<note><rest/><duration>{duration}</duration></note>\n")
}

const ATTRS_44: &str = "<attributes><divisions>1</divisions><time><beats>4</beats>\
                        <beat-type>4</beat-type></time></attributes>";

/// `(onset, duration, [midi...])` of every event of voice `v`.
fn events(score: &Score, v: usize) -> Vec<(Time, Time, Vec<u8>)> {
    score.voices[v]
        .events
        .iter()
        .map(|e| {
            (
                e.onset,
                e.duration,
                e.pitches.iter().map(|p| p.midi).collect(),
            )
        })
        .collect()
}

fn t(n: i64) -> Time {
    Time::from_integer(n)
}

#[test]
fn a_pickup_is_shifted_so_it_ends_a_full_first_bar() {
    let attrs = "<attributes><divisions>2</divisions><time><beats>3</beats>\
                 <beat-type>4</beat-type></time></attributes>";
    let m0 = format!(
        "<measure number=\"0\" implicit=\"yes\">{attrs}{}</measure>",
        note("G4", 2, "")
    );
    let m1 = format!(
        "<measure number=\"1\">{}{}</measure>",
        note("C5", 4, ""),
        note("B4", 2, "")
    );
    let m2 = format!("<measure number=\"2\">{}</measure>", note("C5", 4, ""));
    let (score, report) =
        musicxml::read_with_report(&doc(&[("Soprano", &format!("{m0}{m1}{m2}"))])).expect("reads");
    assert_eq!(score.meter, Meter::new(3, 4));
    assert_eq!(report.pickup_shift, t(2));
    assert_eq!(report.notated_length, t(6), "1 + 3 + 2 quarters as notated");
    assert_eq!(
        events(&score, 0),
        vec![
            (t(2), t(1), vec![67]),
            (t(3), t(2), vec![72]),
            (t(5), t(1), vec![71]),
            (t(6), t(2), vec![72]),
        ]
    );
    assert_eq!(score.voices[0].name, "Soprano");
    assert_eq!(
        score.bars, None,
        "the notes reach the third bar, as many as are notated"
    );
}

#[test]
fn divisions_may_change_between_measures() {
    let m1 = format!(
        "<measure number=\"1\">{ATTRS_44}{}</measure>",
        note("C4", 4, "")
    );
    let triplets: String = (0..12).map(|_| note("D4", 2, "")).collect();
    let m2 = format!(
        "<measure number=\"2\"><attributes><divisions>6</divisions></attributes>{triplets}</measure>"
    );
    let score = musicxml::read(&doc(&[("V", &format!("{m1}{m2}"))])).expect("reads");
    let ev = events(&score, 0);
    assert_eq!(ev.len(), 13);
    assert_eq!(ev[0], (t(0), t(4), vec![60]));
    assert_eq!(ev[1], (t(4), time(1, 3), vec![62]));
    assert_eq!(
        ev[12].0,
        time(4 * 3 + 11, 3),
        "the last triplet starts at 4 + 11/3"
    );
}

#[test]
fn backup_and_forward_make_overlapping_voices_in_one_part() {
    let m1 = format!(
        "<measure number=\"1\">{ATTRS_44}{}<backup><duration>4</duration></backup>\
         <forward><duration>1</duration></forward>{}{}</measure>",
        note("E5", 4, "<voice>1</voice>"),
        note("C4", 1, "<voice>2</voice>"),
        note("D4", 2, "<voice>2</voice>"),
    );
    let m2 = format!("<measure number=\"2\">{}</measure>", note("F5", 4, ""));
    let score = musicxml::read(&doc(&[("Piano", &format!("{m1}{m2}"))])).expect("reads");
    assert_eq!(
        events(&score, 0),
        vec![
            (t(0), t(4), vec![76]),
            (t(1), t(1), vec![60]),
            (t(2), t(2), vec![62]),
            (t(4), t(4), vec![77]),
        ]
    );
}

#[test]
fn a_partly_tied_chord_splits_into_the_held_and_the_released_pitches() {
    let m1 = format!(
        "<measure number=\"1\">{ATTRS_44}{}{}{}{}</measure>",
        rest(3),
        note("C4", 1, "<tie type=\"start\"/>"),
        note("E4", 1, "<chord/>"),
        note("G4", 1, "<chord/>"),
    );
    let m2 = format!(
        "<measure number=\"2\">{}{}</measure>",
        note("C4", 2, "<notations><tied type=\"stop\"/></notations>"),
        rest(2)
    );
    let (score, report) =
        musicxml::read_with_report(&doc(&[("V", &format!("{m1}{m2}"))])).expect("reads");
    assert_eq!(
        events(&score, 0),
        vec![(t(3), t(1), vec![64, 67]), (t(3), t(3), vec![60])]
    );
    assert_eq!(
        report.ties_merged, 1,
        "a <tied> notation alone counts as a tie"
    );
}

#[test]
fn tie_chains_merge_and_a_stray_tie_stop_is_kept_and_reported() {
    let m1 = format!(
        "<measure number=\"1\">{ATTRS_44}{}{}</measure>",
        rest(2),
        note("A4", 2, "<tie type=\"start\"/>")
    );
    let m2 = format!(
        "<measure number=\"2\">{}</measure>",
        note("A4", 4, "<tie type=\"stop\"/><tie type=\"start\"/>"),
    );
    let m3 = format!(
        "<measure number=\"3\">{}{}{}</measure>",
        note("A4", 1, "<tie type=\"stop\"/>"),
        note("B4", 1, "<tie type=\"stop\"/>"),
        rest(2)
    );
    let (score, report) =
        musicxml::read_with_report(&doc(&[("V", &format!("{m1}{m2}{m3}"))])).expect("reads");
    assert_eq!(
        events(&score, 0),
        vec![(t(2), t(7), vec![69]), (t(9), t(1), vec![71])]
    );
    assert_eq!((report.ties_merged, report.ties_unmatched), (2, 1));
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("tie stop with no same-pitch note")),
        "{:?}",
        report.warnings
    );
}

#[test]
fn grace_and_unpitched_notes_are_skipped_and_counted() {
    let grace = "<note><grace/><pitch><step>D</step><octave>5</octave></pitch></note>\
                 <note><grace/><chord/><pitch><step>F</step><octave>5</octave></pitch></note>";
    let drum = "<note><unpitched><display-step>E</display-step><display-octave>4</display-octave>\
                </unpitched><duration>1</duration></note>";
    let m1 = format!(
        "<measure number=\"1\">{ATTRS_44}{grace}{}{drum}{}</measure>",
        note("C5", 1, ""),
        note("C5", 2, "")
    );
    let (score, report) = musicxml::read_with_report(&doc(&[("V", &m1)])).expect("reads");
    assert_eq!(
        events(&score, 0),
        vec![(t(0), t(1), vec![72]), (t(2), t(2), vec![72])],
        "grace notes take no time, unpitched notes take theirs"
    );
    assert_eq!(
        (report.grace_notes_skipped, report.unpitched_skipped),
        (2, 1)
    );
}

#[test]
fn a_part_on_two_staves_becomes_two_voices() {
    let attrs = "<attributes><divisions>1</divisions><time><beats>2</beats><beat-type>4</beat-type>\
                 </time><staves>2</staves></attributes>";
    let m1 = format!(
        "<measure number=\"1\">{attrs}{}<backup><duration>2</duration></backup>{}</measure>",
        note("E5", 2, "<staff>1</staff>"),
        note("C3", 2, "<staff>2</staff>")
    );
    let score = musicxml::read(&doc(&[("Piano", &m1)])).expect("reads");
    let names: Vec<&str> = score.voices.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["Piano (staff 1)", "Piano (staff 2)"]);
    assert_eq!(events(&score, 0), vec![(t(0), t(2), vec![76])]);
    assert_eq!(events(&score, 1), vec![(t(0), t(2), vec![48])]);
}

#[test]
fn metadata_spellings_tags_and_tempo_are_read() {
    let attrs = "<attributes><divisions>1</divisions><key><fifths>-3</fifths><mode>minor</mode>\
                 </key><time><beats>4</beats><beat-type>4</beat-type></time></attributes>";
    let tempo = "<direction><direction-type><words>Adagio</words></direction-type>\
                 <sound tempo=\"52.5\"/></direction>";
    let m1 = format!(
        "<measure number=\"1\">{attrs}{tempo}{}{}</measure>",
        note(
            "Bb3",
            2,
            "<lyric name=\"cantus-tag\"><text>P0:1</text></lyric>"
        ),
        note("B#3", 2, "<lyric number=\"1\"><text>la</text></lyric>")
    );
    let xml = doc(&[("V", &m1)]).replace(
        "<part-list>",
        "<work><work-title>Op. 1 &amp; 2</work-title></work>\
         <movement-title>ignored</movement-title><part-list>",
    );
    let score = musicxml::read(&xml).expect("reads");
    assert_eq!(score.title.as_deref(), Some("Op. 1 & 2"));
    let key = score.key.expect("key");
    assert_eq!(
        (key.tonic.letter, key.tonic.alter, key.mode),
        (Letter::C, 0, Mode::Minor)
    );
    assert_eq!(score.tempo, Some(time(105, 2)));
    let ev = &score.voices[0].events;
    assert_eq!(
        ev[0].pitches,
        vec![Pitch::spelled(
            58,
            Spelling {
                letter: Letter::B,
                alter: -1
            }
        )]
    );
    assert_eq!(ev[0].tag.as_deref(), Some("P0:1"));
    assert_eq!(
        ev[1].pitches,
        vec![Pitch::spelled(
            60,
            Spelling {
                letter: Letter::B,
                alter: 1
            }
        )],
        "B#3 sounds as middle C"
    );
    assert_eq!(ev[1].tag, None, "ordinary lyrics are not tags");
    let movement = xml.replace("<work><work-title>Op. 1 &amp; 2</work-title></work>", "");
    assert_eq!(
        musicxml::read(&movement).expect("reads").title.as_deref(),
        Some("ignored")
    );
}

#[test]
fn a_meter_change_keeps_absolute_times_and_warns() {
    let m1 = format!(
        "<measure number=\"1\">{ATTRS_44}{}</measure>",
        note("C4", 4, "")
    );
    let m2 = format!(
        "<measure number=\"2\"><attributes><time><beats>3</beats><beat-type>4</beat-type></time>\
         </attributes>{}</measure>",
        note("D4", 3, "")
    );
    let m3 = format!("<measure number=\"3\">{}</measure>", note("E4", 3, ""));
    let (score, report) =
        musicxml::read_with_report(&doc(&[("V", &format!("{m1}{m2}{m3}"))])).expect("reads");
    assert_eq!(score.meter, Meter::COMMON);
    assert_eq!(
        events(&score, 0),
        vec![
            (t(0), t(4), vec![60]),
            (t(4), t(3), vec![62]),
            (t(7), t(3), vec![64])
        ]
    );
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("meter change to 3/4 in measure 2")),
        "{:?}",
        report.warnings
    );
}

#[test]
fn an_empty_measure_lasts_a_full_bar() {
    let m1 = format!("<measure number=\"1\">{ATTRS_44}</measure>");
    let m2 = format!("<measure number=\"2\">{}</measure>", note("C4", 4, ""));
    let (score, report) =
        musicxml::read_with_report(&doc(&[("V", &format!("{m1}{m2}"))])).expect("reads");
    assert_eq!(events(&score, 0), vec![(t(4), t(4), vec![60])]);
    assert_eq!(report.pickup_shift, t(0));
}

/// The line and column an error reports, and its text.
fn position(err: &MusicXmlError) -> (usize, usize) {
    match err {
        MusicXmlError::Xml { line, column, .. } | MusicXmlError::Invalid { line, column, .. } => {
            (*line, *column)
        }
        other => panic!("unexpected error kind: {other}"),
    }
}

#[test]
fn timewise_scores_and_other_roots_are_refused_clearly() {
    let err = musicxml::read("<?xml version=\"1.0\"?>\n<score-timewise/>").expect_err("refused");
    assert_eq!(position(&err), (2, 1));
    assert!(
        err.to_string()
            .contains("score-timewise MusicXML is not supported"),
        "{err}"
    );
    let err = musicxml::read("<html><body/></html>").expect_err("refused");
    assert!(
        err.to_string()
            .contains("root element must be <score-partwise>"),
        "{err}"
    );
}

#[test]
fn malformed_xml_reports_line_and_column() {
    let err = musicxml::read("<score-partwise>\n  <part id=\"P1\">\n</score-partwise>")
        .expect_err("mismatched end tag");
    assert!(matches!(err, MusicXmlError::Xml { line: 3, .. }), "{err:?}");
    let err = musicxml::read("<score-partwise>\n  <part>").expect_err("unclosed");
    assert!(err.to_string().contains("never closed"), "{err}");
    let err = musicxml::read("").expect_err("empty");
    assert!(err.to_string().contains("no root element"), "{err}");
    let err = musicxml::read("<score-partwise>&nbsp;</score-partwise>").expect_err("entity");
    assert!(err.to_string().contains("unknown entity &nbsp;"), "{err}");
}

#[test]
fn bad_values_name_the_element_and_its_position() {
    let cases = [
        (
            format!(
                "{ATTRS_44}<note><pitch><step>H</step><octave>4</octave></pitch><duration>1</duration></note>"
            ),
            "<step> must be one of A-G",
            "pitch",
        ),
        (
            format!(
                "{ATTRS_44}<note><pitch><step>C</step><octave>11</octave></pitch><duration>1</duration></note>"
            ),
            "outside MIDI 0-127",
            "pitch",
        ),
        (
            format!(
                "{ATTRS_44}<note><pitch><step>C</step><alter>0.5</alter><octave>4</octave></pitch><duration>1</duration></note>"
            ),
            "microtonal",
            "pitch",
        ),
        (
            format!("{ATTRS_44}<note><pitch><step>C</step><octave>4</octave></pitch></note>"),
            "needs a <duration>",
            "note",
        ),
        (
            format!("{ATTRS_44}<note><duration>-1</duration><rest/></note>"),
            "non-negative number",
            "duration",
        ),
        (
            "<attributes><divisions>0</divisions></attributes>".to_string(),
            "positive number",
            "divisions",
        ),
        (
            "<attributes><time><beats>x</beats><beat-type>4</beat-type></time></attributes>"
                .to_string(),
            "<beats> and <beat-type>",
            "time",
        ),
    ];
    for (body, message, element) in cases {
        let xml = doc(&[("V", &format!("<measure number=\"1\">\n{body}</measure>"))]);
        let err = musicxml::read(&xml).expect_err(message);
        match &err {
            MusicXmlError::Invalid {
                line,
                element: e,
                message: m,
                ..
            } => {
                assert!(m.contains(message), "{err}");
                assert_eq!(e, element, "{err}");
                assert!(*line >= 6, "the error points into the measure: {err}");
            }
            other => panic!("expected an Invalid error, got {other:?}"),
        }
    }
}

#[test]
fn read_file_names_the_file() {
    let path = std::env::temp_dir().join(format!("cantus-bad-{}.musicxml", std::process::id()));
    std::fs::write(&path, "<score-partwise>\n<part>").expect("write");
    let err = musicxml::read_file(&path).expect_err("bad file");
    let _ = std::fs::remove_file(&path);
    let text = err.to_string();
    assert!(text.starts_with(&path.display().to_string()), "{text}");
    assert!(text.contains("line 2, column 1"), "{text}");
    assert!(
        matches!(err, MusicXmlError::InFile { ref source, .. } if matches!(**source, MusicXmlError::Xml { line: 2, .. })),
        "{err:?}"
    );
    let missing = musicxml::read_file(std::path::Path::new("/no/such/file.musicxml"));
    assert!(
        matches!(missing, Err(MusicXmlError::Io { .. })),
        "{missing:?}"
    );
}

#[test]
fn each_part_keeps_its_own_key_and_only_a_change_within_a_part_is_reported() {
    let attrs = |fifths: i32, transpose: &str| {
        format!(
            "<attributes><divisions>1</divisions><key><fifths>{fifths}</fifths></key>\
             <time><beats>4</beats><beat-type>4</beat-type></time>{transpose}</attributes>"
        )
    };
    let measure = |n: u32, attrs: &str| {
        format!(
            "<measure number=\"{n}\">{attrs}{}</measure>",
            note("C5", 4, "")
        )
    };
    let clarinet = "<transpose><diatonic>-1</diatonic><chromatic>-2</chromatic></transpose>";
    let horn = "<transpose><diatonic>-4</diatonic><chromatic>-7</chromatic></transpose>";
    let flute = measure(1, &attrs(-1, "")) + &measure(2, "");
    // The clarinet is written a tone higher, so its D major signature sounds C major;
    // the horn is written without a signature, as horns often are.
    let clar = measure(1, &attrs(2, clarinet)) + &measure(2, "");
    let hn = measure(1, &attrs(0, horn)) + &measure(2, "");
    let changing = measure(1, &attrs(-1, "")) + &measure(2, &attrs(-3, ""));
    let xml = doc(&[
        ("Flute", &flute),
        ("Clarinet in Bb", &clar),
        ("Horn in F", &hn),
        ("Oboe", &changing),
    ]);
    let (score, report) = musicxml::read_with_report(&xml).expect("reads");
    let fifths: Vec<Option<i32>> = score
        .voices
        .iter()
        .map(|v| score.part_key(v).map(|k| k.fifths()))
        .collect();
    // At sounding pitch: the flute's F major, the clarinet's C, the horn's F (its
    // written C sounds a fifth lower), the oboe's first key.
    assert_eq!(fifths, vec![Some(-1), Some(0), Some(-1), Some(-1)]);
    assert_eq!(score.key.map(|k| k.fifths()), Some(-1), "the first part's");
    // Only the clarinet's differs from the score's, so only it has a key of its own.
    let own: Vec<Option<i32>> = score
        .voices
        .iter()
        .map(|v| v.key.map(|k| k.fifths()))
        .collect();
    assert_eq!(own, vec![None, Some(0), None, None]);
    // The text grammar carries it (`Clarinet in Bb (KEY: C major)`) and reads it back.
    let text = cantus_music::format::render(&score, cantus_music::format::Format::Grammar)
        .expect("writes the grammar");
    let text = String::from_utf8(text).expect("UTF-8");
    assert!(
        text.contains("VOICES: Flute, Clarinet in Bb (KEY: C major), Horn in F, Oboe\n"),
        "{text}"
    );
    let back = cantus_music::grammar::parse(&text, &Default::default())
        .expect("reads back")
        .score;
    let mut expected = score.clone();
    expected.title = None;
    expected.bars = Some(expected.bar_count());
    assert_eq!(back, expected);
    let keys: Vec<&String> = report
        .warnings
        .iter()
        .filter(|w| w.contains("key"))
        .collect();
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert!(
        keys[0].ends_with(
            "key change to -3 fifths in measure 2 ignored; the part keeps its first key"
        ),
        "{keys:?}"
    );
}
