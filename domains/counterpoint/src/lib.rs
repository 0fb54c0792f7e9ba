//! `cantus-counterpoint`: Fux species counterpoint (first and second species, two
//! voices, cantus below or above) — a second rule domain, written against the
//! framework's public traits only.
//!
//! It exists to prove that Cantus is a framework: a new rule system is one crate
//! that implements [`Domain`](cantus_framework::Domain), some
//! [`Predicate`](cantus_framework::Predicate)s, a
//! [`RepairRung`](cantus_framework::RepairRung), a
//! [`ReleaseGate`](cantus_framework::ReleaseGate) and a
//! [`Proposer`](cantus_framework::Proposer), and nothing in the framework changes.
//!
//! * `pitch`: spelled notes, interval quality, the modal collection and ficta.
//! * `cantus`: Fux's cantus firmi (shipped) and canti from files.
//! * `exercise`: the exercise as moments (one per counterpoint note); to a score.
//! * [`read`]: any score to an exercise (cantus voice, species, position inferred).
//! * [`rules`]: the rule catalogue (ids of the shared rules document), shared by
//!   the online verifier and the gate.
//! * `domain`, [`predicates`], [`rungs`], `gate`, [`proposer`]: the framework
//!   traits (the proposers: an embedded seeded search, and a model proposer over any
//!   [`ModelBackend`](cantus_framework::ModelBackend)); [`compose`](mod@compose): the
//!   whole run.
//! * [`plugin`]: the domain as a registered unit (`cantus-registry`): what `cantus
//!   compose|verify --domain counterpoint`, `render` and `plugins` find.
#![forbid(unsafe_code)]

mod cantus;
pub mod compose;
mod domain;
mod exercise;
mod gate;
mod pitch;
pub mod plugin;
pub mod predicates;
pub mod proposer;
pub mod read;
pub mod report;
pub mod rules;
pub mod rungs;

pub use cantus::{Cantus, CantusError};
pub use compose::{compose, compose_with, engine};
pub use domain::Assignment;
pub use domain::{Counterpoint, CpEvent, CpState};
pub use exercise::{Beat, Exercise, Location, Moment, Position, Species};
pub use gate::{ExerciseGate, SpeciesGate, judge_score};
pub use pitch::{Interval, Modality, ModeName, Note};
pub use proposer::{EmbeddedProposer, ModelProposer};
pub use read::{ExerciseError, ReadOptions, Reading, SpellingSource, read_exercise};
