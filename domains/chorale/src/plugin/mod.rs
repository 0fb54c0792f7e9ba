//! The chorale domain as a registered unit (`cantus-registry`): what `cantus
//! compose|verify --domain chorale`, `experiment`, `render` and `plugins` find.
//!
//! * [`compose`] — harmonise a melody (any score Cantus reads; its soprano) with the
//!   embedded search or a model; the run folder's files.
//! * [`verify`] — any four-part chorale by the strict or the lenient profile.
//! * [`review`] — the renderer's verdict, the Roman numerals under the bass, and
//!   how a bare score is recognised as a chorale (four voices named soprano, alto,
//!   tenor and bass).
//! * [`trials`] — `cantus experiment` with `[tasks] domain = "chorale"`: the soprano
//!   lines of a directory of chorales, harmonised by the embedded search or a model.

pub mod compose;
pub mod review;
pub mod trials;
pub mod verify;

use cantus_music::Score;
use cantus_registry::{DomainId, DomainPlugin, Unit};

/// The chorale domain's plugin.
pub struct ChoralePlugin;

/// The domain's id.
pub const ID: DomainId = DomainId::new("chorale");

impl DomainPlugin for ChoralePlugin {
    fn id(&self) -> DomainId {
        ID
    }

    fn build(&self, unit: &mut Unit) {
        unit.describe(
            "four-part chorale harmonisation (SATB) under the textbook rules, checked against Bach",
            env!("CARGO_PKG_VERSION"),
        )
        .artefact::<Score>()
        .compose(compose::ComposeChorale)
        .verify(verify::VerifyChorale)
        .review(review::ReviewChorale)
        .trials(trials::ChoraleTrials)
        .proposer(
            "embedded",
            "seeded search over the voicings the rules admit, phrase by phrase to each cadence; no network",
        )
        .proposer(
            "llm",
            "asks the configured model backend for each beat's alto, tenor and bass under a grammar of the voicings that can still reach the cadence (compose --domain chorale --config)",
        );
    }
}

cantus_registry::register!(ChoralePlugin);
