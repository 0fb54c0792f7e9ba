//! The engine's paths through the chorale domain: each rung repairs a voicing that
//! breaks a rule, a proposer that slips is repaired and the chorale released, a
//! proposer that never writes a good voicing ends in an explicit failure with the
//! partial chorale kept, and the manifest depends on the framework, the score
//! model and the registry only.

use cantus_chorale::rungs::{ExchangeVoices, Respace, Revoice};
use cantus_chorale::{
    ChState, ChoraleDomain, EmbeddedProposer, Harmonisation, PhraseMark, Profile, ReadOptions,
    Voicing, compose, read_chorale,
};
use cantus_framework::{
    CheckContext, Domain, Outcome, Proposal, ProposalRequest, Proposer, ProposerError, RepairRung,
    RungAction, async_trait,
};
use std::path::PathBuf;

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
        .block_on(f)
}

fn melody() -> Harmonisation {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules/pass.txt");
    let loaded = cantus_music::format::read_path(&path, false).expect("reads");
    let options = ReadOptions {
        phrase_ends: Some(vec!["1:4".parse::<PhraseMark>().expect("mark")]),
        ..ReadOptions::default()
    };
    Harmonisation::of(
        "pass",
        &read_chorale(&loaded.score, &options)
            .expect("chorale")
            .chorale,
    )
}

/// The embedded proposer's voicings, with one beat's changed by `slip`.
struct Slipping<F: Fn(Voicing) -> Voicing + Send + Sync> {
    beat: usize,
    slip: F,
}

#[async_trait]
impl<F: Fn(Voicing) -> Voicing + Send + Sync> Proposer<ChoraleDomain> for Slipping<F> {
    fn name(&self) -> &str {
        "slipping"
    }
    async fn propose(
        &self,
        req: ProposalRequest<'_, ChoraleDomain>,
    ) -> Result<Proposal<Voicing>, ProposerError> {
        let patch = matches!(req.kind, cantus_framework::RequestKind::Patch { .. });
        let mut p = EmbeddedProposer::default().propose(req).await?;
        for v in &mut p.events {
            if v.beat == self.beat && !patch {
                *v = (self.slip)(*v);
            }
        }
        Ok(p)
    }
}

/// The state after the first `n` beats of the embedded harmonisation, and that
/// harmonisation.
fn state_after(spec: &Harmonisation, n: usize) -> (ChState, Vec<Voicing>) {
    let line = EmbeddedProposer::default().harmonise(spec, 1);
    let mut state = ChoraleDomain.initial_state(spec);
    let plan = ChoraleDomain.plan(spec).expect("plan");
    for v in &line[..n] {
        ChoraleDomain.accept(&mut state, &plan[v.beat], v);
    }
    (state, line)
}

/// Swapping the alto's and tenor's notes crosses them; every rung answers with a
/// voicing that keeps the hard rules (or says why it cannot).
#[test]
fn each_rung_repairs_crossed_inner_parts() {
    let spec = melody();
    let plan = ChoraleDomain.plan(&spec).expect("plan");
    let (state, line) = state_after(&spec, 2);
    let good = line[2];
    let crossed = Voicing {
        alto: good.tenor,
        tenor: good.alto,
        ..good
    };
    let verifier = cantus_chorale::predicates::verifier(Profile::Strict);
    let ctx = || CheckContext {
        domain: &ChoraleDomain,
        spec: &spec,
        state: &state,
        section: &plan[2],
        section_index: 2,
    };
    let verdict = verifier.verify(ctx(), &crossed);
    assert!(
        verdict
            .violations
            .iter()
            .any(|v| v.predicate.as_str() == "CH-crossing"),
        "{:#?}",
        verdict.violations
    );
    let rungs: [&dyn RepairRung<ChoraleDomain>; 3] = [
        &Respace(Profile::Strict),
        &ExchangeVoices(Profile::Strict),
        &Revoice(Profile::Strict),
    ];
    let mut repaired = 0;
    for rung in rungs {
        match rung.repair(ctx(), &crossed, &verdict.violations) {
            RungAction::Candidate { event, .. } => {
                let again = verifier.verify(ctx(), &event);
                assert_eq!(
                    again.hard_count(),
                    0,
                    "{}: {:#?}",
                    rung.id(),
                    again.violations
                );
                assert_eq!(event.beat, crossed.beat, "{}: the same beat", rung.id());
                repaired += 1;
            }
            RungAction::GiveUp { reason } => {
                eprintln!("{} gave up: {reason}", rung.id());
                assert!(!reason.is_empty());
            }
            RungAction::AskProposer(_) => panic!("{} asks no proposer", rung.id()),
        }
    }
    assert_eq!(repaired, 3, "every rung undoes a crossing");
}

#[test]
fn a_slip_is_repaired_by_the_ladder_and_the_chorale_released() {
    let spec = melody();
    // The alto an octave down at beat 3: wide spacing and a crossing.
    let slipping = Slipping {
        beat: 2,
        slip: |v: Voicing| Voicing {
            alto: cantus_chorale::Tone {
                midi: v.alto.midi - 12,
                ..v.alto
            },
            ..v
        },
    };
    let outcome = block_on(compose(&spec, Profile::Strict, 1, &slipping));
    let trace = outcome.trace();
    assert!(outcome.is_released(), "{:#?}", trace.gate);
    let repairs: u64 = trace.totals.repairs_by_rung.values().sum();
    assert_eq!(repairs, 1, "{:?}", trace.totals.repairs_by_rung);
    assert!(
        ["re-space", "exchange-voices", "revoice"]
            .iter()
            .any(|r| trace.totals.repairs_by_rung.contains_key(*r)),
        "{:?}",
        trace.totals.repairs_by_rung
    );
}

/// Always a bass above the soprano: nothing repairs it for long, the patches are
/// as bad, and the run ends in an explicit failure with the chorale so far kept.
struct Upside;

#[async_trait]
impl Proposer<ChoraleDomain> for Upside {
    fn name(&self) -> &str {
        "upside-down"
    }
    async fn propose(
        &self,
        req: ProposalRequest<'_, ChoraleDomain>,
    ) -> Result<Proposal<Voicing>, ProposerError> {
        let beat = req.state.analysis.beats.len();
        let key = req.spec.melody.key;
        Ok(Proposal::new(vec![Voicing {
            beat,
            alto: key.tone(40),
            tenor: key.tone(84),
            bass: key.tone(90),
        }]))
    }
}

#[test]
fn a_proposer_that_never_keeps_the_rules_ends_in_an_explicit_failure() {
    let spec = melody();
    let engine = cantus_chorale::engine(Profile::Strict).with_budget(cantus_framework::Budget {
        attempts_per_event: 1,
        replans_per_section: 1,
        ..cantus_chorale::compose::budget()
    });
    let outcome = block_on(engine.run(&spec, &Upside, 1));
    let Outcome::Failure {
        diagnostics,
        artefact,
        ..
    } = &outcome
    else {
        panic!("a failure")
    };
    assert!(!diagnostics.is_empty());
    let text = diagnostics
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(text.contains("owes beat"), "{text}");
    assert!(artefact.is_some(), "the partial chorale is kept");
}

#[test]
fn the_manifest_depends_on_the_framework_the_score_model_and_the_registry_only() {
    let manifest =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .expect("Cargo.toml");
    let deps = manifest
        .split("[dependencies]")
        .nth(1)
        .and_then(|d| d.split("\n[").next())
        .expect("a [dependencies] table");
    let cantus: Vec<&str> = deps
        .lines()
        .filter_map(|l| l.split('.').next())
        .filter(|name| name.starts_with("cantus"))
        .collect();
    // The public traits, the score model, and the registry the domain registers
    // with: what an outside author's crate may use.
    assert_eq!(
        cantus,
        ["cantus-framework", "cantus-music", "cantus-registry"]
    );
}
