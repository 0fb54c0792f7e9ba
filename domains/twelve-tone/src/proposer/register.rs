//! Octave placement: turning a voice's pitch classes into a singable line inside its
//! register.
//!
//! The row fixes the pitch classes; the proposer only chooses octaves. A line mostly
//! moves by steps and small leaps, sometimes leaps wide, turns back after a wide leap,
//! keeps a direction for a while (so phrases have a shape), and is pulled gently
//! towards the middle of the register so it neither sticks to an edge nor drifts
//! out of the voice's band. Chords are voiced close (within about an octave) above or
//! around the melody note. The register comes from the blueprint, so register
//! contrast is honoured without any extra rule here.

use super::rhythm::pick;
use crate::row::PitchClass;
use crate::spec::VoiceSpec;

/// A voice's working register, inclusive MIDI bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Register {
    pub low: u8,
    pub high: u8,
}

impl Register {
    pub fn of(voice: &VoiceSpec) -> Register {
        Register {
            low: voice.low.min(voice.high),
            high: voice.high.max(voice.low),
        }
    }

    /// The middle of the register (rounded down).
    pub fn centre(self) -> i32 {
        (i32::from(self.low) + i32::from(self.high)) / 2
    }

    /// Every MIDI pitch of pitch class `pc` inside the register, low to high.
    pub fn octaves_of(self, pc: PitchClass) -> impl Iterator<Item = u8> {
        (self.low..=self.high).filter(move |m| m % 12 == pc % 12)
    }

    /// The pitch of class `pc` in the register nearest `target` (lower on a tie).
    pub fn nearest(self, pc: PitchClass, target: i32) -> Option<u8> {
        self.octaves_of(pc)
            .min_by_key(|&m| ((i32::from(m) - target).abs(), m))
    }

    #[cfg(test)]
    pub fn contains(self, midi: u8) -> bool {
        (self.low..=self.high).contains(&midi)
    }
}

/// How welcome a melodic interval of `semitones` is (steps and small leaps most).
fn leap_weight(semitones: i32) -> f64 {
    match semitones.abs() {
        0 => 0.05,
        1..=2 => 1.0,
        3..=5 => 1.0,
        6..=9 => 0.5,
        10..=12 => 0.3,
        13..=19 => 0.1,
        _ => 0.03,
    }
}

/// The melodic state carried from note to note.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Contour {
    /// The last pitch of the line.
    pub prev: Option<u8>,
    /// +1 rising, −1 falling.
    direction: i32,
}

impl Contour {
    pub fn after(prev: Option<u8>) -> Contour {
        Contour { prev, direction: 1 }
    }

    /// Chooses the pitch of `pc` for the next melody note and moves on.
    pub fn next(&mut self, rng: &mut fastrand::Rng, reg: Register, pc: PitchClass) -> Option<u8> {
        let half = f64::from((i32::from(reg.high) - i32::from(reg.low)).max(2)) / 2.0;
        let options: Vec<u8> = reg.octaves_of(pc).collect();
        let chosen = match self.prev {
            None => {
                let target = reg.centre() + rng.i32(-5..=5);
                reg.nearest(pc, target)
            }
            Some(prev) => {
                let prev = i32::from(prev);
                let weighted: Vec<(&u8, f64)> = options
                    .iter()
                    .map(|m| {
                        let step = i32::from(*m) - prev;
                        let off = f64::from(i32::from(*m) - reg.centre()) / half;
                        let pull = (1.0 - 0.75 * off * off).max(0.12);
                        let along = if step.signum() == self.direction && step.abs() <= 7 {
                            1.4
                        } else {
                            1.0
                        };
                        (m, leap_weight(step) * pull * along)
                    })
                    .collect();
                pick(rng, &weighted).copied()
            }
        }?;
        if let Some(prev) = self.prev {
            let step = i32::from(chosen) - i32::from(prev);
            if step.abs() > 7 {
                self.direction = -step.signum();
            } else if rng.f64() < 0.25 {
                self.direction = -self.direction;
            }
        }
        self.prev = Some(chosen);
        Some(chosen)
    }
}

/// Voices a chord: the melody note `anchor` plus the other pitch classes close by,
/// inside the register, ascending. `None` if a pitch class has no place.
pub(crate) fn voice_chord(
    rng: &mut fastrand::Rng,
    reg: Register,
    anchor: u8,
    others: &[PitchClass],
) -> Option<Vec<u8>> {
    let mut pitches = vec![anchor];
    let above = rng.f64() < 0.6;
    for &pc in others {
        let options: Vec<u8> = reg
            .octaves_of(pc)
            .filter(|m| !pitches.contains(m))
            .collect();
        let mut weighted: Vec<(&u8, f64)> = Vec::with_capacity(options.len());
        for m in &options {
            let d = i32::from(*m) - i32::from(anchor);
            let near = match d.abs() {
                0..=2 => 0.4,
                3..=9 => 1.0,
                10..=12 => 0.5,
                _ => 0.05,
            };
            let side = if (d > 0) == above { 1.5 } else { 1.0 };
            weighted.push((m, near * side));
        }
        pitches.push(*pick(rng, &weighted)?);
    }
    pitches.sort_unstable();
    Some(pitches)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placements_stay_in_register_with_the_right_pitch_class() {
        let reg = Register { low: 48, high: 69 };
        let mut rng = fastrand::Rng::with_seed(3);
        let mut contour = Contour::after(None);
        for pc in [0, 11, 7, 8, 3, 1, 2, 10, 6, 5, 4, 9] {
            let m = contour
                .next(&mut rng, reg, pc)
                .expect("every pc fits 21 semitones");
            assert!(reg.contains(m) && m % 12 == pc, "{m}");
        }
        let chord = voice_chord(&mut rng, reg, 60, &[4, 7]).expect("fits");
        assert_eq!(chord.iter().map(|m| m % 12).filter(|&p| p == 0).count(), 1);
        assert!(chord.windows(2).all(|w| w[0] < w[1]) && chord.iter().all(|&m| reg.contains(m)));
    }

    #[test]
    fn nearest_prefers_the_closer_octave() {
        let reg = Register { low: 40, high: 62 };
        assert_eq!(reg.nearest(0, 50), Some(48));
        assert_eq!(reg.nearest(0, 56), Some(60));
        assert_eq!(reg.nearest(7, 100), Some(55));
    }
}
