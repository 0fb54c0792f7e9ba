//! `cantus-chorale`: four-part chorale harmonisation (soprano, alto, tenor, bass)
//! under the rules every harmony class teaches, checked against Bach — a third
//! rule domain, written against the framework's public traits only.
//!
//! A teacher checks a student's chorale with it (every violation located by bar,
//! beat, parts and rule id, under a strict or a lenient profile); a researcher
//! makes a proposer — the embedded search or a language model — harmonise a
//! melody under the same rules, and compares the result with Bach's.
//!
//! * `pitch`: the four parts and their ranges, spelled tones, intervals, keys.
//! * `chorale`: the chorale (or melody) in exact time, and where a violation is.
//! * [`read`]: any score to a chorale (parts, key, phrase ends from fermatas).
//! * `harmony`: chords, their Roman numerals, and which chord a beat holds.
//! * `analysis`: a chorale cut into beats and sonorities, growing beat by beat.
//! * [`rules`]: the catalogue (`CH-*` ids, strict and lenient profiles), each rule
//!   written once over a prefix and run by both the online verifier and the gate.
//! * `gate`: the release gate, and [`judge_score`] for any file.
//! * `domain`, [`predicates`], [`rungs`], [`proposer`]: the framework traits — a
//!   melody is the spec, a beat a section, the alto, tenor and bass of a beat an
//!   event; the proposers are a seeded search to each phrase's cadence and a
//!   language model held to the voicings that can still reach it;
//!   [`compose`](mod@compose): the whole run.
//! * [`plugin`]: the domain as one registered unit (`cantus compose|verify|render
//!   --domain chorale`).
//! * [`marks`]: the Roman numerals an engraving shows under the bass.
//! * [`experiment`]: the task set — Bach's melodies harmonised, measured against
//!   his harmonisations (agreement, copy risk, degeneracy).
#![forbid(unsafe_code)]

mod analysis;
mod chorale;
pub mod compose;
mod domain;
pub mod experiment;
mod gate;
mod harmony;
pub mod marks;
mod pitch;
pub mod plugin;
pub mod predicates;
pub mod proposer;
pub mod read;
pub mod rules;
pub mod rungs;

pub use analysis::{Analysis, At, Beat, Slice};
pub use chorale::{Chorale, Location, Note, beat_of};
pub use compose::{compose, engine};
pub use domain::{BeatPlan, ChState, ChoraleDomain, DOMAIN, Harmonisation, Voicing};
pub use gate::{HarmonisationGate, judge_chorale, judge_score, soft_scores};
pub use harmony::{Chord, Quality, Role};
pub use pitch::{Interval, Part, Tonality, Tone};
pub use proposer::{EmbeddedProposer, ModelProposer};
pub use read::{
    ChoraleError, KeySource, PhraseMark, PhraseSource, ReadOptions, Reading, read_chorale,
};
pub use rules::{Finding, Profile};
