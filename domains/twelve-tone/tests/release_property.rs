//! Every artefact the engine releases passes the strict gate — judged again from
//! scratch, from the artefact alone, and after a trip through the text grammar.
//! And the first three rungs never change a pitch or a tag; `octave` changes octaves only.

use cantus_framework::{CheckContext, Outcome, RepairRung, RungAction, Violation};
use cantus_music::{Meter, Time, grammar};
use cantus_twelve_tone::compose::{Composer, budget};
use cantus_twelve_tone::gate::{GateMode, SerialGate};
use cantus_twelve_tone::rungs::{Octave, Retime, Trim, Yield};
use cantus_twelve_tone::spec::{RowChoice, Spec};
use cantus_twelve_tone::{
    Blueprint, EmbeddedProposer, Location, Tag, ToneEvent, ToneState, TwelveTone,
};
use proptest::prelude::*;

fn spec(voices: usize, bars: u32, meter: (u32, u32), row: u8) -> Spec {
    let mut spec = Spec::with_voice_count(voices);
    spec.bars = bars;
    spec.meter = Meter::new(meter.0, meter.1);
    spec.section_bars = spec.section_bars.min(bars);
    spec.row = match row {
        0 => RowChoice::Default,
        1 => RowChoice::Historical {
            id: "WebernOp21".into(),
        },
        2 => RowChoice::Historical {
            id: "BergLyricSuite".into(),
        },
        _ => RowChoice::AllInterval {
            seed: u64::from(row),
        },
    };
    spec
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn released_pieces_pass_the_strict_gate_from_scratch(
        seed in any::<u64>(),
        voices in 1usize..5,
        bars in 4u32..13,
        meter in prop::sample::select(vec![(2, 4), (3, 4), (4, 4), (6, 8), (5, 4)]),
        row in 0u8..5,
    ) {
        let spec = spec(voices, bars, meter, row);
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let composition = runtime
            .block_on(Composer::new(GateMode::Strict, budget()).compose(&spec, seed, &EmbeddedProposer))
            .expect("these specs plan");
        match &composition.outcome {
            Outcome::Released { artefact, .. } => {
                let fresh = SerialGate::for_plan(&composition.plan, GateMode::Strict);
                let report = fresh.judge_score(artefact);
                prop_assert!(report.passed, "{:?}", report.violations);
                let text = grammar::write(artefact).expect("released pieces are writable");
                let back = grammar::parse(&text, &grammar::ParseOptions::default()).expect("and readable");
                let report = SerialGate::inferring(GateMode::Strict).judge_score(&back.score);
                prop_assert!(report.passed, "after the text round trip: {:?}", report.violations);
            }
            Outcome::Failure { diagnostics, artefact, .. } => {
                prop_assert!(!diagnostics.is_empty());
                prop_assert!(artefact.is_some(), "the unreleased piece is kept");
            }
        }
    }

    #[test]
    fn trim_yield_and_retime_never_change_pitches_or_tags(
        seed in any::<u64>(),
        voices in 2usize..5,
        onset_16ths in 0i64..60,
        len_16ths in 1i64..8,
        position in 0u8..12,
    ) {
        // A state with real accepted material: the first section of a composed piece.
        let spec = spec(voices, 8, (4, 4), 0);
        let plan = Blueprint::new(&spec, seed).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let outcome = runtime.block_on(
            cantus_twelve_tone::compose::engine(GateMode::Strict).run(&plan, &EmbeddedProposer, seed),
        );
        let Some(score) = outcome.artefact() else {
            return Ok(());
        };
        let mut state = ToneState::new(&plan);
        for (event, _) in cantus_twelve_tone::piece::tagged_events(score) {
            if event.onset < plan.sections[0].end {
                state.insert(event);
            }
        }
        let form = plan.sections[0].forms[0];
        let pcs = plan.table.pcs(form);
        let candidate = ToneEvent {
            voice: voices - 1,
            onset: Time::new(onset_16ths, 4),
            duration: Time::new(len_16ths, 4),
            pitches: vec![48 + pcs[usize::from(position)]],
            tag: Tag { form, start: position, len: 1 },
        };
        let ctx = CheckContext { domain: &TwelveTone, spec: &plan, state: &state, section: &plan.sections[0], section_index: 0 };
        let violation = Violation::hard(cantus_twelve_tone::gate::Rule::Collision, Location { bar: 1, voice: "v".into(), onset: candidate.onset }, "test");
        let rungs: [&dyn RepairRung<TwelveTone>; 3] = [&Trim, &Yield, &Retime];
        for rung in rungs {
            if let RungAction::Candidate { event, amendments } = rung.repair(ctx, &candidate, std::slice::from_ref(&violation)) {
                prop_assert_eq!(&event.pitches, &candidate.pitches, "{} changed pitches", rung.id());
                prop_assert_eq!(event.tag, candidate.tag, "{} changed the tag", rung.id());
                prop_assert_eq!(event.voice, candidate.voice);
                prop_assert!(event.duration > Time::default(), "{} made a zero-length note", rung.id());
                for a in amendments {
                    prop_assert!(a.duration > Time::default(), "{} shortened a note to nothing", rung.id());
                    let line = &state.voices[a.voice];
                    let original = line.events.iter().find(|e| e.onset == a.onset).expect("amends an accepted note");
                    prop_assert!(a.duration < original.duration, "{} lengthened a note", rung.id());
                }
            }
        }
    }

    #[test]
    fn octave_moves_only_octaves_inside_the_register_to_where_nothing_crosses(
        seed in any::<u64>(),
        voices in 2usize..5,
        onset_16ths in 0i64..60,
        len_16ths in 1i64..8,
        position in 0u8..12,
        octave in 2u8..8,
    ) {
        let spec = spec(voices, 8, (4, 4), 0);
        let plan = Blueprint::new(&spec, seed).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let outcome = runtime.block_on(
            cantus_twelve_tone::compose::engine(GateMode::Strict).run(&plan, &EmbeddedProposer, seed),
        );
        let Some(score) = outcome.artefact() else {
            return Ok(());
        };
        let mut state = ToneState::new(&plan);
        for (event, _) in cantus_twelve_tone::piece::tagged_events(score) {
            if event.onset < plan.sections[0].end && event.voice > 0 {
                state.insert(event);
            }
        }
        // The top voice, in any octave: often below the voices under it.
        let form = plan.sections[0].forms[0];
        let pc = plan.table.pcs(form)[usize::from(position)];
        let candidate = ToneEvent {
            voice: 0,
            onset: Time::new(onset_16ths, 4),
            duration: Time::new(len_16ths, 4),
            pitches: vec![12 * octave + pc],
            tag: Tag { form, start: position, len: 1 },
        };
        let ctx = CheckContext { domain: &TwelveTone, spec: &plan, state: &state, section: &plan.sections[0], section_index: 0 };
        let crossing = Violation::hard(cantus_twelve_tone::gate::Rule::Crossing, Location { bar: 1, voice: "v".into(), onset: candidate.onset }, "test");
        let register = &plan.limits.voices[0];
        if let RungAction::Candidate { event, amendments } = Octave.repair(ctx, &candidate, std::slice::from_ref(&crossing)) {
            prop_assert!(amendments.is_empty(), "octave amends nothing");
            prop_assert_eq!((event.voice, event.onset, event.duration, event.tag), (candidate.voice, candidate.onset, candidate.duration, candidate.tag));
            prop_assert_eq!(event.pc_set(), candidate.pc_set(), "octave kept the pitch classes");
            prop_assert!(event.pitches != candidate.pitches, "octave moved the note");
            prop_assert!(event.pitches.iter().all(|p| (register.low..=register.high).contains(p)), "inside the register: {:?}", event.pitches);
            for line in &state.voices[1..] {
                for other in line.overlapping(event.onset, event.end()) {
                    prop_assert!(!cantus_twelve_tone::state::crosses(&event, other), "{:?} still crosses {:?}", event, other);
                }
            }
        }
        // A collision is not the octave rung's to mend.
        let collision = Violation::hard(cantus_twelve_tone::gate::Rule::Collision, Location { bar: 1, voice: "v".into(), onset: candidate.onset }, "test");
        let gave_up = matches!(Octave.repair(ctx, &candidate, std::slice::from_ref(&collision)), RungAction::GiveUp { .. });
        prop_assert!(gave_up);
    }
}

/// A top-voice note written under the lower voice's sounding note: the octave rung
/// lifts it into the top voice's register, clear of the lower voice.
#[test]
fn octave_lifts_a_note_sounding_under_the_voice_below() {
    let plan = Blueprint::new(&spec(2, 8, (4, 4), 0), 0).unwrap();
    let form = plan.sections[0].forms[0];
    let pcs = plan.table.pcs(form);
    let (top, low) = (&plan.limits.voices[0], &plan.limits.voices[1]);
    assert!(
        top.high >= low.high + 12,
        "room above the lower voice: {top:?} over {low:?}"
    );
    let mut state = ToneState::new(&plan);
    // The lower voice sounds its register's top pitch class for the first bar.
    let below = low.high - (low.high % 12 + 12 - (pcs[5] % 12)) % 12;
    state.insert(ToneEvent {
        voice: 1,
        onset: Time::new(0, 1),
        duration: Time::new(4, 1),
        pitches: vec![below],
        tag: Tag {
            form: plan.sections[0].forms[1],
            start: 0,
            len: 1,
        },
    });
    // The top voice's first pitch class, just under that note: the voices cross.
    let under = (0..below).rev().find(|p| p % 12 == pcs[0]).unwrap();
    let candidate = ToneEvent {
        voice: 0,
        onset: Time::new(1, 1),
        duration: Time::new(1, 1),
        pitches: vec![under],
        tag: Tag {
            form,
            start: 0,
            len: 1,
        },
    };
    assert!(cantus_twelve_tone::state::crosses(
        &candidate,
        &state.voices[1].events[0]
    ));
    let ctx = CheckContext {
        domain: &TwelveTone,
        spec: &plan,
        state: &state,
        section: &plan.sections[0],
        section_index: 0,
    };
    let crossing = Violation::hard(
        cantus_twelve_tone::gate::Rule::Crossing,
        Location {
            bar: 1,
            voice: "v".into(),
            onset: candidate.onset,
        },
        "test",
    );
    let RungAction::Candidate { event, .. } =
        Octave.repair(ctx, &candidate, std::slice::from_ref(&crossing))
    else {
        panic!("a register with room above the voice below has an octave that does not cross it");
    };
    assert!(
        event.pitches[0] > candidate.pitches[0]
            && event.pitches[0] % 12 == candidate.pitches[0] % 12
    );
    assert!((top.low..=top.high).contains(&event.pitches[0]));
    assert!(!cantus_twelve_tone::state::crosses(
        &event,
        &state.voices[1].events[0]
    ));
}
