//! Behaviour of `lilypond::write` a reader of the score would notice: ties over
//! several bars, triplet grouping, polyphony, empty scores, and the clear errors
//! for what cannot be notated.

use cantus_music::lilypond::{self, LilypondError};
use cantus_music::{Event, Letter, Meter, Pitch, Score, Spelling, Time, Voice, time};

fn one_voice(meter: Meter, events: Vec<(Time, Time, Vec<u8>)>) -> Score {
    Score {
        meter,
        voices: vec![Voice {
            name: "V".into(),
            events: events
                .into_iter()
                .map(|(on, dur, keys)| {
                    Event::new(on, dur, keys.into_iter().map(Pitch::new).collect())
                })
                .collect(),
            ..Voice::default()
        }],
        ..Score::default()
    }
}

/// The bar lines (ending in a bar check) of the output, trimmed.
fn bars(ly: &str) -> Vec<&str> {
    ly.lines()
        .map(str::trim)
        .filter(|l| l.ends_with(" |"))
        .collect()
}

#[test]
fn a_long_note_is_tied_over_every_barline_it_crosses() {
    let score = one_voice(Meter::COMMON, vec![(time(2, 1), time(11, 1), vec![60, 67])]);
    let ly = lilypond::write(&score).expect("notatable");
    assert_eq!(
        bars(&ly),
        [
            "r2 <c' g'>2~ |",
            "<c' g'>1~ |",
            "<c' g'>1~ |",
            "<c' g'>4 r2. |",
        ]
    );
}

#[test]
fn triplets_are_grouped_by_the_smallest_uncrossed_span() {
    let t = |n, d| time(n, d);
    // 2/4: a triplet eighth, a note over four triplet eighths, a triplet eighth:
    // only the half-note span is uncrossed.
    let score = one_voice(
        Meter::new(2, 4),
        vec![
            (t(0, 1), t(1, 3), vec![60]),
            (t(1, 3), t(4, 3), vec![62]),
            (t(5, 3), t(1, 3), vec![64]),
        ],
    );
    let ly = lilypond::write(&score).expect("notatable");
    assert_eq!(bars(&ly), ["\\tuplet 3/2 { c'8 d'2 e'8 } |"]);

    // Triplet sixteenths (24 per whole) in the second beat only.
    let sixteenths = (0..6)
        .map(|i| {
            (
                t(1, 1) + t(i, 6),
                t(1, 6),
                vec![72 + u8::try_from(i).unwrap_or(0)],
            )
        })
        .collect();
    let ly = lilypond::write(&one_voice(Meter::new(2, 4), sixteenths)).expect("notatable");
    assert_eq!(
        bars(&ly),
        ["r4 \\tuplet 3/2 { c''16 cis''16 d''16 } \\tuplet 3/2 { dis''16 e''16 f''16 } |"]
    );

    // A triplet note no aligned span contains without crossing: the largest span
    // that fits takes it, and the note is tied out of the group.
    let score = one_voice(
        Meter::new(3, 4),
        vec![(t(0, 1), t(1, 3), vec![60]), (t(1, 3), t(8, 3), vec![62])],
    );
    let ly = lilypond::write(&score).expect("notatable");
    assert_eq!(bars(&ly), ["\\tuplet 3/2 { c'8 d'2~ d'8~ } d'4 |"]);
}

#[test]
fn overlapping_events_of_one_voice_share_a_staff_in_two_voices() {
    let score = one_voice(
        Meter::new(2, 4),
        vec![
            (time(0, 1), time(2, 1), vec![60]),
            (time(1, 1), time(1, 1), vec![67]),
        ],
    );
    let ly = lilypond::write(&score).expect("notatable");
    assert_eq!(ly.matches("\\new Staff").count(), 1);
    assert!(ly.contains("<<\n        {\n          c'2 |\n        }\n        \\\\\n        {\n          s4 g'4 |\n        }\n      >>"), "{ly}");
}

#[test]
fn an_empty_score_is_one_bar_of_rest() {
    let score = Score {
        voices: vec![Voice::new("Silence")],
        meter: Meter::new(5, 4),
        ..Score::default()
    };
    let ly = lilypond::write(&score).expect("notatable");
    assert_eq!(bars(&ly), ["R1*5/4 |"]);
    assert!(
        !ly.contains("\\key") && ly.contains("\\time 5/4"),
        "no key, no signature"
    );
    assert!(!ly.contains("\\tempo"), "no tempo mark without a tempo");
}

#[test]
fn tempo_is_shown_in_whole_beats_on_the_first_staff() {
    let mut score = one_voice(Meter::COMMON, vec![(time(0, 1), time(4, 1), vec![60])]);
    score.tempo = Some(time(135, 2));
    score.voices.push(score.voices[0].clone());
    let ly = lilypond::write(&score).expect("notatable");
    assert_eq!(ly.matches("\\tempo 4 = 68").count(), 1);
}

#[test]
fn what_cannot_be_notated_is_an_error_naming_voice_and_time() {
    let quintuplet = one_voice(Meter::COMMON, vec![(time(1, 1), time(1, 5), vec![60])]);
    let err = lilypond::write(&quintuplet).expect_err("no quintuplets");
    assert!(
        matches!(&err, LilypondError::NotNotatable { voice, at, .. } if voice == "V" && *at == time(6, 5)),
        "{err:?}"
    );

    let too_short = one_voice(Meter::COMMON, vec![(time(0, 1), time(1, 64), vec![60])]);
    let err = lilypond::write(&too_short).expect_err("no 256ths");
    assert!(err.to_string().contains("128th"), "{err}");

    let mut misspelled = one_voice(Meter::COMMON, vec![(time(0, 1), time(1, 1), vec![60])]);
    misspelled.voices[0].events[0].pitches = vec![Pitch::spelled(
        60,
        Spelling {
            letter: Letter::D,
            alter: 0,
        },
    )];
    let err = lilypond::write(&misspelled).expect_err("D is not MIDI 60");
    assert!(matches!(err, LilypondError::Unwritable { .. }), "{err:?}");
    assert!(err.to_string().contains("MIDI 60"), "{err}");

    let odd_meter = one_voice(Meter::new(4, 3), vec![]);
    assert!(matches!(
        lilypond::write(&odd_meter),
        Err(LilypondError::Score(_))
    ));

    let negative = one_voice(Meter::COMMON, vec![(time(-1, 1), time(1, 1), vec![60])]);
    assert!(matches!(
        lilypond::write(&negative),
        Err(LilypondError::Unwritable { .. })
    ));
}
