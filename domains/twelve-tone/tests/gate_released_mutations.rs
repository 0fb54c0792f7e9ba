//! Mutations of pieces the engine actually released: a collision, a premature
//! repetition, a wrong row form and a note out of register, each inserted into a
//! released piece, are caught by the strict gate (with the right predicate id at the
//! right bar, voice and onset) and by the independent checker.
//!
//! A swap of two pitch classes is reported where the order first becomes impossible:
//! at the swapped note, or a little later when another form of the row happens to
//! share the changed opening (both the gate and the checker agree on that point).

mod independent;

use cantus_framework::Outcome;
use cantus_music::Score;
use cantus_twelve_tone::EmbeddedProposer;
use cantus_twelve_tone::compose::{Composer, Composition, budget};
use cantus_twelve_tone::gate::{GateMode, SerialGate, report_text};
use cantus_twelve_tone::spec::compile_brief;
use cantus_twelve_tone::synth::{Mutation, MutationKind, mutate};

const BRIEFS: [&str; 3] = [
    "Write a 16-bar piece for three voices in 3/4 at 72 bpm on Webern's Op. 21 row, with a canon between the outer voices",
    "A 16-bar quartet in 4/4 on Schoenberg's Op. 25 row",
    "A 12-bar duet in 6/8 on an all-interval row",
];

fn released(brief: &str, seed: u64) -> (Composition, Score) {
    let spec = compile_brief(brief).unwrap().spec;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let c = runtime
        .block_on(Composer::new(GateMode::Strict, budget()).compose(&spec, seed, &EmbeddedProposer))
        .unwrap();
    let Outcome::Released { artefact, .. } = &c.outcome else {
        panic!("{brief:?} seed {seed} is released");
    };
    let score = artefact.clone();
    (c, score)
}

/// Whether a finding at `onset` in the mutated voice is where `m` must be reported.
fn at(m: &Mutation, rule: &str, onset: cantus_music::Time, bar_length: cantus_music::Time) -> bool {
    if rule == "TT-ROW" {
        onset >= m.onset && onset < m.onset + bar_length * cantus_music::Time::from_integer(2)
    } else {
        onset == m.onset
    }
}

fn bar_of(score: &Score, m: &Mutation) -> u32 {
    u32::try_from((m.onset / score.bar_length()).floor().to_integer() + 1).unwrap()
}

#[test]
fn mutations_of_released_pieces_are_caught_by_the_gate_and_the_checker() {
    let kinds = [
        (MutationKind::Collision, "TT-COLLISION"),
        (MutationKind::SustainedCollision, "TT-COLLISION"),
        (MutationKind::PrematureRepetition, "TT-REPEAT"),
        (MutationKind::SwapPitchClasses, "TT-ROW"),
        (MutationKind::TransposeStatement, "TT-SCHEDULE"),
        (MutationKind::OutOfRegister, "TT-REGISTER"),
    ];
    let mut caught = 0;
    for brief in BRIEFS {
        for seed in 0..2 {
            let (composition, score) = released(brief, seed);
            let plan = composition.plan.clone();
            let registers: Vec<(u8, u8)> =
                plan.limits.voices.iter().map(|v| (v.low, v.high)).collect();
            let gate = SerialGate::for_plan(&plan, GateMode::Strict);
            assert!(gate.judge_score(&score).passed);
            assert!(independent::collisions(&score).is_empty());
            assert!(independent::serial(&score, plan.row.pcs()).is_empty());
            assert!(independent::registers(&score, &registers).is_empty());
            for (kind, rule) in kinds {
                for mseed in 0..3 {
                    let Some(m) = mutate(&score, kind, &registers, mseed) else {
                        continue;
                    };
                    let report = gate.judge_score(&m.score);
                    let voice = &m.score.voices[m.voice].name;
                    let bar = bar_of(&m.score, &m);
                    let expected = if kind == MutationKind::TransposeStatement {
                        "TT-SCHEDULE"
                    } else {
                        m.rule.id()
                    };
                    assert_eq!(expected, rule, "{kind:?}");
                    let at_place = report.violations.iter().any(|v| {
                        v.predicate == rule
                            && v.location.voice == *voice
                            && (rule == "TT-SCHEDULE"
                                || (at(&m, rule, v.location.onset, score.bar_length())
                                    && (rule == "TT-ROW" || v.location.bar == bar)))
                    });
                    assert!(
                        at_place,
                        "{brief:?} seed {seed}, {kind:?} ({}): expected {rule} at bar {bar}, {voice}, onset {}:\n{}",
                        m.note,
                        m.onset,
                        report_text(&report)
                    );
                    let found = match rule {
                        "TT-COLLISION" => independent::collisions(&m.score),
                        "TT-REGISTER" => independent::registers(&m.score, &registers),
                        // Without the plan a transposed statement is still a form; the
                        // checker judges serial order only.
                        "TT-SCHEDULE" => continue,
                        _ => independent::serial(&m.score, plan.row.pcs()),
                    };
                    assert!(
                        found.iter().any(|f| f.rule == rule
                            && f.voice == *voice
                            && at(&m, rule, f.onset, score.bar_length())),
                        "{brief:?} seed {seed}, {kind:?}: the checker missed {rule} at {voice}, {}: {found:?}",
                        m.onset
                    );
                    caught += 1;
                }
            }
        }
    }
    assert!(caught >= 60, "only {caught} mutations placed");
}
