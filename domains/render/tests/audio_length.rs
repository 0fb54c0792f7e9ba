//! The audio lasts as long as the score — bars × beats under the tempo map — in
//! several meters and with tempo changes read from MIDI files, within 1%; and a
//! note after a tempo change starts where the map says.

mod common;

use cantus_music::{Event, Meter, Pitch, Score, Voice, midi, time};
use cantus_render::audio::{Instrument, TempoMap, score_seconds, synthesise};
use cantus_render::tools;
use midly::num::{u4, u7, u15, u24, u28};
use midly::{Format, Header, MetaMessage, MidiMessage, Smf, Timing, TrackEvent, TrackEventKind};

fn instrument() -> Option<Instrument> {
    let sf = common::tool_or_skip(tools::soundfont(None))?;
    Some(Instrument::load(&sf).expect("the SoundFont loads"))
}

/// A MIDI file: one note per beat for `bars` bars of `num/den`, and the given
/// tempo changes (quarter position, bpm) on the conductor track.
fn midi_file(num: u8, den_pow: u8, bars: u32, tempi: &[(u32, u32)]) -> Vec<u8> {
    let ppq = 480u32;
    let beat = 4 * ppq / (1 << den_pow);
    let mut conductor = vec![TrackEvent {
        delta: u28::new(0),
        kind: TrackEventKind::Meta(MetaMessage::TimeSignature(num, den_pow, 24, 8)),
    }];
    let mut last = 0u32;
    for &(quarter, bpm) in tempi {
        conductor.push(TrackEvent {
            delta: u28::new(quarter * ppq - last),
            kind: TrackEventKind::Meta(MetaMessage::Tempo(u24::new(60_000_000 / bpm))),
        });
        last = quarter * ppq;
    }
    let end = bars * u32::from(num) * beat;
    conductor.push(TrackEvent {
        delta: u28::new(end - last),
        kind: TrackEventKind::Meta(MetaMessage::EndOfTrack),
    });
    let mut notes = Vec::new();
    for k in 0..bars * u32::from(num) {
        let key = u7::new(60 + (k % 12) as u8);
        notes.push(TrackEvent {
            delta: u28::new(0),
            kind: TrackEventKind::Midi {
                channel: u4::new(0),
                message: MidiMessage::NoteOn {
                    key,
                    vel: u7::new(80),
                },
            },
        });
        notes.push(TrackEvent {
            delta: u28::new(beat),
            kind: TrackEventKind::Midi {
                channel: u4::new(0),
                message: MidiMessage::NoteOff {
                    key,
                    vel: u7::new(0),
                },
            },
        });
    }
    notes.push(TrackEvent {
        delta: u28::new(0),
        kind: TrackEventKind::Meta(MetaMessage::EndOfTrack),
    });
    let smf = Smf {
        header: Header::new(Format::Parallel, Timing::Metrical(u15::new(ppq as u16))),
        tracks: vec![conductor, notes],
    };
    let mut bytes = Vec::new();
    smf.write(&mut bytes).expect("midly encodes");
    bytes
}

/// (meter numerator, log2 of its denominator, bars, tempo changes, expected seconds).
type Case = (u8, u8, u32, &'static [(u32, u32)], f64);

#[test]
fn audio_lasts_as_long_as_the_score_with_tempo_changes_and_in_several_meters() {
    let Some(instrument) = instrument() else {
        return;
    };
    // (meter num, log2 den, bars, tempo changes at quarter positions, expected seconds by hand)
    let cases: [Case; 4] = [
        // 4/4, 4 bars: 8 quarters at 60 bpm (8 s) then 8 at 120 (4 s).
        (4, 2, 4, &[(0, 60), (8, 120)], 12.0),
        // 3/4, 6 bars = 18 quarters: 6 at 90 (4 s), 12 at 45 (16 s).
        (3, 2, 6, &[(0, 90), (6, 45)], 20.0),
        // 6/8, 4 bars = 12 quarters: 3 at 72 (2.5 s), 9 at 108 (5 s).
        (6, 3, 4, &[(0, 72), (3, 108)], 7.5),
        // 5/4, 2 bars = 10 quarters at 100 bpm, no change.
        (5, 2, 2, &[(0, 100)], 6.0),
    ];
    for (num, den_pow, bars, tempi, expected) in cases {
        let bytes = midi_file(num, den_pow, bars, tempi);
        let score = midi::read(&bytes).expect("our file reads");
        let map = TempoMap::from_midi(&bytes, score.tempo);
        assert!(
            (score_seconds(&score, &map) - expected).abs() < 1e-4,
            "{num}/{}: µs rounding only",
            1 << den_pow
        );
        let audio = synthesise(&score, &map, &instrument).expect("synthesised");
        let measured = audio.seconds();
        eprintln!(
            "{num}/{} {bars} bars, tempi {tempi:?}: expected {expected:.3} s, audio {measured:.4} s",
            1 << den_pow
        );
        assert!(
            ((measured - expected) / expected).abs() < 0.01,
            "{measured} vs {expected}"
        );
    }
}

#[test]
fn a_note_after_a_tempo_change_sounds_where_the_tempo_map_puts_it() {
    let Some(instrument) = instrument() else {
        return;
    };
    // Silence, then one note at quarter 6: 4 quarters at 60 bpm (4 s) + 2 at 30 bpm (4 s) = 8 s.
    let score = Score {
        meter: Meter::new(4, 4),
        bars: Some(3),
        voices: vec![Voice {
            name: "Piano".into(),
            events: vec![Event::new(time(6, 1), time(1, 1), vec![Pitch::new(72)])],
            ..Voice::default()
        }],
        ..Score::default()
    };
    let map = TempoMap::from_changes(&[(time(0, 1), 60.0), (time(4, 1), 30.0)]);
    let audio = synthesise(&score, &map, &instrument).expect("synthesised");
    let first = audio
        .left
        .iter()
        .zip(&audio.right)
        .position(|(l, r)| l.abs().max(r.abs()) > 1e-3)
        .expect("the note sounds");
    let onset = first as f64 / f64::from(audio.rate);
    assert!(
        (onset - 8.0).abs() < 0.02,
        "the note starts at {onset} s, expected 8 s"
    );
    // 12 quarters: 4 s + 8 quarters at 30 bpm (16 s) = 20 s.
    assert!((audio.seconds() - 20.0).abs() < 0.01, "{}", audio.seconds());
}

#[test]
fn a_missing_soundfont_names_the_package_that_installs_one() {
    let err =
        tools::soundfont(Some(std::path::Path::new("/nonexistent/font.sf2"))).expect_err("missing");
    let text = err.to_string();
    assert!(
        text.contains("SoundFont") && text.contains("fluid-soundfont-gm"),
        "{text}"
    );
}
