//! The twelve-tone domain as a registered unit (`cantus-registry`): what `cantus
//! compose`, `verify`, `render` and `plugins` find under `twelve-tone`, the
//! program's default domain.
//!
//! * [`compose`] — `cantus compose`: its flags, read into a [`job`] before any work;
//!   what the user reads of the run.
//! * [`job`] — a brief or spec, the harness with the embedded proposer or a model,
//!   `--revise` (Libretto's degeneracy gate against the serial reference), `--raw`
//!   (the one-reply baseline); the run folder's files.
//! * [`verify`] — `cantus verify`: the strict (or relaxed) serial gate against a
//!   spec, a row, or the row inferred from the music.
//! * [`review`] — the renderer's verdict and the row labels drawn above each
//!   statement (`labels`).
//! * [`tasks`], [`trials`] — `cantus experiment` and `cantus bank`: the task sets
//!   (a bank of briefs, the single-factor design) and one trial of a brief under
//!   each condition form, judged by both gates and the degeneracy gate; the
//!   conditions it ships (`conditions.toml`: its prompt-style baselines).
//! * [`mod@reference`] — what the report measures its pieces against: the serial
//!   analyser's share and the shipped Second-Viennese reference set.
//! * [`teach`] — `cantus teach`'s canons, combinatorial pairs and all-interval
//!   rows, judged by the strict gate and written from a brief (`concepts.toml`).

pub mod compose;
pub mod job;
mod labels;
pub mod reference;
pub mod review;
pub mod tasks;
pub mod teach;
pub mod trials;
pub mod verify;

pub use labels::row_labels;

use crate::baselines::PromptStyle;
use cantus_music::Score;
use cantus_registry::{DomainId, DomainPlugin, Forms, Unit};

/// The condition forms the domain's experiment trials run: sections, with or
/// without Libretto's revise loop, and one reply in each of its prompt styles.
pub fn forms() -> Forms {
    Forms {
        revise: true,
        whole: PromptStyle::STYLES.to_vec(),
    }
}

/// The twelve-tone domain's plugin.
pub struct TwelveTonePlugin;

/// The domain's id.
pub const ID: DomainId = DomainId::new("twelve-tone");

impl DomainPlugin for TwelveTonePlugin {
    fn id(&self) -> DomainId {
        ID
    }

    fn build(&self, unit: &mut Unit) {
        unit.describe(
            "serial (twelve-tone) composition: a piece from an English brief or a spec, judged by the strict serial gate",
            env!("CARGO_PKG_VERSION"),
        )
        .artefact::<Score>()
        .compose(compose::ComposeTwelveTone)
        .verify(verify::VerifyTwelveTone)
        .review(review::ReviewTwelveTone)
        .trials(trials::TwelveToneTrials)
        .teach(teach::SerialLessons)
        .proposer(
            "embedded",
            "seeded symbolic twelve-tone proposer: sections, patches, segment rewrites, whole pieces; no network",
        )
        .proposer(
            "llm",
            "asks the configured model backend in the onset-slot grammar; optional GBNF/JSON-schema constrained decoding from the row cursor (compose --config)",
        );
    }
}

cantus_registry::register!(default TwelveTonePlugin);
