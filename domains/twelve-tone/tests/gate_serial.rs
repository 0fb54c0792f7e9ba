//! The serial and plan rules of the gate on hand-built pieces: statements cut
//! short, chords straddling statements, the plan's voices, schedule and aggregate,
//! rows read from the piece, and what relaxed mode does with tags.

use cantus_music::{Event, Meter, Pitch, Score, Time, Voice};
use cantus_twelve_tone::Blueprint;
use cantus_twelve_tone::gate::{GateMode, SerialGate, report_text};
use cantus_twelve_tone::row::{Convention, FormKind, Row, RowForm, resolve};
use cantus_twelve_tone::spec::{RowChoice, Spec};
use cantus_twelve_tone::synth::from_plan;

fn op25() -> Row {
    resolve("SchoenbergOp25").unwrap().row
}

fn q(n: i64) -> Time {
    Time::from_integer(n)
}

/// One voice of single notes, one quarter each from `start`, pitch 60 + pc, tagged
/// if `tags` gives a form (positions counted from 1 per statement of 12).
fn line(pcs: &[u8], start: i64, tag: Option<RowForm>) -> Vec<Event> {
    pcs.iter()
        .enumerate()
        .map(|(i, &pc)| {
            let mut e = Event::new(q(start + i as i64), q(1), vec![Pitch::new(60 + pc)]);
            e.tag = tag.map(|f| format!("{f}:{}", i % 12 + 1));
            e
        })
        .collect()
}

fn one_voice(events: Vec<Event>, bars: u32) -> Score {
    Score {
        meter: Meter::COMMON,
        bars: Some(bars),
        voices: vec![Voice {
            name: "Solo".to_owned(),
            events,
            ..Voice::default()
        }],
        ..Score::default()
    }
}

fn strict() -> SerialGate<'static> {
    SerialGate::for_row(op25(), Convention::ZeroCentred, GateMode::Strict)
}

fn form(kind: FormKind, n: u8) -> [u8; 12] {
    op25().form(RowForm::new(kind, n), Convention::ZeroCentred)
}

#[test]
fn a_last_statement_cut_short_is_reported_at_its_first_note() {
    let mut pcs = form(FormKind::P, 4).to_vec();
    pcs.extend_from_slice(&form(FormKind::RI, 2)[..5]);
    let report = strict().judge_score(&one_voice(line(&pcs, 0, None), 5));
    assert_eq!(report.violations.len(), 1, "{}", report_text(&report));
    let v = &report.violations[0];
    assert_eq!(
        (v.predicate.as_str(), v.location.bar, v.location.onset),
        ("TT-ROW-COMPLETE", 4, q(12))
    );
    assert!(
        v.reason.contains("has only 5 of 12 pitch classes"),
        "{}",
        v.reason
    );
    assert!(
        v.reason.contains("it opens like RI2, which continues"),
        "{}",
        v.reason
    );
    assert_eq!(report.facts["labels"]["Solo"], "P4 RI2…");
}

#[test]
fn a_short_statement_counts_pitch_classes_not_notes() {
    // Issue 14's case: 12 notes, 11 order positions (the last 1 re-sounds the one
    // before it), but only 9 distinct pitch classes (4 and 2 come back early).
    let pcs = [4, 5, 7, 9, 11, 0, 2, 4, 2, 10, 1, 1];
    let report = strict().judge_score(&one_voice(line(&pcs, 0, None), 3));
    let complete: Vec<_> = report
        .violations
        .iter()
        .filter(|v| v.predicate == "TT-ROW-COMPLETE")
        .collect();
    assert_eq!(complete.len(), 1, "{}", report_text(&report));
    let reason = &complete[0].reason;
    assert!(
        reason.contains("has only 9 of 12 pitch classes (4 5 7 9 11 0 2 4 2 10 1 1)"),
        "{reason}"
    );
    assert!(
        reason.contains("missing 3 (D#), 6 (F#), 8 (G#)"),
        "{reason}"
    );
    // The early return of 4 is reported with the distinct count so far, too.
    let repeats: Vec<_> = report
        .violations
        .iter()
        .filter(|v| v.predicate == "TT-REPEAT")
        .map(|v| v.reason.as_str())
        .collect();
    assert!(
        repeats.iter().any(|r| r.contains("2 (D) already sounded")
            && r.contains("it has 7 of 12 pitch classes so far")),
        "{repeats:?}"
    );
}

#[test]
fn a_chord_may_not_straddle_two_statements() {
    let p4 = form(FormKind::P, 4);
    let i7 = form(FormKind::I, 7);
    let mut events = line(&p4[..11], 0, None);
    // The twelfth pitch class of P4 and the first of I7 as one chord.
    events.push(Event::new(
        q(11),
        q(1),
        vec![Pitch::new(60 + p4[11]), Pitch::new(72 + i7[0])],
    ));
    events.extend(line(&i7[1..], 12, None));
    let report = strict().judge_score(&one_voice(events, 6));
    let rows: Vec<_> = report
        .violations
        .iter()
        .filter(|v| v.predicate == "TT-ROW")
        .collect();
    assert_eq!(rows.len(), 1, "{}", report_text(&report));
    assert_eq!(rows[0].location.onset, q(11));
    assert!(
        rows[0]
            .reason
            .contains("a chord may not straddle two statements"),
        "{}",
        rows[0].reason
    );
}

#[test]
fn the_strict_gate_derives_labels_and_ignores_tags() {
    let mut pcs = form(FormKind::R, 9).to_vec();
    pcs.extend_from_slice(&form(FormKind::I, 0));
    let wrong_tag = Some(RowForm::new(FormKind::P, 0));
    let report = strict().judge_score(&one_voice(line(&pcs, 0, wrong_tag), 6));
    assert!(report.passed, "{}", report_text(&report));
    assert_eq!(report.facts["labels"]["Solo"], "R9 I0");
    assert_eq!(report.facts["statements"], 2);
}

#[test]
fn a_row_is_inferred_from_the_piece_or_its_absence_reported() {
    let mut pcs = form(FormKind::I, 5).to_vec();
    pcs.extend_from_slice(&form(FormKind::P, 11));
    let report =
        SerialGate::inferring(GateMode::Strict).judge_score(&one_voice(line(&pcs, 0, None), 6));
    assert!(report.passed, "{}", report_text(&report));
    assert_eq!(report.facts["row_source"], "inferred from Solo");
    // Read as a row, I5 names itself P5: the second statement is then I11's inversion.
    assert_eq!(report.facts["row"], "5 4 2 8 3 6 1 7 10 9 0 11");
    let eleven = &form(FormKind::P, 4)[..11];
    let report =
        SerialGate::inferring(GateMode::Strict).judge_score(&one_voice(line(eleven, 0, None), 3));
    let v = &report.violations[0];
    assert_eq!(v.predicate, "TT-ROW");
    assert!(
        v.reason.starts_with("no twelve-tone statement found"),
        "{}",
        v.reason
    );
}

#[test]
fn relaxed_mode_checks_tag_positions_and_counts_unreadable_tags() {
    let mut events = line(&form(FormKind::P, 4), 0, Some(RowForm::new(FormKind::P, 4)));
    events[3].tag = Some("P4:6".to_owned());
    events[7].tag = Some("not a tag".to_owned());
    let relaxed = SerialGate::for_row(op25(), Convention::ZeroCentred, GateMode::Relaxed);
    let report = relaxed.judge_score(&one_voice(events, 3));
    let v = &report.violations[0];
    assert_eq!((v.predicate.as_str(), v.location.onset), ("TT-ROW", q(3)));
    assert!(
        v.reason
            .contains("tagged P4:6 (position 6) but the event sounds position 4 of its statement"),
        "{}",
        v.reason
    );
    assert_eq!(report.facts["events_relying_on_tags"], 11);
    assert_eq!(report.facts["unreadable_tags"], 1);
}

/// A plan of `voices` voices over `bars` bars of 4/4 in sections of 4 bars.
fn plan(voices: usize, bars: u32, row: &str) -> Blueprint {
    let mut spec = Spec::with_voice_count(voices);
    spec.row = RowChoice::Historical { id: row.to_owned() };
    spec.bars = bars;
    spec.section_bars = 4;
    Blueprint::new(&spec, 1).unwrap()
}

#[test]
fn the_plan_fixes_the_number_of_voices() {
    let plan = plan(3, 8, "SchoenbergOp25");
    let mut score = from_plan(&plan, 2).unwrap();
    assert!(
        SerialGate::for_plan(&plan, GateMode::Strict)
            .judge_score(&score)
            .passed
    );
    score.voices.pop();
    let report = SerialGate::for_plan(&plan, GateMode::Strict).judge_score(&score);
    let v = report
        .violations
        .iter()
        .find(|v| v.predicate == "TT-VOICES")
        .unwrap();
    assert!(
        v.reason
            .contains("the score has 2 voices, but the plan has 3 (Soprano, Tenor, Bass)"),
        "{}",
        v.reason
    );
}

/// A one-voice, two-section plan and a piece stating its forms, one note per
/// quarter, statement 1 from `first`, statement 2 from `second` (onsets in quarters).
fn two_sections(first: i64, second: i64, last_long: bool) -> (Blueprint, Score) {
    let plan = plan(1, 8, "SchoenbergOp25");
    let pcs = |k: usize| plan.table.pcs(plan.sections[k].forms[0]).to_vec();
    let mut events = line(&pcs(0), first, None);
    events.extend(line(&pcs(1), second, None));
    if last_long {
        let last = events.len() - 1;
        events[last].duration = q(32 - second - 11);
    }
    let mut score = one_voice(events, 8);
    score.voices[0].name = plan.limits.voices[0].name.clone();
    (plan, score)
}

#[test]
fn each_statement_starts_in_its_section() {
    let (plan, score) = two_sections(0, 16, true);
    let gate = SerialGate::for_plan(&plan, GateMode::Strict);
    let report = gate.judge_score(&score);
    // The first statement leaves bars 4 silent; nothing else is wrong.
    assert!(
        report.violations.iter().all(|v| v.predicate == "TT-BARS"),
        "{}",
        report_text(&report)
    );
    let (plan, score) = two_sections(0, 12, true);
    let report = SerialGate::for_plan(&plan, GateMode::Strict).judge_score(&score);
    let v = report
        .violations
        .iter()
        .find(|v| v.predicate == "TT-SCHEDULE")
        .unwrap();
    assert_eq!((v.location.bar, v.location.onset), (4, q(12)));
    assert!(
        v.reason
            .contains("starts at onset 12, outside section 2 (bars 5–8) (onsets 16 until 32)"),
        "{}",
        v.reason
    );
}

#[test]
fn a_section_that_misses_pitch_classes_breaks_the_aggregate() {
    // Statement 1 runs late: its last two notes begin in section 2.
    let (plan, mut score) = two_sections(6, 18, true);
    score.voices[0].events[0].onset = q(0);
    score.voices[0].events[0].duration = q(7);
    let report = SerialGate::for_plan(&plan, GateMode::Strict).judge_score(&score);
    let v = report
        .violations
        .iter()
        .find(|v| v.predicate == "TT-AGGREGATE")
        .unwrap();
    assert_eq!(
        (v.location.bar, v.location.voice.as_str()),
        (1, "(all voices)")
    );
    assert!(
        v.reason
            .contains("section 1 (bars 1–4) sounds only 10 of the 12 pitch classes; missing"),
        "{}",
        v.reason
    );
}

#[test]
fn missing_and_extra_statements_are_reported() {
    let plan = plan(2, 8, "WebernOp21");
    let score = from_plan(&plan, 4).unwrap();
    let gate = SerialGate::for_plan(&plan, GateMode::Strict);
    let mut short = score.clone();
    let second = plan.sections[1].start;
    short.voices[1].events.retain(|e| e.onset < second);
    let report = gate.judge_score(&short);
    let v = report
        .violations
        .iter()
        .find(|v| v.predicate == "TT-SCHEDULE")
        .unwrap();
    assert_eq!(
        (v.location.bar, v.location.voice.as_str(), v.location.onset),
        (5, "Bass", second)
    );
    assert!(
        v.reason
            .contains("the voice states 1 statements, but the plan schedules 2: missing"),
        "{}",
        v.reason
    );
    let mut long = score;
    let extra: Vec<Event> = long.voices[0]
        .events
        .iter()
        .take_while(|e| e.onset < second)
        .cloned()
        .collect();
    let shift = plan.end();
    long.bars = Some(plan.bars * 2);
    for mut e in extra {
        e.onset += shift;
        long.voices[0].events.push(e);
    }
    let report = gate.judge_score(&long);
    let v = report
        .violations
        .iter()
        .find(|v| v.predicate == "TT-SCHEDULE")
        .unwrap();
    assert_eq!(
        (v.location.voice.as_str(), v.location.onset),
        ("Soprano", shift)
    );
    assert!(
        v.reason
            .contains("statement 3 is one more than the plan schedules"),
        "{}",
        v.reason
    );
}
