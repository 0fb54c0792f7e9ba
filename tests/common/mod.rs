//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

use cantus_framework::Outcome;
use cantus_music::Score;
use cantus_twelve_tone::EmbeddedProposer;
use cantus_twelve_tone::compose::{Composition, budget, compose};
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::spec::compile_brief;

/// Composes `brief` with the embedded proposer under the strict gate, as
/// `cantus compose --brief … --seed …` does.
pub fn compose_brief(brief: &str, seed: u64) -> Composition {
    let spec = compile_brief(brief)
        .unwrap_or_else(|e| panic!("{brief:?}: {e}"))
        .spec;
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
        .block_on(compose(
            &spec,
            seed,
            GateMode::Strict,
            &EmbeddedProposer,
            budget(),
            None,
        ))
        .unwrap_or_else(|e| panic!("{brief:?} cannot be planned: {e}"))
}

/// The released piece of `brief` at `seed`; panics if it is not released.
pub fn released(brief: &str, seed: u64) -> Score {
    match compose_brief(brief, seed).outcome {
        Outcome::Released { artefact, .. } => artefact,
        Outcome::Failure { diagnostics, .. } => {
            panic!("{brief:?} seed {seed} was not released: {}", diagnostics[0])
        }
    }
}
