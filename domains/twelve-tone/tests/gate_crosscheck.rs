//! The strict gate against the independent checker (`tests/independent`), over
//! thousands of pieces: valid synthetic pieces of 1..=6 voices, many sizes, grids,
//! meters, chord limits and rows (a symmetric one, all-interval ones, random ones),
//! and copies of each broken by every mutation kind. Per piece, both must find the
//! same collisions and the same serial-order violations (TT-ROW, TT-REPEAT,
//! TT-ROW-COMPLETE) at the same places.

mod independent;

use cantus_music::{Meter, Score, Time};
use cantus_twelve_tone::gate::{GateMode, SerialGate};
use cantus_twelve_tone::row::{Convention, Row, resolve};
use cantus_twelve_tone::synth::{MutationKind, SynthOptions, SynthPiece, mutate, piece};
use independent::Finding;
use std::collections::BTreeMap;

const SERIAL: [&str; 3] = ["TT-ROW", "TT-REPEAT", "TT-ROW-COMPLETE"];

/// The gate's findings of the given rules, in the checker's shape, sorted.
fn gate_findings(gate: &SerialGate, score: &Score, rules: &[&'static str]) -> Vec<Finding> {
    let report = gate.judge_score(score);
    let mut out: Vec<Finding> = report
        .violations
        .iter()
        .filter(|v| rules.contains(&v.predicate.as_str()))
        .map(|v| Finding {
            rule: rules
                .iter()
                .copied()
                .find(|r| v.predicate == **r)
                .unwrap_or("?"),
            voice: v.location.voice.clone(),
            bar: v.location.bar,
            onset: v.location.onset,
        })
        .collect();
    out.sort();
    out
}

fn random_row(rng: &mut fastrand::Rng) -> Row {
    match rng.u8(..5) {
        0 => resolve("WebernOp21").unwrap().row,
        1 => Row::all_interval(rng.u64(..)),
        2 => resolve("BergLyricSuite").unwrap().row,
        3 => resolve("SchoenbergOp25").unwrap().row,
        _ => {
            let mut pcs: Vec<u8> = (0..12).collect();
            rng.shuffle(&mut pcs);
            Row::new(&pcs).unwrap()
        }
    }
}

fn random_piece(seed: u64) -> SynthPiece {
    let mut rng = fastrand::Rng::with_seed(seed);
    let row = random_row(&mut rng);
    let voices = rng.usize(1..=6);
    // Mostly small pieces (the checker is quadratic), now and then a larger one.
    let events = if rng.u8(..10) == 0 {
        rng.usize(150..=260)
    } else {
        rng.usize(12..=90)
    };
    let mut opts = SynthOptions::new(row, voices, events, rng.u64(..));
    opts.convention = if rng.bool() {
        Convention::ZeroCentred
    } else {
        Convention::Relative
    };
    opts.max_chord = rng.u8(1..=4);
    opts.chord_percent = rng.u8(0..=40);
    opts.rest_percent = rng.u8(0..=30);
    opts.grid = [
        Time::new(1, 4),
        Time::new(1, 3),
        Time::new(1, 6),
        Time::new(1, 12),
        Time::new(1, 2),
    ][rng.usize(..5)];
    opts.meter = [
        Meter::new(4, 4),
        Meter::new(3, 4),
        Meter::new(6, 8),
        Meter::new(5, 8),
    ][rng.usize(..4)];
    opts.tags = rng.bool();
    piece(&opts)
}

#[derive(Default)]
struct Tally {
    pieces: usize,
    valid_pieces: usize,
    /// Valid pieces whose every voice opens with a chord among its first twelve
    /// pitch classes (so the inferring gate had to choose a reading).
    chord_openings: usize,
    straddles: usize,
    with_collisions: usize,
    with_serial: usize,
    by_kind: BTreeMap<String, (usize, usize)>,
}

/// Whether some voice sounds its first twelve pitch classes as single notes.
fn opens_with_single_notes(score: &Score) -> bool {
    score.voices.iter().any(|v| {
        let mut count = 0;
        for e in &v.events {
            if e.pitches.len() > 1 {
                return false;
            }
            count += 1;
            if count == 12 {
                return true;
            }
        }
        false
    })
}

fn describe(kind: Option<MutationKind>, seed: u64, piece: &SynthPiece) -> String {
    format!(
        "seed {seed}, mutation {kind:?}, row {}, {} voices, {} events",
        piece.row,
        piece.score.voices.len(),
        piece.score.event_count()
    )
}

#[test]
fn gate_and_independent_checker_agree_on_thousands_of_pieces() {
    let mut tally = Tally::default();
    for seed in 0..500u64 {
        let base = random_piece(seed);
        let gate = base.gate(GateMode::Strict);
        let row = base.row.pcs();
        let mut scores: Vec<(Option<MutationKind>, Score)> = vec![(None, base.score.clone())];
        for (i, kind) in MutationKind::ALL.into_iter().enumerate() {
            if let Some(m) = mutate(
                &base.score,
                kind,
                &base.limits.registers,
                seed * 31 + i as u64,
            ) {
                scores.push((Some(kind), m.score));
            }
        }
        for (kind, score) in &scores {
            let what = describe(*kind, seed, &base);
            let gate_collisions = gate_findings(&gate, score, &["TT-COLLISION"]);
            let checker_collisions = independent::collisions(score);
            assert_eq!(
                gate_collisions, checker_collisions,
                "collisions differ: {what}"
            );
            let gate_serial = gate_findings(&gate, score, &SERIAL);
            let checker_serial = independent::serial(score, row);
            assert_eq!(
                gate_serial, checker_serial,
                "serial findings differ: {what}"
            );

            tally.pieces += 1;
            tally.straddles += gate
                .judge_score(score)
                .violations
                .iter()
                .filter(|v| v.reason.contains("straddle"))
                .count();
            tally.with_collisions += usize::from(!checker_collisions.is_empty());
            tally.with_serial += usize::from(!checker_serial.is_empty());
            match kind {
                None => {
                    let report = gate.judge_score(score);
                    assert!(
                        report.passed,
                        "a synthetic piece fails the gate: {what}: {:?}",
                        report.violations.first()
                    );
                    assert!(
                        checker_collisions.is_empty() && checker_serial.is_empty(),
                        "{what}"
                    );
                    // Not told the row, the gate reads it from the piece (trying the
                    // orders of chords in the opening), and agrees.
                    let inferring =
                        SerialGate::inferring(GateMode::Strict).with_limits(base.limits.clone());
                    let report = inferring.judge_score(score);
                    assert!(
                        report.passed,
                        "inferring gate: {what}: {:?}",
                        report.violations.first()
                    );
                    tally.chord_openings += usize::from(!opens_with_single_notes(score));
                    tally.valid_pieces += 1;
                }
                Some(k) => {
                    let entry = tally.by_kind.entry(format!("{k:?}")).or_default();
                    entry.0 += 1;
                    entry.1 += usize::from(!gate.judge_score(score).passed);
                }
            }
        }
    }
    eprintln!(
        "{} pieces ({} valid, all also judged with an inferred row, {} of them opening with chords); {} with collisions, {} with serial-order violations, \
         {} straddling chords; by mutation (pieces, failed): {:?}",
        tally.pieces,
        tally.valid_pieces,
        tally.chord_openings,
        tally.with_collisions,
        tally.with_serial,
        tally.straddles,
        tally.by_kind
    );
    assert!(tally.pieces >= 2000, "only {} pieces", tally.pieces);
    // The mutations must really break pieces, or agreement proves little.
    for kind in [
        "Collision",
        "SustainedCollision",
        "ImmediateRepetition",
        "PrematureRepetition",
        "SwapPitchClasses",
        "TransposeTail",
        "OutOfRegister",
        "DropNote",
        "OverlapWithinVoice",
        "StraddlingChord",
    ] {
        let (made, failed) = tally.by_kind.get(kind).copied().unwrap_or_default();
        assert!(
            made >= 200 && failed == made,
            "{kind}: {failed} of {made} mutated pieces failed"
        );
    }
    assert!(
        tally.with_collisions >= 600 && tally.with_serial >= 1500 && tally.chord_openings >= 100
    );
    assert!(
        tally.straddles >= 200,
        "the straddle rule was hardly exercised"
    );
}
