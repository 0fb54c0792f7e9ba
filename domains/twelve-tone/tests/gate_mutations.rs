//! Mutation tests: take a released-looking valid piece, break it in one known way,
//! and check that the strict gate reports it with the right predicate id at the
//! right place (bar, voice, onset), and that the independent checker sees it too.
//! Then the differences between strict and relaxed, and a symmetric row's two labels.

mod independent;

use cantus_music::{Event, Pitch, Score, Time, Voice};
use cantus_twelve_tone::Blueprint;
use cantus_twelve_tone::gate::{GateMode, SerialGate, report_text};
use cantus_twelve_tone::row::{Convention, FormKind, Row, RowForm, resolve};
use cantus_twelve_tone::spec::{RowChoice, Spec};
use cantus_twelve_tone::synth::{
    Mutation, MutationKind, SynthOptions, SynthPiece, from_plan, mutate, piece,
};

fn op25() -> Row {
    resolve("SchoenbergOp25").unwrap().row
}

/// A four-voice piece of about 160 events with chords and rests.
fn released_looking() -> SynthPiece {
    let mut opts = SynthOptions::new(op25(), 4, 160, 2024);
    opts.max_chord = 3;
    opts.chord_percent = 20;
    piece(&opts)
}

fn bar_of(score: &Score, onset: Time) -> u32 {
    let index = (onset / score.bar_length()).floor().to_integer();
    u32::try_from(index + 1).unwrap()
}

/// Asserts that the gate reports `m.rule` exactly at the mutation's place.
fn assert_caught(gate: &SerialGate, m: &Mutation) {
    let report = gate.judge_score(&m.score);
    assert!(!report.passed, "{:?} passed the gate: {}", m.kind, m.note);
    let voice = &m.score.voices[m.voice].name;
    let bar = bar_of(&m.score, m.onset);
    let hit = report.violations.iter().any(|v| {
        v.predicate == m.rule.id()
            && v.location.voice == *voice
            && v.location.onset == m.onset
            && v.location.bar == bar
    });
    assert!(
        hit,
        "{:?} ({}): expected {} at bar {bar}, {voice}, onset {}; the gate said:\n{}",
        m.kind,
        m.note,
        m.rule,
        m.onset,
        report_text(&report)
    );
}

/// Asserts that the independent checker finds `rule` at the mutation's place.
fn assert_checker_agrees(m: &Mutation, rule: &str, row: Row) {
    let found = match rule {
        "TT-COLLISION" => independent::collisions(&m.score),
        _ => independent::serial(&m.score, row.pcs()),
    };
    let voice = &m.score.voices[m.voice].name;
    assert!(
        found
            .iter()
            .any(|f| f.rule == rule && f.voice == *voice && f.onset == m.onset),
        "{:?}: the independent checker did not find {rule} at {voice}, {}: {found:?}",
        m.kind,
        m.onset
    );
}

#[test]
fn the_valid_piece_passes_both_modes_and_both_checkers() {
    let p = released_looking();
    assert!(p.score.event_count() >= 160);
    for mode in [GateMode::Strict, GateMode::Relaxed] {
        let report = p.gate(mode).judge_score(&p.score);
        assert!(report.passed, "{}", report_text(&report));
    }
    assert!(independent::collisions(&p.score).is_empty());
    assert!(independent::serial(&p.score, op25().pcs()).is_empty());
}

#[test]
fn each_mutation_is_caught_with_its_predicate_and_place() {
    let p = released_looking();
    let gate = p.gate(GateMode::Strict);
    let cases = [
        (MutationKind::Collision, Some("TT-COLLISION")),
        (MutationKind::SustainedCollision, Some("TT-COLLISION")),
        (MutationKind::PrematureRepetition, Some("TT-REPEAT")),
        (MutationKind::ImmediateRepetition, Some("TT-REPEAT")),
        (MutationKind::SwapPitchClasses, Some("TT-ROW")),
        (MutationKind::TransposeTail, Some("TT-ROW")),
        (MutationKind::StraddlingChord, Some("TT-ROW")),
        (MutationKind::OutOfRegister, None),
        (MutationKind::OverlapWithinVoice, None),
    ];
    for (kind, checker_rule) in cases {
        for seed in 0..5 {
            let m = mutate(&p.score, kind, &p.limits.registers, seed)
                .expect("a place for the mutation");
            assert_caught(&gate, &m);
            if let Some(rule) = checker_rule {
                assert_checker_agrees(&m, rule, p.row);
            }
        }
    }
}

#[test]
fn a_premature_repetition_is_also_a_broken_row_at_the_same_note() {
    let p = released_looking();
    let m = mutate(
        &p.score,
        MutationKind::PrematureRepetition,
        &p.limits.registers,
        9,
    )
    .unwrap();
    let report = p.gate(GateMode::Strict).judge_score(&m.score);
    let here: Vec<&str> = report
        .violations
        .iter()
        .filter(|v| v.location.onset == m.onset && v.location.voice == m.score.voices[m.voice].name)
        .map(|v| v.predicate.as_str())
        .collect();
    assert!(
        here.contains(&"TT-REPEAT") && here.contains(&"TT-ROW"),
        "{here:?}"
    );
    let repeat = report
        .violations
        .iter()
        .find(|v| v.predicate == "TT-REPEAT")
        .unwrap();
    assert!(
        repeat.reason.contains("already sounded in this statement"),
        "{}",
        repeat.reason
    );
}

#[test]
fn a_dropped_note_puts_the_voice_out_of_step_from_there() {
    let p = released_looking();
    let m = mutate(&p.score, MutationKind::DropNote, &p.limits.registers, 4).unwrap();
    let report = p.gate(GateMode::Strict).judge_score(&m.score);
    let voice = &m.score.voices[m.voice].name;
    let serial: Vec<_> = report
        .violations
        .iter()
        .filter(|v| v.location.voice == *voice && v.predicate.as_str().starts_with("TT-ROW"))
        .collect();
    assert!(!serial.is_empty(), "{}", report_text(&report));
    let row_after = serial
        .iter()
        .any(|v| v.predicate == "TT-ROW" && v.location.onset >= m.onset);
    let last_short = serial.iter().any(|v| v.predicate == "TT-ROW-COMPLETE");
    assert!(row_after || last_short, "{}", report_text(&report));
}

#[test]
fn a_tagged_immediate_repetition_passes_relaxed_counted_and_fails_strict() {
    let p = released_looking();
    let m = mutate(
        &p.score,
        MutationKind::ImmediateRepetition,
        &p.limits.registers,
        1,
    )
    .unwrap();
    let strict = p.gate(GateMode::Strict).judge_score(&m.score);
    assert_caught(&p.gate(GateMode::Strict), &m);
    assert_eq!(strict.violations.len(), 1, "{}", report_text(&strict));
    let relaxed = p.gate(GateMode::Relaxed).judge_score(&m.score);
    assert!(relaxed.passed, "{}", report_text(&relaxed));
    assert_eq!(relaxed.gate, "twelve-tone/relaxed");
    assert_eq!(relaxed.facts["tagged_repetitions"], 1);
    assert_eq!(
        relaxed.facts["events_relying_on_tags"],
        m.score.event_count() as u64
    );
    assert!(!strict.facts.contains_key("tagged_repetitions"));
}

/// A one-voice piece sounding `form` as single notes, tagged with `tag_form`.
fn one_voice(row: Row, form: RowForm, tag_form: Option<RowForm>) -> Score {
    let pcs = row.form(form, Convention::ZeroCentred);
    let mut voice = Voice::new("Voice");
    for (i, pc) in pcs.iter().enumerate() {
        let mut e = Event::new(
            Time::from_integer(i as i64),
            Time::from_integer(1),
            vec![Pitch::new(60 + pc)],
        );
        e.tag = tag_form.map(|f| format!("{f}:{}", i + 1));
        voice.events.push(e);
    }
    Score {
        bars: Some(3),
        voices: vec![voice],
        ..Score::default()
    }
}

#[test]
fn lying_tags_fail_relaxed_while_strict_derives_the_true_form() {
    let row = op25();
    let i3 = RowForm::new(FormKind::I, 3);
    let p0 = RowForm::new(FormKind::P, 0);
    let score = one_voice(row, i3, Some(p0));
    let strict =
        SerialGate::for_row(row, Convention::ZeroCentred, GateMode::Strict).judge_score(&score);
    assert!(strict.passed, "{}", report_text(&strict));
    assert_eq!(strict.facts["labels"]["Voice"], "I3");
    let relaxed =
        SerialGate::for_row(row, Convention::ZeroCentred, GateMode::Relaxed).judge_score(&score);
    assert!(!relaxed.passed);
    let v = &relaxed.violations[0];
    assert_eq!(
        (v.predicate.as_str(), v.location.bar, v.location.onset),
        ("TT-ROW", 1, Time::from_integer(0))
    );
    assert!(
        v.reason
            .contains("tagged P0:1 but sounds 3 (D#); P0 has 0 (C) at position 1"),
        "{}",
        v.reason
    );
    assert_eq!(relaxed.violations.len(), 1, "one violation per statement");
}

#[test]
fn without_tags_both_modes_derive_and_agree() {
    let mut opts = SynthOptions::new(op25(), 3, 90, 77);
    opts.tags = false;
    let p = piece(&opts);
    for kind in [
        MutationKind::PrematureRepetition,
        MutationKind::SwapPitchClasses,
        MutationKind::Collision,
    ] {
        let m = mutate(&p.score, kind, &p.limits.registers, 5).unwrap();
        let strict = p.gate(GateMode::Strict).judge_score(&m.score);
        let relaxed = p.gate(GateMode::Relaxed).judge_score(&m.score);
        assert!(!strict.passed);
        assert_eq!(strict.violations, relaxed.violations, "{kind:?}");
        assert_eq!(relaxed.facts["events_relying_on_tags"], 0);
    }
    // An untagged immediate repetition is no tagged tremolo: relaxed refuses it too.
    let m = mutate(
        &p.score,
        MutationKind::ImmediateRepetition,
        &p.limits.registers,
        2,
    )
    .unwrap();
    let relaxed = p.gate(GateMode::Relaxed).judge_score(&m.score);
    assert!(
        relaxed
            .violations
            .iter()
            .any(|v| v.predicate == "TT-REPEAT")
    );
    assert_eq!(relaxed.facts["tagged_repetitions"], 0);
}

/// A two-voice, eight-bar plan on Webern's Op. 21 row (symmetric: every form equals
/// another).
fn webern_plan() -> Blueprint {
    let mut spec = Spec::with_voice_count(2);
    spec.row = RowChoice::Historical {
        id: "WebernOp21".to_owned(),
    };
    spec.bars = 8;
    spec.section_bars = 4;
    Blueprint::new(&spec, 3).unwrap()
}

#[test]
fn a_symmetric_row_gives_each_statement_two_labels_and_the_schedule_accepts_either() {
    let plan = webern_plan();
    let score = from_plan(&plan, 11).unwrap();
    let report = SerialGate::for_plan(&plan, GateMode::Strict).judge_score(&score);
    assert!(report.passed, "{}", report_text(&report));
    let soprano = report.facts["labels"]["Soprano"]
        .as_str()
        .unwrap()
        .to_owned();
    let labels: Vec<&str> = soprano.split(' ').collect();
    assert_eq!(labels.len(), 2);
    assert!(
        labels.iter().all(|l| l.split('=').count() == 2),
        "{soprano}"
    );

    // A plan naming the other label of each statement is the same schedule.
    let mut aliased = plan.clone();
    for (section, label) in aliased.sections.iter_mut().zip(&labels) {
        let planned = section.forms[0].to_string();
        let other = label.split('=').find(|l| *l != planned).unwrap();
        section.forms[0] = other.parse().unwrap();
    }
    assert_ne!(aliased.sections[0].forms[0], plan.sections[0].forms[0]);
    let report = SerialGate::for_plan(&aliased, GateMode::Strict).judge_score(&score);
    assert!(report.passed, "{}", report_text(&report));

    // A form with other pitch classes is not.
    let mut wrong = aliased;
    let first = wrong.sections[0].forms[0];
    wrong.sections[0].forms[0] = RowForm::new(first.kind, (first.n + 1) % 12);
    let report = SerialGate::for_plan(&wrong, GateMode::Strict).judge_score(&score);
    let v = report
        .violations
        .iter()
        .find(|v| v.predicate == "TT-SCHEDULE")
        .unwrap();
    assert_eq!((v.location.bar, v.location.voice.as_str()), (1, "Soprano"));
    assert!(v.reason.contains("but the plan schedules"), "{}", v.reason);
}

#[test]
fn a_transposed_statement_is_a_form_but_not_the_planned_one() {
    let plan = webern_plan();
    let score = from_plan(&plan, 5).unwrap();
    let gate = SerialGate::for_plan(&plan, GateMode::Strict);
    let registers: Vec<(u8, u8)> = plan.limits.voices.iter().map(|v| (v.low, v.high)).collect();
    let m = mutate(&score, MutationKind::TransposeStatement, &registers, 8).unwrap();
    assert_caught(&gate, &m);
    // Without the plan, a transposed statement is still a statement of the row.
    let free =
        SerialGate::for_row(plan.row, plan.convention(), GateMode::Strict).judge_score(&m.score);
    assert!(
        free.violations
            .iter()
            .all(|v| !v.predicate.as_str().starts_with("TT-ROW") && v.predicate != "TT-REPEAT")
    );
}

#[test]
fn report_of_a_mutated_piece() {
    let mut opts = SynthOptions::new(op25(), 2, 24, 3);
    opts.max_chord = 2;
    opts.chord_percent = 25;
    let p = piece(&opts);
    let mut score = p.score.clone();
    for (kind, seed) in [
        (MutationKind::Collision, 1),
        (MutationKind::OutOfRegister, 2),
        (MutationKind::ImmediateRepetition, 3),
    ] {
        score = mutate(&score, kind, &p.limits.registers, seed)
            .unwrap()
            .score;
    }
    let report = p.gate(GateMode::Strict).judge_score(&score);
    insta::assert_snapshot!("gate_mutated_report", report_text(&report));
}
