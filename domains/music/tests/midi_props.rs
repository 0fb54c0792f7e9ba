//! Properties of the MIDI format: `read(write(s)) == s` up to what MIDI cannot
//! carry, and `read` never panics, whatever the bytes.
//!
//! What the round trip normalises away (MIDI has no place for it): pitch
//! spellings (read back as `None`), event tags (`None`), the declared bar count
//! (`None`), voices without events (no notes, no voice), and events of one voice
//! that share onset and duration (read back as one chord).

use cantus_music::midi;
use cantus_music::{Event, Key, Meter, Mode, Pitch, Score, Spelling, Time, Voice, time};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Grids (quarter notes per step) that are whole ticks at 960 per quarter:
/// binary down to the 64th, triplets down to 24 per whole, quintuplets.
const GRIDS: [(i64, i64); 8] = [
    (1, 1),
    (1, 2),
    (1, 3),
    (1, 4),
    (1, 5),
    (1, 6),
    (1, 8),
    (1, 16),
];

const METERS: [(u32, u32); 7] = [(4, 4), (3, 4), (2, 4), (6, 8), (5, 8), (2, 2), (7, 16)];

/// One voice as generated: grid, then (step from previous onset, length, keys,
/// spelled?, tag?) in grid units.
type RawVoice = ((i64, i64), Vec<(i64, i64, Vec<u8>, bool, bool)>);

fn raw_voice() -> impl Strategy<Value = RawVoice> {
    (
        prop::sample::select(&GRIDS[..]),
        prop::collection::vec(
            (
                0i64..6,
                1i64..12,
                prop::collection::vec(21u8..=108, 1..4),
                any::<bool>(),
                any::<bool>(),
            ),
            0..14,
        ),
    )
}

/// Builds a voice, dropping pitches that would overlap an earlier note of the
/// same pitch (MIDI has one key per channel) and events left without pitches.
fn build_voice(name: String, (grid, raw): RawVoice) -> Voice {
    let unit = time(grid.0, grid.1);
    let mut voice = Voice::new(name);
    let mut onset = Time::from_integer(0);
    let mut sounding_until: BTreeMap<u8, Time> = BTreeMap::new();
    for (step, length, keys, spelled, tagged) in raw {
        onset += unit * Time::from_integer(step);
        let duration = unit * Time::from_integer(length);
        let mut pitches = Vec::new();
        for key in keys {
            if sounding_until.get(&key).is_some_and(|until| *until > onset) {
                continue;
            }
            sounding_until.insert(key, onset + duration);
            pitches.push(if spelled {
                Pitch::spelled(key, Spelling::flat_default(key % 12))
            } else {
                Pitch::new(key)
            });
        }
        if pitches.is_empty() {
            continue;
        }
        let mut event = Event::new(onset, duration, pitches);
        if tagged {
            event.tag = Some(format!("P0:{step}"));
        }
        voice.events.push(event);
    }
    voice.sort();
    voice
}

fn score() -> impl Strategy<Value = Score> {
    (
        prop::option::of("[A-Z][a-zäöü]{0,8}( [a-z]{1,5})?"),
        prop::option::of((-7i32..=7, any::<bool>())),
        prop::sample::select(&METERS[..]),
        prop::option::of((30i64..300, 1i64..=4)),
        prop::option::of(1u32..40),
        prop::collection::vec(("[A-Z][a-zé]{0,6}", raw_voice()), 1..6),
    )
        .prop_map(|(title, key, (num, den), tempo, bars, voices)| Score {
            title,
            key: key.map(|(fifths, minor)| {
                Key::from_fifths(fifths, if minor { Mode::Minor } else { Mode::Major })
            }),
            meter: Meter::new(num, den),
            tempo: tempo.map(|(p, q)| time(p, q)),
            bars,
            voices: voices
                .into_iter()
                .enumerate()
                .map(|(i, (name, raw))| build_voice(format!("{name} {i}"), raw))
                .collect(),
        })
}

/// `score` reduced to what MIDI carries (see the module docs).
fn as_midi_carries(score: &Score) -> Score {
    let voices = score
        .voices
        .iter()
        .filter(|v| !v.events.is_empty())
        .map(|v| {
            let mut chords: BTreeMap<(Time, Time), Vec<Pitch>> = BTreeMap::new();
            for e in &v.events {
                chords
                    .entry((e.onset, e.duration))
                    .or_default()
                    .extend(e.pitches.iter().map(|p| Pitch::new(p.midi)));
            }
            let mut voice = Voice::new(v.name.clone());
            voice.events = chords
                .into_iter()
                .map(|((onset, duration), pitches)| Event::new(onset, duration, pitches))
                .collect();
            voice.sort();
            voice
        })
        .collect();
    Score {
        bars: None,
        voices,
        ..score.clone()
    }
}

proptest! {
    #[test]
    fn read_inverts_write_up_to_what_midi_cannot_carry(score in score()) {
        let bytes = midi::write(&score).expect("generated scores are writable");
        let (back, warnings) = midi::read_with_warnings(&bytes).expect("our own files read");
        prop_assert!(warnings.is_empty(), "{:?}", warnings);
        prop_assert_eq!(back, as_midi_carries(&score));
    }

    #[test]
    fn writing_what_was_read_gives_the_same_bytes(score in score()) {
        let bytes = midi::write(&as_midi_carries(&score)).expect("writable");
        let back = midi::read(&bytes).expect("reads");
        let again = midi::write(&back).expect("writable again");
        prop_assert_eq!(again, bytes);
    }

    #[test]
    fn read_never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let _ = midi::read(&bytes);
    }

    #[test]
    fn read_never_panics_on_bytes_after_a_valid_header(tail in prop::collection::vec(any::<u8>(), 0..600)) {
        // "MThd", length 6, format 1, 2 tracks, 480 ticks per quarter, then a track
        // chunk header: the random bytes land in the event parser.
        let mut bytes = b"MThd\x00\x00\x00\x06\x00\x01\x00\x02\x01\xe0MTrk".to_vec();
        bytes.extend_from_slice(&u32::try_from(tail.len()).unwrap_or(0).to_be_bytes());
        bytes.extend_from_slice(&tail);
        let _ = midi::read(&bytes);
    }

    #[test]
    fn read_never_panics_on_mutated_files(
        score in score(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..12),
    ) {
        let mut bytes = midi::write(&score).expect("writable");
        for (at, value, kind) in edits {
            if bytes.is_empty() {
                break;
            }
            let i = at.index(bytes.len());
            match kind {
                0 => bytes[i] = value,
                1 => bytes.insert(i, value),
                _ => bytes.truncate(i),
            }
        }
        let _ = midi::read(&bytes);
    }
}

#[test]
fn every_truncation_of_a_valid_file_reads_or_errs() {
    let mut voice = Voice::new("Soprano");
    for i in 0..8 {
        voice.events.push(Event::new(
            time(i, 3),
            time(1, 3),
            vec![Pitch::new(60 + u8::try_from(i).unwrap_or(0))],
        ));
    }
    let score = Score {
        title: Some("Triolen".into()),
        tempo: Some(time(72, 1)),
        voices: vec![voice],
        ..Score::default()
    };
    let bytes = midi::write(&score).expect("writable");
    assert_eq!(midi::read(&bytes).expect("whole file reads"), score);
    for len in 0..bytes.len() {
        let _ = midi::read(&bytes[..len]);
    }
}
