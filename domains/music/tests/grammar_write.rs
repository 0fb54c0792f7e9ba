//! The canonical writer: exact text for hand-built scores, grid choice per bar,
//! and refusals that name the event instead of rounding it.

use cantus_music::grammar::{ParseOptions, WriteError, parse, write};
use cantus_music::{Event, Key, Letter, Meter, Mode, Pitch, Score, Spelling, Time, Voice, time};

fn note(onset: Time, duration: Time, midi: u8) -> Event {
    Event::new(onset, duration, vec![Pitch::new(midi)])
}

fn score(meter: Meter, voices: Vec<Voice>) -> Score {
    Score {
        meter,
        voices,
        ..Score::default()
    }
}

fn voice(name: &str, events: Vec<Event>) -> Voice {
    Voice {
        name: name.into(),
        events,
        ..Voice::default()
    }
}

#[test]
fn canonical_text_of_a_small_score() {
    let mut chord = Event::new(
        time(2, 1),
        time(2, 1),
        vec![Pitch::new(67), Pitch::new(60), Pitch::new(64)],
    );
    chord.tag = Some("P0:1-3".into());
    let mut s = score(
        Meter::new(3, 4),
        vec![
            voice("Upper", vec![note(time(0, 1), time(1, 1), 72), chord]),
            voice("Lower", vec![]),
            voice(
                "Bass",
                vec![
                    note(time(0, 1), time(6, 1), 48),
                    note(time(9, 1), time(1, 3), 50),
                    note(time(28, 3), time(2, 3), 52),
                ],
            ),
        ],
    );
    s.key = Some(Key {
        tonic: Spelling {
            letter: Letter::E,
            alter: -1,
        },
        mode: Mode::Major,
    });
    s.tempo = Some(time(185, 2));
    let text = write(&s).expect("writable");
    // Bar 1 needs quarters only (GRID 4: 3 slots); bar 4 holds triplet eighths (GRID 12t: 9 slots).
    // Both grids occur once, so the header takes the smaller; BARS is undeclared, so Score::bar_count.
    assert_eq!(
        text,
        "KEY: Eb major | METER: 3/4 | TEMPO: 92.5 | GRID: 4th | BARS: 4\n\
         VOICES: Upper, Lower, Bass\n\
         @1 [-]\n  Upper: C5@1>1 C4+E4+G4@3>2{P0:1-3}\n  Bass: C3@1>6\n\
         @4 [-] (grid:12t)\n  Bass: D3@1>1 E3@2>2\n"
    );
    let back = parse(&text, &ParseOptions::default())
        .expect("reads back")
        .score;
    assert_eq!(back.voices[2].events[1].onset, time(9, 1));
    assert_eq!(back.voices[2].events[2].duration, time(2, 3));
    assert_eq!(back.bars, Some(4));
    assert!(back.voices[1].events.is_empty());
}

#[test]
fn header_grid_is_the_most_common_bar_grid() {
    let events = vec![
        note(time(0, 1), time(1, 4), 60), // bar 1: sixteenths
        note(time(4, 1), time(1, 2), 62), // bar 2: eighths
        note(time(8, 1), time(1, 2), 64), // bar 3: eighths
    ];
    let text = write(&score(Meter::COMMON, vec![voice("V", events)])).expect("writable");
    assert!(text.contains("| GRID: 8th |"), "{text}");
    assert!(text.contains("@1 [-] (grid:16)\n  V: C4@1>1\n"), "{text}");
    assert!(text.contains("@2 [-]\n  V: D4@1>1\n"), "{text}");
}

#[test]
fn spellings_and_tempo_forms() {
    let b_sharp = Pitch::spelled(
        60,
        Spelling {
            letter: Letter::B,
            alter: 1,
        },
    );
    let c_flat = Pitch::spelled(
        59,
        Spelling {
            letter: Letter::C,
            alter: -1,
        },
    );
    let d_double_flat = Pitch::spelled(
        60,
        Spelling {
            letter: Letter::D,
            alter: -2,
        },
    );
    let low = Pitch::new(0);
    let events = vec![
        Event::new(time(0, 1), time(1, 1), vec![b_sharp]),
        Event::new(time(1, 1), time(1, 1), vec![c_flat]),
        Event::new(time(2, 1), time(1, 1), vec![d_double_flat]),
        Event::new(time(3, 1), time(1, 1), vec![low, Pitch::new(61)]),
    ];
    let mut s = score(Meter::COMMON, vec![voice("V", events)]);
    s.tempo = Some(time(100, 3));
    let text = write(&s).expect("writable");
    assert!(text.contains("TEMPO: 100/3"), "{text}");
    assert!(
        text.contains("  V: B#3@1>1 Cb4@2>1 Dbb4@3>1 C-1+C#4@4>1\n"),
        "{text}"
    );
    s.tempo = Some(time(1201, 10));
    assert!(write(&s).expect("writable").contains("TEMPO: 120.1 |"));
}

/// Issue 14, item 6: bars holding 128th notes, quintuplets or septuplets get
/// the coarsest grid that places them (as a `(grid:N)` override), and read back
/// to the same score.
#[test]
fn odd_onsets_get_a_bar_grid_that_holds_them() {
    let cases: [(Vec<Event>, &str); 4] = [
        // A 128th note: 128 slots per whole note.
        (vec![note(time(1, 32), time(1, 32), 60)], "(grid:128)"),
        // A quintuplet of sixteenths over beat 1: 20 per whole.
        (
            (0..5)
                .map(|k| note(time(k, 5), time(1, 5), 60 + k as u8))
                .collect(),
            "(grid:20)",
        ),
        // A septuplet of sixteenths: 28 per whole.
        (
            (0..7)
                .map(|k| note(time(k, 7), time(1, 7), 60 + k as u8))
                .collect(),
            "(grid:28)",
        ),
        // A 64th against triplet eighths in one bar: 192 per whole (`t`: a triple grid).
        (
            vec![
                note(time(0, 1), time(1, 16), 60),
                note(time(1, 3), time(1, 3), 62),
            ],
            "(grid:192t)",
        ),
    ];
    for (events, grid) in cases {
        let mut events = events;
        events.push(note(time(4, 1), time(1, 1), 72)); // bar 2 keeps the common grid
        let s = score(Meter::COMMON, vec![voice("Flute", events)]);
        let text = write(&s).expect("a grid holds it");
        assert!(
            text.contains(&format!("@1 [-] {grid}\n")),
            "{grid}:\n{text}"
        );
        assert!(
            text.contains("@2 [-]\n"),
            "bar 2 needs no override:\n{text}"
        );
        let back = parse(&text, &ParseOptions::default())
            .expect("reads back")
            .score;
        let timed = |s: &Score| -> Vec<(Time, Time, Vec<u8>)> {
            s.voices[0]
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
        };
        assert_eq!(timed(&back), timed(&s), "{text}");
    }
}

#[test]
fn events_off_every_grid_are_refused_with_their_place() {
    // 1/1009 of a quarter needs 4036 slots per whole note, more than the reader reads.
    let odd = note(time(4, 1) + time(1, 1009), time(1, 1), 60);
    let err = write(&score(Meter::COMMON, vec![voice("Flute", vec![odd])])).expect_err("too fine");
    match &err {
        WriteError::Event {
            voice, bar, onset, ..
        } => {
            assert_eq!(
                (voice.as_str(), *bar, *onset),
                ("Flute", 2, time(4037, 1009))
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(
        err.to_string().contains("lies on no grid of at most 3840"),
        "{err}"
    );

    // Each alone fits (3840 per whole; septuplets), together no grid up to 3840 holds both.
    let mixed = vec![
        note(time(0, 1), time(1, 960), 60),
        note(time(1, 7), time(1, 7), 62),
    ];
    let err = write(&score(Meter::COMMON, vec![voice("V", mixed)])).expect_err("3840 + 7");
    assert!(err.to_string().contains("no single grid holds it"), "{err}");
}

#[test]
fn invalid_scores_are_refused() {
    let ok = || vec![note(time(0, 1), time(1, 1), 60)];
    let refuse = |s: Score| write(&s).expect_err("should be refused");
    for name in ["", " Pad", "A,B", "A:B", "@1", "Lead %solo", "Line\nBreak"] {
        let e = refuse(score(Meter::COMMON, vec![voice(name, ok())]));
        assert!(matches!(e, WriteError::VoiceName { .. }), "{name:?}: {e}");
    }
    let e = refuse(score(
        Meter::COMMON,
        vec![voice("A", ok()), voice("A", ok())],
    ));
    assert!(e.to_string().contains("same name"), "{e}");
    assert!(matches!(
        refuse(score(Meter::new(4, 0), vec![])),
        WriteError::Meter { .. }
    ));
    let mut s = score(Meter::COMMON, vec![voice("A", ok())]);
    s.tempo = Some(time(0, 1));
    assert!(matches!(refuse(s), WriteError::Tempo { .. }));
    let misspelled = Pitch::spelled(
        60,
        Spelling {
            letter: Letter::D,
            alter: 0,
        },
    );
    let e = refuse(score(
        Meter::COMMON,
        vec![voice(
            "A",
            vec![Event::new(time(0, 1), time(1, 1), vec![misspelled])],
        )],
    ));
    assert!(e.to_string().contains("cannot be spelled"), "{e}");
    let mut tagged = note(time(0, 1), time(1, 1), 60);
    tagged.tag = Some("two words".into());
    assert!(
        refuse(score(Meter::COMMON, vec![voice("A", vec![tagged])]))
            .to_string()
            .contains("tag")
    );
    let zero = note(time(0, 1), time(0, 1), 60);
    assert!(
        refuse(score(Meter::COMMON, vec![voice("A", vec![zero])]))
            .to_string()
            .contains("not above 0")
    );
    let early = note(time(-1, 2), time(1, 1), 60);
    assert!(
        refuse(score(Meter::COMMON, vec![voice("A", vec![early])]))
            .to_string()
            .contains("before the piece")
    );
}

#[test]
fn unsorted_voices_are_written_in_time_order_and_empty_scores_are_headers() {
    let events = vec![
        note(time(5, 1), time(1, 1), 64),
        note(time(0, 1), time(1, 1), 60),
    ];
    let text = write(&score(Meter::COMMON, vec![voice("V", events)])).expect("writable");
    assert!(
        text.contains("@1 [-]\n  V: C4@1>1\n@2 [-]\n  V: E4@2>1\n"),
        "{text}"
    );
    let empty = write(&score(Meter::new(6, 8), vec![])).expect("writable");
    assert_eq!(
        empty,
        "KEY: ? | METER: 6/8 | TEMPO: ? | GRID: 16th | BARS: 0\nVOICES:\n"
    );
    let back = parse(&empty, &ParseOptions::default())
        .expect("reads back")
        .score;
    assert_eq!((back.voices.len(), back.bars), (0, Some(0)));
}

#[test]
fn extreme_times_are_refused_without_overflow() {
    let huge = Event::new(
        Time::new(i64::MAX, 1),
        Time::new(1, i64::MAX),
        vec![Pitch::new(60)],
    );
    let e =
        write(&score(Meter::new(1000, 999), vec![voice("A", vec![huge])])).expect_err("far away");
    assert!(e.to_string().contains("after bar 10000000"), "{e}");
    let tiny = Event::new(
        Time::new(1, i64::MAX),
        Time::new(i64::MAX, 3),
        vec![Pitch::new(60)],
    );
    let e = write(&score(Meter::COMMON, vec![voice("A", vec![tiny])])).expect_err("too long");
    assert!(e.to_string().contains("longer than"), "{e}");
    let odd = Event::new(
        Time::new(1, i64::MAX),
        Time::new(1, 4),
        vec![Pitch::new(60)],
    );
    let e = write(&score(Meter::COMMON, vec![voice("A", vec![odd])])).expect_err("off grid");
    assert!(e.to_string().contains("lies on no grid"), "{e}");
}
