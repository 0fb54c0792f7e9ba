//! Property tests of the grammar: the two round-trip laws over generated
//! scores, and "never panics, always locates" over arbitrary and mutated text.

use cantus_music::grammar::{Diagnostic, ParseOptions, WRITER_GRIDS, parse, write};
use cantus_music::{Event, Key, Letter, Meter, Mode, Pitch, Score, Spelling, Time, Voice};
use proptest::prelude::*;

const METERS: [(u32, u32); 8] = [
    (2, 4),
    (3, 4),
    (4, 4),
    (6, 8),
    (5, 4),
    (7, 8),
    (12, 8),
    (3, 8),
];
const NAMES: [&str; 8] = [
    "Soprano",
    "Alto",
    "Tenor",
    "Bass",
    "Violin 1",
    "Keys#2",
    "Romance Without Words #3",
    "Horn in F",
];

/// One generated note before it is placed: raw numbers reduced modulo what the
/// bar allows when the score is built.
#[derive(Clone, Debug)]
struct RawNote {
    voice: usize,
    bar: u32,
    slot: u32,
    slots_long: u32,
    pitches: Vec<(usize, i8, i32)>,
    tag: Option<String>,
}

fn raw_note() -> impl Strategy<Value = RawNote> {
    (
        0usize..4,
        1u32..=6,
        any::<u32>(),
        any::<u32>(),
        prop::collection::vec((0usize..7, -2i8..=2, 0i32..=8), 1..=3),
        prop::option::of("[A-Za-z0-9:_.%{-]{1,8}"),
    )
        .prop_map(|(voice, bar, slot, slots_long, pitches, tag)| RawNote {
            voice,
            bar,
            slot,
            slots_long,
            pitches,
            tag,
        })
}

fn tempo() -> impl Strategy<Value = Option<Time>> {
    prop_oneof![
        Just(None),
        (20i64..=300).prop_map(|b| Some(Time::from_integer(b))),
        (
            200i64..=3000,
            prop::sample::select(vec![2i64, 4, 5, 8, 10, 100])
        )
            .prop_map(|(n, d)| Some(Time::new(n, d))),
        (200i64..=3000, prop::sample::select(vec![3i64, 7, 9, 11]))
            .prop_map(|(n, d)| Some(Time::new(n, d))),
    ]
}

fn key() -> impl Strategy<Value = Option<Key>> {
    prop::option::of(
        (0usize..7, -2i8..=2, any::<bool>()).prop_map(|(l, alter, minor)| Key {
            tonic: Spelling {
                letter: Letter::ALL[l],
                alter,
            },
            mode: if minor { Mode::Minor } else { Mode::Major },
        }),
    )
}

/// Scores whose events all lie on writer grids: several voices, chords,
/// spelled pitches, notes crossing barlines, triplet bars, tags.
fn score() -> impl Strategy<Value = Score> {
    (
        0usize..METERS.len(),
        prop::collection::vec(any::<u8>(), 6),
        1usize..=4,
        0usize..NAMES.len(),
        prop::collection::vec(raw_note(), 0..30),
        (key(), prop::collection::vec(key(), 4)),
        tempo(),
        0u32..3,
    )
        .prop_map(
            |(m, grids, voice_count, first_name, notes, (key, part_keys), tempo, extra_bars)| {
                let (num, den) = METERS[m];
                let meter = Meter::new(num, den);
                let fitting: Vec<u32> = WRITER_GRIDS
                    .into_iter()
                    .filter(|g| (g * num) % den == 0)
                    .collect();
                let mut voices: Vec<Voice> = (0..voice_count)
                    .map(|i| Voice {
                        // Parts in keys of their own (transposing instruments).
                        key: part_keys[i],
                        ..Voice::new(NAMES[(first_name + i) % NAMES.len()])
                    })
                    .collect();
                let mut last_bar = 0;
                for n in notes {
                    let grid = fitting[usize::from(grids[n.bar as usize - 1]) % fitting.len()];
                    let g = i64::from(grid);
                    let slots = grid * num / den;
                    let onset = meter.bar_length() * Time::from_integer(i64::from(n.bar) - 1)
                        + Time::new(4 * i64::from(n.slot % slots), g);
                    let duration = Time::new(4 * i64::from(1 + n.slots_long % (2 * slots)), g);
                    let pitches = n
                        .pitches
                        .iter()
                        .filter_map(|&(l, alter, octave)| {
                            let letter = Letter::ALL[l];
                            let midi = (octave + 1) * 12 + letter.pitch_class() + i32::from(alter);
                            let midi = u8::try_from(midi).ok().filter(|m| *m <= 127)?;
                            Some(Pitch::spelled(midi, Spelling { letter, alter }))
                        })
                        .collect::<Vec<_>>();
                    if pitches.is_empty() {
                        continue;
                    }
                    let mut event = Event::new(onset, duration, pitches);
                    event.tag = n.tag;
                    voices[n.voice % voice_count].events.push(event);
                    last_bar = last_bar.max(n.bar);
                }
                let mut s = Score {
                    title: None,
                    key,
                    meter,
                    tempo,
                    bars: Some(last_bar + extra_bars),
                    voices,
                };
                s.sort();
                s
            },
        )
}

fn strict() -> ParseOptions {
    ParseOptions::default()
}

/// Every diagnostic points inside the text and renders without panicking.
fn check_located(text: &str, diagnostics: &[Diagnostic]) {
    let lines = text.lines().count().max(1);
    for d in diagnostics {
        assert!(
            d.line >= 1 && d.line <= lines,
            "line {} of {lines}: {d}",
            d.line
        );
        assert!(d.column >= 1 && d.width >= 1, "{d}");
        let rendered = d.to_string();
        assert!(rendered.contains(d.rule), "{rendered}");
    }
}

/// Feeds `text` to both modes: no panic, located diagnostics, strict success
/// implies a warning-free identical lenient read, and a strict read that can
/// be written comes back unchanged.
fn check_any_text(text: &str) {
    let strict_result = parse(text, &strict());
    let lenient_result = parse(text, &strict().lenient());
    match (&strict_result, &lenient_result) {
        (Ok(s), Ok(l)) => {
            assert!(s.warnings.is_empty());
            assert!(
                l.warnings.is_empty(),
                "strict accepted, lenient warned: {:?}",
                l.warnings
            );
            assert_eq!(s.score, l.score);
            if let Ok(written) = write(&s.score) {
                let mut expected = s.score.clone();
                expected.bars = Some(s.score.bars.unwrap_or_else(|| s.score.bar_count()));
                let back = parse(&written, &strict()).unwrap_or_else(|e| panic!("{e}\n{written}"));
                assert_eq!(back.score, expected, "{written}");
            }
        }
        (Ok(_), Err(e)) => panic!("strict accepted, lenient refused: {e}"),
        (Err(e), lenient) => {
            check_located(text, &e.diagnostics);
            if let Ok(l) = lenient {
                check_located(text, &l.warnings);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Law 2: parse(write(s)) == s; and law 1 on the canonical text it yields.
    #[test]
    fn written_scores_read_back_unchanged(s in score()) {
        let text = write(&s).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let back = parse(&text, &strict()).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&back.score, &s, "{}", text);
        let again = write(&back.score).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(again, text);
    }

    /// Arbitrary text never panics either mode, and every diagnostic is located.
    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        check_any_text(&text);
    }

    /// Text over the grammar's own alphabet never panics either.
    #[test]
    fn grammar_alphabet_never_panics(text in "[@>+#b%{}\\[\\]():|, \t\n0-9A-Ga-hKEYMTRVOIS/.?^-]{0,300}") {
        check_any_text(&text);
    }

    /// Valid text with random byte edits (replace, insert, delete) never panics,
    /// and whatever strict mode still accepts round-trips.
    #[test]
    fn mutated_grammar_never_panics(
        s in score(),
        edits in prop::collection::vec((any::<u32>(), 0u8..3, prop::sample::select(
            b"@>+#b-%{}[]():|, \n\t0123456789ABCGHabcx\xff\xc3".to_vec())), 1..8),
    ) {
        let Ok(text) = write(&s) else { return Ok(()); };
        let mut bytes = text.into_bytes();
        for (pos, op, byte) in edits {
            let len = bytes.len();
            let at = pos as usize % (len + 1);
            match op {
                0 if at < len => bytes[at] = byte,
                1 => bytes.insert(at, byte),
                _ if at < len => { bytes.remove(at); }
                _ => {}
            }
        }
        check_any_text(&String::from_utf8_lossy(&bytes));
    }
}
