//! The embedded proposer inside the real engine: the domain's predicates and repair
//! ladder settle its section answers, asking it for patches and segment rewrites;
//! every section ends with every voice's statement complete, and the strict release
//! gate releases the result.

use cantus_framework::{Engine, Entry, Outcome, SectionOutcome};
use cantus_music::Score;
use cantus_twelve_tone::compose;
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::piece::tagged_events;
use cantus_twelve_tone::spec::Spec;
use cantus_twelve_tone::{Blueprint, EmbeddedProposer, TwelveTone};

/// The engine `cantus compose` runs: the domain's predicates, ladder, budget and
/// strict release gate (one engine for any plan).
fn engine() -> Engine<TwelveTone> {
    compose::engine(GateMode::Strict)
}

/// Every voice of `artefact` sounds all twelve positions of every planned statement.
fn assert_statements_complete(artefact: &Score, plan: &Blueprint, voices: usize, context: &str) {
    let events = tagged_events(artefact);
    for v in 0..voices {
        let positions: u32 = events
            .iter()
            .filter(|(e, _)| e.voice == v)
            .map(|(e, _)| u32::from(e.tag.len))
            .sum();
        assert_eq!(
            positions,
            12 * plan.sections.len() as u32,
            "{context}: voice {v} left a statement short"
        );
    }
}

#[tokio::test]
async fn the_ladder_settles_embedded_sections_with_every_statement_complete() {
    let mut asked = 0;
    let mut repaired = 0;
    for voices in [3, 4] {
        let spec = Spec::with_voice_count(voices);
        for seed in 0..5 {
            let plan = Blueprint::new(&spec, seed).expect("plans");
            let outcome = engine().run(&plan, &EmbeddedProposer::new(), seed).await;
            let trace = outcome.trace();
            let totals = &trace.totals;
            eprintln!(
                "{voices} voices, seed {seed}: proposed {} accepted {} repaired {} dropped {} replans {} by rung {:?}",
                totals.events_proposed,
                totals.accepted,
                totals.repaired,
                totals.dropped,
                totals.replans,
                totals.repairs_by_rung
            );
            for entry in &trace.entries {
                if let Entry::Section(record) = entry
                    && record.outcome == SectionOutcome::Kept
                {
                    assert_eq!(
                        record.dropped, 0,
                        "{voices} voices, seed {seed}: section {} kept with drops",
                        record.section
                    );
                }
            }
            asked += ["model-patch", "rewrite-segment"]
                .iter()
                .filter_map(|r| totals.repairs_by_rung.get(*r))
                .sum::<u64>();
            repaired += totals.repaired;
            let Outcome::Released { artefact, .. } = outcome else {
                panic!("the strict gate refused");
            };
            assert_statements_complete(
                &artefact,
                &plan,
                voices,
                &format!("{voices} voices, seed {seed}"),
            );
        }
    }
    assert!(
        repaired > 20,
        "the voices hardly clashed: {repaired} repairs"
    );
    assert!(
        asked > 0,
        "no patch or rewrite from the proposer was ever kept"
    );
}

#[tokio::test]
async fn a_run_is_reproducible_from_its_seed() {
    let plan = Blueprint::new(&Spec::with_voice_count(3), 9).expect("plans");
    let score = |o: Outcome<TwelveTone>| match o {
        Outcome::Released { artefact, .. } => artefact,
        Outcome::Failure { .. } => panic!("the strict gate refused"),
    };
    let a = score(engine().run(&plan, &EmbeddedProposer::new(), 9).await);
    let b = score(engine().run(&plan, &EmbeddedProposer::new(), 9).await);
    let c = score(engine().run(&plan, &EmbeddedProposer::new(), 10).await);
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[tokio::test]
async fn a_canon_trio_completes_every_statement() {
    let brief = cantus_twelve_tone::spec::compile_brief(
        "a 16-bar trio in 3/4 on Webern's Op. 21 row with a canon between the outer voices",
    )
    .expect("the brief compiles");
    for seed in 0..4 {
        let plan = Blueprint::new(&brief.spec, seed).expect("plans");
        let outcome = engine().run(&plan, &EmbeddedProposer::new(), seed).await;
        let totals = &outcome.trace().totals;
        eprintln!(
            "canon trio seed {seed}: proposed {} repaired {} dropped {} replans {} by rung {:?}",
            totals.events_proposed,
            totals.repaired,
            totals.dropped,
            totals.replans,
            totals.repairs_by_rung
        );
        let Outcome::Released { artefact, .. } = outcome else {
            panic!("the strict gate refused");
        };
        assert_statements_complete(&artefact, &plan, 3, &format!("seed {seed}"));
    }
}
