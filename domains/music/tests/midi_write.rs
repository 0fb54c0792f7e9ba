//! What `midi::write` puts in a file, checked event by event with midly, and what
//! it refuses to write.

use cantus_music::midi::{self, MidiError, TICKS_PER_QUARTER};
use cantus_music::{Event, Key, Letter, Meter, Mode, Pitch, Score, Spelling, Time, Voice, time};
use midly::{Format, MetaMessage, MidiMessage, Smf, Timing, TrackEventKind};

fn event(onset: Time, duration: Time, keys: &[u8]) -> Event {
    Event::new(
        onset,
        duration,
        keys.iter().copied().map(Pitch::new).collect(),
    )
}

fn voice(name: &str, events: Vec<Event>) -> Voice {
    Voice {
        name: name.into(),
        events,
        ..Voice::default()
    }
}

/// Every event of a track with its absolute tick.
fn absolute<'a>(track: &[midly::TrackEvent<'a>]) -> Vec<(u64, TrackEventKind<'a>)> {
    let mut tick = 0;
    track
        .iter()
        .map(|e| {
            tick += u64::from(e.delta.as_int());
            (tick, e.kind)
        })
        .collect()
}

/// `(tick, channel, key, velocity, is_on)` of every note message in a track.
fn notes(track: &[midly::TrackEvent<'_>]) -> Vec<(u64, u8, u8, u8, bool)> {
    absolute(track)
        .into_iter()
        .filter_map(|(tick, kind)| match kind {
            TrackEventKind::Midi { channel, message } => match message {
                MidiMessage::NoteOn { key, vel } => {
                    Some((tick, channel.as_int(), key.as_int(), vel.as_int(), true))
                }
                MidiMessage::NoteOff { key, vel } => {
                    Some((tick, channel.as_int(), key.as_int(), vel.as_int(), false))
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

fn small_score() -> Score {
    Score {
        title: Some("Kleines Stück".into()),
        key: Some(Key {
            tonic: Spelling {
                letter: Letter::F,
                alter: 0,
            },
            mode: Mode::Major,
        }),
        meter: Meter::new(3, 4),
        tempo: Some(time(90, 1)),
        bars: Some(2),
        voices: vec![
            voice(
                "Oben",
                vec![
                    event(time(0, 1), time(1, 1), &[64, 67]),
                    event(time(1, 1), time(1, 3), &[69]),
                ],
            ),
            voice("Unten", vec![event(time(1, 2), time(5, 2), &[48])]),
        ],
    }
}

#[test]
fn conductor_and_voice_tracks_carry_exact_ticks() {
    let bytes = midi::write(&small_score()).expect("writable");
    let smf = Smf::parse(&bytes).expect("midly reads our file");
    assert_eq!(smf.header.format, Format::Parallel);
    assert_eq!(
        smf.header.timing,
        Timing::Metrical(TICKS_PER_QUARTER.into())
    );
    assert_eq!(smf.tracks.len(), 3, "conductor + 2 voices");

    let conductor = absolute(&smf.tracks[0]);
    let metas: Vec<_> = conductor
        .iter()
        .map(|(tick, kind)| match kind {
            TrackEventKind::Meta(m) => (*tick, *m),
            other => panic!("conductor holds only meta events, got {other:?}"),
        })
        .collect();
    assert_eq!(
        metas,
        vec![
            (0, MetaMessage::TrackName("Kleines Stück".as_bytes())),
            (0, MetaMessage::TimeSignature(3, 2, 24, 8)),
            (0, MetaMessage::KeySignature(-1, false)),
            (0, MetaMessage::Tempo(666_667.into())),
            // Two declared bars of 3/4 = 6 quarters.
            (6 * 960, MetaMessage::EndOfTrack),
        ]
    );

    let upper = absolute(&smf.tracks[1]);
    assert_eq!(
        upper[0],
        (0, TrackEventKind::Meta(MetaMessage::TrackName(b"Oben")))
    );
    assert_eq!(
        notes(&smf.tracks[1]),
        vec![
            (0, 0, 64, 80, true),
            (0, 0, 67, 80, true),
            (960, 0, 64, 0, false),
            (960, 0, 67, 0, false),
            (960, 0, 69, 80, true),
            (1280, 0, 69, 0, false),
        ]
    );
    assert_eq!(
        notes(&smf.tracks[2]),
        vec![(480, 1, 48, 80, true), (480 + 2400, 1, 48, 0, false)]
    );
}

#[test]
fn voices_get_their_own_channels_skipping_drums_and_wrapping() {
    let score = Score {
        voices: (0..17)
            .map(|i| voice(&format!("V{i}"), vec![event(time(0, 1), time(1, 1), &[60])]))
            .collect(),
        ..Score::default()
    };
    let bytes = midi::write(&score).expect("writable");
    let smf = Smf::parse(&bytes).expect("parses");
    let channels: Vec<u8> = smf.tracks[1..].iter().map(|t| notes(t)[0].1).collect();
    assert_eq!(
        channels,
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 0, 1]
    );
    // Track order keeps the wrapped voices apart.
    let back = midi::read(&bytes).expect("reads");
    assert_eq!(back.voices.len(), 17);
    assert_eq!(back.voices[15].name, "V15");
}

#[test]
fn no_tempo_writes_no_tempo_event() {
    let score = Score {
        tempo: None,
        ..small_score()
    };
    let bytes = midi::write(&score).expect("writable");
    let smf = Smf::parse(&bytes).expect("parses");
    assert!(
        !smf.tracks[0]
            .iter()
            .any(|e| matches!(e.kind, TrackEventKind::Meta(MetaMessage::Tempo(_))))
    );
    assert_eq!(midi::read(&bytes).expect("reads").tempo, None);
}

#[test]
fn a_time_off_the_tick_grid_is_an_error_naming_voice_and_onset() {
    let mut score = small_score();
    score.voices[1]
        .events
        .push(event(time(3, 1), time(1, 7), &[50]));
    let err = midi::write(&score).expect_err("1/7 quarter is not whole ticks at 960");
    assert_eq!(
        err,
        MidiError::NotRepresentable {
            voice: "Unten".into(),
            onset: time(3, 1),
            what: "end",
            value: time(22, 7),
        }
    );
    let message = err.to_string();
    assert!(
        message.contains("\"Unten\"") && message.contains("onset 3"),
        "{message}"
    );

    score.voices[1].events = vec![event(time(1, 7), time(1, 1), &[50])];
    assert!(matches!(
        midi::write(&score),
        Err(MidiError::NotRepresentable { what: "onset", .. })
    ));
}

#[test]
fn same_pitch_overlaps_restrike_and_keep_the_sounding_time() {
    let a = |on: i64, dur: i64| event(time(on, 1), time(dur, 1), &[69]);
    let cases = [
        // Overlap where the second note outlasts the first.
        (vec![a(0, 4), a(2, 4)], vec![(0, 2), (2, 4)]),
        // The second note lies inside the first: the key is re-struck and held to 6.
        (vec![a(0, 6), a(2, 2)], vec![(0, 2), (2, 4)]),
        // One onset, two lengths: one note of the longer length.
        (vec![a(0, 2), a(0, 4)], vec![(0, 4)]),
        // Touching notes stay two notes.
        (vec![a(0, 1), a(1, 1)], vec![(0, 1), (1, 1)]),
    ];
    for (events, expected) in cases {
        let score = Score {
            voices: vec![voice("A", events.clone())],
            ..Score::default()
        };
        let back = midi::read(&midi::write(&score).expect("writable")).expect("reads");
        let got: Vec<(Time, Time)> = back.voices[0]
            .events
            .iter()
            .map(|e| (e.onset, e.duration))
            .collect();
        let expected: Vec<(Time, Time)> = expected
            .into_iter()
            .map(|(on, dur)| (time(on, 1), time(dur, 1)))
            .collect();
        assert_eq!(got, expected, "{events:?}");
    }
}

#[test]
fn scores_midi_cannot_carry_are_refused() {
    let with = |f: &dyn Fn(&mut Score)| {
        let mut s = small_score();
        f(&mut s);
        midi::write(&s)
    };
    let refusals = [
        with(&|s| s.meter = Meter::new(4, 3)),
        with(&|s| s.meter = Meter::new(0, 4)),
        with(&|s| s.meter = Meter::new(300, 4)),
        with(&|s| s.key = Some(Key::from_fifths(8, Mode::Major))),
        with(&|s| s.tempo = Some(time(0, 1))),
        with(&|s| s.tempo = Some(time(3, 1))),
        with(&|s| s.voices[0].events[0].onset = time(-1, 1)),
        with(&|s| s.voices[0].events[0].duration = time(0, 1)),
        with(&|s| s.voices[0].events[0].pitches.clear()),
        with(&|s| s.voices[0].events[0].pitches = vec![Pitch::new(128)]),
    ];
    for (i, result) in refusals.into_iter().enumerate() {
        let err = result.expect_err("refused");
        assert!(!err.to_string().is_empty(), "case {i}");
    }
}
