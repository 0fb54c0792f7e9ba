//! Chords: the nine kinds of tertian sonority a chorale is built from (four
//! triads, five seventh chords), their members and inversions, and their Roman
//! numerals in a key.
//!
//! A chord is named by its root's pitch class and its quality; which chord a beat
//! holds is decided by [`label`](label::label) from the tones sounding in it.

pub(crate) mod label;

use crate::pitch::{Tonality, Tone};
use cantus_music::{Mode, Spelling};
use serde::Serialize;
use std::fmt;

/// The kind of a chord: the intervals of its members above the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Quality {
    Major,
    Minor,
    Diminished,
    Augmented,
    Dominant7,
    Major7,
    Minor7,
    HalfDiminished7,
    Diminished7,
}

impl Quality {
    /// Every quality, triads first.
    pub const ALL: [Quality; 9] = [
        Quality::Major,
        Quality::Minor,
        Quality::Diminished,
        Quality::Augmented,
        Quality::Dominant7,
        Quality::Major7,
        Quality::Minor7,
        Quality::HalfDiminished7,
        Quality::Diminished7,
    ];

    /// Semitones above the root: root, third, fifth (and seventh).
    pub fn intervals(self) -> &'static [u8] {
        match self {
            Quality::Major => &[0, 4, 7],
            Quality::Minor => &[0, 3, 7],
            Quality::Diminished => &[0, 3, 6],
            Quality::Augmented => &[0, 4, 8],
            Quality::Dominant7 => &[0, 4, 7, 10],
            Quality::Major7 => &[0, 4, 7, 11],
            Quality::Minor7 => &[0, 3, 7, 10],
            Quality::HalfDiminished7 => &[0, 3, 6, 10],
            Quality::Diminished7 => &[0, 3, 6, 9],
        }
    }

    /// Whether it has a seventh.
    pub fn is_seventh(self) -> bool {
        self.intervals().len() == 4
    }

    /// Whether its third is major (so the root is the dominant of a fifth below).
    pub fn is_major_third(self) -> bool {
        self.intervals()[1] == 4
    }

    /// A dominant: a major triad or a dominant seventh.
    pub fn is_dominant(self) -> bool {
        matches!(self, Quality::Major | Quality::Dominant7)
    }

    /// A leading-tone chord: diminished triad, half-diminished or diminished seventh.
    pub fn is_leading_tone_chord(self) -> bool {
        matches!(
            self,
            Quality::Diminished | Quality::HalfDiminished7 | Quality::Diminished7
        )
    }

    /// A major or minor triad (a chord a cadence can close on).
    pub fn is_consonant_triad(self) -> bool {
        matches!(self, Quality::Major | Quality::Minor)
    }
}

/// What a pitch class is in a chord.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Root,
    Third,
    Fifth,
    Seventh,
}

/// A chord: root pitch class, quality, and the pitch class in the bass at the beat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Chord {
    pub root: u8,
    pub quality: Quality,
    /// Pitch class of the lowest part sounding at the beat (a member unless it is a
    /// non-chord tone).
    pub bass: u8,
    /// How the root is spelled (from the tones, else from the key).
    pub root_spelling: Spelling,
}

impl Chord {
    /// The member pitch classes, root first.
    pub fn members(self) -> impl Iterator<Item = u8> {
        self.quality
            .intervals()
            .iter()
            .map(move |i| (self.root + i) % 12)
    }

    /// What `pc` is in this chord, if a member.
    pub fn role(self, pc: u8) -> Option<Role> {
        let off = (pc % 12 + 12 - self.root) % 12;
        let roles = [Role::Root, Role::Third, Role::Fifth, Role::Seventh];
        self.quality
            .intervals()
            .iter()
            .position(|&i| i == off)
            .map(|k| roles[k])
    }

    /// Whether `pc` is a member.
    pub fn contains(self, pc: u8) -> bool {
        self.role(pc).is_some()
    }

    /// Pitch class of a member.
    pub fn pc_of(self, role: Role) -> Option<u8> {
        let k = match role {
            Role::Root => 0,
            Role::Third => 1,
            Role::Fifth => 2,
            Role::Seventh => 3,
        };
        self.quality
            .intervals()
            .get(k)
            .map(|i| (self.root + i) % 12)
    }

    /// 0 root position, 1 first, 2 second, 3 third inversion (the bass's role);
    /// `None` when the bass is no member.
    pub fn inversion(self) -> Option<u8> {
        self.role(self.bass).map(|r| match r {
            Role::Root => 0,
            Role::Third => 1,
            Role::Fifth => 2,
            Role::Seventh => 3,
        })
    }

    /// Whether the two name the same harmony (root and quality; inversion aside).
    pub fn same_harmony(self, other: Chord) -> bool {
        self.root == other.root && self.quality == other.quality
    }

    /// Whether this chord is a dominant of `target` (a dominant a fifth above it, or
    /// a leading-tone chord a semitone below it).
    pub fn is_dominant_of(self, target: Chord) -> bool {
        (self.quality.is_dominant() && (self.root + 12 - target.root) % 12 == 7)
            || (self.quality.is_leading_tone_chord() && (target.root + 12 - self.root) % 12 == 1)
    }

    /// The local tonic this chord is a dominant of (a fifth below, or a semitone
    /// above a leading-tone chord); `None` for other qualities.
    pub fn resolves_to(self) -> Option<u8> {
        if self.quality.is_dominant() {
            Some((self.root + 5) % 12)
        } else if self.quality.is_leading_tone_chord() {
            Some((self.root + 1) % 12)
        } else {
            None
        }
    }

    /// The Roman numeral of this chord in `key`, with figures for its inversion:
    /// `I`, `V65`, `ii6`, `vii°7`, `V7/V`, `bVI`.
    pub fn roman(self, key: Tonality) -> String {
        roman(self, key)
    }
}

impl fmt::Display for Chord {
    /// `G7`, `F#°`, `Bbm`: the chord symbol of the root position.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let acc = match self.root_spelling.alter {
            1 => "#",
            -1 => "b",
            2 => "##",
            -2 => "bb",
            _ => "",
        };
        let kind = match self.quality {
            Quality::Major => "",
            Quality::Minor => "m",
            Quality::Diminished => "°",
            Quality::Augmented => "+",
            Quality::Dominant7 => "7",
            Quality::Major7 => "maj7",
            Quality::Minor7 => "m7",
            Quality::HalfDiminished7 => "ø7",
            Quality::Diminished7 => "°7",
        };
        write!(f, "{}{acc}{kind}", self.root_spelling.letter.as_char())
    }
}

/// The qualities a key's own scale builds on degree `d` (natural and harmonic minor
/// both count in minor).
fn diatonic_qualities(key: Tonality, d: usize) -> Vec<Quality> {
    let scales: Vec<[u8; 7]> = match key.mode {
        Mode::Major => vec![[0, 2, 4, 5, 7, 9, 11]],
        Mode::Minor => vec![[0, 2, 3, 5, 7, 8, 10], [0, 2, 3, 5, 7, 8, 11]],
    };
    let mut out = Vec::new();
    for s in scales {
        let at = |k: usize| (s[(d + k) % 7] + 12 - s[d]) % 12;
        let (third, fifth, seventh) = (at(2), at(4), at(6));
        for q in Quality::ALL {
            let iv = q.intervals();
            let fits = iv[1] == third && iv[2] == fifth && iv.get(3).is_none_or(|&x| x == seventh);
            if fits && !out.contains(&q) {
                out.push(q);
            }
        }
    }
    out
}

const NUMERALS: [&str; 7] = ["I", "II", "III", "IV", "V", "VI", "VII"];

fn numeral(degree: usize, quality: Quality) -> String {
    let upper = NUMERALS[degree % 7];
    let (text, mark) = match quality {
        Quality::Major | Quality::Dominant7 | Quality::Major7 => (upper.to_string(), ""),
        Quality::Augmented => (upper.to_string(), "+"),
        Quality::Minor | Quality::Minor7 => (upper.to_lowercase(), ""),
        Quality::Diminished | Quality::Diminished7 => (upper.to_lowercase(), "°"),
        Quality::HalfDiminished7 => (upper.to_lowercase(), "ø"),
    };
    format!("{text}{mark}")
}

fn figures(chord: Chord) -> &'static str {
    match (chord.quality.is_seventh(), chord.inversion()) {
        (false, Some(1)) => "6",
        (false, Some(2)) => "64",
        (false, _) => "",
        (true, Some(1)) => "65",
        (true, Some(2)) => "43",
        (true, Some(3)) => "42",
        (true, _) => "7",
    }
}

fn roman(chord: Chord, key: Tonality) -> String {
    let fig = figures(chord);
    let seventh_mark = if chord.quality == Quality::Major7 && fig == "7" {
        "M"
    } else {
        ""
    };
    let degree = key.degree_of(chord.root);
    if let Some(d) = degree
        && diatonic_qualities(key, d).contains(&chord.quality)
    {
        return format!("{}{seventh_mark}{fig}", numeral(d, chord.quality));
    }
    // The tonic triad of the other mode (a Picardy third, a minor tonic in major).
    if chord.root == key.tonic_pc() && chord.quality.is_consonant_triad() {
        return format!("{}{fig}", numeral(0, chord.quality));
    }
    // Applied chords: a dominant or leading-tone chord of a diatonic major or minor triad.
    if let Some(target) = chord.resolves_to()
        && let Some(t) = key.degree_of(target)
        && t != 0
        && diatonic_qualities(key, t)
            .iter()
            .any(|q| q.is_consonant_triad())
    {
        let of = diatonic_qualities(key, t)
            .into_iter()
            .find(|q| q.is_consonant_triad())
            .unwrap_or(Quality::Major);
        let head = if chord.quality.is_dominant() {
            numeral(4, chord.quality)
        } else {
            numeral(6, chord.quality)
        };
        return format!("{head}{fig}/{}", numeral(t, of));
    }
    // Anything else: the degree by letter, with the alteration against the key.
    let letters = (crate::pitch::Tone {
        midi: chord.root,
        spelling: chord.root_spelling,
    }
    .step()
        - crate::pitch::Tone {
            midi: key.tonic_pc(),
            spelling: key.tonic,
        }
        .step())
    .rem_euclid(7) as usize;
    let expected = key.degree_pc(letters);
    let diff = (i32::from(chord.root) - i32::from(expected) + 18).rem_euclid(12) - 6;
    let acc = match diff {
        -1 => "b",
        1 => "#",
        -2 => "bb",
        2 => "##",
        _ => "",
    };
    format!(
        "{acc}{}{seventh_mark}{fig}",
        numeral(letters, chord.quality)
    )
}

/// The spelling of `pc` among `tones` (the first that sounds it), else `key`'s.
pub(crate) fn spelling_among(pc: u8, tones: &[Tone], key: Tonality) -> Spelling {
    tones
        .iter()
        .find(|t| t.pc() == pc)
        .map_or_else(|| key.spell(pc), |t| t.spelling)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cantus_music::Key;

    fn chord(root: u8, quality: Quality, bass: u8, key: Tonality) -> Chord {
        Chord {
            root,
            quality,
            bass,
            root_spelling: key.spell(root),
        }
    }

    #[test]
    fn roman_numerals_in_major_and_minor() {
        let c = Tonality::of(Key::from_fifths(0, Mode::Major));
        assert_eq!(chord(0, Quality::Major, 0, c).roman(c), "I");
        assert_eq!(chord(7, Quality::Dominant7, 11, c).roman(c), "V65");
        assert_eq!(chord(2, Quality::Minor, 5, c).roman(c), "ii6");
        assert_eq!(chord(2, Quality::Dominant7, 2, c).roman(c), "V7/V");
        assert_eq!(chord(4, Quality::Major, 8, c).roman(c), "V6/vi");
        assert_eq!(chord(11, Quality::Diminished, 2, c).roman(c), "vii°6");
        assert_eq!(chord(6, Quality::Diminished7, 6, c).roman(c), "vii°7/V");
        assert_eq!(chord(10, Quality::Major, 10, c).roman(c), "bVII");
        assert_eq!(chord(7, Quality::Major, 2, c).roman(c), "V64");
        let a = Tonality::of(Key::from_fifths(0, Mode::Minor));
        assert_eq!(chord(9, Quality::Minor, 9, a).roman(a), "i");
        assert_eq!(chord(4, Quality::Major, 4, a).roman(a), "V");
        assert_eq!(chord(11, Quality::HalfDiminished7, 2, a).roman(a), "iiø65");
        assert_eq!(chord(0, Quality::Major, 0, a).roman(a), "III");
        assert_eq!(chord(9, Quality::Major, 9, a).roman(a), "I");
        assert_eq!(chord(8, Quality::Diminished7, 8, a).roman(a), "vii°7");
    }

    #[test]
    fn members_roles_and_inversions() {
        let c = Tonality::of(Key::from_fifths(0, Mode::Major));
        let g7 = chord(7, Quality::Dominant7, 5, c);
        assert_eq!(g7.members().collect::<Vec<_>>(), [7, 11, 2, 5]);
        assert_eq!(g7.role(5), Some(Role::Seventh));
        assert_eq!(g7.inversion(), Some(3));
        assert_eq!(g7.resolves_to(), Some(0));
        assert!(g7.is_dominant_of(chord(0, Quality::Major, 0, c)));
        assert_eq!(g7.to_string(), "G7");
    }
}
