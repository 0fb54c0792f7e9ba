//! The gate judges anything a reader can produce — odd times, empty chords, zero or
//! negative durations, many voices, voices the plan does not know — without panicking,
//! and its verdict agrees with its own violation list.

use cantus_music::{Event, Meter, Pitch, Score, Time, Voice};
use cantus_twelve_tone::Blueprint;
use cantus_twelve_tone::gate::{GateMode, SerialGate};
use cantus_twelve_tone::row::{Convention, resolve};
use cantus_twelve_tone::spec::Spec;
use proptest::prelude::*;

fn event() -> impl Strategy<Value = Event> {
    (
        -2i64..200,
        prop::sample::select(vec![1i64, 2, 3, 4, 5, 6, 8, 12, 7]),
        -1i64..16,
        prop::collection::vec(0u8..=127, 0..6),
        prop::option::of("[PIR]{1,2}[0-9]{1,2}:[0-9]{1,2}(-[0-9]{1,2})?"),
    )
        .prop_map(|(n, d, len, pitches, tag)| Event {
            onset: Time::new(n, d),
            duration: Time::new(len, d),
            pitches: pitches.into_iter().map(Pitch::new).collect(),
            tag,
            ..Event::default()
        })
}

fn score() -> impl Strategy<Value = Score> {
    (
        prop::collection::vec(prop::collection::vec(event(), 0..30), 0..8),
        prop::sample::select(vec![(4u32, 4u32), (3, 4), (6, 8), (7, 8), (1, 16)]),
        prop::option::of(0u32..40),
    )
        .prop_map(|(voices, (num, den), bars)| Score {
            meter: Meter::new(num, den),
            bars,
            voices: voices
                .into_iter()
                .enumerate()
                .map(|(i, mut events)| {
                    events.sort_by_key(|e| e.onset);
                    Voice {
                        name: format!("v{i}"),
                        events,
                        ..Voice::default()
                    }
                })
                .collect(),
            ..Score::default()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_gate_never_panics_and_its_verdict_follows_its_violations(score in score()) {
        let row = resolve("WebernOp21").unwrap().row;
        let plan = Blueprint::new(&Spec::with_voice_count(3), 0).unwrap();
        let gates = [
            SerialGate::inferring(GateMode::Strict),
            SerialGate::inferring(GateMode::Relaxed),
            SerialGate::for_row(row, Convention::ZeroCentred, GateMode::Strict),
            SerialGate::for_plan(&plan, GateMode::Strict),
            SerialGate::for_plan(&plan, GateMode::Relaxed),
        ];
        for gate in gates {
            let report = gate.judge_score(&score);
            prop_assert_eq!(report.passed, report.violations.iter().all(|v| !v.is_hard()));
        }
    }
}
