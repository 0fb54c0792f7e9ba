//! Gap filling, Libretto's cleanest task: given a piece and a range of bars,
//! propose the missing bars so they pass the gates against their context.
//!
//! Two proposers feed one judge ([`judge`]): the deterministic embedded one
//! ([`embedded`], recombining context material) and a language model
//! ([`model`], asked in the onset-slot grammar with the failing gates' feedback
//! on later candidates). Every candidate is judged like the original's gap task:
//! note-level copy risk of the new bars against the context below 0.30
//! (`LIB-COPY`), no more corpus extremes than the piece had without the fill, at
//! least 3 allowed (`LIB-DEGENERACY`), and closeness of the new bars'
//! fingerprint to the context's; the best candidate is kept (score =
//! 40·excess extremes + 300·excess copy + 0.5·distance, as the original's gap
//! loop weighs them).

pub(crate) mod constraint;
pub mod embedded;
pub mod judge;
pub mod model;
pub(crate) mod prompt;
pub(crate) mod reply;

use crate::gates::GateOutcome;
use cantus_framework::Usage;
use cantus_music::Score;

pub use embedded::fill;
pub use model::{ModelFillOptions, fill_with_model};

/// The most candidates one fill may try (embedded candidates or model calls): a
/// thousand is far past where a better candidate is still found, and bounds a run.
pub const MAX_CANDIDATES: usize = 1000;

/// What to fill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FillRequest {
    /// First bar of the gap (1-based, inclusive).
    pub first_bar: u32,
    /// Last bar of the gap (inclusive).
    pub last_bar: u32,
    /// Candidates to try (model calls, for a model backend): 1 to [`MAX_CANDIDATES`].
    pub candidates: usize,
    /// Seed of the embedded proposer (and the model's sampling seed).
    pub seed: u64,
}

/// What the model calls of a fill cost, summed over every call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelUsage {
    /// The backend's name (`openai:smollm2`, a cassette, a test double).
    pub backend: String,
    /// Calls made (answered or failed).
    pub calls: u32,
    /// Tokens, as far as the server counted them: a count it never gave stays
    /// unknown (the framework's [`Usage`], summed as the engine's traces sum it).
    pub tokens: Usage,
    /// Each answered call's stop reason as the server said it (`?` when it did not).
    pub stop_reasons: Vec<String>,
    /// Wall time of the calls as the backend measured it.
    pub latency_ms: u64,
}

/// Why a gap cannot be filled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FillError {
    /// The range is empty or outside the piece.
    #[error("bars {first}-{last}: {why}")]
    Range {
        /// First bar asked for.
        first: u32,
        /// Last bar asked for.
        last: u32,
        /// What is wrong.
        why: String,
    },
    /// The number of candidates is 0 or more than [`MAX_CANDIDATES`].
    #[error("--candidates {0}: give 1 to {MAX_CANDIDATES} candidates")]
    Candidates(usize),
    /// No bar outside the gap sounds, so there is nothing to draw on.
    #[error("no bar outside the gap has notes to draw material from")]
    NoContext,
    /// The context cannot be written in the onset-slot grammar, so a model
    /// cannot be shown it.
    #[error("the context cannot be written in the text grammar: {0}")]
    Unwritable(String),
    /// The backend cannot work at all (bad configuration): no call was useful.
    #[error("model backend: {0}")]
    Backend(String),
    /// Every candidate failed before it could be judged (unreadable replies,
    /// failed calls, silent gaps); each failure is kept.
    #[error("none of {} candidates could be judged; last: {}", failures.len(), failures.last().map_or("-", String::as_str))]
    NoCandidate {
        /// Why each candidate failed, in order.
        failures: Vec<String>,
        /// What the model calls cost (boxed: the error stays small).
        usage: Box<ModelUsage>,
    },
}

/// The kept candidate and how it fared.
#[derive(Clone, Debug)]
pub struct Filled {
    /// The piece with the gap filled.
    pub score: Score,
    /// Copy risk of the new bars against the context.
    pub copy_risk: f64,
    /// Axes of the filled piece at a corpus extreme.
    pub extremes: usize,
    /// Extremes allowed.
    pub budget: usize,
    /// Fingerprint distance between the new bars and the context.
    pub distance: f64,
    /// Whether the copy and degeneracy gates pass.
    pub passed: bool,
    /// The candidate's score (lower is better).
    pub score_value: f64,
    /// Candidates tried (judged or failed).
    pub tried: usize,
    /// Which proposer filled: `embedded`, or `model:<backend name>`.
    pub proposer: String,
    /// The kept candidate's gate outcomes (`LIB-COPY`, `LIB-DEGENERACY`), with
    /// their feedback when they fail.
    pub gates: Vec<GateOutcome>,
    /// Why each candidate that could not be judged failed (unreadable reply with
    /// the reader's diagnostic, failed call, silent gap).
    pub failures: Vec<String>,
    /// Model calls, tokens and stop reasons (`None` for the embedded proposer).
    pub usage: Option<ModelUsage>,
}
