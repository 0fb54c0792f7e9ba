//! The LilyPond words for single things: note names (Dutch, absolute octaves),
//! durations, keys and clefs. Everything here is a pure mapping; the layout of
//! bars and tuplets lives in `layout`.

use crate::score::{Key, Letter, Mode, Pitch, Spelling, Time};

/// Notated durations in quarter notes with their LilyPond spelling, longest
/// first: breve to 128th, plain and single-dotted.
const VALUES: [((i64, i64), &str); 17] = [
    ((12, 1), "\\breve."),
    ((8, 1), "\\breve"),
    ((6, 1), "1."),
    ((4, 1), "1"),
    ((3, 1), "2."),
    ((2, 1), "2"),
    ((3, 2), "4."),
    ((1, 1), "4"),
    ((3, 4), "8."),
    ((1, 2), "8"),
    ((3, 8), "16."),
    ((1, 4), "16"),
    ((3, 16), "32."),
    ((1, 8), "32"),
    ((3, 32), "64."),
    ((1, 16), "64"),
    ((1, 32), "128"),
];

/// The shortest value LilyPond output uses: the 128th note, in quarters.
pub(super) fn shortest_value() -> Time {
    Time::new(1, 32)
}

/// Splits a written length into notated values (to be tied), longest first.
/// `None` if the length is not positive or not a whole number of 128ths.
pub(super) fn decompose(written: Time) -> Option<Vec<&'static str>> {
    let zero = Time::from_integer(0);
    if written <= zero || !(written / shortest_value()).is_integer() {
        return None;
    }
    let mut left = written;
    let mut parts = Vec::new();
    while left > zero {
        let (value, name) = VALUES
            .iter()
            .map(|&((n, d), name)| (Time::new(n, d), name))
            .find(|(value, _)| *value <= left)?;
        parts.push(name);
        left -= value;
    }
    Some(parts)
}

/// The duration of a whole bar: one value when there is one (`2.` for 3/4),
/// else a scaled whole note (`1*5/4`).
pub(super) fn bar_duration(bar: Time) -> String {
    match VALUES.iter().find(|&&((n, d), _)| Time::new(n, d) == bar) {
        Some((_, name)) => (*name).to_string(),
        None => {
            let wholes = bar / Time::from_integer(4);
            format!("1*{}/{}", wholes.numer(), wholes.denom())
        }
    }
}

/// LilyPond (Dutch) name of a spelled note without octave: `c`, `fis`, `bes`,
/// `es`, `as`, `eses`, `gisis`. `None` beyond double sharps and flats.
pub(super) fn note_name(spelling: Spelling) -> Option<String> {
    let letter = spelling.letter.as_char().to_ascii_lowercase();
    let vowel = matches!(spelling.letter, Letter::E | Letter::A);
    let accidental = match (spelling.alter, vowel) {
        (0, _) => "",
        (1, _) => "is",
        (2, _) => "isis",
        (-1, true) => "s",
        (-2, true) => "ses",
        (-1, false) => "es",
        (-2, false) => "eses",
        _ => return None,
    };
    Some(format!("{letter}{accidental}"))
}

/// A pitch in absolute octave mode (`c'` = middle C = MIDI 60), spelled from
/// [`Pitch::spelling_or_default`]. `Err` names the spelling when it is beyond
/// double accidentals or does not sound as the MIDI number.
pub(super) fn absolute_pitch(pitch: Pitch) -> Result<String, String> {
    let spelling = pitch.spelling_or_default();
    let sounding = spelling.letter.pitch_class() + i32::from(spelling.alter);
    if (sounding - i32::from(pitch.midi)).rem_euclid(12) != 0 {
        return Err(format!(
            "spelling {}{:+} does not sound as MIDI {}",
            spelling.letter.as_char(),
            spelling.alter,
            pitch.midi
        ));
    }
    let name = note_name(spelling).ok_or_else(|| {
        format!(
            "spelling {}{:+}: LilyPond writes at most double sharps and flats",
            spelling.letter.as_char(),
            spelling.alter
        )
    })?;
    // LilyPond's unmarked octave is the one below middle C (scientific octave 3).
    let marks = spelling.octave_for(pitch.midi) - 3;
    let mark = if marks >= 0 { "'" } else { "," };
    Ok(format!(
        "{name}{}",
        mark.repeat(marks.unsigned_abs() as usize)
    ))
}

/// `\key fis \minor`. `None` beyond double sharps and flats.
pub(super) fn key_command(key: Key) -> Option<String> {
    let mode = match key.mode {
        Mode::Major => "\\major",
        Mode::Minor => "\\minor",
    };
    Some(format!("\\key {} {mode}", note_name(key.tonic)?))
}

/// Clef for a voice from its mean MIDI pitch (exact integer comparison): treble
/// from middle C up, octave-transposing treble from F below it (tenor range),
/// bass below that. An empty voice gets a treble clef.
pub(super) fn clef(pitches: impl Iterator<Item = u8>) -> &'static str {
    let (mut sum, mut count) = (0u64, 0u64);
    for midi in pitches {
        sum += u64::from(midi);
        count += 1;
    }
    if count == 0 || sum >= 60 * count {
        "treble"
    } else if sum >= 53 * count {
        "treble_8"
    } else {
        "bass"
    }
}

/// A LilyPond string literal — the one way any name (title, part, mark) reaches a
/// LilyPond file: quotes and backslashes escaped, and every character LilyPond
/// cannot take turned into a space: control characters (newlines, tabs, C1) and
/// the Unicode line and paragraph separators U+2028 and U+2029 (LilyPond 2.24
/// aborts on them, even inside a string).
pub(super) fn string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::time;

    fn spelled(midi: u8, letter: Letter, alter: i8) -> Pitch {
        Pitch::spelled(midi, Spelling { letter, alter })
    }

    #[test]
    fn dutch_names_in_absolute_octaves() {
        assert_eq!(absolute_pitch(Pitch::new(60)).as_deref(), Ok("c'"));
        assert_eq!(absolute_pitch(Pitch::new(48)).as_deref(), Ok("c"));
        assert_eq!(absolute_pitch(Pitch::new(36)).as_deref(), Ok("c,"));
        assert_eq!(absolute_pitch(Pitch::new(85)).as_deref(), Ok("cis'''"));
        assert_eq!(
            absolute_pitch(spelled(63, Letter::E, -1)).as_deref(),
            Ok("es'")
        );
        assert_eq!(
            absolute_pitch(spelled(56, Letter::A, -1)).as_deref(),
            Ok("as")
        );
        assert_eq!(
            absolute_pitch(spelled(58, Letter::B, -1)).as_deref(),
            Ok("bes")
        );
        assert_eq!(
            absolute_pitch(spelled(62, Letter::E, -2)).as_deref(),
            Ok("eses'")
        );
        assert_eq!(
            absolute_pitch(spelled(55, Letter::A, -2)).as_deref(),
            Ok("ases")
        );
        assert_eq!(
            absolute_pitch(spelled(67, Letter::F, 2)).as_deref(),
            Ok("fisis'")
        );
        // B#3 sounds as middle C but is written in the octave below.
        assert_eq!(
            absolute_pitch(spelled(60, Letter::B, 1)).as_deref(),
            Ok("bis")
        );
        assert_eq!(
            absolute_pitch(spelled(59, Letter::C, -1)).as_deref(),
            Ok("ces'")
        );
        assert!(absolute_pitch(spelled(60, Letter::D, 0)).is_err());
        assert!(absolute_pitch(spelled(63, Letter::C, 3)).is_err());
    }

    #[test]
    fn durations_decompose_longest_first() {
        assert_eq!(decompose(time(1, 1)), Some(vec!["4"]));
        assert_eq!(decompose(time(3, 1)), Some(vec!["2."]));
        assert_eq!(decompose(time(5, 1)), Some(vec!["1", "4"]));
        assert_eq!(decompose(time(7, 4)), Some(vec!["4.", "16"]));
        assert_eq!(decompose(time(1, 32)), Some(vec!["128"]));
        assert_eq!(decompose(time(1, 64)), None);
        assert_eq!(decompose(time(1, 3)), None);
        assert_eq!(decompose(time(0, 1)), None);
        assert_eq!(bar_duration(time(4, 1)), "1");
        assert_eq!(bar_duration(time(3, 1)), "2.");
        assert_eq!(bar_duration(time(5, 1)), "1*5/4");
        assert_eq!(bar_duration(time(7, 4)), "1*7/16");
    }

    #[test]
    fn clefs_and_keys_and_strings() {
        assert_eq!(clef([60, 72].into_iter()), "treble");
        assert_eq!(clef([55, 57].into_iter()), "treble_8");
        assert_eq!(clef([40, 52].into_iter()), "bass");
        assert_eq!(clef(std::iter::empty()), "treble");
        let fis_minor = Key::from_fifths(3, Mode::Minor);
        assert_eq!(key_command(fis_minor).as_deref(), Some("\\key fis \\minor"));
        let es_major = Key::from_fifths(-3, Mode::Major);
        assert_eq!(key_command(es_major).as_deref(), Some("\\key es \\major"));
        assert_eq!(string_literal("A \"B\"\\\n"), "\"A \\\"B\\\"\\\\ \"");
        assert_eq!(string_literal("a\u{2028}b\u{2029}c\u{85}d"), "\"a b c d\"");
    }
}
