//! Every metric on hand-made records with known answers.

use super::*;
use crate::conditions::ConditionId;
use crate::record::{Cost, Counts, Key, Verdict};
use crate::tasks::TaskId;
use cantus_framework::Usage;

const HEADER: &str = "KEY: ? | METER: 4/4 | TEMPO: 90 | GRID: 16th | BARS: 1\nVOICES: A, B\n";

/// A colliding piece (C in both voices at once) and a clean one.
fn piece(colliding: bool) -> String {
    let b = if colliding { "C3" } else { "D3" };
    format!("{HEADER}@1 [-]\n  A: C4@1>8 E4@9>8\n  B: {b}@1>16\n")
}

fn verdict(passed: bool, collisions: u64, row: u64) -> Verdict {
    Verdict {
        passed,
        violations: [
            ("TT-COLLISION".to_owned(), collisions),
            ("TT-ROW".to_owned(), row),
        ]
        .into_iter()
        .collect(),
    }
}

struct R {
    task: &'static str,
    family: &'static str,
    condition: &'static str,
    run: u32,
    outcome: RunOutcome,
    relaxed: bool,
    collisions: u64,
    row: u64,
}

fn record(r: R) -> Record {
    let has_piece = matches!(r.outcome, RunOutcome::Released | RunOutcome::Refused);
    Record {
        key: Key {
            task: TaskId(r.task.into()),
            model: "m".into(),
            condition: ConditionId(r.condition.into()),
            run: r.run,
        },
        domain: cantus_twelve_tone::plugin::ID,
        measures: Default::default(),
        family: FamilyId(r.family.into()),
        experiment: "h".into(),
        seed: r.run.into(),
        outcome: r.outcome,
        reason: String::new(),
        piece: has_piece.then(|| piece(r.collisions > 0)),
        voices: 2,
        strict: has_piece.then(|| verdict(r.outcome == RunOutcome::Released, r.collisions, r.row)),
        relaxed: has_piece.then(|| verdict(r.relaxed, r.collisions, 0)),
        released_relaxed: r.relaxed,
        events_relying_on_tags: None,
        libretto_degeneracy_passed: has_piece.then_some(r.collisions == 0),
        counts: (r.condition == "harness").then(|| Counts {
            proposed: 10,
            accepted_as_proposed: 6,
            repaired: 3,
            repairs_by_rung: [("trim".to_owned(), 2), ("retime".to_owned(), 1)]
                .into_iter()
                .collect(),
            dropped: 1,
            replans: 0,
            rounds: 0,
            sections: 0,
        }),
        cost: Cost {
            calls: if r.condition == "harness" { 10 } else { 1 },
            tokens: Usage {
                tokens_in: Some(1000),
                tokens_out: Some(500),
                // Only the harness's server says what it answered from its prefix cache.
                tokens_cached: (r.condition == "harness").then_some(600),
            },
            seconds: 2.0,
        },
        trace: None,
        files: Vec::new(),
        control: None,
        choice: None,
    }
}

use RunOutcome::{Failed, NotApplicable, Refused, Released};

/// Four tasks in two families; raw and harness, one run each; one not-applicable
/// condition.
fn records() -> Vec<Record> {
    let r = |task, family, condition, outcome, relaxed, collisions, row| {
        record(R {
            task,
            family,
            condition,
            run: 0,
            outcome,
            relaxed,
            collisions,
            row,
        })
    };
    vec![
        // raw: one release, one tag-dependent refusal, one refusal, one failure.
        r("t1", "f1", "raw", Released, true, 0, 0),
        r("t2", "f1", "raw", Refused, true, 0, 2),
        r("t3", "f2", "raw", Refused, false, 1, 1),
        r("t4", "f2", "raw", Failed, false, 0, 0),
        // harness: three releases, one refusal on collisions.
        r("t1", "f1", "harness", Released, true, 0, 0),
        r("t2", "f1", "harness", Released, true, 0, 0),
        r("t3", "f2", "harness", Released, true, 0, 0),
        r("t4", "f2", "harness", Refused, false, 1, 0),
        r("t1", "f1", "soft-rules", NotApplicable, false, 0, 0),
    ]
}

fn summary(records: &[Record]) -> Summary {
    let prices: BTreeMap<String, Price> = [(
        "m".to_owned(),
        Price {
            input: Some(2.0),
            output: Some(4.0),
        },
    )]
    .into_iter()
    .collect();
    let references = [Reference {
        name: "ref".into(),
        pitch_classes: {
            let mut v = vec![0.0; 12];
            v[0] = 1.0 / 3.0;
            v[2] = 1.0 / 3.0;
            v[4] = 1.0 / 3.0;
            v
        },
        interval_classes: {
            let mut v = vec![0.0; 7];
            v[4] = 1.0;
            v
        },
        analysis_share: Some(0.9),
    }];
    summarize(
        records,
        &Options {
            bootstrap: Bootstrap {
                resamples: 500,
                seed: 1,
            },
            weights: &Weights::default(),
            perturbation: 0.5,
            perturbation_draws: 50,
            mmd_sigma: 0.25,
            references: &references,
            prices: &prices,
            models: &["m".to_owned()],
            conditions: &["raw", "harness", "soft-rules"].map(String::from),
        },
    )
}

fn cell<'a>(s: &'a Summary, condition: &str) -> &'a Cell {
    s.cells.iter().find(|c| c.condition == condition).unwrap()
}

#[test]
fn delivery_strict_and_relaxed_their_gap_and_tag_dependent_releases() {
    let s = summary(&records());
    let raw = cell(&s, "raw");
    assert_eq!(raw.runs, 4);
    assert_eq!(raw.delivery_strict.unwrap().estimate, 0.25);
    assert_eq!(raw.delivery_relaxed.unwrap().estimate, 0.5);
    assert_eq!(raw.gap, Some(0.25));
    assert_eq!(raw.tag_dependent_releases, 1);
    let harness = cell(&s, "harness");
    assert_eq!(harness.delivery_strict.unwrap().estimate, 0.75);
    assert_eq!(harness.tag_dependent_releases, 0);
}

#[test]
fn not_applicable_runs_are_counted_apart_and_never_in_a_rate() {
    let s = summary(&records());
    let na = cell(&s, "soft-rules");
    assert_eq!((na.runs, na.not_applicable), (0, 1));
    assert_eq!(na.delivery_strict, None);
}

#[test]
fn collision_only_pass_and_per_predicate_pass_rates() {
    let s = summary(&records());
    let raw = cell(&s, "raw");
    // Collision-free pieces: t1, t2 of four runs (the failure made no piece).
    assert_eq!(raw.collision_only_pass.unwrap().estimate, 0.5);
    // Of the three pieces: collision held in two, row in one.
    assert_eq!(raw.predicate_pass["TT-COLLISION"], 2.0 / 3.0);
    assert_eq!(raw.predicate_pass["TT-ROW"], 1.0 / 3.0);
}

#[test]
fn collision_rate_among_overlapping_pairs_is_pooled_over_pieces() {
    // Each piece has two overlapping pairs (A's two notes against B's one); the
    // colliding piece shares C in one of them.
    let s = summary(&records());
    assert_eq!(cell(&s, "raw").collision_rate, Some(1.0 / 6.0));
    assert_eq!(cell(&s, "harness").collision_rate, Some(1.0 / 8.0));
}

#[test]
fn process_acceptance_repairs_by_rung_and_drops() {
    let s = summary(&records());
    let h = cell(&s, "harness");
    assert_eq!(h.process_acceptance, Some(0.6));
    assert_eq!(h.repairs_by_rung["trim"], 2.0);
    assert_eq!(h.repairs_by_rung["retime"], 1.0);
    assert_eq!(h.drops_per_run, Some(1.0));
    assert_eq!(cell(&s, "raw").process_acceptance, None);
}

#[test]
fn cost_per_run_and_per_delivered_piece_with_prices() {
    let s = summary(&records());
    let h = &cell(&s, "harness").cost;
    assert_eq!(h.calls_per_run, 10.0);
    assert_eq!(h.calls_per_delivered, Some(40.0 / 3.0));
    assert_eq!(h.tokens_per_delivered, Some(6000.0 / 3.0));
    assert_eq!(h.tokens_cached_per_run, Some(600.0));
    assert_eq!(
        cell(&s, "raw").cost.tokens_cached_per_run,
        None,
        "no server said, so no figure (not zero)"
    );
    // 1000 in × 2 + 500 out × 4 per million = 0.004 per run.
    assert!((h.money_per_run.unwrap() - 0.004).abs() < 1e-12);
    assert!((h.money_per_delivered.unwrap() - 0.016 / 3.0).abs() < 1e-12);
}

#[test]
fn paired_differences_against_raw() {
    let s = summary(&records());
    let p = s.paired.iter().find(|p| p.condition == "harness").unwrap();
    // Per task: t1 0, t2 +1, t3 +1, t4 0 → mean +0.5.
    assert_eq!(p.pairs, 4);
    assert_eq!(p.delivery_difference.estimate, 0.5);
    // Families: f1 (0, +1), f2 (+1, 0): every resample has mean 0.5.
    assert_eq!(p.delivery_difference.low, 0.5);
    assert_eq!(p.delivery_difference.high, 0.5);
    assert!(s.paired.iter().all(|p| p.condition != "soft-rules"));
}

#[test]
fn degeneracy_libretto_and_corpus_distance_per_cell() {
    let s = summary(&records());
    let raw = cell(&s, "raw");
    assert_eq!(raw.libretto_degeneracy_pass, Some(2.0 / 3.0));
    assert!(raw.degeneracy.is_some());
    // The clean piece (C4 E4 over D3) has exactly the reference's pitch classes.
    let clean = [record(R {
        task: "t",
        family: "f",
        condition: "raw",
        run: 0,
        outcome: Released,
        relaxed: true,
        collisions: 0,
        row: 0,
    })];
    let clean = summary(&clean);
    let d = &cell(&clean, "raw").distance;
    assert!(d.kl_pitch_class.unwrap().estimate.abs() < 1e-9);
    assert_eq!(d.mmd_pitch_class.unwrap().estimate, 0.0);
    let colliding = cell(&s, "harness").distance.kl_pitch_class.unwrap();
    assert!(colliding.estimate > 0.0);
    assert!(s.sensitivity.is_some());
}

#[test]
fn analysis_share_is_the_share_of_notes_rows_explain_and_the_reference_sets_is_its_mean() {
    // Three notes are no row: nothing is explained.
    let s = summary(&records());
    assert_eq!(cell(&s, "raw").analysis_share.unwrap().estimate, 0.0);
    assert_eq!(s.reference_analysis_share, Some(0.9));
    // One whole statement of a row, and nothing else: every note is explained.
    let mut serial = record(R {
        task: "t",
        family: "f",
        condition: "raw",
        run: 0,
        outcome: Released,
        relaxed: true,
        collisions: 0,
        row: 0,
    });
    serial.piece = Some(
        "KEY: ? | METER: 4/4 | TEMPO: 90 | GRID: 16th | BARS: 3\nVOICES: A\n\
         @1 [-]\n  A: C5@1>4 B4@5>4 G4@9>4 G#4@13>4\n\
         @2 [-]\n  A: D#5@1>4 C#5@5>4 D5@9>4 A#4@13>4\n\
         @3 [-]\n  A: F#4@1>4 F4@5>4 E4@9>4 A4@13>4\n"
            .to_owned(),
    );
    let s = summary(std::slice::from_ref(&serial));
    assert_eq!(cell(&s, "raw").analysis_share.unwrap().estimate, 1.0);
    // The same notes as another domain's piece (a chorale, an exercise) are not
    // read as rows: no share, and the report has no serial section.
    let chorale = Record {
        domain: cantus_registry::DomainId::new("chorale"),
        ..serial
    };
    let s = summary(&[chorale]);
    assert_eq!(cell(&s, "raw").analysis_share, None);
}
