//! `read(write(s)) == s` for random scores, exactly, up to what MusicXML cannot
//! carry (see [`musicxml_common::normalise`]): unspelled pitches come back with
//! their sharp default spelling, the bar count comes back as the number of
//! measures written when that exceeds what the notes need (else `None`), the
//! score's key is the first part's and a part in it has none of its own
//! (`Voice::key`), and a voice's events come back in the reader's total order. Tags, titles, names,
//! keys, meters, terminating tempos, chords, overlaps and triplets all survive.

mod musicxml_common;

use cantus_music::musicxml;
use musicxml_common::{Shape, arb_score, hand_made, normalise};
use proptest::prelude::*;

const SHAPE: Shape = Shape {
    max_voices: 4,
    same_pitch_overlaps: true,
};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn write_then_read_gives_the_score_back(score in arb_score(SHAPE)) {
        let xml = musicxml::write(&score).expect("a valid score writes");
        let (back, report) = musicxml::read_with_report(&xml).expect("our output reads");
        prop_assert_eq!(&back, &normalise(&score), "XML:\n{}", xml);
        prop_assert!(report.warnings.is_empty(), "warnings: {:?}", report.warnings);
        prop_assert_eq!(report.pickup_shift, cantus_music::Time::from_integer(0));
    }

    #[test]
    fn writing_is_deterministic_and_stable(score in arb_score(SHAPE)) {
        let once = musicxml::write(&score).expect("writes");
        prop_assert_eq!(&once, &musicxml::write(&score).expect("writes"));
        let back = musicxml::read(&once).expect("reads");
        prop_assert_eq!(once, musicxml::write(&back).expect("writes again"));
    }
}

#[test]
fn the_hand_made_score_round_trips() {
    let score = hand_made();
    let xml = musicxml::write(&score).expect("writes");
    let back = musicxml::read(&xml).expect("reads");
    assert_eq!(back, normalise(&score));
    assert_eq!(back.bars, Some(3), "a declared empty third bar is kept");
    assert_eq!(back.voices[0].events[0].tag.as_deref(), Some("P0:1"));
}
