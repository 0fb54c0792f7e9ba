//! What an engraving of a chorale shows beside its notes: the Roman numeral of
//! every beat's chord under the bass, as a harmony class writes it. The renderer
//! (through the domain's registered review) draws these with the gate's violation
//! marks; any caller can hand them to `cantus_music::lilypond::write_annotated`.

use crate::analysis::Analysis;
use crate::pitch::Part;
use crate::read::{ReadOptions, read_chorale};
use cantus_music::Score;
use cantus_music::annotation::{Annotations, MarkKind};

/// The Roman numeral of each beat's chord (in the chorale's key), under the bass
/// note sounding at the beat; a numeral is not repeated on consecutive beats of
/// one chord.
/// Nothing for a score that does not read as a four-part chorale.
pub fn roman_numerals(score: &Score, options: &ReadOptions) -> Annotations {
    let mut out = Annotations::new();
    let Ok(reading) = read_chorale(score, options) else {
        return out;
    };
    if reading.chorale.is_melody() {
        return out;
    }
    let Some(bass) = reading
        .voices
        .get(Part::Bass.index())
        .and_then(|name| score.voice_index(name))
    else {
        return out;
    };
    let key = reading.chorale.key;
    let a = Analysis::new(reading.chorale);
    let mut last = None;
    for beat in &a.beats {
        let Some(chord) = beat.chord else {
            last = None;
            continue;
        };
        let numeral = chord.roman(key);
        if last.as_ref() != Some(&numeral) {
            out.push(bass, beat.start, MarkKind::Numeral(numeral.clone()));
        }
        last = Some(numeral);
    }
    out
}
