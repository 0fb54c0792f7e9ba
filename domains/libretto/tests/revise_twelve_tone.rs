//! The generate–measure–revise loop on the twelve-tone domain: a proposer whose
//! first whole piece is deliberately degenerate (every note stretched to four
//! times its length: long held notes, a sparse texture) is raised by Libretto's
//! degeneracy feedback to a piece that passes both the strict serial gate and
//! the degeneracy gate.
//!
//! The proposer composes with the harness (the embedded proposer under the
//! propose–verify–repair ladder) and stretches its notes until the feedback asks
//! for shorter notes or more onsets: the revise loop's text is what changes it.
//! The reference corpus is the style's own: released pieces of the embedded
//! proposer on other seeds. Against the original's pop-song table every serial
//! piece is extreme on its pitch-class axes by construction, which says nothing
//! about degeneracy.

use async_trait::async_trait;
use cantus_framework::{
    Entry, Outcome, Proposal, ProposalRequest, Proposer, ProposerError, RequestKind,
};
use cantus_libretto::axes::RawAxes;
use cantus_libretto::fingerprint::raw_axes;
use cantus_libretto::{Calibration, Degeneracy, Layout, LibrettoMeasure};
use cantus_music::{Score, Time};
use cantus_twelve_tone::compose::{budget, compose, engine};
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::spec::compile_brief;
use cantus_twelve_tone::{Blueprint, EmbeddedProposer, Tag, ToneEvent, TwelveTone};
use std::sync::Arc;

const BRIEF: &str = "A 16-bar quartet in 4/4 on Schoenberg's Op. 25 row";

/// Whether revise feedback asks for shorter notes or more onsets.
fn asks_for_motion(feedback: &[String]) -> bool {
    feedback.iter().any(|l| {
        (l.starts_with("average note length") && l.contains("lower it"))
            || (l.starts_with("note density") && l.contains("raise it"))
    })
}

/// Composes with the harness; holds every note four times as long until told not to.
struct HeldUntilTold;

#[async_trait]
impl Proposer<TwelveTone> for HeldUntilTold {
    fn name(&self) -> &str {
        "held-until-told"
    }

    async fn propose(
        &self,
        request: ProposalRequest<'_, TwelveTone>,
    ) -> Result<Proposal<ToneEvent>, ProposerError> {
        if !matches!(request.kind, RequestKind::Whole) {
            return EmbeddedProposer.propose(request).await;
        }
        let stretch = if asks_for_motion(request.feedback) {
            1
        } else {
            4
        };
        let plan = Arc::new(request.spec.clone());
        let run_seed = request.seed + u64::from(request.attempt);
        let outcome = engine(plan.clone(), GateMode::Strict)
            .run(&plan, &EmbeddedProposer, run_seed)
            .await;
        let Outcome::Released { artefact, .. } = outcome else {
            return Err(ProposerError::BadOutput(
                "the harness did not release a piece".into(),
            ));
        };
        let mut events = Vec::new();
        for (voice, v) in artefact.voices.iter().enumerate() {
            for e in &v.events {
                let tag: Tag = e
                    .tag
                    .as_deref()
                    .and_then(|t| t.parse().ok())
                    .ok_or_else(|| {
                        ProposerError::BadOutput("a released event without a row tag".into())
                    })?;
                events.push(ToneEvent {
                    voice,
                    onset: e.onset * Time::from_integer(stretch),
                    duration: e.duration * Time::from_integer(stretch),
                    pitches: e.pitches.iter().map(|p| p.midi).collect(),
                    tag,
                });
            }
        }
        Ok(Proposal::new(events))
    }
}

/// Raw axes of released embedded pieces of the same brief on other seeds.
fn reference_pieces(rt: &tokio::runtime::Runtime) -> Vec<RawAxes> {
    let spec = compile_brief(BRIEF).unwrap().spec;
    let mut pieces = Vec::new();
    for seed in 100..140 {
        let c = rt
            .block_on(compose(
                &spec,
                seed,
                GateMode::Strict,
                &EmbeddedProposer,
                budget(),
                None,
            ))
            .unwrap();
        if let Outcome::Released { artefact, .. } = &c.outcome {
            pieces.push(raw_axes(&Layout::from_score(artefact).unwrap()).unwrap());
        }
    }
    assert!(
        pieces.len() >= 30,
        "enough reference pieces: {}",
        pieces.len()
    );
    pieces
}

#[test]
fn revise_raises_a_degenerate_piece_past_both_gates() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let pieces = reference_pieces(&rt);
    let table = Calibration::from_pieces("embedded twelve-tone quartets", &pieces);
    let degeneracy = Degeneracy::calibrated(&table, &pieces);
    let spec = compile_brief(BRIEF).unwrap().spec;
    let seed = 7;
    let plan = Arc::new(Blueprint::new(&spec, seed).unwrap());
    let measure = LibrettoMeasure::new(|s: &Score| s.clone(), table).with_degeneracy(degeneracy);
    let outcome = rt.block_on(engine(plan.clone(), GateMode::Strict).revise(
        &plan,
        &HeldUntilTold,
        &measure,
        seed,
        4,
    ));
    let rounds: Vec<_> = outcome
        .trace()
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Round(r) => Some(r.clone()),
            _ => None,
        })
        .collect();
    // Round 1 is the held piece: the degeneracy gate fails it and says why.
    let first = &rounds[0];
    assert!(first.score > 0.0 && !first.converged, "{first:#?}");
    assert!(asks_for_motion(&first.feedback), "{:#?}", first.feedback);
    // Round 2 follows the feedback and converges.
    assert_eq!(rounds.len(), 2, "{rounds:#?}");
    assert!(rounds[1].converged && rounds[1].gate_passed && rounds[1].best);
    let Outcome::Released { artefact, .. } = &outcome else {
        panic!("the loop releases a piece: {rounds:#?}");
    };
    // Released means the strict serial gate passed; the degeneracy gate passes too.
    let report = measure.report(artefact);
    assert!(report.gates.iter().all(|g| g.passed), "{:?}", report.gates);
    // The feedback the degenerate round produced (Libretto's lines), reviewed.
    let libretto: Vec<&String> = first
        .feedback
        .iter()
        .filter(|l| !l.starts_with("fix [") && !l.starts_with("… and"))
        .collect();
    insta::assert_json_snapshot!("degenerate_round_feedback", libretto);
}
