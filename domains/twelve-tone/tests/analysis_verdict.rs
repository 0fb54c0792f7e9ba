//! The verdict means something: it is judged against the same analysis on copies of
//! the piece with its pitch classes shuffled (the control), so a piece is called
//! twelve-tone only when its share of notes in complete statements clearly exceeds
//! what chance reaches on its own notes.
//!
//! Webern's Op. 21 (the fixture) is twelve-tone and named; copies of it with the
//! pitch classes shuffled — over the whole piece, or only within each bar (each bar
//! keeps its pitch-class content, the hardest case in the calibration, where three of
//! five were called twelve-tone) — are not, are not named, with the row inferred or
//! given, and still report what was found. The control's cost is bounded: past
//! `CONTROL_MAX_NOTES` it is skipped and the report says so.

use cantus_music::grammar::{ParseOptions, parse};
use cantus_music::{Score, Time};
use cantus_twelve_tone::analysis::{
    AnalysisError, CONTROL_COPIES, CONTROL_MAX_NOTES, MARGIN_PERCENT, MAX_CONTROL_COPIES, Options,
    RowSource, TWELVE_TONE_PERCENT, Verdict, analyze,
};
use cantus_twelve_tone::row::{Row, resolve};
use cantus_twelve_tone::synth::{SynthOptions, piece};
use std::path::PathBuf;

fn op21() -> Score {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/webern_op21/symphonie_i_bars_1-25.txt");
    let text = std::fs::read_to_string(&path).expect("the fixture ships with the crate");
    parse(&text, &ParseOptions::default())
        .expect("the fixture reads")
        .score
}

fn published_row() -> Row {
    Row::parse("A F# G G# E F B Bb D C# C Eb").unwrap()
}

/// `score` with its notes' pitch classes permuted at random, over the whole piece
/// (`per_bar` false) or among the notes of each bar; each note moves to the nearest
/// pitch of its new pitch class, a chord's notes kept apart. Seeds here are not the
/// control's.
fn shuffled(score: &Score, per_bar: bool, seed: u64) -> Score {
    let mut out = score.clone();
    let mut groups: std::collections::BTreeMap<u32, Vec<u8>> = Default::default();
    let key = |onset: Time| if per_bar { score.bar_of(onset) } else { 0 };
    for e in out.voices.iter().flat_map(|v| &v.events) {
        for p in &e.pitches {
            groups.entry(key(e.onset)).or_default().push(p.midi % 12);
        }
    }
    let mut rng = fastrand::Rng::with_seed(seed);
    for pcs in groups.values_mut() {
        rng.shuffle(pcs);
    }
    let mut next: std::collections::BTreeMap<u32, std::vec::IntoIter<u8>> = groups
        .into_iter()
        .map(|(k, v)| (k, v.into_iter()))
        .collect();
    for voice in &mut out.voices {
        for e in &mut voice.events {
            let k = key(e.onset);
            let mut taken = Vec::new();
            for p in &mut e.pitches {
                let pc = next.get_mut(&k).and_then(Iterator::next).unwrap();
                let midi = (pc..128)
                    .step_by(12)
                    .filter(|c| !taken.contains(c))
                    .min_by_key(|&c| (i16::from(c) - i16::from(p.midi)).abs())
                    .unwrap();
                taken.push(midi);
                p.midi = midi;
                p.spelling = None;
            }
            e.normalise_pitches();
        }
    }
    out
}

fn share(part: usize, whole: usize) -> f64 {
    part as f64 / whole.max(1) as f64
}

#[test]
fn op21_is_twelve_tone_well_above_its_shuffled_copies_and_named() {
    let a = analyze(&op21(), &Options::default()).unwrap();
    assert_eq!(a.verdict, Verdict::TwelveTone, "{a}");
    assert_eq!(a.row_source, RowSource::Inferred);
    assert_eq!(a.row_name.as_deref(), Some("WebernOp21"));
    assert_eq!(a.control.copies.len(), usize::from(CONTROL_COPIES));
    assert!(a.control.skipped.is_none());
    let high = a.control.highest().unwrap();
    let piece = share(a.explained_by_complete, a.notes);
    let chance = share(high.explained_by_complete, high.notes);
    assert!(piece >= TWELVE_TONE_PERCENT as f64 / 100.0, "{a}");
    assert!(piece - chance >= MARGIN_PERCENT as f64 / 100.0, "{a}");
    // The copies are the piece's own notes: as many, and deterministic.
    assert!(a.control.copies.iter().all(|c| c.notes == a.notes));
    let again = analyze(&op21(), &Options::default()).unwrap();
    assert_eq!(again.control, a.control);
    // The listing says what the control reached beside the piece's figure.
    let listing = a.to_string();
    assert!(
        listing.contains("Control: 3 copies, pitch classes shuffled: at most"),
        "{listing}"
    );
    // Given the row: the same gate, passed.
    let given = Options {
        row: Some(published_row()),
        ..Options::default()
    };
    let a = analyze(&op21(), &given).unwrap();
    assert_eq!(a.verdict, Verdict::TwelveTone, "{a}");
    assert_eq!(a.row_name.as_deref(), Some("WebernOp21"));
}

#[test]
fn shuffled_copies_of_op21_are_not_twelve_tone_and_not_named_but_report_what_was_found() {
    let original = op21();
    let given = Options {
        row: Some(published_row()),
        ..Options::default()
    };
    for per_bar in [false, true] {
        for seed in 1..=4 {
            let copy = shuffled(&original, per_bar, seed);
            let what = if per_bar { "bar" } else { "whole-piece" };
            for options in [Options::default(), given.clone()] {
                let a = analyze(&copy, &options).unwrap();
                let context = format!("{what} shuffle {seed}, row {:?}\n{a}", options.row);
                if per_bar && options.row.is_some() {
                    // Shuffled within each bar, the pitch classes still follow the
                    // row from bar to bar: told the row, the analysis may call that
                    // partly twelve-tone (one of these four copies), never more.
                    assert_ne!(a.verdict, Verdict::TwelveTone, "{context}");
                } else {
                    assert_eq!(a.verdict, Verdict::NotTwelveTone, "{context}");
                    assert_eq!(a.row_name, None, "{context}");
                }
                if options.row.is_none() {
                    assert_eq!(a.row_source, RowSource::NotFound, "{context}");
                }
                // What was found is reported whatever the verdict.
                assert!(a.row.is_some());
                assert!(a.explained > a.notes / 2, "{what} shuffle {seed}\n{a}");
                assert_eq!(a.unexplained.len() + a.explained, a.notes);
            }
        }
    }
}

#[test]
fn without_a_control_only_the_complete_share_counts() {
    let none = Options {
        control_copies: 0,
        ..Options::default()
    };
    let a = analyze(&op21(), &none).unwrap();
    assert!(a.control.copies.is_empty());
    assert!(a.control.skipped.is_some());
    assert_eq!(a.verdict, Verdict::TwelveTone, "{a}");
    assert!(
        a.to_string()
            .contains("Control: none (no shuffled copies asked for)")
    );
    let bar = shuffled(&op21(), true, 1);
    let a = analyze(&bar, &none).unwrap();
    assert_eq!(a.verdict, Verdict::NotTwelveTone, "{a}");
    let too_many = Options {
        control_copies: MAX_CONTROL_COPIES + 1,
        ..Options::default()
    };
    assert_eq!(
        analyze(&op21(), &too_many).unwrap_err(),
        AnalysisError::ControlCopies(MAX_CONTROL_COPIES + 1)
    );
}

#[test]
fn past_the_control_limit_the_control_is_skipped_and_said_so() {
    let row = resolve("SchoenbergOp25").unwrap().row;
    let mut options = SynthOptions::new(row, 4, CONTROL_MAX_NOTES + 200, 5);
    options.tags = false;
    let score = piece(&options).score;
    let notes: usize = score
        .voices
        .iter()
        .flat_map(|v| &v.events)
        .map(|e| e.pitches.len())
        .sum();
    assert!(notes > CONTROL_MAX_NOTES, "{notes}");
    let a = analyze(
        &score,
        &Options {
            row: Some(row),
            ..Options::default()
        },
    )
    .unwrap();
    assert!(a.control.copies.is_empty());
    let why = a.control.skipped.as_deref().unwrap();
    assert!(why.contains(&format!("{notes} notes")), "{why}");
    assert_eq!(a.verdict, Verdict::TwelveTone);
}

#[test]
fn only_a_reading_the_verdict_stands_behind_is_drawn() {
    use cantus_music::annotation::MarkKind;
    use cantus_twelve_tone::analysis::annotations;
    // Op. 21 is drawn: its statements' labels and order positions.
    let a = analyze(&op21(), &Options::default()).unwrap();
    let marks = annotations(&a);
    let labels = marks
        .marks
        .iter()
        .filter(|m| matches!(m.kind, MarkKind::Label(_)))
        .count();
    assert_eq!(labels, a.statements.len(), "{a}");
    // A copy shuffled within each bar still holds statements of some row, but the
    // verdict is not twelve-tone: none of them is drawn, and one remark says why.
    let bar = shuffled(&op21(), true, 1);
    let a = analyze(&bar, &Options::default()).unwrap();
    assert_eq!(a.verdict, Verdict::NotTwelveTone, "{a}");
    assert!(!a.statements.is_empty(), "chance finds statements: {a}");
    let marks = annotations(&a);
    assert_eq!(marks.marks.len(), 1, "{:?}", marks.marks);
    let MarkKind::Remark(text) = &marks.marks[0].kind else {
        panic!("a remark, not {:?}", marks.marks[0].kind);
    };
    assert!(
        text.starts_with("not twelve-tone: ")
            && text.contains("shuffled copies up to")
            && text.ends_with("no statement drawn"),
        "{text}"
    );
}
