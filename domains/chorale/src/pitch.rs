//! What the rules need that MIDI numbers lack: the four parts and their ranges,
//! spelled tones, interval quality (an augmented second is not a minor third), and
//! the key — its scale, its spelling of chromatic notes, its closely related keys.

use cantus_music::{Key, Letter, Mode, Pitch, Spelling};
use serde::Serialize;
use std::fmt;

/// One of the four voices, top to bottom. The order is the order of
/// [`Chorale::parts`](crate::Chorale::parts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    Soprano,
    Alto,
    Tenor,
    Bass,
}

impl Part {
    /// Top to bottom.
    pub const ALL: [Part; 4] = [Part::Soprano, Part::Alto, Part::Tenor, Part::Bass];
    /// The three parts a harmonisation writes under a given melody.
    pub const LOWER: [Part; 3] = [Part::Alto, Part::Tenor, Part::Bass];

    /// 0 (soprano) to 3 (bass).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The part at `index` (0 = soprano).
    pub fn from_index(index: usize) -> Option<Part> {
        Part::ALL.get(index).copied()
    }

    /// `Soprano`, `Alto`, `Tenor`, `Bass`: the voice names the domain writes.
    pub fn name(self) -> &'static str {
        match self {
            Part::Soprano => "Soprano",
            Part::Alto => "Alto",
            Part::Tenor => "Tenor",
            Part::Bass => "Bass",
        }
    }

    /// The textbook range (MIDI, inclusive), with the tone above and below it that
    /// the textbooks allow "occasionally": soprano C4–A5, alto G3–D5, tenor C3–A4,
    /// bass D2–D4 (Aldwell & Schachter's ranges with their extensions).
    pub fn range(self) -> (u8, u8) {
        match self {
            Part::Soprano => (60, 81),
            Part::Alto => (55, 74),
            Part::Tenor => (48, 69),
            Part::Bass => (38, 62),
        }
    }

    /// Whether this is the soprano or the bass.
    pub fn is_outer(self) -> bool {
        matches!(self, Part::Soprano | Part::Bass)
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Part::Soprano => "soprano",
            Part::Alto => "alto",
            Part::Tenor => "tenor",
            Part::Bass => "bass",
        })
    }
}

/// A sounding pitch and how it is spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Tone {
    pub midi: u8,
    pub spelling: Spelling,
}

impl Tone {
    /// Pitch class 0..=11 (C = 0).
    pub fn pc(self) -> u8 {
        self.midi % 12
    }

    /// The diatonic step number: letter index + 7 × octave (C4 = 28), so that the
    /// difference of two is the generic interval (0 = unison, 1 = second, …).
    pub fn step(self) -> i32 {
        letter_index(self.spelling.letter) + 7 * self.spelling.octave_for(self.midi)
    }

    /// The music model's pitch.
    pub fn pitch(self) -> Pitch {
        Pitch::spelled(self.midi, self.spelling)
    }
}

impl fmt::Display for Tone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let acc = match self.spelling.alter {
            2 => "##",
            1 => "#",
            -1 => "b",
            -2 => "bb",
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
    Letter::ALL.iter().position(|&x| x == l).unwrap_or(0) as i32
}

/// The interval from one tone to another: its generic size (letters, signed) and
/// its size in semitones (signed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    /// 0 unison, 1 second, … 7 octave; negative when the second tone is lower.
    pub generic: i32,
    pub semitones: i32,
}

impl Interval {
    /// From `a` to `b`.
    pub fn between(a: Tone, b: Tone) -> Interval {
        Interval {
            generic: b.step() - a.step(),
            semitones: i32::from(b.midi) - i32::from(a.midi),
        }
    }

    /// How far the semitones lie from the major or perfect interval of this
    /// generic size, taken upward (0 perfect/major, -1 minor, +1 augmented, …).
    fn deviation(self) -> (bool, i32) {
        let (g, s) = if self.generic < 0 || (self.generic == 0 && self.semitones < 0) {
            (-self.generic, -self.semitones)
        } else {
            (self.generic, self.semitones)
        };
        let octaves = g.div_euclid(7);
        let simple = g.rem_euclid(7);
        const MAJOR_OR_PERFECT: [i32; 7] = [0, 2, 4, 5, 7, 9, 11];
        let expected = MAJOR_OR_PERFECT[simple as usize] + 12 * octaves;
        let perfect = matches!(simple, 0 | 3 | 4);
        (perfect, s - expected)
    }

    /// Augmented (a second, fourth, fifth … one semitone wider than major or perfect).
    pub fn is_augmented(self) -> bool {
        self.deviation().1 >= 1
    }

    /// Diminished.
    pub fn is_diminished(self) -> bool {
        let (perfect, d) = self.deviation();
        if perfect { d <= -1 } else { d <= -2 }
    }

    /// `M3`, `P5`, `A2`, `d7` (the simple name; compounds are named by their simple form).
    pub fn name(self) -> String {
        let (perfect, d) = self.deviation();
        let quality = match (perfect, d) {
            (true, 0) => "P",
            (false, 0) => "M",
            (false, -1) => "m",
            (_, d) if d >= 1 => "A",
            _ => "d",
        };
        let g = self.generic.unsigned_abs() % 7 + 1;
        let g = if g == 1 && self.generic.unsigned_abs() >= 7 {
            8
        } else {
            g
        };
        format!("{quality}{g}")
    }
}

/// A key: tonic and mode, with its scale and how it spells every pitch class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Tonality {
    pub tonic: Spelling,
    pub mode: Mode,
}

/// Semitones above the tonic of the diatonic degrees: major, and natural minor.
const MAJOR: [u8; 7] = [0, 2, 4, 5, 7, 9, 11];
const MINOR: [u8; 7] = [0, 2, 3, 5, 7, 8, 10];

impl Tonality {
    /// The key of a score's key signature.
    pub fn of(key: Key) -> Tonality {
        Tonality {
            tonic: key.tonic,
            mode: key.mode,
        }
    }

    /// The music model's key.
    pub fn key(self) -> Key {
        Key {
            tonic: self.tonic,
            mode: self.mode,
        }
    }

    /// Pitch class of the tonic.
    pub fn tonic_pc(self) -> u8 {
        (self.tonic.letter.pitch_class() + i32::from(self.tonic.alter)).rem_euclid(12) as u8
    }

    fn degrees(self) -> &'static [u8; 7] {
        match self.mode {
            Mode::Major => &MAJOR,
            Mode::Minor => &MINOR,
        }
    }

    /// Pitch class of the diatonic degree `d` (0 = tonic … 6), natural minor in minor.
    pub fn degree_pc(self, d: usize) -> u8 {
        (self.tonic_pc() + self.degrees()[d % 7]) % 12
    }

    /// The leading tone: a semitone under the tonic (raised 7th in minor).
    pub fn leading_tone(self) -> u8 {
        (self.tonic_pc() + 11) % 12
    }

    /// Whether `pc` belongs to the key: the diatonic scale, and in minor also the
    /// raised sixth and seventh (melodic and harmonic minor).
    pub fn contains(self, pc: u8) -> bool {
        let off = (pc + 12 - self.tonic_pc()) % 12;
        self.degrees().contains(&off) || (self.mode == Mode::Minor && matches!(off, 9 | 11))
    }

    /// The diatonic degree (0..7) of `pc`, if it is the natural degree or (minor) the
    /// raised sixth or seventh.
    pub fn degree_of(self, pc: u8) -> Option<usize> {
        let off = (pc + 12 - self.tonic_pc()) % 12;
        if let Some(d) = self.degrees().iter().position(|&x| x == off) {
            return Some(d);
        }
        match (self.mode, off) {
            (Mode::Minor, 9) => Some(5),
            (Mode::Minor, 11) => Some(6),
            _ => None,
        }
    }

    /// How this key spells pitch class `pc`: the scale's letters; chromatic notes
    /// as the usual alterations (major: ♯1, ♭3, ♯4, ♯5, ♭7; minor: ♭2, ♯3, ♯4, ♯6, ♯7).
    pub fn spell(self, pc: u8) -> Spelling {
        let off = (pc % 12 + 12 - self.tonic_pc()) % 12;
        let degree = match self.degrees().iter().position(|&x| x == off) {
            Some(d) => d,
            None => match (self.mode, off) {
                (Mode::Major, 1) => 0,
                (Mode::Major, 3) => 2,
                (Mode::Major, 6) => 3,
                (Mode::Major, 8) => 4,
                (Mode::Major, 10) => 6,
                (Mode::Minor, 1) => 1,
                (Mode::Minor, 4) => 2,
                (Mode::Minor, 6) => 3,
                (Mode::Minor, 9) => 5,
                _ => 6,
            },
        };
        let letter = Letter::ALL[(letter_index(self.tonic.letter) as usize + degree) % 7];
        let natural = letter.pitch_class();
        let mut alter = (i32::from(pc % 12) - natural).rem_euclid(12);
        if alter > 6 {
            alter -= 12;
        }
        Spelling {
            letter,
            alter: alter as i8,
        }
    }

    /// The tone `midi` spelled in this key.
    pub fn tone(self, midi: u8) -> Tone {
        Tone {
            midi,
            spelling: self.spell(midi % 12),
        }
    }

    /// The keys closely related to this one (itself first): those whose signature
    /// differs by at most one accidental, in both modes — tonic, subdominant,
    /// dominant and their relatives.
    pub fn closely_related(self) -> Vec<Tonality> {
        let fifths = self.key().fifths();
        let mut out = vec![self];
        for f in [fifths, fifths - 1, fifths + 1] {
            for mode in [Mode::Major, Mode::Minor] {
                let k = Tonality::of(Key::from_fifths(f, mode));
                if !out.contains(&k) {
                    out.push(k);
                }
            }
        }
        out
    }

    /// `G major`, `F# minor`.
    pub fn name(self) -> String {
        let acc = match self.tonic.alter {
            1 => "#",
            -1 => "b",
            2 => "##",
            -2 => "bb",
            _ => "",
        };
        let mode = match self.mode {
            Mode::Major => "major",
            Mode::Minor => "minor",
        };
        format!("{}{acc} {mode}", self.tonic.letter.as_char())
    }
}

impl fmt::Display for Tonality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(fifths: i32, mode: Mode) -> Tonality {
        Tonality::of(Key::from_fifths(fifths, mode))
    }

    fn tone(text: &str) -> Tone {
        let p = Pitch::parse(text).expect("pitch");
        Tone {
            midi: p.midi,
            spelling: p.spelling.expect("spelled"),
        }
    }

    #[test]
    fn intervals_have_quality_from_their_spelling() {
        assert_eq!(Interval::between(tone("F4"), tone("G#4")).name(), "A2");
        assert!(Interval::between(tone("F4"), tone("G#4")).is_augmented());
        assert_eq!(Interval::between(tone("F4"), tone("Ab4")).name(), "m3");
        assert!(!Interval::between(tone("F4"), tone("Ab4")).is_augmented());
        assert_eq!(Interval::between(tone("F4"), tone("B4")).name(), "A4");
        assert_eq!(Interval::between(tone("B4"), tone("F5")).name(), "d5");
        assert!(Interval::between(tone("B4"), tone("F5")).is_diminished());
        assert_eq!(Interval::between(tone("C5"), tone("C4")).name(), "P8");
        assert_eq!(Interval::between(tone("G#4"), tone("F4")).name(), "A2");
        assert_eq!(Interval::between(tone("C3"), tone("G4")).name(), "P5");
    }

    #[test]
    fn keys_spell_their_chromatic_notes_as_bach_does() {
        let c = key(0, Mode::Major);
        let names: Vec<String> = (0..12).map(|pc| c.tone(60 + pc).to_string()).collect();
        assert_eq!(names.join(" "), "C4 C#4 D4 Eb4 E4 F4 F#4 G4 G#4 A4 Bb4 B4");
        let a = key(0, Mode::Minor);
        let names: Vec<String> = (0..12).map(|pc| a.tone(57 + pc).to_string()).collect();
        assert_eq!(names.join(" "), "A3 Bb3 B3 C4 C#4 D4 D#4 E4 F4 F#4 G4 G#4");
        let bb = key(-2, Mode::Major);
        assert_eq!(bb.tone(70).to_string(), "Bb4");
        assert_eq!(bb.tone(63).to_string(), "Eb4");
        assert_eq!(bb.leading_tone(), 9);
        assert!(a.contains(8) && a.contains(7) && !a.contains(1));
    }

    #[test]
    fn closely_related_keys() {
        let names: Vec<String> = key(0, Mode::Major)
            .closely_related()
            .iter()
            .map(|k| k.name())
            .collect();
        assert_eq!(
            names,
            [
                "C major", "A minor", "F major", "D minor", "G major", "E minor"
            ]
        );
    }
}
