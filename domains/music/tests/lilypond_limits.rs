//! The LilyPond writer refuses what would make its output (or its memory) grow
//! without bound, as the MusicXML and grammar writers do, and it refuses quickly:
//! each case below was, before the limits, a multi-gigabyte allocation, a
//! 130 MB file or a hang (issue 17, item 5).

use cantus_music::grammar::{self, ParseOptions};
use cantus_music::lilypond::{self, LilypondError, MAX_BAR_LINES, MAX_BARS};
use cantus_music::{Event, Meter, Pitch, Score, Voice, midi, time};
use midly::num::{u4, u7, u15, u28};
use midly::{Format, Header, MidiMessage, Smf, Timing, TrackEvent, TrackEventKind};

fn from_text(body: &str) -> Score {
    let text =
        format!("KEY: ? | METER: 4/4 | TEMPO: 60 | GRID: 16th\nVOICES: V\n@1 [-]\n  V: {body}\n");
    grammar::parse(&text, &ParseOptions::default())
        .unwrap_or_else(|e| panic!("the grammar reads it: {e}"))
        .score
}

fn too_large(score: &Score) -> String {
    match lilypond::write(score) {
        Err(LilypondError::TooLarge(message)) => message,
        other => panic!("expected TooLarge, got {:?}", other.map(|s| s.len())),
    }
}

#[test]
fn a_note_of_four_billion_slots_is_refused_not_allocated() {
    let message = too_large(&from_text("C4@1>4294967295"));
    assert!(
        message.contains(&format!("at most {MAX_BARS} are written")),
        "{message}"
    );
}

#[test]
fn a_forty_million_slot_note_is_refused_not_written() {
    let message = too_large(&from_text("C4@1>40000000"));
    assert!(message.contains("2500000 bars"), "{message}");
}

#[test]
fn the_last_bar_within_the_limit_is_still_written() {
    // MAX_BARS bars of 4/4 at 16 slots a bar: one note filling all of them.
    let slots = u64::from(MAX_BARS) * 16;
    let score = from_text(&format!("C4@1>{slots}"));
    let ly = lilypond::write(&score).expect("exactly at the limit");
    assert_eq!(ly.matches(" |\n").count(), MAX_BARS as usize);
    let one_more = from_text(&format!("C4@1>{}", slots + 1));
    too_large(&one_more);
}

#[test]
fn a_midi_file_with_a_huge_delta_time_is_refused() {
    // One tick per quarter and the largest delta MIDI can store: a note
    // 268 million quarters in (67 million bars of 4/4).
    let event = |delta: u32, message| TrackEvent {
        delta: u28::new(delta),
        kind: TrackEventKind::Midi {
            channel: u4::new(0),
            message,
        },
    };
    let key = u7::new(60);
    let track = vec![
        event(
            0x0FFF_FFFF,
            MidiMessage::NoteOn {
                key,
                vel: u7::new(80),
            },
        ),
        event(
            1,
            MidiMessage::NoteOff {
                key,
                vel: u7::new(0),
            },
        ),
        TrackEvent {
            delta: u28::new(0),
            kind: TrackEventKind::Meta(midly::MetaMessage::EndOfTrack),
        },
    ];
    let smf = Smf {
        header: Header::new(Format::SingleTrack, Timing::Metrical(u15::new(1))),
        tracks: vec![track],
    };
    let mut bytes = Vec::new();
    smf.write(&mut bytes).expect("midly encodes");
    let score = midi::read(&bytes).expect("a readable file");
    let message = too_large(&score);
    assert!(message.contains("67108864 bars"), "{message}");
}

#[test]
fn a_declared_bar_count_beyond_the_limit_is_refused() {
    let score = Score {
        bars: Some(u32::MAX),
        voices: vec![Voice::new("V")],
        ..Score::default()
    };
    too_large(&score);
}

#[test]
fn many_overlapping_notes_over_many_bars_are_refused_by_their_total() {
    // 20 notes all sounding at once over 60 000 bars: 20 LilyPond voices × 60 000
    // bars = 1.2 million bars in all, past MAX_BAR_LINES.
    let bars = 60_000i64;
    let events = (0..20u8)
        .map(|k| Event::new(time(0, 1), time(4 * bars, 1), vec![Pitch::new(40 + k)]))
        .map(|mut e| {
            // Different lengths, so they do not merge into one chord.
            e.duration -= time(i64::from(e.pitches[0].midi - 40), 4);
            e
        })
        .collect();
    let score = Score {
        voices: vec![Voice {
            name: "Cluster".into(),
            events,
            ..Voice::default()
        }],
        ..Score::default()
    };
    assert!(20 * bars as u64 > MAX_BAR_LINES);
    let message = too_large(&score);
    assert!(message.contains("\"Cluster\""), "{message}");
}

#[test]
fn meters_and_times_beyond_the_grid_are_refused_before_any_arithmetic() {
    let mut huge_meter = from_text("C4@1>4");
    huge_meter.meter = Meter::new(u32::MAX, 1);
    assert!(matches!(
        lilypond::write(&huge_meter),
        Err(LilypondError::Score(_))
    ));

    // A time with a denominator no notation uses, at the edge of i64: refused by
    // the grid check, with no overflow on the way.
    let mut far = from_text("C4@1>4");
    far.voices[0].events[0].onset = time(i64::MAX - 1, 7);
    let err = lilypond::write(&far).expect_err("off the grid");
    assert!(
        matches!(&err, LilypondError::NotNotatable { at, .. } if *at == time(i64::MAX - 1, 7)),
        "{err:?}"
    );

    let mut far_on_grid = from_text("C4@1>4");
    far_on_grid.voices[0].events[0].onset = time(i64::MAX, 1);
    too_large(&far_on_grid);
}
