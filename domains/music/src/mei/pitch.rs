//! MEI pitch attributes: accidentals, key signatures, the accidentals a
//! measure carries forward.

use crate::score::Letter;
use std::collections::HashMap;

/// The semitones an MEI accidental value means (`s`, `f`, `ss`, `x`, `ff`,
/// `n`, `xs`, `ts`, `tf`, `nf`, `ns`; quarter tones are not held).
pub(crate) fn accid_semitones(value: &str) -> Option<i8> {
    Some(match value {
        "n" => 0,
        "s" | "ns" => 1,
        "f" | "nf" => -1,
        "ss" | "x" => 2,
        "ff" => -2,
        "xs" | "sx" | "ts" => 3,
        "tf" => -3,
        _ => return None,
    })
}

/// The alterations a key signature (`@key.sig` / `@sig`: `0`, `3s`, `2f`)
/// gives each letter, and its fifths.
pub(crate) fn key_signature(sig: &str) -> Option<(i32, [i8; 7])> {
    let sig = sig.trim();
    let fifths: i32 = if sig == "0" {
        0
    } else {
        let (count, kind) = sig.split_at(sig.len().checked_sub(1)?);
        let count: i32 = count.parse().ok().filter(|c| (0..=7).contains(c))?;
        match kind {
            "s" => count,
            "f" => -count,
            _ => return None,
        }
    };
    // Sharps are added in the order F C G D A E B, flats in reverse.
    const SHARPS: [Letter; 7] = [
        Letter::F,
        Letter::C,
        Letter::G,
        Letter::D,
        Letter::A,
        Letter::E,
        Letter::B,
    ];
    let mut alters = [0i8; 7];
    let index = |l: Letter| Letter::ALL.iter().position(|x| *x == l).unwrap_or(0);
    for k in 0..fifths.unsigned_abs() as usize {
        if fifths > 0 {
            alters[index(SHARPS[k])] = 1;
        } else {
            alters[index(SHARPS[6 - k])] = -1;
        }
    }
    Some((fifths, alters))
}

/// Accidentals written earlier in the current measure, per staff, letter and
/// octave: they hold until the barline.
#[derive(Debug, Default)]
pub(crate) struct MeasureAccidentals {
    written: HashMap<(u32, Letter, i64), i8>,
}

impl MeasureAccidentals {
    /// Forgets everything (a new measure).
    pub(crate) fn clear(&mut self) {
        self.written.clear();
    }

    /// Records a written accidental.
    pub(crate) fn write(&mut self, staff: u32, letter: Letter, octave: i64, alter: i8) {
        self.written.insert((staff, letter, octave), alter);
    }

    /// The accidental in force, if one was written.
    pub(crate) fn get(&self, staff: u32, letter: Letter, octave: i64) -> Option<i8> {
        self.written.get(&(staff, letter, octave)).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_signatures_alter_the_right_letters() {
        let (fifths, alters) = key_signature("2f").expect("B♭ major");
        assert_eq!(fifths, -2);
        assert_eq!(alters, [0, 0, -1, 0, 0, 0, -1], "E♭ and B♭");
        let (fifths, alters) = key_signature("3s").expect("A major");
        assert_eq!(fifths, 3);
        assert_eq!(alters, [1, 0, 0, 1, 1, 0, 0], "C♯ F♯ G♯");
        assert_eq!(key_signature("0").map(|k| k.0), Some(0));
        assert_eq!(key_signature("8s"), None);
        assert_eq!(key_signature("mixed"), None);
    }

    #[test]
    fn accidentals_mean_semitones() {
        assert_eq!(accid_semitones("s"), Some(1));
        assert_eq!(accid_semitones("x"), Some(2));
        assert_eq!(accid_semitones("ff"), Some(-2));
        assert_eq!(accid_semitones("n"), Some(0));
        assert_eq!(accid_semitones("1qs"), None);
    }
}
