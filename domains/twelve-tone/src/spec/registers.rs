//! Register contrast: how [`Technique::RegisterContrast`](super::Technique) turns
//! overlapping voice ranges into separate bands.
//!
//! Voice ranges are declared as what each voice *can* sing; contrast decides what it
//! *should* sing so that voices are heard in distinct registers. The rule, in exact
//! integer and rational arithmetic:
//!
//! 1. Rank the voices by the centre of their range, highest first (ties keep spec order).
//! 2. Take the span from the lowest `low` to the highest `high` (S pitches in all) and
//!    cut it into one equal band per voice, `B = S / n` pitches wide; the voice ranked
//!    k (0 = top) gets band k, counted from the top.
//! 3. Each voice gets a window of W pitches centred on its band's centre:
//!    * **strong**: `W = max(12, ⌊B⌋)`: the voice stays inside its own band;
//!    * **mild**: `W = max(12, ⌊(own width + B) / 2⌋)`: halfway between its full
//!      range and its band.
//!
//!    W is never below 12 pitches, so every voice can still sound every pitch class.
//! 4. The window is moved (not shrunk) to lie inside the voice's declared range; a
//!    voice whose range is no wider than W keeps its range.
//!
//! For the default SATB voices (S 60–81, A 55–74, T 48–69, B 40–62: span 40–81, 42
//! pitches, B = 10.5), strong contrast gives S 70–81, A 60–71, T 50–61, B 40–51: the
//! overlaps between neighbours shrink from 15 pitches each to 2 each.

use num_rational::Ratio;

use super::{Strength, VoiceSpec};

/// The working registers of `voices` under register contrast of `strength`, in spec
/// order (see the module docs for the rule). Voices keep their names.
pub fn working_voices(voices: &[VoiceSpec], strength: Strength) -> Vec<VoiceSpec> {
    let n = voices.len();
    let (Some(lowest), Some(highest)) = (
        voices.iter().map(|v| i64::from(v.low)).min(),
        voices.iter().map(|v| i64::from(v.high)).max(),
    ) else {
        return Vec::new();
    };
    if n < 2 {
        return voices.to_vec();
    }
    let mut ranked: Vec<usize> = (0..n).collect();
    ranked.sort_by_key(|&i| {
        let v = &voices[i];
        (std::cmp::Reverse(u16::from(v.low) + u16::from(v.high)), i)
    });
    let span = Ratio::from_integer(highest - lowest + 1);
    let band = span / Ratio::from_integer(n as i64);
    let mut out = voices.to_vec();
    for (rank, &index) in ranked.iter().enumerate() {
        let voice = &voices[index];
        let own = i64::from(voice.high) - i64::from(voice.low) + 1;
        let width = match strength {
            Strength::Strong => band.floor().to_integer(),
            Strength::Mild => ((Ratio::from_integer(own) + band) / Ratio::from_integer(2))
                .floor()
                .to_integer(),
        }
        .max(12);
        if width >= own {
            continue;
        }
        // Pitches are unit cells: band k covers [top − (k+1)·B, top − k·B) with
        // top = highest + 1, so its centre is top − (k + ½)·B.
        let top = Ratio::from_integer(highest + 1);
        let centre = top - (Ratio::from_integer(rank as i64) + Ratio::new(1, 2)) * band;
        let low = (centre - Ratio::new(width, 2)).round().to_integer();
        let low = low.clamp(i64::from(voice.low), i64::from(voice.high) - width + 1);
        let high = low + width - 1;
        // Both ends lie inside the declared u8 range, so the conversions cannot fail.
        if let (Ok(low), Ok(high)) = (u8::try_from(low), u8::try_from(high)) {
            out[index].low = low;
            out[index].high = high;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::defaults::default_voices;

    fn ranges(voices: &[VoiceSpec]) -> Vec<(u8, u8)> {
        voices.iter().map(|v| (v.low, v.high)).collect()
    }

    /// Total overlap in semitones between neighbours (top first).
    fn overlap(voices: &[VoiceSpec]) -> i32 {
        voices
            .windows(2)
            .map(|w| (i32::from(w[1].high) - i32::from(w[0].low) + 1).max(0))
            .sum()
    }

    #[test]
    fn strong_contrast_gives_the_documented_satb_bands() {
        let satb = default_voices(4);
        let strong = working_voices(&satb, Strength::Strong);
        assert_eq!(ranges(&strong), [(70, 81), (60, 71), (50, 61), (40, 51)]);
        assert_eq!(overlap(&satb), 45);
        assert_eq!(overlap(&strong), 6);
    }

    #[test]
    fn mild_contrast_lies_between_none_and_strong() {
        for count in 2..=6 {
            let voices = default_voices(count);
            let mild = working_voices(&voices, Strength::Mild);
            let strong = working_voices(&voices, Strength::Strong);
            assert!(overlap(&strong) <= overlap(&mild), "{count} voices");
            assert!(overlap(&mild) < overlap(&voices), "{count} voices");
            for ((orig, m), s) in voices.iter().zip(&mild).zip(&strong) {
                for narrowed in [m, s] {
                    assert!(narrowed.low >= orig.low && narrowed.high <= orig.high);
                    assert!(narrowed.high - narrowed.low >= 11, "{narrowed:?}");
                    assert_eq!(narrowed.name, orig.name);
                }
            }
        }
    }

    #[test]
    fn voices_listed_bottom_first_are_ranked_by_register_not_order() {
        let mut voices = default_voices(3);
        voices.reverse();
        let strong = working_voices(&voices, Strength::Strong);
        let mut expected = working_voices(&default_voices(3), Strength::Strong);
        expected.reverse();
        assert_eq!(strong, expected);
    }
}
