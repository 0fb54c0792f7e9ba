//! Pitches as a MIDI number with an optional spelling (letter and alteration), and
//! keys: what a reader keeps of how a note was written, and what a writer needs to
//! spell one.

use serde::{Deserialize, Serialize};

/// A note letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Letter {
    C,
    D,
    E,
    F,
    G,
    A,
    B,
}

impl Letter {
    pub const ALL: [Letter; 7] = [
        Letter::C,
        Letter::D,
        Letter::E,
        Letter::F,
        Letter::G,
        Letter::A,
        Letter::B,
    ];

    /// Pitch class of the natural note (C = 0 … B = 11).
    pub fn pitch_class(self) -> i32 {
        match self {
            Letter::C => 0,
            Letter::D => 2,
            Letter::E => 4,
            Letter::F => 5,
            Letter::G => 7,
            Letter::A => 9,
            Letter::B => 11,
        }
    }

    pub fn from_char(c: char) -> Option<Letter> {
        Some(match c.to_ascii_uppercase() {
            'C' => Letter::C,
            'D' => Letter::D,
            'E' => Letter::E,
            'F' => Letter::F,
            'G' => Letter::G,
            'A' => Letter::A,
            'B' => Letter::B,
            _ => return None,
        })
    }

    pub fn as_char(self) -> char {
        match self {
            Letter::C => 'C',
            Letter::D => 'D',
            Letter::E => 'E',
            Letter::F => 'F',
            Letter::G => 'G',
            Letter::A => 'A',
            Letter::B => 'B',
        }
    }
}

/// How a pitch is written: a letter and an alteration in semitones (+1 sharp,
/// -1 flat, ±2 double). The octave follows from the MIDI number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Spelling {
    pub letter: Letter,
    pub alter: i8,
}

impl Spelling {
    /// The default spelling of a pitch class: naturals where possible, else sharps.
    pub fn sharp_default(pc: u8) -> Spelling {
        const TABLE: [(Letter, i8); 12] = [
            (Letter::C, 0),
            (Letter::C, 1),
            (Letter::D, 0),
            (Letter::D, 1),
            (Letter::E, 0),
            (Letter::F, 0),
            (Letter::F, 1),
            (Letter::G, 0),
            (Letter::G, 1),
            (Letter::A, 0),
            (Letter::A, 1),
            (Letter::B, 0),
        ];
        let (letter, alter) = TABLE[usize::from(pc % 12)];
        Spelling { letter, alter }
    }

    /// The default flat spelling of a pitch class: naturals where possible, else flats.
    pub fn flat_default(pc: u8) -> Spelling {
        const TABLE: [(Letter, i8); 12] = [
            (Letter::C, 0),
            (Letter::D, -1),
            (Letter::D, 0),
            (Letter::E, -1),
            (Letter::E, 0),
            (Letter::F, 0),
            (Letter::G, -1),
            (Letter::G, 0),
            (Letter::A, -1),
            (Letter::A, 0),
            (Letter::B, -1),
            (Letter::B, 0),
        ];
        let (letter, alter) = TABLE[usize::from(pc % 12)];
        Spelling { letter, alter }
    }

    /// Scientific octave number of this spelling for a MIDI number (C4 = 60;
    /// B#3 = 60). May be negative.
    pub fn octave_for(self, midi: u8) -> i32 {
        (i32::from(midi) - i32::from(self.alter) - self.letter.pitch_class()).div_euclid(12) - 1
    }
}

/// One sounding pitch: a MIDI number (C4 = 60) and, optionally, how it is spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Pitch {
    pub midi: u8,
    pub spelling: Option<Spelling>,
}

impl Pitch {
    pub fn new(midi: u8) -> Self {
        Pitch {
            midi,
            spelling: None,
        }
    }

    pub fn spelled(midi: u8, spelling: Spelling) -> Self {
        Pitch {
            midi,
            spelling: Some(spelling),
        }
    }

    /// Pitch class 0..=11 (C = 0).
    pub fn pc(self) -> u8 {
        self.midi % 12
    }

    /// The spelling to write: the stored one, else the sharp default.
    pub fn spelling_or_default(self) -> Spelling {
        self.spelling
            .unwrap_or_else(|| Spelling::sharp_default(self.pc()))
    }

    /// Reads a pitch name as the text grammar writes it: a letter `A`–`G` (either
    /// case), any `#` or `b`, then the octave, possibly negative (C4 = MIDI 60,
    /// `Bb3`, `F#5`, `C##4`, `C-1` = 0). The spelling is kept. Also through
    /// [`str::parse`].
    ///
    /// ```
    /// use cantus_music::{Letter, Pitch};
    /// let p = Pitch::parse("Bb3").unwrap();
    /// assert_eq!(p.midi, 58);
    /// assert_eq!(p.spelling.map(|s| (s.letter, s.alter)), Some((Letter::B, -1)));
    /// assert_eq!("C-1".parse::<Pitch>().unwrap().midi, 0);
    /// assert!(Pitch::parse("H4").is_err());
    /// assert!(Pitch::parse("G#9").is_err(), "above MIDI 127");
    /// ```
    pub fn parse(text: &str) -> Result<Pitch, PitchError> {
        crate::grammar::parse_pitch_name(text)
    }
}

impl std::str::FromStr for Pitch {
    type Err = PitchError;

    fn from_str(text: &str) -> Result<Pitch, PitchError> {
        Pitch::parse(text)
    }
}

/// Why a pitch name could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PitchError {
    /// Not letter, accidentals, octave.
    #[error("{message}")]
    Malformed {
        /// The text read.
        text: String,
        /// What is wrong, e.g. "`H` is not a note letter (A-G)".
        message: String,
    },
    /// A well-formed name outside MIDI 0..=127.
    #[error("{message}")]
    OutOfRange {
        /// The text read.
        text: String,
        /// What is wrong, with the MIDI number when it is known.
        message: String,
    },
}

/// Key signature: tonic letter and alteration, and mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Key {
    pub tonic: Spelling,
    pub mode: Mode,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Mode {
    Major,
    Minor,
}

impl Key {
    /// Number of sharps (positive) or flats (negative) of this key's signature.
    pub fn fifths(self) -> i32 {
        // Position of the tonic on the line of fifths relative to C.
        let letter_fifths = match self.tonic.letter {
            Letter::F => -1,
            Letter::C => 0,
            Letter::G => 1,
            Letter::D => 2,
            Letter::A => 3,
            Letter::E => 4,
            Letter::B => 5,
        };
        let major = letter_fifths + 7 * i32::from(self.tonic.alter);
        match self.mode {
            Mode::Major => major,
            Mode::Minor => major - 3,
        }
    }

    /// The key with this many fifths in this mode (e.g. -1 major = F major).
    pub fn from_fifths(fifths: i32, mode: Mode) -> Key {
        let major_fifths = match mode {
            Mode::Major => fifths,
            Mode::Minor => fifths + 3,
        };
        // Line of fifths starting at F (index 0): F C G D A E B.
        const LINE: [Letter; 7] = [
            Letter::F,
            Letter::C,
            Letter::G,
            Letter::D,
            Letter::A,
            Letter::E,
            Letter::B,
        ];
        let idx = major_fifths + 1;
        let letter = LINE[idx.rem_euclid(7) as usize];
        let alter = idx.div_euclid(7) as i8;
        Key {
            tonic: Spelling { letter, alter },
            mode,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_fifths_round_trip() {
        for mode in [Mode::Major, Mode::Minor] {
            for fifths in -7..=7 {
                assert_eq!(Key::from_fifths(fifths, mode).fifths(), fifths);
            }
        }
        let f_major = Key {
            tonic: Spelling {
                letter: Letter::F,
                alter: 0,
            },
            mode: Mode::Major,
        };
        assert_eq!(f_major.fifths(), -1);
        assert_eq!(Key::from_fifths(-3, Mode::Minor).tonic.letter, Letter::C);
    }

    #[test]
    fn spelling_octaves() {
        let bsharp = Spelling {
            letter: Letter::B,
            alter: 1,
        };
        assert_eq!(bsharp.octave_for(60), 3);
        let cflat = Spelling {
            letter: Letter::C,
            alter: -1,
        };
        assert_eq!(cflat.octave_for(59), 4);
        assert_eq!(Spelling::sharp_default(0).octave_for(0), -1);
    }
}
