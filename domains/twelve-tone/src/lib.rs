//! `cantus-twelve-tone`: the twelve-tone reference domain of Cantus.
//!
//! * [`analysis`]: the serial analyser for music people wrote (`cantus analyze`).
//! * [`row`]: the row engine — 48 forms, matrix, labelling conventions, row theory, historical rows.
//! * [`spec`]: what to write — a spec from TOML or compiled from an English brief.
//! * [`blueprint`]: the spec cut into sections with every voice's row form (the schedule).
//! * [`event`], [`state`], `domain`: the domain's events, online state and `Domain` impl.
//! * [`piece`]: between events and the shared score model.
//! * [`predicates`], [`rungs`]: the online hard rules and the six-rung repair ladder.
//! * [`gate`]: the release gate, strict (labels from pitches) or relaxed (trusts tags).
//! * [`proposer`]: the embedded, seeded, network-free proposer.
//! * [`raw`], [`baselines`]: the whole piece in one reply — raw, soft rules, Self-Refine,
//!   an extra instruction, grammar-constrained — judged by the same gate.
//! * [`compose`]: spec → blueprint → engine → outcome, the main job; [`report`]: what it leaves to read.
//! * [`plugin`]: the domain as the program's registered unit (`cantus-registry`): the
//!   default domain of `cantus compose`, `verify`, `render` and `plugins`.
//! * `synth` (cargo feature `synth`): synthetic valid pieces and mutations, for tests and
//!   benchmarks.
#![forbid(unsafe_code)]

pub mod analysis;
pub mod baselines;
pub mod blueprint;
pub mod compose;
mod domain;
pub mod event;
pub mod gate;
pub mod piece;
pub mod plugin;
pub mod predicates;
pub mod proposer;
pub mod raw;
pub mod report;
pub mod row;
pub mod rungs;
pub mod spec;
pub mod state;
#[cfg(feature = "synth")]
pub mod synth;

pub use blueprint::{Blueprint, BlueprintError, SectionPlan};
pub use domain::{Amendment, TwelveTone};
pub use event::{Location, Tag, ToneEvent};
pub use proposer::EmbeddedProposer;
pub use state::ToneState;
