//! Issue 17, item 8: every writer refuses what its reader would refuse. Over
//! scores generated to stress the edges (keys with many accidentals, meters up
//! to 1200, odd tuplets, mismatched spellings, control characters, commas and
//! colons in names, tempi that do not terminate in decimal), for the grammar,
//! MIDI and MusicXML writers alike:
//!
//! * whatever the writer writes, its reader reads (no refusal, no panic);
//! * what it reads writes again to the very same bytes as the score projected
//!   onto what the format carries (nothing written is lost or changed on
//!   reading; for MusicXML, from the second write on);
//! * the text grammar reads back equal to the score, up to its documented
//!   projection (no title, spelled pitches, sorted voices, declared bars), and
//!   MusicXML equal to `musicxml_common::normalise` when its tempo terminates.

mod musicxml_common;

use cantus_music::grammar::{self, ParseOptions};
use cantus_music::{
    Event, Key, Letter, Meter, Mode, Pitch, Score, Spelling, Time, Voice, midi, musicxml, time,
};
use proptest::prelude::*;

/// Denominators of onsets and durations: binary, triplets, quintuplets,
/// septuplets, and ones no format's grid holds.
const DENOMINATORS: [i64; 11] = [1, 2, 3, 4, 5, 7, 8, 12, 16, 32, 1009];

/// A spelling for `midi`: mostly none or one that fits it (`alter` semitones
/// from a natural), sometimes any letter and alteration (which writers refuse).
fn spell(midi: u8, choice: u8, letter: usize, alter: i8) -> Option<Spelling> {
    match choice {
        0..=11 => None,
        12..=38 => {
            let natural = (i32::from(midi % 12) - i32::from(alter)).rem_euclid(12);
            Letter::ALL
                .into_iter()
                .find(|l| l.pitch_class() == natural)
                .map(|letter| Spelling { letter, alter })
        }
        _ => Some(Spelling {
            letter: Letter::ALL[letter],
            alter,
        }),
    }
}

fn denominator() -> impl Strategy<Value = i64> {
    prop_oneof![30 => prop::sample::select(&DENOMINATORS[..DENOMINATORS.len() - 1]), 1 => Just(1009)]
}

fn event() -> impl Strategy<Value = Event> {
    (
        (0i64..40, denominator()),
        (1i64..12, denominator()),
        prop::collection::vec(
            (
                prop_oneof![20 => 12u8..=127, 1 => 0u8..12],
                0u8..40,
                0usize..7,
                -3i8..=3,
            ),
            1..4,
        ),
        prop::option::weighted(
            0.2,
            prop_oneof![9 => "[A-Za-z0-9:-]{1,6}", 1 => "[A-Za-z0-9:{}%\u{1}é ]{0,6}"],
        ),
    )
        .prop_map(|((on, od), (du, dd), pitches, tag)| {
            let mut e = Event::new(
                time(on, od),
                time(du, dd),
                pitches
                    .into_iter()
                    .map(|(midi, choice, letter, alter)| Pitch {
                        midi,
                        spelling: spell(midi, choice, letter, alter),
                    })
                    .collect(),
            );
            e.tag = tag;
            e
        })
}

fn score() -> impl Strategy<Value = Score> {
    let voice = (
        prop_oneof![
            12 => prop::sample::select(vec!["Alto", "Tenor", "Violin 1", "Horn in F"]),
            1 => prop::sample::select(vec!["Violin, I", " Viola", "Horn: F", "@Bass", "Ob\u{1}oe", ""]),
        ],
        any::<bool>(),
        prop::collection::vec(event(), 0..8),
    )
        .prop_map(|(name, numbered, events)| {
            // Mostly distinct names; sometimes the same one twice.
            let name = if numbered && !name.is_empty() {
                format!("{name} {}", events.len())
            } else {
                name.to_string()
            };
            let mut v = Voice { name, events, ..Voice::default() };
            v.sort();
            v
        });
    let alter = prop_oneof![10 => -1i8..=1, 1 => -12i8..=12];
    let key = prop::option::of(
        (0usize..7, alter, any::<bool>()).prop_map(|(l, alter, minor)| Key {
            tonic: Spelling {
                letter: Letter::ALL[l],
                alter,
            },
            mode: if minor { Mode::Minor } else { Mode::Major },
        }),
    );
    let meter = prop_oneof![
        3 => prop::sample::select(vec![(4u32, 4u32), (3, 4), (6, 8), (5, 8), (7, 16)]),
        1 => (1u32..1200, 1u32..1200),
        1 => prop::sample::select(vec![(3u32, 5u32), (7, 12), (1000, 1000), (1001, 4)]),
    ];
    let tempo = prop::option::of((
        1i64..2000,
        prop::sample::select(vec![1i64, 2, 3, 4, 10, 7, 1000]),
    ));
    (
        prop::collection::vec(voice, 1..4),
        key,
        meter,
        tempo,
        prop::option::of(prop_oneof![9 => "[A-Za-z ]{0,6}", 1 => "[A-Za-z \u{1}]{0,6}"]),
        prop::option::of(0u32..12),
    )
        .prop_map(|(voices, key, (num, den), tempo, title, bars)| Score {
            title,
            key,
            meter: Meter::new(num, den),
            tempo: tempo.map(|(n, d)| time(n, d)),
            bars,
            voices,
        })
}

/// What the grammar reader gives back for a score its writer wrote (the law in
/// the grammar's module docs).
fn grammar_projection(s: &Score) -> Score {
    let mut p = s.clone();
    p.title = None;
    p.bars = Some(match s.bars {
        Some(b) => {
            let last_onset_bar = s
                .voices
                .iter()
                .flat_map(|v| &v.events)
                .map(|e| s.bar_of(e.onset))
                .max()
                .unwrap_or(0);
            b.max(last_onset_bar)
        }
        None => s.bar_count(),
    });
    for v in &mut p.voices {
        for e in &mut v.events {
            for pitch in &mut e.pitches {
                pitch.spelling = Some(pitch.spelling_or_default());
            }
        }
        v.sort();
    }
    p
}

/// What the MIDI reader gives back, as its docs say: no spellings, tags or
/// declared bars; voices without notes left out; names and title trimmed, an
/// empty name `Voice N`, a repeated one `name #2`, an empty title none.
fn midi_projection(s: &Score) -> Score {
    let mut p = s.clone();
    p.bars = None;
    p.title = s
        .title
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string);
    p.voices.retain(|v| !v.events.is_empty());
    let mut used = std::collections::HashSet::new();
    for (i, v) in p.voices.iter_mut().enumerate() {
        let trimmed = v.name.trim();
        let base = if trimmed.is_empty() {
            format!("Voice {}", i + 1)
        } else {
            trimmed.to_string()
        };
        let mut name = base.clone();
        let mut k = 2;
        while !used.insert(name.clone()) {
            name = format!("{base} #{k}");
            k += 1;
        }
        v.name = name;
        for e in &mut v.events {
            e.tag = None;
            for pitch in &mut e.pitches {
                pitch.spelling = None;
            }
        }
    }
    p
}

/// Whether every decimal MusicXML writes for this tempo is exact.
fn tempo_terminates(t: Option<Time>) -> bool {
    t.is_none_or(|t| {
        let mut d = *t.denom();
        for p in [2, 5] {
            while d % p == 0 {
                d /= p;
            }
        }
        d == 1
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_grammar_reads_back_whatever_its_writer_writes(s in score()) {
        if let Ok(text) = grammar::write(&s) {
            let back = grammar::parse(&text, &ParseOptions::default());
            prop_assert!(back.is_ok(), "the reader refuses what the writer wrote:\n{}\n{}", text, back.unwrap_err());
            let back = back.expect("checked").score;
            prop_assert_eq!(&back, &grammar_projection(&s), "{}", text);
            prop_assert_eq!(grammar::write(&back).expect("writes again"), text);
        }
    }

    #[test]
    fn midi_reads_back_whatever_its_writer_writes(s in score()) {
        if let Ok(bytes) = midi::write(&s) {
            let back = midi::read(&bytes);
            prop_assert!(back.is_ok(), "the reader refuses what the writer wrote: {}", back.unwrap_err());
            let back = back.expect("checked");
            prop_assert_eq!(back.meter, s.meter);
            prop_assert_eq!(back.key.map(|k| (k.fifths(), k.mode)), s.key.map(|k| (k.fifths(), k.mode)));
            prop_assert_eq!(midi::write(&back).expect("writes again"), midi::write(&midi_projection(&s)).expect("writes"));
        }
    }

    #[test]
    fn musicxml_reads_back_whatever_its_writer_writes(s in score()) {
        if let Ok(xml) = musicxml::write(&s) {
            let back = musicxml::read(&xml);
            prop_assert!(back.is_ok(), "the reader refuses what the writer wrote:\n{}\n{}", xml, back.unwrap_err());
            let back = back.expect("checked");
            if tempo_terminates(s.tempo) {
                prop_assert_eq!(&back, &musicxml_common::normalise(&s), "{}", xml);
            }
            // From the second write on, reading and writing change nothing.
            let again = musicxml::write(&back).expect("writes again");
            prop_assert_eq!(musicxml::write(&musicxml::read(&again).expect("reads")).expect("writes"), again);
        }
    }
}

#[test]
fn the_cases_of_issue_17_item_8() {
    let mut s = Score {
        key: Some(Key {
            tonic: Spelling {
                letter: Letter::C,
                alter: -11,
            },
            mode: Mode::Major,
        }),
        voices: vec![Voice::new("A")],
        ..Score::default()
    };
    s.voices[0]
        .events
        .push(Event::new(time(0, 1), time(1, 1), vec![Pitch::new(60)]));
    // The grammar carries the key exactly; MusicXML and MIDI refuse it rather
    // than write a signature their readers refuse.
    let text = grammar::write(&s).expect("the grammar holds any spelling");
    assert!(text.starts_with("KEY: Cbbbbbbbbbbb major"), "{text}");
    assert!(musicxml::write(&s).is_err());
    assert!(midi::write(&s).is_err());
}
