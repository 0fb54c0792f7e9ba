//! The reader never panics: arbitrary text, XML-shaped noise, and valid
//! documents with bytes cut, repeated or replaced and numbers swapped for
//! hostile ones. Whatever it accepts must still be a well-formed score (sorted
//! events, positive durations, sorted unique pitches).

mod musicxml_common;

use cantus_music::{Score, Time, musicxml};
use musicxml_common::{Shape, arb_score, hand_made};
use proptest::prelude::*;

/// Checks the model's invariants on a score the reader accepted.
fn assert_well_formed(score: &Score) -> Result<(), TestCaseError> {
    for v in &score.voices {
        for pair in v.events.windows(2) {
            prop_assert!(pair[0].onset <= pair[1].onset, "events sorted by onset");
        }
        for e in &v.events {
            prop_assert!(
                e.onset >= Time::from_integer(0),
                "onset {} negative",
                e.onset
            );
            prop_assert!(
                e.duration > Time::from_integer(0),
                "duration {}",
                e.duration
            );
            prop_assert!(!e.pitches.is_empty(), "an event without pitches");
            for pair in e.pitches.windows(2) {
                prop_assert!(pair[0].midi < pair[1].midi, "pitches sorted and unique");
            }
            prop_assert!(e.pitches.iter().all(|p| p.midi <= 127));
        }
    }
    Ok(())
}

fn check(text: &str) -> Result<(), TestCaseError> {
    if let Ok(score) = musicxml::read(text) {
        assert_well_formed(&score)?;
    }
    Ok(())
}

/// Values to substitute for numbers in a valid document.
const HOSTILE_NUMBERS: [&str; 14] = [
    "0",
    "-1",
    "1.5",
    "0.0000001",
    "9223372036854775807",
    "99999999999999999999999",
    "999999999999999999",
    "123456789012345678",
    "3+2",
    "",
    "x",
    "1e3",
    "-0",
    "7",
];

/// Fragments to splice into a valid document.
const FRAGMENTS: [&str; 14] = [
    "<backup><duration>99</duration></backup>",
    "<forward><duration>5</duration></forward>",
    "<chord/>",
    "<grace/>",
    "<tie type=\"stop\"/>",
    "<tie type=\"start\"/>",
    "<attributes><divisions>7</divisions></attributes>",
    "<attributes><time><beats>5</beats><beat-type>8</beat-type></time></attributes>",
    "<attributes><staves>3</staves></attributes>",
    "<staff>2</staff>",
    "<note><rest/><duration>3</duration></note>",
    "<note><pitch><step>B</step><alter>2</alter><octave>9</octave></pitch><duration>1</duration></note>",
    "</measure><measure>",
    "&amp;",
];

#[derive(Debug, Clone)]
enum Mutation {
    Cut(usize, usize),
    Repeat(usize, usize),
    Number(usize, usize),
    Splice(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0usize..200).prop_map(|(a, n)| Mutation::Cut(a, n)),
        (any::<usize>(), 0usize..400).prop_map(|(a, n)| Mutation::Repeat(a, n)),
        (any::<usize>(), 0..HOSTILE_NUMBERS.len()).prop_map(|(a, k)| Mutation::Number(a, k)),
        (any::<usize>(), 0..FRAGMENTS.len()).prop_map(|(a, k)| Mutation::Splice(a, k)),
    ]
}

/// Applies a mutation to the bytes of a document; positions wrap around.
fn mutate(doc: &mut Vec<u8>, m: &Mutation) {
    let len = doc.len().max(1);
    match *m {
        Mutation::Cut(at, n) => {
            let at = at % len;
            let end = (at + n).min(doc.len());
            doc.drain(at.min(end)..end);
        }
        Mutation::Repeat(at, n) => {
            let at = at % len;
            let end = (at + n).min(doc.len());
            let piece: Vec<u8> = doc[at.min(end)..end].to_vec();
            doc.splice(end..end, piece);
        }
        Mutation::Number(at, k) => {
            // Replace the run of digits at or after `at` (wrapping) with a hostile value.
            let Some(start) = (0..doc.len())
                .map(|i| (at + i) % len)
                .find(|&i| doc.get(i).is_some_and(u8::is_ascii_digit))
            else {
                return;
            };
            let end = (start..doc.len())
                .find(|&i| !doc[i].is_ascii_digit())
                .unwrap_or(doc.len());
            doc.splice(start..end, HOSTILE_NUMBERS[k].bytes());
        }
        Mutation::Splice(at, k) => {
            // Insert just before a tag, where elements begin.
            let Some(pos) = (0..doc.len())
                .map(|i| (at + i) % len)
                .find(|&i| doc.get(i) == Some(&b'<'))
            else {
                return;
            };
            doc.splice(pos..pos, FRAGMENTS[k].bytes());
        }
    }
}

const SHAPE: Shape = Shape {
    max_voices: 2,
    same_pitch_overlaps: true,
};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        check(&text)?;
    }

    #[test]
    fn xml_shaped_noise_never_panics(
        parts in prop::collection::vec(
            prop_oneof![
                Just("<score-partwise>".to_string()),
                Just("<part id=\"P1\">".to_string()),
                Just("<measure>".to_string()),
                Just("<note>".to_string()),
                Just("</note>".to_string()),
                Just("</measure>".to_string()),
                "<[a-z-]{1,12}>",
                "</[a-z-]{1,12}>",
                "<[a-z-]{1,12}/>",
                "[0-9.+-]{0,22}",
                "[A-G]",
                "&[a-z#0-9]{0,6};",
            ],
            0..60,
        )
    ) {
        check(&parts.concat())?;
    }

    #[test]
    fn mutated_valid_documents_never_panic(
        score in arb_score(SHAPE),
        mutations in prop::collection::vec(mutation(), 1..6),
    ) {
        let xml = musicxml::write(&score).expect("writes");
        let mut bytes = xml.into_bytes();
        for m in &mutations {
            mutate(&mut bytes, m);
        }
        check(&String::from_utf8_lossy(&bytes))?;
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let depth = 100_000;
    let doc = format!("{}{}", "<a>".repeat(depth), "</a>".repeat(depth));
    let err = musicxml::read(&doc).expect_err("too deep");
    assert!(err.to_string().contains("nested deeper than"), "{err}");
}

#[test]
fn overflowing_times_are_errors() {
    let xml = musicxml::write(&hand_made()).expect("writes");
    let huge = xml.replacen(
        "<duration>9</duration>",
        "<duration>999999999999999999</duration>",
        1,
    );
    let huge = huge.replace(
        "<divisions>6</divisions>",
        "<divisions>0.000000007</divisions>",
    );
    let err = musicxml::read(&huge).expect_err("overflow");
    assert!(err.to_string().contains("too large to represent"), "{err}");
}
