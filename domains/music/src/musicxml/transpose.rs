//! Transposing instruments: written pitch to sounding pitch.
//!
//! A clarinet in B♭ is written a major second above where it sounds; MusicXML
//! says so with `<transpose>` (`<chromatic>-2</chromatic>`, `<diatonic>-1`) and
//! MEI with `trans.semi`/`trans.diat` on the staff definition. The model holds
//! sounding pitch by default (what an analysis of the music must see), or the
//! written pitch on request ([`crate::PitchLevel::Written`]). Spellings move by
//! the diatonic step (a written D for a B♭ clarinet sounds C, not B♯), and key
//! signatures move along the line of fifths by the same interval.

use crate::score::{Letter, Spelling};

/// An interval from written to sounding pitch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Transpose {
    /// Semitones, octaves included.
    pub(crate) chromatic: i32,
    /// Diatonic steps (letters), octaves included.
    pub(crate) diatonic: i32,
}

/// Largest transposition accepted, in semitones either way (four octaves).
pub(crate) const MAX_SEMITONES: i32 = 48;

impl Transpose {
    /// The interval from `chromatic` semitones and, when the file gives them,
    /// `diatonic` steps (else the usual spelling of that many semitones, e.g.
    /// -2 → a second down, -7 → a fourth down) and octaves.
    pub(crate) fn new(chromatic: i32, diatonic: Option<i32>, octaves: i32) -> Transpose {
        let diatonic = diatonic.unwrap_or_else(|| {
            // Nearest whole number of steps to chromatic·7/12, halves away from zero.
            let scaled = chromatic * 7;
            (scaled + 6 * scaled.signum()) / 12
        });
        Transpose {
            chromatic: chromatic + 12 * octaves,
            diatonic: diatonic + 7 * octaves,
        }
    }

    /// Whether this interval changes nothing.
    pub(crate) fn is_identity(self) -> bool {
        self == Transpose::default()
    }

    /// The sounding MIDI number and spelling of a written pitch, or `None` if
    /// it leaves MIDI 0..=127.
    pub(crate) fn apply(self, midi: u8, spelling: Spelling) -> Option<(u8, Spelling)> {
        let sounding = u8::try_from(i32::from(midi) + self.chromatic)
            .ok()
            .filter(|m| *m <= 127)?;
        let index = letter_index(spelling.letter) + self.diatonic;
        let letter = Letter::ALL[index.rem_euclid(7) as usize];
        // The alteration that gives the letter the sounding pitch class,
        // in -6..=5, then as close to the written one as the octave allows.
        let alter = (i32::from(sounding) - letter.pitch_class() + 6).rem_euclid(12) - 6;
        let alter = i8::try_from(alter).ok()?;
        Some((sounding, Spelling { letter, alter }))
    }

    /// A written key signature's fifths as sounding fifths: the interval's
    /// place on the line of fifths is `7·chromatic − 12·diatonic`.
    pub(crate) fn fifths(self, written: i32) -> i32 {
        written + 7 * self.chromatic - 12 * self.diatonic
    }
}

/// C = 0 … B = 6.
fn letter_index(letter: Letter) -> i32 {
    Letter::ALL
        .iter()
        .position(|l| *l == letter)
        .map_or(0, |i| i as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sp(letter: Letter, alter: i8) -> Spelling {
        Spelling { letter, alter }
    }

    #[test]
    fn common_transposing_instruments_sound_where_they_should() {
        // B♭ clarinet: written D5 (74) sounds C5 (72).
        let clarinet = Transpose::new(-2, Some(-1), 0);
        assert_eq!(
            clarinet.apply(74, sp(Letter::D, 0)),
            Some((72, sp(Letter::C, 0)))
        );
        // Horn in F: written C5 sounds F4; written F#4 sounds B3.
        let horn = Transpose::new(-7, Some(-4), 0);
        assert_eq!(
            horn.apply(72, sp(Letter::C, 0)),
            Some((65, sp(Letter::F, 0)))
        );
        assert_eq!(
            horn.apply(66, sp(Letter::F, 1)),
            Some((59, sp(Letter::B, 0)))
        );
        // Tenor saxophone: a major ninth down (an octave and a second).
        let tenor = Transpose::new(-2, Some(-1), -1);
        assert_eq!(
            tenor.apply(74, sp(Letter::D, 0)),
            Some((60, sp(Letter::C, 0)))
        );
        // Without <diatonic>, the usual spelling of the semitones is used.
        assert_eq!(Transpose::new(-2, None, 0), clarinet);
        assert_eq!(Transpose::new(-7, None, 0), horn);
        assert_eq!(Transpose::new(-9, None, 0).diatonic, -5, "E♭ alto sax");
        assert_eq!(Transpose::new(0, None, 0), Transpose::default());
    }

    #[test]
    fn keys_move_along_the_line_of_fifths() {
        assert_eq!(
            Transpose::new(-2, Some(-1), 0).fifths(2),
            0,
            "D major for B♭ clarinet is C"
        );
        assert_eq!(
            Transpose::new(-7, Some(-4), 0).fifths(0),
            -1,
            "C for horn is F"
        );
        assert_eq!(
            Transpose::new(-9, Some(-5), 0).fifths(0),
            -3,
            "C for alto sax is E♭"
        );
        assert_eq!(
            Transpose::new(0, Some(0), -1).fifths(3),
            3,
            "octaves keep the key"
        );
    }

    #[test]
    fn pitches_leaving_midi_are_none() {
        assert_eq!(Transpose::new(-2, None, 0).apply(1, sp(Letter::C, 1)), None);
        assert_eq!(
            Transpose::new(12, None, 0).apply(120, sp(Letter::C, 0)),
            None
        );
    }
}
