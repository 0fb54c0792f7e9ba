//! Grace notes across the formats: the text grammar reads and writes them (`>g`,
//! `>g/`) when asked, skips them with a warning when not, and still refuses `>0`;
//! conversions to formats without grace notes leave them out and say how many.

use cantus_music::format::{self, Format};
use cantus_music::grammar::{self, ParseOptions, rule};
use cantus_music::{Grace, Time};

const PIECE: &str = "\
KEY: ? | METER: 2/4 | TEMPO: ? | GRID: 16 | BARS: 1
VOICES: Piano
@1 [-]
  Piano: Eb5@1>g/ D5@1>g C4@1>4 F#4+B4@5>g G4@5>4
";

fn asked() -> ParseOptions {
    ParseOptions {
        grace_notes: true,
        ..ParseOptions::default()
    }
}

#[test]
fn grace_tokens_read_as_events_without_time_in_written_order() {
    let parsed = grammar::parse(PIECE, &asked()).expect("reads");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let events = &parsed.score.voices[0].events;
    let seen: Vec<(Time, Time, Vec<u8>, Option<Grace>)> = events
        .iter()
        .map(|e| {
            let midi = e.pitches.iter().map(|p| p.midi).collect();
            (e.onset, e.duration, midi, e.grace)
        })
        .collect();
    let (zero, quarter) = (Time::from_integer(0), Time::from_integer(1));
    let (acc, app) = (Some(Grace::Acciaccatura), Some(Grace::Appoggiatura));
    assert_eq!(
        seen,
        vec![
            // E♭5 was written before D5: it stays first, though it is higher.
            (zero, zero, vec![75], acc),
            (zero, zero, vec![74], app),
            (zero, quarter, vec![60], None),
            (quarter, zero, vec![66, 71], app),
            (quarter, quarter, vec![67], None),
        ]
    );
    // The canonical text writes them back exactly.
    let text = grammar::write(&parsed.score).expect("writes");
    assert!(
        text.contains("Piano: Eb5@1>g/ D5@1>g C4@1>1 F#4+B4@2>g G4@2>1"),
        "{text}"
    );
    assert_eq!(grammar::parse(&text, &asked()).unwrap().score, parsed.score);
}

#[test]
fn grace_tokens_not_asked_for_are_skipped_with_a_warning_in_strict_mode_too() {
    let parsed = grammar::parse(PIECE, &ParseOptions::default()).expect("strict still reads");
    assert_eq!(
        parsed.score.voices[0].events.len(),
        2,
        "only the timed notes"
    );
    let rules: Vec<&str> = parsed.warnings.iter().map(|w| w.rule).collect();
    assert_eq!(rules, vec![rule::GRACE_SKIPPED; 3]);
    let shown = parsed.warnings[0].to_string();
    assert!(shown.contains("grace note `Eb5@1>g/` skipped"), "{shown}");
}

#[test]
fn a_zero_duration_is_still_an_error() {
    // A model writing `>0` by mistake gets the error it always got, not a grace note.
    let text = PIECE.replace("C4@1>4", "C4@1>0");
    let err = grammar::parse(&text, &asked()).expect_err("zero slots");
    assert_eq!(err.diagnostics[0].rule, rule::DURATION_ZERO);
}

#[test]
fn conversions_to_formats_without_grace_notes_leave_them_out_and_say_so() {
    let score = grammar::parse(PIECE, &asked()).unwrap().score;
    for target in [Format::Midi, Format::MusicXml, Format::LilyPond] {
        let rendered = format::render_converting(&score, target).expect("converts");
        assert_eq!(
            rendered.warnings,
            vec![format!(
                "3 grace notes left out: the {target} writer does not write grace notes"
            )],
        );
        // The exact writer refuses them, naming what it met.
        let err = format::render(&score, target).expect_err("exact refuses");
        assert!(err.to_string().contains("grace note"), "{target}: {err}");
    }
    let text = format::render_converting(&score, Format::Grammar).unwrap();
    assert!(text.warnings.is_empty());
}
