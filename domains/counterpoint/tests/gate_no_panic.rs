//! The gate and the reader never panic: random two-voice scores (random pitches,
//! onsets on and off the beat, durations, chords, rests, names, key signatures)
//! are either judged or refused with an error.

use cantus_counterpoint::{ReadOptions, Species, judge_score};
use cantus_music::{Event, Key, Meter, Mode, Pitch, Score, Time, Voice};

fn random_score(rng: &mut fastrand::Rng) -> Score {
    const WHITE: [u8; 7] = [0, 2, 4, 5, 7, 9, 11];
    let bars = rng.usize(0..14);
    // A cantus that is usually well formed (whole notes, white keys), sometimes not.
    let mut cantus = Voice::new(if rng.u8(0..10) == 0 {
        "Tenor"
    } else {
        "Cantus"
    });
    for bar in 0..bars {
        let pc = if rng.u8(0..20) == 0 {
            rng.u8(0..12)
        } else {
            *rng.choice(&WHITE).expect("white")
        };
        let duration = if rng.u8(0..20) == 0 {
            Time::new(3, 1)
        } else {
            Time::from_integer(4)
        };
        let onset = Time::from_integer(4 * bar as i64);
        cantus.events.push(Event::new(
            onset,
            duration,
            vec![Pitch::new(48 + rng.u8(0..3) * 12 + pc)],
        ));
    }
    // A counterpoint of anything: on and off the beat, rests, chords, any pitch.
    let mut cp = Voice::new(if rng.bool() {
        "Counterpoint"
    } else {
        "cantus two"
    });
    let mut t = Time::from_integer(0);
    for _ in 0..bars * rng.usize(1..4) {
        let duration = Time::new(
            rng.i64(1..9),
            *rng.choice(&[1i64, 2, 3, 4]).expect("non-empty"),
        );
        if rng.u8(0..10) > 0 {
            let n = if rng.u8(0..20) == 0 { 2 } else { 1 };
            let pitches = (0..n).map(|_| Pitch::new(rng.u8(0..128))).collect();
            cp.events.push(Event::new(t, duration, pitches));
        }
        t += duration;
    }
    Score {
        title: None,
        key: rng
            .bool()
            .then(|| Key::from_fifths(rng.i32(-7..8), Mode::Major)),
        meter: Meter::COMMON,
        tempo: None,
        bars: None,
        voices: if rng.bool() {
            vec![cantus, cp]
        } else {
            vec![cp, cantus]
        },
    }
}

#[test]
fn random_scores_are_judged_or_refused() {
    let mut rng = fastrand::Rng::with_seed(2026);
    let (mut judged, mut refused) = (0, 0);
    for i in 0..600 {
        let score = random_score(&mut rng);
        let options = ReadOptions {
            species: [None, Some(Species::First), Some(Species::Second)][i % 3],
            ..ReadOptions::default()
        };
        match judge_score(&score, &options) {
            Ok((report, _)) => {
                judged += 1;
                assert_eq!(report.passed, report.hard().next().is_none());
            }
            Err(e) => {
                refused += 1;
                assert!(!e.0.is_empty());
            }
        }
    }
    assert!(
        judged > 50 && refused > 50,
        "judged {judged}, refused {refused}"
    );
}
