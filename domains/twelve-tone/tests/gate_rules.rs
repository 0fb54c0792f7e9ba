//! The vertical and per-event rules of the strict gate on small hand-built scores:
//! what is reported, where, and why — and what is not.

use cantus_framework::ReleaseGate;
use cantus_music::{Event, Meter, Pitch, Score, Time, Voice, time, time_text};
use cantus_twelve_tone::gate::{GateLimits, GateMode, PlanGate, SerialGate, report_text};
use cantus_twelve_tone::row::{Convention, resolve};
use cantus_twelve_tone::spec::Spec;
use cantus_twelve_tone::state::ToneState;
use cantus_twelve_tone::{Blueprint, Tag, ToneEvent, TwelveTone};

fn ev(onset: Time, duration: Time, pitches: &[u8]) -> Event {
    Event::new(
        onset,
        duration,
        pitches.iter().map(|&m| Pitch::new(m)).collect(),
    )
}

fn q(n: i64) -> Time {
    Time::from_integer(n)
}

fn score(voices: Vec<(&str, Vec<Event>)>, bars: u32) -> Score {
    Score {
        meter: Meter::COMMON,
        bars: Some(bars),
        voices: voices
            .into_iter()
            .map(|(name, events)| Voice {
                name: name.to_owned(),
                events,
                ..Voice::default()
            })
            .collect(),
        ..Score::default()
    }
}

fn gate() -> SerialGate<'static> {
    SerialGate::for_row(
        resolve("SchoenbergOp25").unwrap().row,
        Convention::ZeroCentred,
        GateMode::Strict,
    )
}

/// `(predicate, bar, voice, onset)` of every violation of `rule`.
fn found(s: &Score, g: &SerialGate, rule: &str) -> Vec<(u32, String, Time)> {
    g.judge_score(s)
        .violations
        .into_iter()
        .filter(|v| v.predicate == rule)
        .map(|v| (v.location.bar, v.location.voice, v.location.onset))
        .collect()
}

fn reasons(s: &Score, g: &SerialGate, rule: &str) -> Vec<String> {
    g.judge_score(s)
        .violations
        .into_iter()
        .filter(|v| v.predicate == rule)
        .map(|v| v.reason)
        .collect()
}

#[test]
fn collisions_are_exact_and_half_open() {
    // Touching notes (C4 ends at 1/3 exactly where C5 begins) do not collide.
    let touching = score(
        vec![
            ("A", vec![ev(q(0), time(2, 6), &[60])]),
            ("B", vec![ev(time(1, 3), q(1), &[72])]),
        ],
        1,
    );
    assert!(found(&touching, &gate(), "TT-COLLISION").is_empty());
    // One millionth of a quarter note of overlap is a collision, at the later note.
    let grazing = score(
        vec![
            ("A", vec![ev(q(0), time(1_000_001, 3_000_000), &[60])]),
            ("B", vec![ev(time(1, 3), q(1), &[72])]),
        ],
        1,
    );
    assert_eq!(
        found(&grazing, &gate(), "TT-COLLISION"),
        vec![(1, "B".to_owned(), time(1, 3))]
    );
    let reason = &reasons(&grazing, &gate(), "TT-COLLISION")[0];
    assert!(reason.contains("pitch class 0 (C) sounds here (MIDI 72) while A sounds it too (MIDI 60, from onset 0) for 1/3000000 quarter notes"), "{reason}");
    // Starting together: once, at the higher voice; later note of a lower voice: there.
    let together = score(
        vec![
            ("A", vec![ev(q(0), q(2), &[60]), ev(q(2), q(1), &[62])]),
            (
                "B",
                vec![ev(q(0), q(1), &[72]), ev(time(3, 2), q(1), &[74])],
            ),
        ],
        1,
    );
    assert_eq!(
        found(&together, &gate(), "TT-COLLISION"),
        vec![(1, "B".to_owned(), q(0)), (1, "A".to_owned(), q(2))]
    );
}

#[test]
fn an_octave_doubling_is_reported_on_its_event() {
    let s = score(vec![("A", vec![ev(q(1), q(1), &[60, 64, 72])])], 1);
    assert_eq!(
        found(&s, &gate(), "TT-OCTAVE"),
        vec![(1, "A".to_owned(), q(1))]
    );
    assert!(
        reasons(&s, &gate(), "TT-OCTAVE")[0].contains("doubles pitch class 0 (C) (MIDI 60, 72)")
    );
}

#[test]
fn texture_limits_chords_crowds_and_one_line_per_voice() {
    let limits = GateLimits {
        max_chord: 3,
        max_sounding: 6,
        ..GateLimits::unspecified(3)
    };
    let g = gate().with_limits(limits);
    let s = score(
        vec![
            ("A", vec![ev(q(0), q(4), &[60, 61, 62, 63])]),
            ("B", vec![ev(q(1), q(2), &[64, 65, 66])]),
            (
                "C",
                vec![ev(q(2), q(2), &[67, 68]), ev(time(5, 2), q(1), &[69])],
            ),
        ],
        1,
    );
    let texture = found(&s, &g, "TT-TEXTURE");
    assert_eq!(
        texture,
        vec![
            (1, "A".to_owned(), q(0)),
            (1, "B".to_owned(), q(1)),
            (1, "C".to_owned(), time(5, 2)),
        ],
        "{}",
        report_text(&g.judge_score(&s))
    );
    let why = reasons(&s, &g, "TT-TEXTURE");
    assert!(why[0].contains("a chord of 4 pitches sounds at once in this voice; at most 3 may"));
    assert!(
        why[1].contains(
            "up to 10 distinct pitches sound at once at every onset from 1 to 5/2; at most 6 may"
        ),
        "{}",
        why[1]
    );
    assert!(why[2].contains("starts while the voice's event from onset 2 still sounds (until 4)"));
}

#[test]
fn pitches_outside_a_voice_register_are_reported() {
    let limits = GateLimits {
        registers: vec![(60, 72), (40, 59)],
        ..GateLimits::unspecified(2)
    };
    let g = gate().with_limits(limits);
    let s = score(
        vec![
            ("A", vec![ev(q(0), q(1), &[59, 70])]),
            ("B", vec![ev(q(1), q(1), &[41]), ev(q(2), q(1), &[63])]),
        ],
        1,
    );
    assert_eq!(
        found(&s, &g, "TT-REGISTER"),
        vec![(1, "A".to_owned(), q(0)), (1, "B".to_owned(), q(2))]
    );
    assert!(
        reasons(&s, &g, "TT-REGISTER")[0]
            .contains("MIDI 59 lies outside the voice's register 60..=72")
    );
    // Without limits, the register is all of MIDI: 0..=127.
    let high = score(vec![("A", vec![ev(q(0), q(1), &[130])])], 1);
    assert!(
        reasons(&high, &gate(), "TT-REGISTER")[0]
            .contains("MIDI 130 lies outside the voice's register 0..=127")
    );
}

/// The online tally for the same events, through the domain's own state.
fn online_crossing(s: &Score) -> (String, bool) {
    let spec = Spec::with_voice_count(s.voices.len());
    let plan = Blueprint::new(&spec, 0).unwrap();
    let mut state = ToneState::new(&plan);
    for (v, voice) in s.voices.iter().enumerate() {
        for e in &voice.events {
            let tag = Tag {
                form: "P0".parse().unwrap(),
                start: 0,
                len: 1,
            };
            state.insert(ToneEvent {
                voice: v,
                onset: e.onset,
                duration: e.duration,
                pitches: e.pitches.iter().map(|p| p.midi).collect(),
                tag,
            });
        }
    }
    let share = state.crossing.share();
    (time_text::format(share), share > Time::new(1, 10))
}

#[test]
fn crossing_agrees_with_the_online_tally_on_random_textures() {
    let mut rng = fastrand::Rng::with_seed(99);
    let mut violating = 0;
    for _ in 0..300 {
        let voices = rng.usize(2..=4);
        let mut vs = Vec::new();
        for v in 0..voices {
            let mut t = Time::from_integer(rng.i64(0..3)) / Time::from_integer(2);
            let mut events = Vec::new();
            for _ in 0..rng.usize(1..8) {
                let d = Time::new(rng.i64(1..6), [1, 2, 3, 4][rng.usize(..4)]);
                let base = 72 - 8 * v as u8;
                let mut pitches = vec![base + rng.u8(..14)];
                if rng.bool() {
                    pitches.push(base + 14 + rng.u8(..3));
                }
                events.push(ev(t, d, &pitches));
                t += d + Time::new(rng.i64(0..2), 2);
            }
            vs.push((["A", "B", "C", "D"][v], events));
        }
        let s = score(vs, 20);
        let report = gate().judge_score(&s);
        let (online, exceeds) = online_crossing(&s);
        assert_eq!(
            report.facts["crossing"],
            online.as_str(),
            "{}",
            report_text(&report)
        );
        let flagged = report
            .violations
            .iter()
            .any(|v| v.predicate == "TT-CROSSING");
        assert_eq!(flagged, exceeds, "{}", report_text(&report));
        violating += usize::from(flagged);
    }
    assert!(
        violating > 30 && violating < 270,
        "{violating} of 300 crossed too much"
    );
}

#[test]
fn crossing_is_reported_at_the_first_crossing() {
    // The upper voice dips below the lower one for 1 of the 4 quarter notes they share.
    let s = score(
        vec![
            ("Upper", vec![ev(q(0), q(3), &[72]), ev(q(3), q(1), &[55])]),
            ("Lower", vec![ev(q(0), q(4), &[60])]),
        ],
        1,
    );
    let report = gate().judge_score(&s);
    let v = report
        .violations
        .iter()
        .find(|v| v.predicate == "TT-CROSSING")
        .unwrap();
    assert_eq!(
        (v.location.bar, v.location.voice.as_str(), v.location.onset),
        (1, "Upper", q(3))
    );
    assert!(v.reason.contains("crossed for 1 of the 4 quarter notes they sound together (a share of 1/4), more than the 1/10 allowed"), "{}", v.reason);
    assert!(
        v.reason
            .contains("Upper (lowest MIDI 55) sounds below Lower (highest MIDI 60)")
    );
    assert_eq!(report.facts["crossing"], "1/4");
    let limits = GateLimits {
        max_crossing: Time::new(1, 4),
        ..GateLimits::unspecified(2)
    };
    assert!(
        found(&s, &gate().with_limits(limits), "TT-CROSSING").is_empty(),
        "exactly at the limit passes"
    );
}

#[test]
fn bars_hold_every_event_and_none_is_silent() {
    let s = score(
        vec![(
            "A",
            vec![
                ev(q(-1), q(2), &[60]),
                ev(q(1), q(2), &[61]),
                ev(q(16), q(2), &[62]),
                ev(q(19), q(2), &[63]),
            ],
        )],
        5,
    );
    let bars = found(&s, &gate(), "TT-BARS");
    assert_eq!(
        bars,
        vec![
            (1, "A".to_owned(), q(-1)),
            (2, "(all voices)".to_owned(), q(4)),
            (5, "A".to_owned(), q(19)),
        ]
    );
    let why = reasons(&s, &gate(), "TT-BARS");
    assert!(why[0].contains("starts at onset -1, before the piece begins at 0"));
    assert!(why[1].contains("bars 2–4 are silent"), "{}", why[1]);
    assert!(
        why[2].contains("ends at 21 quarter notes, after the last bar ends at 20"),
        "{}",
        why[2]
    );
    let empty = score(vec![("A", vec![])], 2);
    let why = reasons(&empty, &gate(), "TT-BARS");
    assert!(
        why.iter().any(|r| r.contains("the score has no events")),
        "{why:?}"
    );
}

#[test]
fn times_that_cannot_be_placed_exactly_are_reported_not_guessed() {
    let primes = [1_000_003, 1_000_033, 1_000_037, 1_000_039, 1_000_081];
    let events: Vec<Event> = primes
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            ev(
                Time::new(i as i64 * p + 1, p),
                Time::new(1, p),
                &[60 + i as u8, 72 + i as u8 + 12],
            )
        })
        .collect();
    let s = score(vec![("A", events)], 2);
    let report = gate().judge_score(&s);
    assert!(
        report
            .violations
            .iter()
            .any(|v| v.predicate == "TT-TIME" && v.reason.contains("finer than 2^58")),
        "{}",
        report_text(&report)
    );
    // The per-event rules still run.
    assert!(report.violations.iter().any(|v| v.predicate == "TT-OCTAVE"));
    let zero = score(vec![("A", vec![ev(q(0), q(0), &[60])])], 1);
    assert!(reasons(&zero, &gate(), "TT-TIME")[0].contains("lasts 0 quarter notes"));
}

#[test]
fn a_score_out_of_order_is_judged_like_the_sorted_one() {
    let mut opts =
        cantus_twelve_tone::synth::SynthOptions::new(resolve("WebernOp21").unwrap().row, 3, 60, 8);
    opts.max_chord = 2;
    let p = cantus_twelve_tone::synth::piece(&opts);
    let m = cantus_twelve_tone::synth::mutate(
        &p.score,
        cantus_twelve_tone::synth::MutationKind::Collision,
        &p.limits.registers,
        1,
    )
    .unwrap();
    let mut shuffled = m.score.clone();
    for v in &mut shuffled.voices {
        v.events.reverse();
    }
    let g = p.gate(GateMode::Strict);
    assert_eq!(
        g.judge_score(&shuffled).violations,
        g.judge_score(&m.score).violations
    );
}

#[test]
fn modes_read_and_print_and_the_gate_names_itself() {
    assert_eq!("strict".parse::<GateMode>().unwrap(), GateMode::Strict);
    assert_eq!(" Relaxed ".parse::<GateMode>().unwrap(), GateMode::Relaxed);
    assert!(
        "lenient"
            .parse::<GateMode>()
            .unwrap_err()
            .to_string()
            .contains("expected \"strict\" or \"relaxed\"")
    );
    assert_eq!(GateMode::Relaxed.to_string(), "relaxed");
    assert_eq!(
        serde_json::to_string(&GateMode::Strict).unwrap(),
        "\"strict\""
    );
    assert_eq!(
        serde_json::from_str::<GateMode>("\"relaxed\"").unwrap(),
        GateMode::Relaxed
    );
    let gate: Box<dyn ReleaseGate<TwelveTone>> = Box::new(PlanGate(GateMode::Strict));
    assert_eq!(gate.name(), "twelve-tone/strict");
    let plan = Blueprint::new(&Spec::with_voice_count(1), 0).unwrap();
    let report = gate.judge(&plan, &score(vec![("A", vec![ev(q(0), q(4), &[60])])], 1));
    assert_eq!(report.gate, "twelve-tone/strict");
    assert!(!report.passed);
}

#[test]
fn scores_with_many_voices_are_swept_alike() {
    // Ten voices (more than the sweep keeps in fixed arrays), each one note in its
    // own octave band; voices 3 and 8 share pitch class 5 while both sound.
    let voices: Vec<(String, Vec<Event>)> = (0..10u8)
        .map(|v| {
            let pc = if v == 8 { 5 } else { v + 2 };
            let onset = Time::new(i64::from(v), 3);
            (
                format!("V{v}"),
                vec![ev(onset, q(4), &[108 - 10 * v - (108 - 10 * v) % 12 + pc])],
            )
        })
        .collect();
    let s = Score {
        meter: Meter::COMMON,
        bars: Some(2),
        voices: voices
            .into_iter()
            .map(|(name, events)| Voice {
                name,
                events,
                ..Voice::default()
            })
            .collect(),
        ..Score::default()
    };
    let limits = GateLimits {
        max_sounding: 12,
        ..GateLimits::unspecified(10)
    };
    let g = gate().with_limits(limits);
    assert_eq!(
        found(&s, &g, "TT-COLLISION"),
        vec![(1, "V8".to_owned(), time(8, 3))]
    );
    // Only V5 (MIDI 55) and V6 (MIDI 56) cross, for 11/3 of the 125 quarter notes
    // the 45 pairs sound together: well under the limit.
    let report = g.judge_score(&s);
    assert_eq!(report.facts["crossing"], "11/375");
    assert!(
        report
            .violations
            .iter()
            .all(|v| v.predicate != "TT-CROSSING")
    );
}
