//! The workflows' gates and scores on hand-worked examples (the arithmetic is
//! in the comments): length, a morph's progress, a genre's fit with the
//! original's widening and distinct-pitch-class rule, the out-of-band count,
//! the newgen and education scores, the genre copy threshold and the teach
//! workflow's axis band.

use cantus_libretto::workflow::gates::{
    GenreFit, Length, Progress, copy_threshold, failed_checks, newgen_score, out_of_band, progress,
};
use cantus_libretto::workflow::teach::{AxisBand, Challenge};
use cantus_libretto::{AXIS_COUNT, Axis, Calibration, Fingerprint, GateId, GateOutcome, Profile};
use cantus_music::grammar::{ParseOptions, parse};

#[test]
fn length_passes_inside_its_bounds_and_says_what_to_write() {
    let gate = Length {
        min: 64,
        max: 179,
        what: "piece",
    };
    let short = gate.check(63);
    assert!(!short.passed);
    assert_eq!(short.gate, GateId::Length);
    assert_eq!(short.penalty, 50.0);
    assert_eq!(
        short.feedback,
        ["length: the piece has 63 bars; write 64–179 bars"]
    );
    assert!(gate.check(64).passed && gate.check(179).passed && !gate.check(180).passed);
}

#[test]
fn progress_is_the_share_of_the_way_from_a_to_b() {
    let a = Profile([10.0; AXIS_COUNT]);
    let b = Profile([90.0; AXIS_COUNT]);
    // D(seg, A) = 20, D(seg, B) = 60: 20 / 80 = 0.25.
    assert_eq!(progress(&Profile([30.0; AXIS_COUNT]), &a, &b), 0.25);
    // At B: 80 / (80 + 0) = 1.
    assert_eq!(progress(&b, &a, &b), 1.0);
    // A = B: as far from both, ½.
    assert_eq!(progress(&a, &a, &a), 0.5);
}

#[test]
fn the_progress_rule_checks_monotone_span_start_and_end() {
    let rule = Progress::default();
    // 0.2 → 0.35 → 0.55 → 0.8: rising, span 0.6, first < 0.40, last > 0.60.
    let ok = rule.check(&[0.2, 0.35, 0.55, 0.8]);
    assert!(ok.passed && ok.penalty == 0.0 && ok.feedback.is_empty());
    // A step back within 0.05 is allowed: 0.5 → 0.46 (0.46 ≥ 0.5 − 0.05).
    assert!(rule.check(&[0.2, 0.5, 0.46, 0.8]).passed);
    // 0.5 → 0.44 falls back by 0.06 > 0.05: one failed check, 50.
    let back = rule.check(&[0.2, 0.5, 0.44, 0.8]);
    assert!(!back.passed);
    assert_eq!(back.penalty, 50.0);
    assert!(
        back.feedback[0].starts_with("progress: segment 3 sits 0.44"),
        "{:?}",
        back.feedback
    );
    // 0.45 → 0.7: span 0.25 < 0.4 and first 0.45 ≥ 0.40 — two failed checks, 100;
    // the last, 0.7 > 0.60, is fine.
    let flat = rule.check(&[0.45, 0.5, 0.6, 0.7]);
    assert_eq!(flat.penalty, 100.0);
    assert_eq!(flat.feedback.len(), 2);
    assert!(
        flat.feedback[0].contains("cover only 0.25"),
        "{:?}",
        flat.feedback
    );
    assert!(
        flat.feedback[1].contains("segment 1 sits 0.45"),
        "{:?}",
        flat.feedback
    );
}

fn jazz_fit() -> GenreFit {
    GenreFit::new(Calibration::original(), "jazz").expect("the original table has jazz bands")
}

#[test]
fn a_genres_fit_widens_degenerate_bands_and_reads_distinct_pcs_as_the_original() {
    let fit = jazz_fit();
    assert_eq!(fit.bands.len(), 8);
    // Jazz's distinct-pitch-class band is 12–12: narrower than 2% of the global
    // p5–p95 range (7–12, so 0.1), it widens to the genre's p5–p95, 10.35–12.
    let pc = fit
        .bands
        .iter()
        .find(|b| b.0 == Axis::HarDistinctPc)
        .unwrap();
    assert_eq!((pc.1, pc.2), (10.35, 12.0));
    // Jazz's triplet band 0.1551–0.6004 is wide: kept.
    let trip = fit
        .bands
        .iter()
        .find(|b| b.0 == Axis::RhyTripletShare)
        .unwrap();
    assert_eq!((trip.1, trip.2), (0.1551, 0.6004));
    // The original's special case: a band reaching 12 is met by 11 or more —
    // so 11 is inside, and 10.5 is outside although the widened band holds it.
    let mut raw = [0.0; AXIS_COUNT];
    raw[Axis::HarDistinctPc.index()] = 11.0;
    let fp = Fingerprint::place(&raw, Calibration::original());
    assert!(!fit.outside(&fp).iter().any(|o| o.0 == Axis::HarDistinctPc));
    raw[Axis::HarDistinctPc.index()] = 10.5;
    let fp = Fingerprint::place(&raw, Calibration::original());
    assert!(fit.outside(&fp).iter().any(|o| o.0 == Axis::HarDistinctPc));
}

#[test]
fn a_genres_fit_counts_traits_inside_and_needs_three() {
    let fit = jazz_fit();
    // Zero on every axis (outside each jazz band, none of which starts at 0),
    // then three traits put inside by hand.
    let mut raw = [0.0; AXIS_COUNT];
    raw[Axis::RhyTripletShare.index()] = 0.3; // in 0.1551–0.6004
    raw[Axis::HarDimaugRate.index()] = 0.5; // in 0.222–0.6918
    raw[Axis::HarDistinctPc.index()] = 12.0; // ≥ 11
    let fp = Fingerprint::place(&raw, Calibration::original());
    assert_eq!(fit.outside(&fp).len(), 5);
    let three = fit.check(&fp);
    assert!(three.passed && three.penalty == 0.0);
    // One inside: two short of three, 2 · 15 = 30, and the feedback names the
    // seven traits to move.
    raw[Axis::RhyTripletShare.index()] = 0.0;
    raw[Axis::HarDimaugRate.index()] = 0.0;
    let fp = Fingerprint::place(&raw, Calibration::original());
    let one = fit.check(&fp);
    assert!(!one.passed);
    assert_eq!(one.penalty, 30.0);
    assert_eq!(one.feedback.len(), 1 + 7);
    assert_eq!(
        one.feedback[0],
        "style fit: 1 of 8 traits lie in the jazz middle band; at least 3 should"
    );
}

#[test]
fn out_of_band_uses_genre_bands_where_given_and_the_table_elsewhere() {
    let table = Calibration::original();
    // Every axis at its table's median: inside every global p25–p75 band.
    let mut raw = [0.0; AXIS_COUNT];
    for a in Axis::ALL {
        raw[a.index()] = table.column(a).p50;
    }
    let fp = Fingerprint::place(&raw, table);
    assert!(out_of_band(&fp, table, &[]).is_empty());
    // With a band for syncopation that the median misses, that one axis is out.
    let sync = table.column(Axis::RhySyncopationRate).p50;
    let bands = [(Axis::RhySyncopationRate, sync + 0.1, sync + 0.2)];
    assert_eq!(out_of_band(&fp, table, &bands), [Axis::RhySyncopationRate]);
}

fn outcome(gate: GateId, passed: bool, penalty: f64) -> GateOutcome {
    GateOutcome {
        gate,
        passed,
        penalty,
        feedback: Vec::new(),
    }
}

#[test]
fn the_newgen_and_education_scores() {
    // Two excess extremes (80), a length miss (50), copy 0.40 against 0.30
    // (300 · 0.10 = 30), one trait short of the fit (15), three axes out of
    // band (2 · 3 = 6): 80 + 50 + 30 + 15 + 6 = 181.
    let gates = [
        outcome(GateId::Length, false, 50.0),
        outcome(GateId::Degeneracy, false, 80.0),
        outcome(GateId::Copy, false, 300.0 * (0.40 - 0.30)),
        outcome(GateId::Style, false, 15.0),
    ];
    assert!((newgen_score(&gates, 3) - 181.0).abs() < 1e-9);
    // The education score counts failed checks: 4 here, 0 when all pass.
    assert_eq!(failed_checks(&gates), 4.0);
    assert_eq!(failed_checks(&[outcome(GateId::Challenge, true, 0.0)]), 0.0);
}

#[test]
fn the_copy_threshold_is_the_originals_per_genre() {
    assert_eq!(copy_threshold(Some("folk_country")), 0.34);
    assert_eq!(copy_threshold(Some("jazz")), 0.30);
    assert_eq!(copy_threshold(None), 0.30);
}

#[test]
fn an_axis_band_challenge_reads_the_percentile() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/round2.txt"
    ))
    .unwrap();
    let score = parse(&text, &ParseOptions::named("round2.txt"))
        .unwrap()
        .score;
    // round2 sits at the 97th percentile of mean note length (its stored profile).
    let above = AxisBand {
        axis: Axis::RhyMeanDurBeats,
        above: Some(95),
        below: None,
        table: Calibration::original().clone(),
    };
    let checked = above.check(&score);
    assert!(checked.met, "{}", checked.found);
    assert!(
        checked.found.contains("97th percentile"),
        "{}",
        checked.found
    );
    let below = AxisBand {
        below: Some(97),
        above: None,
        ..above
    };
    // Strictly below: the 97th is not below 97.
    assert!(!below.check(&score).met);
    assert_eq!(
        below.statement(),
        "average note length (the mean note length in beats) below the 97th percentile"
    );
}
