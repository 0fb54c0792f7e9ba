//! Numbers in a brief are read as written or refused, quoted (issue 17, item 10):
//! `72.5 bpm` was read as "5 bpm", `60.0 bpm` as "0 bpm", `a -3-bar piece` composed
//! 3 bars, `-72 bpm` was 72, and 10^29 bpm was echoed as 18446744073709551615.

use cantus_twelve_tone::spec::{BriefError, compile_brief};

fn refused(brief: &str) -> (String, usize, String) {
    match compile_brief(brief) {
        Err(BriefError::Impossible { phrase, reason }) => (phrase.text, phrase.position, reason),
        Err(other) => panic!("{brief:?}: refused, but as {other:?}"),
        Ok(c) => panic!("{brief:?} was accepted: {:?}", c.spec),
    }
}

#[test]
fn a_decimal_tempo_is_refused_unless_it_is_whole() {
    // The spec's tempo is whole beats per minute, so 72.5 cannot be written.
    let (text, position, reason) = refused("a 4-bar piece at 72.5 bpm");
    assert_eq!((text.as_str(), position), ("72.5", 18));
    assert!(reason.contains("not a whole number"), "{reason}");
    let message = compile_brief("at 72.5 bpm").unwrap_err().to_string();
    assert!(message.contains("\"72.5\" (character 4)"), "{message}");

    let compiled = compile_brief("a 4-bar piece at 60.0 bpm").expect("60.0 is 60");
    assert_eq!(compiled.spec.tempo, 60);
}

#[test]
fn negative_numbers_are_refused() {
    let (text, position, reason) = refused("a -3-bar piece");
    assert_eq!((text.as_str(), position), ("-3", 3));
    assert!(reason.contains("negative"), "{reason}");
    let (text, _, _) = refused("a 4-bar piece at -72 bpm");
    assert_eq!(text, "-72");
    // Hyphens that join words and numbers are not minus signs.
    assert_eq!(
        compile_brief("a 16-bar piece").expect("reads").spec.bars,
        16
    );
}

#[test]
fn a_number_too_large_for_any_quantity_is_refused_as_written() {
    let huge = "100000000000000000000000000000";
    let (text, _, reason) = refused(&format!("a 4-bar piece at {huge} bpm"));
    assert_eq!(text, huge);
    assert!(reason.contains("too large"), "{reason}");
    assert!(!reason.contains("18446744073709551615 bpm"), "{reason}");
    // Within u64 but past the tempo range: the range is named.
    let (_, _, reason) = refused("a 4-bar piece at 18446744073709551615 bpm");
    assert!(
        reason.contains("20..=") || reason.contains("out of range"),
        "{reason}"
    );
    let (_, _, reason) = refused("a 99999999999-bar piece");
    assert!(reason.contains("at most"), "{reason}");
}

/// The fuzz run found an 87 kB brief repeating "on Webern's Op. 21 row" that took
/// 33 s (each composer's name is looked up in the row catalogue): briefs past
/// MAX_BRIEF_CHARS are refused at once, saying why.
#[test]
fn a_brief_past_the_length_limit_is_refused_at_once() {
    use cantus_twelve_tone::spec::MAX_BRIEF_CHARS;
    let long = format!(
        "a 16-bar piece{}",
        " on Webern's Op. 21 row, with".repeat(3000)
    );
    let start = std::time::Instant::now();
    let err = compile_brief(&long).unwrap_err();
    assert!(matches!(err, BriefError::TooLong { chars } if chars == long.chars().count()));
    assert!(
        err.to_string()
            .contains(&format!("at most {MAX_BRIEF_CHARS}")),
        "{err}"
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(1));
    // At the limit it is read.
    let mut at_limit = String::from("a 4-bar piece for two voices");
    at_limit.push_str(&" ".repeat(MAX_BRIEF_CHARS - at_limit.len()));
    assert_eq!(compile_brief(&at_limit).expect("read").spec.bars, 4);
}
