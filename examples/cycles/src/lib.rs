//! A tiny non-musical Cantus domain: **cycles over a small alphabet**.
//!
//! The artefact is a string cut into cycles. Every cycle uses each symbol of the
//! alphabet exactly once, and no symbol may recur within `window` positions of its
//! last occurrence (across cycle boundaries too). Each proposed symbol carries the
//! position it claims to fill — the analogue of a twelve-tone event's row-position
//! tag — so a dropped symbol still advances the cursor and the rest stay in step.
//!
//! The crate uses only the public API of `cantus-framework`: it is the smallest
//! complete example of a rule domain (predicates, a repair ladder, a release gate, a
//! seeded proposer that makes mistakes), and its tests exercise every path of the
//! engine: repair, drop, replan, budget exhaustion, and the revise loop.
//!
//! Its [`plugin`] makes it a registered unit of the program (`cantus-registry`):
//! `cantus compose --domain cycles`, `verify`, `render` and `plugins` find it there,
//! and `cantus experiment` runs its [`trials`]; nothing outside this crate names it
//! but the program's one line linking it.
#![forbid(unsafe_code)]

mod domain;
mod gate;
pub mod plugin;
mod predicates;
mod proposer;
mod rungs;
pub mod trials;

pub use domain::{Cycle, CycleSpec, CycleState, Cycles, CyclesString, Slot, Symbol};
pub use gate::CycleGate;
pub use predicates::{InAlphabet, NoNeighbourStep, NoRepeatInCycle, NoRepeatInWindow, OnCursor};
pub use proposer::SloppyProposer;
pub use rungs::{Retag, Substitute};

use cantus_framework::{AskProposer, Budget, Engine, Ladder, PatchScope, RungId, Verifier};

/// The domain's predicates, in order.
pub fn verifier() -> Verifier<Cycles> {
    Verifier::new()
        .with(OnCursor)
        .with(InAlphabet)
        .with(NoRepeatInCycle)
        .with(NoRepeatInWindow)
        .with(NoNeighbourStep)
}

/// The domain's ladder: retag, substitute, ask for a patch, ask for a rewrite of the
/// rest of the cycle; then the engine drops.
pub fn ladder() -> Ladder<Cycles> {
    Ladder::new()
        .then(Retag)
        .then(Substitute)
        .then(AskProposer::new(
            RungId::new("model-patch"),
            PatchScope::Event,
        ))
        .then(AskProposer::new(
            RungId::new("rewrite-cycle"),
            PatchScope::Segment,
        ))
}

/// The domain's budget. Every drop leaves a hole the gate refuses, so it replans a
/// cycle after any drop (`drop_threshold` 0), twice at most.
pub fn budget() -> Budget {
    Budget {
        drop_threshold: 0.0,
        ..Budget::default()
    }
}

/// An engine for the cycles domain, with its [`budget`].
pub fn engine() -> Engine<Cycles> {
    Engine::new(Cycles, verifier(), ladder(), CycleGate).with_budget(budget())
}
