//! Random scores for the MusicXML tests, shared by the round-trip properties and
//! the music21 agreement check.
//!
//! Times sit on mixed grids (halves to sixteenths, triplets, sixths, twelfths),
//! so notes cross barlines, need dots, ties and triplet brackets; voices hold
//! chords, rests and, unless disabled, overlapping events (written as several
//! MusicXML voices). Every grid is a whole number of ticks at 960 per quarter,
//! so the same scores can go through MIDI.

#![allow(dead_code)]

use cantus_music::score::Mode;
use cantus_music::{Event, Key, Letter, Meter, Pitch, Score, Spelling, Time, Voice, time};
use proptest::prelude::*;

/// Denominators of onsets and durations (quarter notes).
pub const GRIDS: [i64; 8] = [1, 2, 3, 4, 6, 8, 12, 16];
/// Meters with power-of-two denominators (MIDI needs them).
pub const METERS: [(u32, u32); 8] = [
    (4, 4),
    (3, 4),
    (2, 4),
    (6, 8),
    (5, 8),
    (2, 2),
    (12, 8),
    (7, 16),
];

/// What a generated score may contain.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub max_voices: usize,
    /// Whether two notes of one voice may sound the same pitch at once
    /// (fine in MusicXML, ambiguous in MIDI).
    pub same_pitch_overlaps: bool,
}

/// One generated event before it is built: onset (numerator, grid), duration
/// (numerator, grid), pitches with a spelling choice, and a tag.
type RawEvent = ((i64, i64), (i64, i64), Vec<(u8, u8, i8)>, Option<String>);

fn raw_event() -> impl Strategy<Value = RawEvent> {
    (
        (0i64..64, prop::sample::select(&GRIDS[..])),
        (1i64..24, prop::sample::select(&GRIDS[..])),
        prop::collection::vec((24u8..=108, 0u8..4, -2i8..=2), 1..4),
        prop::option::weighted(0.3, "[A-Za-z0-9:&<>\"' -]{1,8}"),
    )
}

/// A spelling for `midi`: none, sharp default, flat default, or the letter that
/// `alter` semitones away spells it (if that is a natural).
fn spelling(midi: u8, choice: u8, alter: i8) -> Option<Spelling> {
    let pc = midi % 12;
    match choice {
        0 => None,
        1 => Some(Spelling::sharp_default(pc)),
        2 => Some(Spelling::flat_default(pc)),
        _ => {
            let natural = (i32::from(pc) - i32::from(alter)).rem_euclid(12);
            Letter::ALL
                .into_iter()
                .find(|l| l.pitch_class() == natural)
                .map(|letter| Spelling { letter, alter })
                .or(Some(Spelling::sharp_default(pc)))
        }
    }
}

fn build_voice(name: String, raw: Vec<RawEvent>, shape: Shape) -> Voice {
    let mut voice = Voice::new(name);
    for ((on_n, on_d), (du_n, du_d), pitches, tag) in raw {
        let onset = time(on_n, on_d);
        let duration = time(du_n, du_d);
        let mut ev = Event::new(
            onset,
            duration,
            pitches
                .into_iter()
                .map(|(m, c, a)| Pitch {
                    midi: m,
                    spelling: spelling(m, c, a),
                })
                .collect(),
        );
        if !shape.same_pitch_overlaps {
            let probe = ev.clone();
            ev.pitches.retain(|p| {
                !voice
                    .events
                    .iter()
                    .any(|o| o.overlaps(&probe) && o.pitches.iter().any(|q| q.midi == p.midi))
            });
            if ev.pitches.is_empty() {
                continue;
            }
        }
        ev.tag = tag;
        voice.events.push(ev);
    }
    voice.sort();
    voice
}

/// Random scores of the given shape.
pub fn arb_score(shape: Shape) -> impl Strategy<Value = Score> {
    let key = || {
        (-7i32..=7, any::<bool>()).prop_map(|(f, minor)| {
            Key::from_fifths(f, if minor { Mode::Minor } else { Mode::Major })
        })
    };
    let voices = prop::collection::vec(
        (
            "[A-Za-z][A-Za-z0-9 &<>]{0,10}",
            prop::collection::vec(raw_event(), 0..10),
            // A part's own key (a transposing instrument), now and then.
            prop::option::weighted(0.25, key()),
        ),
        1..=shape.max_voices,
    );
    let key = prop::option::of(key());
    // Tempos whose decimals terminate, so MusicXML carries them exactly.
    let tempo = prop::option::of(
        (
            20i64..400,
            prop::sample::select(&[1i64, 2, 4, 5, 8, 10][..]),
        )
            .prop_map(|(n, d)| time(n * 10, d * 10) + time(n % 7, d)),
    );
    (
        voices,
        prop::sample::select(&METERS[..]),
        key,
        tempo,
        prop::option::of("[A-Za-z0-9 &<>\"'é]{0,16}"),
        prop::option::of(0u32..3),
    )
        .prop_map(move |(voices, (num, den), key, tempo, title, extra_bars)| {
            let mut score = Score {
                title,
                key,
                meter: Meter::new(num, den),
                tempo,
                bars: None,
                voices: voices
                    .into_iter()
                    .map(|(name, raw, own)| Voice {
                        // A part without a signature reads back in the score's key,
                        // so parts have keys of their own only where the score has one.
                        key: own.filter(|_| key.is_some()),
                        ..build_voice(name, raw, shape)
                    })
                    .collect(),
            };
            if let Some(extra) = extra_bars {
                score.bars = Some(score.bar_count() + extra);
            }
            score
        })
}

/// A hand-made score: a tied chord across a barline, a triplet run, dotted
/// notes, rests, two overlapping lines in one voice, a bass voice, a tagged note.
pub fn hand_made() -> Score {
    let sp = |letter, alter| Some(Spelling { letter, alter });
    let p = |midi, spelling| Pitch { midi, spelling };
    let mut upper = Voice::new("Upper");
    let mut ev = |on: Time, dur: Time, pitches: Vec<Pitch>| {
        upper.events.push(Event::new(on, dur, pitches));
    };
    // Bar 1: dotted quarter, eighth, a triplet-eighth run, rest.
    ev(time(0, 1), time(3, 2), vec![p(72, sp(Letter::C, 0))]);
    ev(time(3, 2), time(1, 2), vec![p(74, sp(Letter::D, 0))]);
    ev(time(2, 1), time(1, 3), vec![p(75, sp(Letter::E, -1))]);
    ev(time(7, 3), time(1, 3), vec![p(77, None)]);
    ev(time(8, 3), time(1, 3), vec![p(78, sp(Letter::G, -1))]);
    // A chord held from beat 4 of bar 1 over the barline.
    ev(
        time(7, 2),
        time(3, 1),
        vec![
            p(67, sp(Letter::G, 0)),
            p(71, sp(Letter::B, 0)),
            p(74, None),
        ],
    );
    // A second line overlapping the held chord: quarter triplets.
    ev(time(4, 1), time(2, 3), vec![p(79, sp(Letter::G, 0))]);
    ev(time(14, 3), time(2, 3), vec![p(80, sp(Letter::A, -1))]);
    ev(time(16, 3), time(2, 3), vec![p(81, sp(Letter::A, 0))]);
    upper.events[0].tag = Some("P0:1".into());
    upper.sort();
    let mut bass = Voice::new("Bass");
    bass.events.push(Event::new(
        time(0, 1),
        time(5, 1),
        vec![Pitch::new(36), Pitch::new(43)],
    ));
    bass.events
        .push(Event::new(time(6, 1), time(2, 1), vec![Pitch::new(41)]));
    Score {
        title: Some("Hand-made <test> & check".into()),
        key: Some(Key::from_fifths(-3, Mode::Minor)),
        meter: Meter::new(4, 4),
        tempo: Some(time(225, 2)),
        bars: Some(3),
        voices: vec![upper, bass],
    }
}

/// What MusicXML cannot carry, applied to an expected score: an empty part name
/// comes back as the part id (`P1`, `P2`, …); unspelled pitches
/// take their sharp default spelling; the bar count is the number of measures
/// written when that exceeds what the notes need, else `None`; events of a voice
/// are in the reader's total order (onset, duration, pitches, tag).
pub fn normalise(score: &Score) -> Score {
    let mut s = score.clone();
    // Every part is written with a key, its own else the score's; read back, the
    // score's key is the first written and a part in that key has none of its own.
    let written: Vec<_> = s.voices.iter().map(|v| s.part_key(v)).collect();
    s.key = written.iter().flatten().next().copied();
    for (v, key) in s.voices.iter_mut().zip(written) {
        v.key = key.filter(|k| Some(*k) != s.key);
    }
    for (i, v) in s.voices.iter_mut().enumerate() {
        if v.name.trim().is_empty() {
            // An empty part name is read as the part's id.
            v.name = format!("P{}", i + 1);
        }
        for e in &mut v.events {
            for p in &mut e.pitches {
                p.spelling = Some(p.spelling_or_default());
            }
        }
        sort_total(v);
    }
    let written = s.bar_count().max(1);
    let needed = u32::try_from((s.end() / s.bar_length()).ceil().to_integer()).unwrap_or(0);
    s.bars = (written > needed).then_some(written);
    s
}

/// Sorts a voice's events by onset, duration, pitches and tag.
pub fn sort_total(v: &mut Voice) {
    v.events.sort_by(|a, b| {
        let key = |e: &Event| {
            (
                e.onset,
                e.duration,
                e.pitches
                    .iter()
                    .map(|p| (p.midi, p.spelling.map(|s| (s.letter, s.alter))))
                    .collect::<Vec<_>>(),
                e.tag.clone(),
            )
        };
        key(a).cmp(&key(b))
    });
}

/// `(onset, duration, [midi…])` of every event of voice `v`: what a reader test
/// compares when spellings and tags are not the point.
pub fn timed_events(score: &Score, v: usize) -> Vec<(Time, Time, Vec<u8>)> {
    score.voices[v]
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
