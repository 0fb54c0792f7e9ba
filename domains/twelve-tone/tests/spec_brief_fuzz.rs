//! Properties of the brief compiler over arbitrary input: it never panics; whatever
//! it accepts is a valid spec that survives a trip through TOML; whatever it refuses
//! is explained with phrases that really are where the error says.

use cantus_twelve_tone::spec::{BriefError, Phrase, Spec, compile_brief};
use proptest::prelude::*;

/// Words the phrase rules react to, plus awkward numbers and symbols, so that random
/// sentences reach deep into the rules instead of stopping at the first unknown word.
const VOCABULARY: &[&str] = &[
    "a",
    "the",
    "for",
    "with",
    "and",
    "in",
    "at",
    "on",
    "of",
    "to",
    "up",
    "canon",
    "canons",
    "mirror",
    "inversion",
    "crab",
    "between",
    "voices",
    "voice",
    "parts",
    "outer",
    "upper",
    "first",
    "last",
    "third",
    "soprano",
    "alto",
    "bass",
    "1",
    "2",
    "3",
    "5",
    "7",
    "0",
    "11",
    "12",
    "16",
    "99999999999999999999999",
    "two",
    "sixteen",
    "twenty-four",
    "hundred",
    "thousand",
    "bars",
    "bar",
    "measures",
    "apart",
    "fifth",
    "octave",
    "below",
    "semitones",
    "around",
    "pitch",
    "class",
    "row",
    "series",
    "0,",
    "E",
    "T",
    "C",
    "F#",
    "Bb",
    "Webern's",
    "Op.",
    "21",
    "33",
    "Schoenberg",
    "Berg",
    "Lyric",
    "Suite",
    "all-interval",
    "seed",
    "3/4",
    "5/3",
    "0/4",
    "6/8",
    "time",
    "waltz",
    "♩",
    "=",
    "96",
    "bpm",
    "tempo",
    "slow",
    "very",
    "fast",
    "trio",
    "solo",
    "duet",
    "quartet",
    "sextet",
    "septet",
    "strong",
    "mild",
    "register",
    "contrast",
    "no",
    "repeated",
    "notes",
    "tremolos",
    "allowed",
    "strict",
    "crossing",
    "%",
    "20%",
    "150%",
    "chords",
    "note",
    "sections",
    "4-bar",
    "title",
    "\"Night\"",
    "\"\"",
    "zero-centred",
    "relative",
    "labels",
    ",",
    ".",
    ":",
    "per",
    "statement",
    "twelve-tone",
    "Write",
    "piece",
    "please",
    "pizzicato",
];

fn brief_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::collection::vec(proptest::sample::select(VOCABULARY), 0..25)
            .prop_map(|words| words.join(" ")),
        1 => ".{0,80}",
    ]
}

fn quoted(error: &BriefError) -> Vec<&Phrase> {
    match error {
        BriefError::Contradiction(c) => vec![&c.first, &c.second],
        BriefError::Impossible { phrase, .. } => vec![phrase],
        BriefError::Empty | BriefError::TooLong { .. } | BriefError::UnclosedQuote { .. } => {
            Vec::new()
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn any_brief_compiles_to_a_valid_spec_or_an_explained_refusal(brief in brief_strategy()) {
        match compile_brief(&brief) {
            Ok(compiled) => {
                prop_assert_eq!(compiled.spec.validate(), Ok(()));
                let text = compiled.spec.to_toml_string();
                let back = Spec::from_toml_str(&text, "fuzz.toml");
                prop_assert_eq!(back, Ok(compiled.spec), "{}", text);
            }
            Err(error) => {
                prop_assert!(!error.to_string().is_empty());
                for phrase in quoted(&error) {
                    prop_assert!(phrase.position >= 1);
                    let at: String = brief.chars().skip(phrase.position - 1).collect();
                    prop_assert!(at.starts_with(&phrase.text), "{} not at its position in {:?}", phrase, brief);
                }
            }
        }
    }
}
