//! The clef a voice is conventionally written in, chosen by its range.
//!
//! Writers (MusicXML here; LilyPond can use the same rule) put a voice whose
//! notes average at or above middle C in the treble clef, a tenor-range voice
//! (average from F3 to below middle C) in the octave-transposing treble clef
//! (`treble_8`, as tenors are written), and anything lower in the bass clef.

/// A clef by range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Clef {
    /// G clef on line 2.
    Treble,
    /// G clef on line 2, sounding an octave lower (the tenor's clef).
    Treble8,
    /// F clef on line 4.
    Bass,
}

impl Clef {
    /// The clef for a voice sounding `pitches` (MIDI numbers): by their mean,
    /// treble at or above 60 (C4), treble_8 from 53 (F3), else bass. Treble
    /// for a voice without notes.
    pub fn for_pitches(pitches: impl IntoIterator<Item = u8>) -> Clef {
        let (mut sum, mut count) = (0u64, 0u64);
        for midi in pitches {
            sum += u64::from(midi);
            count += 1;
        }
        if count == 0 || sum >= 60 * count {
            Clef::Treble
        } else if sum >= 53 * count {
            Clef::Treble8
        } else {
            Clef::Bass
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clefs_follow_the_range() {
        assert_eq!(Clef::for_pitches([60, 72]), Clef::Treble);
        assert_eq!(Clef::for_pitches([55, 57]), Clef::Treble8);
        assert_eq!(Clef::for_pitches([40, 52]), Clef::Bass);
        assert_eq!(Clef::for_pitches([]), Clef::Treble);
    }
}
