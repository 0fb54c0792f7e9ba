//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

use cantus_framework::Outcome;
use cantus_music::Score;
use cantus_twelve_tone::EmbeddedProposer;
use cantus_twelve_tone::compose::{Composer, Composition, budget};
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
        .block_on(Composer::new(GateMode::Strict, budget()).compose(&spec, seed, &EmbeddedProposer))
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

/// The local model's base URL (`CANTUS_LOCAL_MODEL_URL`, as `scripts/local-model.sh
/// start` prints it), or `None` after printing `SKIPPED: {what} …`. With
/// `CANTUS_REQUIRE_MODEL=1` (CI) a missing URL fails the test instead.
pub fn local_model_url(what: &str) -> Option<String> {
    match std::env::var("CANTUS_LOCAL_MODEL_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("CANTUS_REQUIRE_MODEL").as_deref() != Ok("1"),
                "{what}: CANTUS_REQUIRE_MODEL=1 but CANTUS_LOCAL_MODEL_URL is not set \
                 (run scripts/local-model.sh start)"
            );
            eprintln!(
                "SKIPPED: {what} (no local model; run scripts/local-model.sh start and set \
                 CANTUS_LOCAL_MODEL_URL)"
            );
            None
        }
    }
}
