//! The LilyPond text of small pieces, pinned by insta snapshots and reviewed by
//! reading them as music (see the comments for what each snapshot must show).

use cantus_music::lilypond;
use cantus_music::{Event, Key, Letter, Meter, Mode, Pitch, Score, Spelling, Time, Voice, time};

fn note(onset: Time, duration: Time, pitches: Vec<Pitch>) -> Event {
    Event::new(onset, duration, pitches)
}

fn spelled(midi: u8, letter: Letter, alter: i8) -> Pitch {
    Pitch::spelled(midi, Spelling { letter, alter })
}

/// Two voices in 3/4, G major, two bars.
/// Flute: d''4, a triplet-eighth group e'' f'' g'' (f natural: an accidental in G),
/// a'' tied over the barline, a quarter rest, b-flat'.
/// Cello: a half-note chord G,–D, a quarter rest, then G, for the whole second bar.
fn duet() -> Score {
    let flute = Voice {
        name: "Flute".into(),
        events: vec![
            note(time(0, 1), time(1, 1), vec![Pitch::new(74)]),
            note(time(1, 1), time(1, 3), vec![Pitch::new(76)]),
            note(time(4, 3), time(1, 3), vec![Pitch::new(77)]),
            note(time(5, 3), time(1, 3), vec![Pitch::new(79)]),
            note(time(2, 1), time(2, 1), vec![Pitch::new(81)]),
            note(time(5, 1), time(1, 1), vec![spelled(70, Letter::B, -1)]),
        ],
        ..Voice::default()
    };
    let cello = Voice {
        name: "Cello".into(),
        events: vec![
            note(time(0, 1), time(2, 1), vec![Pitch::new(43), Pitch::new(50)]),
            note(time(3, 1), time(3, 1), vec![Pitch::new(43)]),
        ],
        ..Voice::default()
    };
    Score {
        title: Some("Snapshot Duet".into()),
        key: Some(Key {
            tonic: Spelling {
                letter: Letter::G,
                alter: 0,
            },
            mode: Mode::Major,
        }),
        meter: Meter::new(3, 4),
        tempo: Some(time(96, 1)),
        bars: None,
        voices: vec![flute, cello],
    }
}

#[test]
fn duet_with_chord_tie_rest_triplet_and_accidental() {
    let ly = lilypond::write(&duet()).expect("notatable");
    insta::assert_snapshot!("lilypond_duet", ly);
}

/// One voice in 4/4 whose events overlap (a held e' under moving notes), with
/// quarter-note triplets over the second half of bar 1 and a declared third bar.
/// The overlap needs a second LilyPond voice; the triplets one `\tuplet` over a
/// half note; the empty third bar a full-bar rest (and a spacer below).
fn polyphonic_voice() -> Score {
    let events = vec![
        note(time(0, 1), time(4, 1), vec![Pitch::new(64)]),
        note(time(0, 1), time(1, 1), vec![Pitch::new(72)]),
        note(time(1, 1), time(1, 1), vec![Pitch::new(71)]),
        note(time(2, 1), time(2, 3), vec![Pitch::new(69)]),
        note(time(8, 3), time(2, 3), vec![Pitch::new(67)]),
        note(time(10, 3), time(2, 3), vec![spelled(66, Letter::G, -1)]),
        note(time(4, 1), time(4, 1), vec![Pitch::new(65), Pitch::new(69)]),
    ];
    Score {
        title: None,
        key: None,
        meter: Meter::COMMON,
        tempo: None,
        bars: Some(3),
        voices: vec![Voice {
            name: "Piano \"RH\"".into(),
            events,
            ..Voice::default()
        }],
    }
}

#[test]
fn overlapping_events_become_a_second_lilypond_voice() {
    let ly = lilypond::write(&polyphonic_voice()).expect("notatable");
    insta::assert_snapshot!("lilypond_polyphonic_voice", ly);
}
