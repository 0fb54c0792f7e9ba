//! How `midi::read` turns files other programs write into voices and events:
//! format 0 channel splitting, FIFO note pairing, odd notes, names, metadata and
//! the files it refuses. Files are built event by event with midly.

use cantus_music::midi::{self, MidiError, MidiWarning};
use cantus_music::{Meter, Mode, Pitch, Time, time};
use midly::num::{u4, u7, u15, u24, u28};
use midly::{
    Format, Fps, Header, MetaMessage, MidiMessage, Smf, Timing, TrackEvent, TrackEventKind,
};

/// A track event `delta` ticks after the previous one.
fn at(delta: u32, kind: TrackEventKind<'static>) -> TrackEvent<'static> {
    TrackEvent {
        delta: u28::new(delta),
        kind,
    }
}

fn on(channel: u8, key: u8, vel: u8) -> TrackEventKind<'static> {
    TrackEventKind::Midi {
        channel: u4::new(channel),
        message: MidiMessage::NoteOn {
            key: u7::new(key),
            vel: u7::new(vel),
        },
    }
}

fn off(channel: u8, key: u8) -> TrackEventKind<'static> {
    TrackEventKind::Midi {
        channel: u4::new(channel),
        message: MidiMessage::NoteOff {
            key: u7::new(key),
            vel: u7::new(64),
        },
    }
}

fn name(text: &'static str) -> TrackEventKind<'static> {
    TrackEventKind::Meta(MetaMessage::TrackName(text.as_bytes()))
}

fn end() -> TrackEventKind<'static> {
    TrackEventKind::Meta(MetaMessage::EndOfTrack)
}

fn file(format: Format, timing: Timing, tracks: Vec<Vec<TrackEvent<'static>>>) -> Vec<u8> {
    let smf = Smf {
        header: Header::new(format, timing),
        tracks,
    };
    let mut bytes = Vec::new();
    smf.write(&mut bytes).expect("midly encodes");
    bytes
}

fn ppq(n: u16) -> Timing {
    Timing::Metrical(u15::new(n))
}

/// `(onset, duration, keys)` of every event of a voice.
fn shape(voice: &cantus_music::Voice) -> Vec<(Time, Time, Vec<u8>)> {
    voice
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

#[test]
fn format_0_splits_channels_into_voices() {
    let bytes = file(
        Format::SingleTrack,
        ppq(480),
        vec![vec![
            at(0, name("Piano")),
            at(0, on(0, 72, 90)),
            at(0, on(1, 48, 90)),
            at(480, off(0, 72)),
            at(240, off(1, 48)),
            at(0, end()),
        ]],
    );
    let score = midi::read(&bytes).expect("reads");
    assert_eq!(
        score.title, None,
        "the only track holds notes: no conductor, no title"
    );
    let names: Vec<&str> = score.voices.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["Piano (channel 1)", "Piano (channel 2)"]);
    assert_eq!(
        shape(&score.voices[0]),
        vec![(time(0, 1), time(1, 1), vec![72])]
    );
    assert_eq!(
        shape(&score.voices[1]),
        vec![(time(0, 1), time(3, 2), vec![48])]
    );
}

#[test]
fn notes_pair_first_in_first_out_and_velocity_0_ends_a_note() {
    let bytes = file(
        Format::Parallel,
        ppq(480),
        vec![vec![
            at(0, on(0, 60, 100)),
            at(240, on(0, 60, 100)),
            at(240, on(0, 60, 0)), // ends the note from tick 0
            at(480, off(0, 60)),   // ends the note from tick 240
            at(0, end()),
        ]],
    );
    let (score, warnings) = midi::read_with_warnings(&bytes).expect("reads");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        shape(&score.voices[0]),
        vec![
            (time(0, 1), time(1, 1), vec![60]),
            (time(1, 2), time(3, 2), vec![60]),
        ]
    );
}

#[test]
fn chords_gather_notes_of_equal_onset_and_length_only() {
    let bytes = file(
        Format::Parallel,
        ppq(10080),
        vec![vec![
            at(0, on(0, 60, 80)),
            at(0, on(0, 64, 80)),
            at(0, on(0, 67, 80)),
            at(3360, off(0, 60)), // a third of a quarter: exact
            at(0, off(0, 64)),
            at(3360, off(0, 67)),
            at(0, end()),
        ]],
    );
    let score = midi::read(&bytes).expect("reads");
    assert_eq!(
        shape(&score.voices[0]),
        vec![
            (time(0, 1), time(1, 3), vec![60, 64]),
            (time(0, 1), time(2, 3), vec![67]),
        ]
    );
    assert!(
        score.voices[0].events[0]
            .pitches
            .iter()
            .all(|p| p.spelling.is_none())
    );
}

#[test]
fn odd_notes_are_read_with_warnings() {
    let bytes = file(
        Format::Parallel,
        ppq(480),
        vec![vec![
            at(0, off(0, 50)), // nothing sounding
            at(0, on(0, 62, 80)),
            at(0, on(0, 64, 80)),
            at(0, off(0, 64)), // zero length
            at(960, on(0, 65, 80)),
            at(480, end()), // 62 and 65 never switched off
        ]],
    );
    let (score, warnings) = midi::read_with_warnings(&bytes).expect("odd but readable");
    assert_eq!(
        shape(&score.voices[0]),
        vec![
            (time(0, 1), time(3, 1), vec![62]),
            (time(2, 1), time(1, 1), vec![65]),
        ]
    );
    assert_eq!(
        warnings,
        vec![
            MidiWarning::StrayNoteOff {
                track: 0,
                channel: 0,
                key: 50,
                tick: 0
            },
            MidiWarning::ZeroLengthNote {
                track: 0,
                channel: 0,
                key: 64,
                tick: 0
            },
            MidiWarning::UnclosedNote {
                track: 0,
                channel: 0,
                key: 62,
                onset_tick: 0,
                end_tick: 1440
            },
            MidiWarning::UnclosedNote {
                track: 0,
                channel: 0,
                key: 65,
                onset_tick: 960,
                end_tick: 1440
            },
        ]
    );
    assert!(warnings[2].to_string().contains("never switched off"));
    assert_eq!(
        midi::read(&bytes).expect("read gives the same score"),
        score
    );
}

#[test]
fn names_titles_and_first_metadata() {
    let conductor = vec![
        at(0, name("Choral")),
        at(
            0,
            TrackEventKind::Meta(MetaMessage::TimeSignature(6, 3, 36, 8)),
        ),
        at(0, TrackEventKind::Meta(MetaMessage::KeySignature(-3, true))),
        at(
            0,
            TrackEventKind::Meta(MetaMessage::Tempo(u24::new(600_000))),
        ),
        at(
            960,
            TrackEventKind::Meta(MetaMessage::Tempo(u24::new(500_000))),
        ),
        at(0, end()),
    ];
    let part = |label: Option<&'static str>, key: u8| {
        let mut events = Vec::new();
        if let Some(label) = label {
            events.push(at(0, name(label)));
        }
        events.extend([at(0, on(0, key, 80)), at(480, off(0, key)), at(0, end())]);
        events
    };
    let bytes = file(
        Format::Parallel,
        ppq(480),
        vec![
            conductor,
            part(Some("Tenor"), 55),
            vec![at(0, name("Empty")), at(0, end())],
            part(Some("Tenor"), 57),
            part(None, 43),
            part(Some("Tenor"), 59),
        ],
    );
    let (score, warnings) = midi::read_with_warnings(&bytes).expect("reads");
    assert_eq!(score.title.as_deref(), Some("Choral"));
    let names: Vec<&str> = score.voices.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["Tenor", "Tenor #2", "Voice 3", "Tenor #3"]);
    assert_eq!(score.meter, Meter::new(6, 8));
    let key = score.key.expect("key signature read");
    assert_eq!((key.fifths(), key.mode), (-3, Mode::Minor));
    assert_eq!(
        score.tempo,
        Some(time(100, 1)),
        "600 000 µs = 100 bpm, the first tempo"
    );
    assert_eq!(
        warnings,
        vec![MidiWarning::IgnoredChange {
            track: 0,
            tick: 960,
            what: "tempo"
        }]
    );
    assert_eq!(score.bars, None);
    assert_eq!(score.voices[2].events[0].pitches, vec![Pitch::new(43)]);
}

#[test]
fn files_without_a_faithful_score_are_errors() {
    let notes = || vec![at(0, on(0, 60, 80)), at(480, off(0, 60)), at(0, end())];
    assert_eq!(
        midi::read(&file(
            Format::Parallel,
            Timing::Timecode(Fps::Fps25, 40),
            vec![notes()]
        )),
        Err(MidiError::SmpteTiming {
            fps: 25,
            subframes: 40
        })
    );
    assert_eq!(
        midi::read(&file(Format::Parallel, ppq(0), vec![notes()])),
        Err(MidiError::ZeroResolution)
    );
    assert_eq!(
        midi::read(&file(Format::Sequential, ppq(480), vec![notes(), notes()])),
        Err(MidiError::SequentialFormat)
    );
    let zero_meter = vec![
        at(
            0,
            TrackEventKind::Meta(MetaMessage::TimeSignature(0, 2, 24, 8)),
        ),
        at(0, end()),
    ];
    let err = midi::read(&file(Format::Parallel, ppq(480), vec![zero_meter, notes()]))
        .expect_err("a 0/4 meter has no bars");
    assert!(
        matches!(
            err,
            MidiError::InvalidMeta {
                track: 0,
                tick: 0,
                ..
            }
        ),
        "{err}"
    );
    let bad_key = vec![
        at(0, TrackEventKind::Meta(MetaMessage::KeySignature(9, false))),
        at(0, end()),
    ];
    assert!(matches!(
        midi::read(&file(Format::Parallel, ppq(480), vec![bad_key, notes()])),
        Err(MidiError::InvalidMeta { .. })
    ));
    for garbage in [&b""[..], b"MThd", b"RIFF....", b"not a midi file at all"] {
        let err = midi::read(garbage).expect_err("not MIDI");
        assert!(
            matches!(err, MidiError::Header { offset: 0 | 4, .. }),
            "{err}"
        );
    }
}
