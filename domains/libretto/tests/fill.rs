//! Gap filling: the new bars sound, the context is untouched, the gates pass,
//! and the same seed gives the same answer.

use cantus_libretto::Calibration;
use cantus_libretto::fill::{FillError, FillRequest, fill};
use cantus_music::grammar::{ParseOptions, parse};
use cantus_music::{Event, Score};

fn round1() -> Score {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/round1.txt");
    let text = std::fs::read_to_string(path).unwrap();
    parse(&text, &ParseOptions::named("round1.txt"))
        .unwrap()
        .score
}

fn events_in(score: &Score, first: u32, last: u32) -> Vec<(usize, Event)> {
    score
        .voices
        .iter()
        .enumerate()
        .flat_map(|(vi, v)| v.events.iter().map(move |e| (vi, e.clone())))
        .filter(|(_, e)| (first..=last).contains(&score.bar_of(e.onset)))
        .collect()
}

#[test]
fn a_gap_is_filled_with_fresh_material_and_the_context_kept() {
    let piece = round1();
    let req = FillRequest {
        first_bar: 5,
        last_bar: 8,
        candidates: 24,
        seed: 3,
    };
    let filled = fill(&piece, &req, Calibration::original()).unwrap();
    assert!(
        filled.passed,
        "copy {} extremes {}/{}",
        filled.copy_risk, filled.extremes, filled.budget
    );
    assert!(filled.copy_risk < 0.30);
    // Outside the gap nothing changed.
    assert_eq!(events_in(&filled.score, 1, 4), events_in(&piece, 1, 4));
    assert_eq!(events_in(&filled.score, 9, 16), events_in(&piece, 9, 16));
    // Every gap bar sounds, and the gap is not the original bars again.
    for bar in 5..=8 {
        assert!(
            !events_in(&filled.score, bar, bar).is_empty(),
            "bar {bar} sounds"
        );
    }
    assert_ne!(events_in(&filled.score, 5, 8), events_in(&piece, 5, 8));
    // Deterministic per seed.
    let again = fill(&piece, &req, Calibration::original()).unwrap();
    assert_eq!(again.score, filled.score);
}

#[test]
fn ranges_outside_the_piece_are_refused() {
    let piece = round1();
    let req = |a, b| FillRequest {
        first_bar: a,
        last_bar: b,
        candidates: 4,
        seed: 0,
    };
    let table = Calibration::original();
    assert!(matches!(
        fill(&piece, &req(0, 2), table),
        Err(FillError::Range { .. })
    ));
    assert!(matches!(
        fill(&piece, &req(6, 5), table),
        Err(FillError::Range { .. })
    ));
    assert!(matches!(
        fill(&piece, &req(15, 17), table),
        Err(FillError::Range { .. })
    ));
    // Filling every bar leaves nothing to draw on.
    assert_eq!(
        fill(&piece, &req(1, 16), table).unwrap_err(),
        FillError::NoContext
    );
}
