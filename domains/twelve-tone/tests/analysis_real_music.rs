//! The analyser on real twelve-tone music: the opening of Webern's Symphonie Op. 21
//! (`tests/fixtures/webern_op21/`, see its README), a double canon by inversion whose
//! four rows pass between ten staves, with repeated notes, two-note harp chords and
//! elisions. The analysis must find the rows the published analysis lists, with their
//! instrument successions, the elisions of bars 11–14 and the canons.

use cantus_music::Score;
use cantus_music::grammar::{ParseOptions, parse};
use cantus_twelve_tone::analysis::{
    Analysis, CanonRelation, NoteRole, Options, RowSource, Statement, Verdict, analyze,
};
use cantus_twelve_tone::row::{Row, RowForm};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn op21() -> Score {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/webern_op21/symphonie_i_bars_1-25.txt");
    let text = std::fs::read_to_string(&path).expect("the fixture ships with the crate");
    let options = ParseOptions {
        source_name: Some(path.display().to_string()),
        lenient: false,
        ..ParseOptions::default()
    };
    parse(&text, &options)
        .expect("the fixture reads strictly")
        .score
}

/// The row as the published analysis numbers it: P0 begins on A.
fn published_row() -> Row {
    Row::parse("A F# G G# E F B Bb D C# C Eb").unwrap()
}

fn relative(s: &Statement) -> Vec<String> {
    s.labels.relative.iter().map(RowForm::to_string).collect()
}

/// The instrument succession in the published abbreviations, the harp's two staves
/// as one instrument.
fn succession(s: &Statement) -> String {
    let mut out: Vec<&str> = Vec::new();
    for v in &s.voices {
        let short = match v.as_str() {
            "Clarinet" => "Cl",
            "Bass Clarinet" => "BCl",
            "Horn 1" => "Hn1",
            "Horn 2" => "Hn2",
            "Harp RH" | "Harp LH" => "Hp",
            "Violin I" => "Vln1",
            "Violin II" => "Vln2",
            "Viola" => "Vla",
            "Violoncello" => "Vc",
            other => other,
        };
        if out.last() != Some(&short) {
            out.push(short);
        }
    }
    out.join("-")
}

fn analysed() -> Analysis {
    let options = Options {
        row: Some(published_row()),
        ..Options::default()
    };
    analyze(&op21(), &options).expect("the fixture is analysable")
}

#[test]
fn the_four_canon_voices_and_their_instruments_are_found() {
    let a = analysed();
    assert_eq!(a.verdict, Verdict::TwelveTone, "{a}");
    assert_eq!(a.row_name.as_deref(), Some("WebernOp21"));
    // Statements in onset order; the first eight are the two rows of each canon voice.
    let expected = [
        ("P0", "Hn2-Cl-Vc"),
        ("I8", "Hp-Vc-Vln2-Hp-Hn2-Hp"),
        ("I0", "Hn1-BCl-Vla"),
        ("P4", "Hp-Vla-Vln1-Hp-Hn1-Hp"),
        ("I3", "Vc-Cl-Hn2"),
        ("P5", "Hp-Hn2-Vln1-Hp-Vla"),
        ("P9", "Vla-BCl-Hn1"),
        ("I7", "Hp-Hn1-Vc-Hp-Vln2"),
    ];
    for (s, (label, instruments)) in a.statements.iter().zip(expected) {
        // The row is symmetric: P0 is also R6, so each statement has two labels.
        assert_eq!(relative(s)[0], label, "statement {}\n{a}", s.number);
        assert_eq!(relative(s).len(), 2);
        assert_eq!(
            succession(s),
            instruments,
            "statement {} ({label})\n{a}",
            s.number
        );
        assert!(
            s.complete,
            "statement {} ({label}) is complete\n{a}",
            s.number
        );
    }
    // Every note is in a statement but the horn's D that begins the next rows in the
    // last bar of the excerpt.
    assert_eq!(a.notes, 128);
    assert_eq!(a.explained, 127, "{a}");
    let left: Vec<(u32, &str)> = a
        .unexplained
        .iter()
        .map(|n| (n.bar, n.voice_name.as_str()))
        .collect();
    assert_eq!(left, vec![(25, "Horn 2")]);
}

#[test]
fn the_rows_elide_and_the_canons_are_by_inversion_two_bars_apart() {
    let a = analysed();
    // Each voice's second row begins on the minor third its first ended with.
    let elisions: BTreeSet<(usize, usize, u8)> = a
        .elisions
        .iter()
        .map(|e| (e.from, e.to, e.shared))
        .collect();
    for pair in [(1, 5, 2), (2, 6, 2), (3, 7, 2), (4, 8, 2)] {
        assert!(elisions.contains(&pair), "{pair:?} in {elisions:?}\n{a}");
    }
    let elided: Vec<_> = a.statements[4]
        .notes
        .iter()
        .filter(|n| n.role == NoteRole::Elided)
        .map(|n| (n.position, n.bar, n.voice_name.as_str()))
        .collect();
    assert_eq!(
        elided,
        vec![(Some(1), 11, "Violoncello"), (Some(2), 12, "Violoncello")]
    );
    // P0 and I0, I3 and P9, I8 and P4, P5 and I7: followers by inversion, 8 quarter
    // notes (two bars) later.
    for (leader, follower) in [(1, 3), (5, 7), (2, 4), (6, 8)] {
        let canon = a
            .canons
            .iter()
            .find(|c| c.leader == leader && c.follower == follower)
            .unwrap_or_else(|| panic!("canon {leader}-{follower}\n{a}"));
        assert_eq!(canon.relation, CanonRelation::Inversion);
        assert_eq!(canon.delay, cantus_music::Time::from_integer(8));
        assert!(canon.positions >= 11, "{canon:?}");
    }
}

#[test]
fn the_horns_repeated_notes_are_repetitions() {
    let a = analysed();
    let repeats: Vec<(usize, Option<u8>, u32, &str)> = a
        .statements
        .iter()
        .flat_map(|s| {
            s.notes
                .iter()
                .filter(|n| n.role == NoteRole::Repetition)
                .map(move |n| (s.number, n.position, n.bar, n.voice_name.as_str()))
        })
        .collect();
    // Horn 2 repeats P0's F#, Horn 1 I0's C (bars 2 and 4), and the harp I8's D.
    assert!(repeats.contains(&(1, Some(2), 2, "Horn 2")), "{repeats:?}");
    assert!(repeats.contains(&(3, Some(2), 4, "Horn 1")), "{repeats:?}");
}

#[test]
fn without_a_row_it_is_inferred_and_named_and_the_reading_is_the_same() {
    let inferred = analyze(&op21(), &Options::default()).unwrap();
    assert_eq!(inferred.row_source, RowSource::Inferred);
    assert_eq!(inferred.row_name.as_deref(), Some("WebernOp21"));
    let given = analysed();
    let tones = |a: &Analysis| -> Vec<BTreeSet<(u8, u32, String)>> {
        a.statements
            .iter()
            .map(|s| {
                s.notes
                    .iter()
                    .filter(|n| n.role != NoteRole::Repetition)
                    .map(|n| (n.pc, n.bar, n.voice_name.clone()))
                    .collect()
            })
            .collect()
    };
    assert_eq!(tones(&inferred), tones(&given));
    // Labels then refer to music21's stored form of the row, F G# G F# … (the
    // published I8): the published P0 is its I4.
    assert_eq!(relative(&inferred.statements[0]), ["I4", "RI10"]);
}
