//! The counterpoint domain as a registered unit (`cantus-registry`): what `cantus
//! compose|verify --domain counterpoint`, `render` and `plugins` find.
//!
//! * [`compose`] — an exercise against one of Fux's cantus firmi or a file's, with
//!   the embedded search or a model; the run folder's files.
//! * [`verify`] — any two-voice exercise file by the species gate.
//! * [`trials`] — Fux's exercises as an experiment's task set (`[tasks.fux]`).
//! * [`review`] — the renderer's verdict, interval figures (`figures`), and how a
//!   bare score is recognised as an exercise (two voices, one named as a cantus).
//! * [`teach`] — `cantus teach`'s species devices (passing tones, contrary
//!   motion, imperfect consonances), judged by the species gate and written on
//!   Fux's cantus firmi (`concepts.toml`).

pub mod compose;
mod figures;
pub mod review;
pub mod teach;
pub mod trials;
pub mod verify;

pub use figures::interval_figures;

use cantus_music::Score;
use cantus_registry::{DomainId, DomainPlugin, Unit};

/// The counterpoint domain's plugin.
pub struct CounterpointPlugin;

/// The domain's id.
pub const ID: DomainId = DomainId::new("counterpoint");

impl DomainPlugin for CounterpointPlugin {
    fn id(&self) -> DomainId {
        ID
    }

    fn build(&self, unit: &mut Unit) {
        unit.describe(
            "Fux species counterpoint, first and second species, two voices, against a cantus firmus",
            env!("CARGO_PKG_VERSION"),
        )
        .artefact::<Score>()
        .compose(compose::ComposeCounterpoint)
        .verify(verify::VerifyCounterpoint)
        .review(review::ReviewCounterpoint)
        .trials(trials::FuxExercises)
        .teach(teach::SpeciesLessons)
        .proposer(
            "embedded",
            "seeded search for Fux first- and second-species lines against a cantus firmus; no network",
        )
        .proposer(
            "llm",
            "asks the configured model backend for a species line (compose --domain counterpoint --config)",
        );
    }
}

cantus_registry::register!(CounterpointPlugin);
