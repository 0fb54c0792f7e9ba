//! The spec's tremolo allowance, online: an immediate repetition of the previous
//! event (same tag, same pitch classes) is accepted while the allowance lasts,
//! counted in the voice's state, and refused after it — and never by the strict gate.

use cantus_framework::{CheckContext, Domain};
use cantus_music::Time;
use cantus_twelve_tone::gate::{GateMode, SerialGate};
use cantus_twelve_tone::predicates::verifier;
use cantus_twelve_tone::spec::{Repetition, Spec};
use cantus_twelve_tone::{Blueprint, Tag, ToneEvent, ToneState, TwelveTone};

fn ids(state: &ToneState, plan: &Blueprint, e: &ToneEvent) -> Vec<String> {
    let ctx = CheckContext {
        domain: &TwelveTone,
        spec: plan,
        state,
        section: &plan.sections[0],
        section_index: 0,
    };
    verifier()
        .verify(ctx, e)
        .violations
        .into_iter()
        .filter(|v| v.is_hard())
        .map(|v| v.predicate.to_string())
        .collect()
}

#[test]
fn a_tremolo_is_allowed_online_within_the_allowance_and_counted() {
    let mut spec = Spec::with_voice_count(1);
    spec.repetition = Repetition::Tremolo {
        max_per_statement: 1,
    };
    let plan = Blueprint::new(&spec, 0).unwrap();
    let mut state = TwelveTone.initial_state(&plan);
    let form = plan.sections[0].forms[0];
    let pc = plan.table.pcs(form)[0];
    let low = plan.limits.voices[0].low;
    let pitch = low + (pc + 12 - low % 12) % 12;
    let note = |onset: i64| ToneEvent {
        voice: 0,
        onset: Time::from_integer(onset),
        duration: Time::from_integer(1),
        pitches: vec![pitch],
        tag: Tag {
            form,
            start: 0,
            len: 1,
        },
    };
    let first = note(0);
    assert!(ids(&state, &plan, &first).is_empty());
    TwelveTone.accept(&mut state, &plan.sections[0], &first);
    // The same note again, straight after: a tremolo, within the allowance.
    let again = note(1);
    assert!(
        ids(&state, &plan, &again).is_empty(),
        "{:?}",
        ids(&state, &plan, &again)
    );
    TwelveTone.accept(&mut state, &plan.sections[0], &again);
    assert_eq!(state.voices[0].total_tremolos, 1);
    assert_eq!(
        state.voices[0].cursor.position, 1,
        "a tremolo takes no row position"
    );
    // A third time exceeds the allowance of one per statement.
    let third = note(2);
    let found = ids(&state, &plan, &third);
    assert!(found.contains(&"TT-REPEAT".to_owned()), "{found:?}");

    // The strict gate refuses the repetition; the relaxed gate lets it through, counted.
    let score = TwelveTone.finish(&plan, state);
    let strict = SerialGate::for_plan(&plan, GateMode::Strict).judge_score(&score);
    assert!(strict.violations.iter().any(|v| v.predicate == "TT-REPEAT"));
    let relaxed = SerialGate::for_plan(&plan, GateMode::Relaxed).judge_score(&score);
    assert!(
        relaxed
            .violations
            .iter()
            .all(|v| v.predicate != "TT-REPEAT")
    );
    assert_eq!(relaxed.facts["tagged_repetitions"], 1);
}

#[test]
fn without_an_allowance_an_immediate_repetition_is_refused() {
    let plan = Blueprint::new(&Spec::with_voice_count(1), 0).unwrap();
    let mut state = TwelveTone.initial_state(&plan);
    let form = plan.sections[0].forms[0];
    let pc = plan.table.pcs(form)[0];
    let low = plan.limits.voices[0].low;
    let e = ToneEvent {
        voice: 0,
        onset: Time::from_integer(0),
        duration: Time::from_integer(1),
        pitches: vec![low + (pc + 12 - low % 12) % 12],
        tag: Tag {
            form,
            start: 0,
            len: 1,
        },
    };
    TwelveTone.accept(&mut state, &plan.sections[0], &e);
    let again = ToneEvent {
        onset: Time::from_integer(1),
        ..e
    };
    let found = ids(&state, &plan, &again);
    assert!(
        found.contains(&"TT-REPEAT".to_owned()) && found.contains(&"TT-SCHEDULE".to_owned()),
        "{found:?}"
    );
}

#[test]
fn absurd_tags_from_a_proposer_are_violations_not_panics() {
    let plan = Blueprint::new(&Spec::with_voice_count(2), 0).unwrap();
    let state = TwelveTone.initial_state(&plan);
    let form = plan.sections[0].forms[0];
    for (start, len, voice) in [(250u8, 10u8, 0usize), (11, 255, 1), (0, 0, 0), (3, 2, 9)] {
        let e = ToneEvent {
            voice,
            onset: Time::from_integer(0),
            duration: Time::from_integer(1),
            pitches: vec![60, 61],
            tag: Tag { form, start, len },
        };
        let found = ids(&state, &plan, &e);
        assert!(
            !found.is_empty(),
            "tag {start}+{len} in voice {voice} passed"
        );
    }
}
