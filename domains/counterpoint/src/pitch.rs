//! Spelled pitches, intervals with their quality, and the modal collection.
//!
//! Species rules need more than MIDI numbers: an augmented fifth (F–C♯) and a minor
//! sixth (F–D♭) are both eight semitones, but only the sixth is a consonance. Every
//! [`Note`] therefore carries a [`Spelling`]: the one written in the file when there
//! is one, otherwise the one the [`Modality`] infers (the mode's own letters, and the
//! usual *musica ficta* for the rest: raised first, fourth and fifth degrees, lowered
//! third and seventh — C♯, F♯, G♯, E♭, B♭ in the untransposed modes).

use cantus_music::{Key, Letter, Mode, Pitch, Spelling};
use serde::Serialize;
use std::fmt;

/// Semitones above the major tonic of the collection: the seven diatonic degrees.
const MAJOR: [i32; 7] = [0, 2, 4, 5, 7, 9, 11];

/// One pitch with the way it is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Note {
    pub midi: u8,
    pub spelling: Spelling,
}

impl Note {
    /// The note as a score pitch.
    pub fn pitch(self) -> Pitch {
        Pitch::spelled(self.midi, self.spelling)
    }

    /// Pitch class, 0..=11.
    pub fn pc(self) -> u8 {
        self.midi % 12
    }

    /// Diatonic number: letter steps from C-1 (C4 = 35), so that letter distance is
    /// a difference of two numbers.
    pub fn diatonic(self) -> i32 {
        letter_index(self.spelling.letter) + 7 * (self.spelling.octave_for(self.midi) + 1)
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let acc = match self.spelling.alter {
            -2 => "bb",
            -1 => "b",
            1 => "#",
            2 => "##",
            _ => "",
        };
        write!(
            f,
            "{}{acc}{}",
            self.spelling.letter.as_char(),
            self.spelling.octave_for(self.midi)
        )
    }
}

fn letter_index(l: Letter) -> i32 {
    match l {
        Letter::C => 0,
        Letter::D => 1,
        Letter::E => 2,
        Letter::F => 3,
        Letter::G => 4,
        Letter::A => 5,
        Letter::B => 6,
    }
}

fn letter_at(index: i32) -> Letter {
    Letter::ALL[index.rem_euclid(7) as usize]
}

/// The distance from one note to another: semitones and letter steps, both signed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    pub semitones: i32,
    pub steps: i32,
}

impl Interval {
    /// From `a` to `b` (positive when `b` is higher).
    pub fn between(a: Note, b: Note) -> Interval {
        Interval {
            semitones: i32::from(b.midi) - i32::from(a.midi),
            steps: b.diatonic() - a.diatonic(),
        }
    }

    /// Semitones reduced to one octave, `|x| mod 12`.
    pub fn simple(self) -> i32 {
        self.semitones.abs() % 12
    }

    /// How far the size departs from the perfect or major interval of its number:
    /// 0 perfect or major, -1 minor (imperfect numbers) or diminished (perfect ones).
    fn departure(self) -> (bool, i32) {
        let sign = if self.steps < 0 { -1 } else { 1 };
        let steps = self.steps.abs();
        let semis = self.semitones * sign;
        let k = (steps % 7) as usize;
        let perfect = matches!(k, 0 | 3 | 4);
        (perfect, semis - (MAJOR[k] + 12 * (steps / 7)))
    }

    /// Whether the interval is perfect, major or minor (not augmented or diminished).
    pub fn is_proper(self) -> bool {
        match self.departure() {
            (true, d) => d == 0,
            (false, d) => d == 0 || d == -1,
        }
    }

    /// The usual name, e.g. `P5`, `m6`, `A4`, `M10`.
    pub fn name(self) -> String {
        let (perfect, d) = self.departure();
        let q = match (perfect, d) {
            (true, 0) => "P",
            (false, 0) => "M",
            (false, -1) => "m",
            (true, -1) | (false, -2) => "d",
            (_, d) if d > 0 => "A",
            _ => "dd",
        };
        format!("{q}{}", self.steps.abs() + 1)
    }

    /// Whether this vertical is a consonance: P1/P8, P5, m3, M3, m6, M6 or their
    /// compounds, correctly spelled (an augmented fifth is not a minor sixth).
    pub fn is_consonant(self) -> bool {
        matches!(self.simple(), 0 | 3 | 4 | 7 | 8 | 9) && self.is_proper()
    }

    /// Whether this vertical is a perfect consonance (unison, fifth, octave, compounds).
    pub fn is_perfect(self) -> bool {
        matches!(self.simple(), 0 | 7) && self.is_proper()
    }
}

/// A mode name of Fux's six.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ModeName {
    Dorian,
    Phrygian,
    Lydian,
    Mixolydian,
    Aeolian,
    Ionian,
}

impl ModeName {
    /// All six, in Fux's order (D E F G A C).
    pub const ALL: [ModeName; 6] = [
        ModeName::Dorian,
        ModeName::Phrygian,
        ModeName::Lydian,
        ModeName::Mixolydian,
        ModeName::Aeolian,
        ModeName::Ionian,
    ];

    /// The lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            ModeName::Dorian => "dorian",
            ModeName::Phrygian => "phrygian",
            ModeName::Lydian => "lydian",
            ModeName::Mixolydian => "mixolydian",
            ModeName::Aeolian => "aeolian",
            ModeName::Ionian => "ionian",
        }
    }

    /// The mode a name (any case) names.
    pub fn parse(text: &str) -> Option<ModeName> {
        ModeName::ALL
            .into_iter()
            .find(|m| m.as_str().eq_ignore_ascii_case(text.trim()))
    }

    /// Whether Fux raises the leading tone at the cadence (Dorian, Mixolydian, Aeolian).
    pub fn raises_leading_tone(self) -> bool {
        matches!(
            self,
            ModeName::Dorian | ModeName::Mixolydian | ModeName::Aeolian
        )
    }
}

impl fmt::Display for ModeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The diatonic collection an exercise lives in and its final.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Modality {
    /// Key signature of the collection: 0 = the white keys, -1 = one flat, ...
    pub fifths: i32,
    /// Pitch class of the final.
    pub final_pc: u8,
}

impl Modality {
    /// The collection with `fifths` whose final is `final_pc`.
    pub fn new(fifths: i32, final_pc: u8) -> Modality {
        Modality {
            fifths,
            final_pc: final_pc % 12,
        }
    }

    /// The collection a melody lives in: the key signature (if given and it holds
    /// every pitch class), else the signature nearest the white keys that does.
    /// `None` when no diatonic collection holds the melody.
    pub fn infer(pcs: &[u8], final_pc: u8, signature: Option<i32>) -> Option<Modality> {
        let fits = |f: i32| {
            pcs.iter()
                .all(|&pc| Modality::new(f, final_pc).is_diatonic(pc))
        };
        if let Some(f) = signature.filter(|&f| fits(f)) {
            return Some(Modality::new(f, final_pc));
        }
        (0..=7)
            .flat_map(|k| [k, -k])
            .find(|&f| fits(f))
            .map(|f| Modality::new(f, final_pc))
    }

    fn tonic_pc(self) -> i32 {
        (7 * self.fifths).rem_euclid(12)
    }

    fn tonic(self) -> Spelling {
        Key::from_fifths(self.fifths, Mode::Major).tonic
    }

    /// Degree offset of `pc` above the collection's major tonic.
    fn offset(self, pc: u8) -> i32 {
        (i32::from(pc) - self.tonic_pc()).rem_euclid(12)
    }

    /// Whether `pc` belongs to the collection.
    pub fn is_diatonic(self, pc: u8) -> bool {
        MAJOR.contains(&self.offset(pc))
    }

    /// The mode, when the final is a degree of the collection other than the seventh.
    pub fn mode(self) -> Option<ModeName> {
        Some(match self.offset(self.final_pc) {
            0 => ModeName::Ionian,
            2 => ModeName::Dorian,
            4 => ModeName::Phrygian,
            5 => ModeName::Lydian,
            7 => ModeName::Mixolydian,
            9 => ModeName::Aeolian,
            _ => return None,
        })
    }

    /// The raised leading tone (a semitone below the final), when the mode raises it.
    pub fn leading_tone(self) -> Option<u8> {
        self.mode()
            .filter(|m| m.raises_leading_tone())
            .map(|_| (self.final_pc + 11) % 12)
    }

    /// The chromatic notes the cadence may use in the penultimate bar: the raised
    /// leading tone and, in Aeolian, the raised sixth that leads to it (F♯–G♯–A).
    pub fn cadence_ficta(self) -> Vec<u8> {
        let mut out: Vec<u8> = self.leading_tone().into_iter().collect();
        if self.mode() == Some(ModeName::Aeolian) {
            out.push((self.final_pc + 9) % 12);
        }
        out
    }

    /// The lowered seventh degree of the collection (B♭ among the white keys), the
    /// ficta that avoids a tritone with the fourth degree.
    pub fn flat_seven(self) -> u8 {
        ((self.tonic_pc() + 10) % 12) as u8
    }

    /// How `pc` is written in this collection: its degree's letter, or the ficta
    /// spelling (raised 1st, 4th, 5th; lowered 3rd, 7th).
    pub fn spell(self, pc: u8) -> Spelling {
        let off = self.offset(pc);
        let (degree, shift) = match off {
            0 => (0, 0),
            1 => (0, 1),
            2 => (1, 0),
            3 => (2, -1),
            4 => (2, 0),
            5 => (3, 0),
            6 => (3, 1),
            7 => (4, 0),
            8 => (4, 1),
            9 => (5, 0),
            10 => (6, -1),
            _ => (6, 0),
        };
        let tonic = self.tonic();
        let letter = letter_at(letter_index(tonic.letter) + degree);
        let natural = letter.pitch_class();
        let target = self.tonic_pc() + MAJOR[degree as usize] + shift;
        let mut alter = (target - natural).rem_euclid(12);
        if alter > 6 {
            alter -= 12;
        }
        Spelling {
            letter,
            alter: alter as i8,
        }
    }

    /// `midi` spelled in this collection.
    pub fn note(self, midi: u8) -> Note {
        Note {
            midi,
            spelling: self.spell(midi % 12),
        }
    }

    /// A score pitch as a note: its written spelling, else this collection's.
    pub fn note_of(self, p: Pitch) -> Note {
        Note {
            midi: p.midi,
            spelling: p.spelling.unwrap_or_else(|| self.spell(p.pc())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn white() -> Modality {
        Modality::new(0, 2)
    }

    #[test]
    fn ficta_spellings_in_the_white_keys() {
        let m = white();
        let names: Vec<String> = (60..72).map(|k| m.note(k).to_string()).collect();
        assert_eq!(
            names,
            [
                "C4", "C#4", "D4", "Eb4", "E4", "F4", "F#4", "G4", "G#4", "A4", "Bb4", "B4"
            ]
        );
    }

    #[test]
    fn spelling_decides_consonance() {
        let m = white();
        let f = m.note(65);
        let c_sharp = Note {
            midi: 73,
            spelling: Spelling {
                letter: Letter::C,
                alter: 1,
            },
        };
        let d_flat = Note {
            midi: 73,
            spelling: Spelling {
                letter: Letter::D,
                alter: -1,
            },
        };
        assert_eq!(Interval::between(f, c_sharp).name(), "A5");
        assert!(!Interval::between(f, c_sharp).is_consonant());
        assert_eq!(Interval::between(f, d_flat).name(), "m6");
        assert!(Interval::between(f, d_flat).is_consonant());
        assert_eq!(Interval::between(m.note(62), m.note(81)).name(), "P12");
        assert_eq!(Interval::between(m.note(71), m.note(77)).name(), "d5");
        assert_eq!(Interval::between(m.note(71), m.note(65)).name(), "A4");
        assert_eq!(Interval::between(m.note(65), m.note(71)).name(), "A4");
    }

    #[test]
    fn modes_and_transposition() {
        assert_eq!(Modality::new(0, 2).mode(), Some(ModeName::Dorian));
        assert_eq!(Modality::new(-1, 7).mode(), Some(ModeName::Dorian));
        assert_eq!(Modality::new(-1, 7).note(70).to_string(), "Bb4");
        assert_eq!(Modality::new(-1, 7).leading_tone(), Some(6));
        let found = Modality::infer(&[7, 9, 10, 0, 2], 7, None).map(|m| m.fifths);
        assert_eq!(found, Some(-1));
        assert_eq!(Modality::infer(&[0, 1, 2, 3, 4, 5, 6], 0, None), None);
    }
}
