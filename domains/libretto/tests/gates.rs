//! The gates on pieces whose answers are known.

use cantus_libretto::fingerprint::raw_axes;
use cantus_libretto::{
    Axis, Calibration, CopyGate, Degeneracy, GateId, Layout, LibrettoMeasure, NoteGrid, Novelty,
    StyleFit, fingerprint_text,
};
use cantus_music::Score;
use cantus_music::grammar::{ParseOptions, parse};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn grid(text: &str) -> NoteGrid {
    NoteGrid::of(&Layout::from_text(text).unwrap().song())
}

const HEAD: &str = "KEY: C major | METER: 4/4 | TEMPO: 90 | GRID: 4th | BARS: 4\nVOICES: A\n";

#[test]
fn copy_risk_slides_over_bar_offsets() {
    let a = format!("{HEAD}@1 [C]\n  A: C4@1>1 D4@2>1 E4@3>1 F4@4>1\n@2 [C]\n  A: G4@1>4\n");
    // The same two bars two bars later: found in full at offset +2.
    let later = format!(
        "{HEAD}@1 [C]\n  A: B3@1>4\n@2 [C]\n  A: B3@1>4\n@3 [C]\n  A: C4@1>1 D4@2>1 E4@3>1 F4@4>1\n@4 [C]\n  A: G4@1>4\n"
    );
    assert_eq!(grid(&a).slide_overlap(&grid(&later)), (1.0, 2));
    // Transposed a step: no (position, pitch) pair shared.
    let up = format!("{HEAD}@1 [C]\n  A: D4@1>1 E4@2>1 F#4@3>1 G4@4>1\n@2 [C]\n  A: A4@1>4\n");
    assert_eq!(grid(&a).slide_overlap(&grid(&up)).0, 0.0);
    // Half of it (C4 D4 on beats 1–2 of bar 1, and bar 2's G4): 3 of 5 notes.
    let half = format!("{HEAD}@1 [C]\n  A: C4@1>1 D4@2>1 A4@3>2\n@2 [C]\n  A: G4@1>4\n");
    assert!((grid(&a).slide_overlap(&grid(&half)).0 - 0.6).abs() < 1e-12);
    let gate = CopyGate::new(vec![grid(&later)]);
    let verdict = gate.check(&grid(&a));
    assert!(!verdict.passed);
    assert!((verdict.penalty - 300.0 * 0.7).abs() < 1e-9);
    assert!(verdict.feedback[0].starts_with("copy risk 1.00 ≥ 0.30"));
    assert!(gate.check(&grid(&up)).passed);
    let novelty = Novelty::new(vec![grid(&half)]);
    assert!(!novelty.check(&grid(&a)).passed, "0.6 ≥ 0.5");
    assert!(novelty.check(&grid(&up)).passed);
}

#[test]
fn degeneracy_counts_extremes_against_the_budget() {
    // round1 against the original table: its stored profile has 7 axes at ≤ 5 or
    // ≥ 95 (syncopation 100, duration contrast 0, mean length 0, density change 0,
    // chord changes 4, root motion 98, chord width 2), and its variation (not in
    // the profile) is at the 0th percentile: 8.
    let fp = fingerprint_text(&fixture("round1.txt"), Calibration::original()).unwrap();
    let n = fp.extremes().count();
    assert_eq!(
        n,
        8,
        "{:?}",
        fp.extremes()
            .map(|r| (r.axis.id(), r.percentile))
            .collect::<Vec<_>>()
    );
    let strict = Degeneracy::default().check(&fp);
    assert!(!strict.passed);
    assert_eq!(strict.penalty, 40.0 * (n - 3) as f64);
    // One summary line, then one line per extreme axis saying which way to move.
    assert_eq!(strict.feedback.len(), n + 1);
    assert!(strict.feedback.iter().any(|l| l.starts_with(
        "average note length (the mean note length in beats) — now at the 0th percentile: raise it"
    )));
    assert!(strict.feedback.iter().any(|l| l.starts_with(
        "syncopation (how many onsets fall between the beats) — now at the 100th percentile: lower it"
    )));
    let lenient = Degeneracy::with_budget(10).check(&fp);
    assert!(lenient.passed && lenient.feedback.is_empty() && lenient.penalty == 0.0);
}

#[test]
fn genre_aware_degeneracy_skips_idiomatic_extremes() {
    let table = Calibration::original();
    assert_eq!(table.genres().count(), 9);
    // round1's syncopation (1.0, 100th percentile) is extreme globally, but is it
    // inside a genre's band for that axis? electronic_dance: [0.5084, 0.6182] → no.
    let fp = fingerprint_text(&fixture("round1.txt"), table).unwrap();
    let edm = Degeneracy::for_genre(table, "electronic_dance").unwrap();
    assert_eq!(edm.budget, 6);
    assert_eq!(edm.extremes(&fp).len(), 8);
    // A band that holds 1.0 makes that extreme idiomatic.
    let mut wide = edm.clone();
    wide.idiomatic.push((Axis::RhySyncopationRate, 0.9, 1.0));
    assert_eq!(wide.extremes(&fp).len(), 7);
    assert!(
        Degeneracy::for_genre(table, "pop_rock_orig").is_none(),
        "no budget for it"
    );
}

#[test]
fn style_fit_counts_axes_inside_the_reference_band() {
    let raw = |f: &str| raw_axes(&Layout::from_text(&fixture(f)).unwrap()).unwrap();
    let (r1, r2) = (raw("round1.txt"), raw("round2.txt"));
    // Reference {round1, round1, round2}: numpy's 25th–75th band then runs from
    // round1's value halfway toward round2's, so round1 lies inside on every
    // axis and round2 outside wherever the two differ.
    let reference = Calibration::from_pieces("round1 twice and round2", &[r1, r1, r2]);
    let gate = StyleFit {
        reference: reference.clone(),
        axes: vec![
            Axis::RhySyncopationRate,
            Axis::TexVoiceCount,
            Axis::HarDistinctPc,
        ],
        min_inside: 2,
    };
    let fp1 = cantus_libretto::Fingerprint::place(&r1, &reference);
    let verdict = gate.check(&fp1);
    assert!(verdict.passed && verdict.penalty == 0.0 && verdict.feedback.is_empty());
    // round2: syncopation .0575 below the band [.0575 + .5 × .9425 = .5287, 1];
    // 5 voices above [4, 4.5]; 8 pitch classes as round1 → 1 of 3 inside.
    let fp2 = cantus_libretto::Fingerprint::place(&r2, &reference);
    let verdict = gate.check(&fp2);
    assert!(!verdict.passed);
    assert_eq!(verdict.penalty, 15.0);
    assert!(verdict.feedback[0].starts_with("style fit: 1 of 3 traits"));
    assert!(verdict.feedback[1].starts_with(
        "syncopation (how many onsets fall between the beats) — now 0.057, outside the style's middle band 0.529–1.000: raise it"
    ), "{:?}", verdict.feedback);
    assert!(verdict.feedback[2].starts_with("voice count (how many voices play) — now 5.000"));
    assert!(verdict.feedback[2].contains("lower it"));
}

#[test]
fn the_measure_turns_gates_into_revise_feedback() {
    let score: Score = parse(&fixture("round1.txt"), &ParseOptions::named("round1.txt"))
        .unwrap()
        .score;
    let measure = LibrettoMeasure::new(|s: &Score| s.clone(), Calibration::original().clone())
        .with_copy(CopyGate::new(vec![grid(&fixture("round1.txt"))]));
    let report = measure.report(&score);
    assert_eq!(report.gates.len(), 2);
    assert!(report.gates.iter().all(|g| !g.passed));
    let silent = measure.report(&Score::default());
    assert_eq!(silent.gates[0].gate, GateId::Silent);
}
