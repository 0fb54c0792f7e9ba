//! The job end to end: a melody → engine (verifier, ladder, gate) → run with a
//! proposer → a released harmonisation or an explicit failure.

use crate::domain::{ChoraleDomain, Harmonisation};
use crate::gate::HarmonisationGate;
use crate::rules::Profile;
use crate::{predicates, rungs};
use cantus_framework::{Budget, Engine, Outcome, Proposer};

/// The budget: two ladder passes per voicing, three replans per beat. Drops alone
/// never replan a beat: a dropped voicing leaves its beat owed, the engine's
/// continue request asks for it, and only a beat still unwritten after that is
/// replanned.
pub fn budget() -> Budget {
    Budget {
        attempts_per_event: 2,
        replans_per_section: 3,
        drop_threshold: 1.0,
        deadline: None,
        max_proposer_calls: None,
        reopen_drops: false,
        backtracks: BACKTRACKS,
    }
}

/// Steps back a run may take ([`Budget::backtracks`]). Measured with the null model
/// on the first shared chorales: a dead end a beat deep is left after one step (BWV
/// 153.1, refused before, released); the two deeper ones (BWV 347 and 281, at a phrase
/// cadence) were still refused after 32 steps, at 337–637 s a chorale instead of about
/// a minute. So few steps: they rescue what is near, and a deep dead end fails soon.
pub const BACKTRACKS: u32 = 8;

/// The engine for harmonisations judged by `profile` (online and at the gate):
/// reused for any melody (each run's melody reaches the predicates and the gate as
/// the run's spec).
pub fn engine(profile: Profile) -> Engine<ChoraleDomain> {
    Engine::new(
        ChoraleDomain,
        predicates::verifier(profile),
        rungs::ladder(profile),
        HarmonisationGate(profile),
    )
    .with_budget(budget())
}

/// Harmonises `spec` with `proposer` and `seed` under `profile`.
pub async fn compose(
    spec: &Harmonisation,
    profile: Profile,
    seed: u64,
    proposer: &dyn Proposer<ChoraleDomain>,
) -> Outcome<ChoraleDomain> {
    engine(profile).run(spec, proposer, seed).await
}
