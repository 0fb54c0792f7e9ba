//! Experiments: the harness paper's evaluation as one command. An experiment file
//! names a task set, models, conditions and runs per cell; [`run::run`] composes every
//! (task, model, condition, run) into one record of `results.jsonl` (resumable), and
//! [`report::report`] turns the records alone into the report: delivery under the
//! strict and the relaxed gate with family-clustered bootstrap intervals, per-predicate
//! pass rates, collisions, the loop's counts, a degeneracy score with a sensitivity
//! analysis beside Libretto's gate, corpus distance and the share of notes the domain's
//! analyser explains (twelve-tone's, by rows), cost, and paired differences against
//! `raw`. What is a domain's own — its tasks, trials, conditions, gates, reference set
//! and analyser — it offers through `cantus_registry::Trials`; this crate names none.
//!
//! A library with no command line in it: a program loads an experiment file
//! ([`Experiment::load`]), runs it ([`run::run`]) on a tokio runtime handle of its
//! own — from a plain thread or `spawn_blocking`, since each piece in flight blocks
//! on the handle ([`jobs::io_runtime`] builds the one `cantus` uses) — and reads the
//! records back ([`run::read_results`]) or reports them ([`report::report`]). The
//! record ([`record`]) and report ([`metrics::Summary`]) types are serde and public:
//! `results.jsonl` and `report.json` are formats other programs read.
//!
//! The runner belongs to no one domain, so it lives here, over the domains' own
//! trials: `file` (the experiment TOML), `tasks` (a task of a domain's set),
//! `registered` (every registered domain's task set and trials — twelve-tone's bank
//! and single-factor design, counterpoint's, the chorale's, a new domain's — through
//! `cantus_registry::Trials`), `conditions` (conditions as data), `cell` (one run),
//! `record` (one line of results),
//! `run` (the grid and resuming), `jobs` (pieces in flight at once), `shard` (one
//! process's slice of the grid), `merge` (shards back into one output), `reference`
//! (the scores people wrote that pieces are measured against), `metrics` and `report`.

pub mod cell;
pub mod conditions;
pub mod file;
pub mod folder;
pub mod jobs;
pub mod merge;
pub mod metrics;
pub mod record;
pub mod reference;
pub mod registered;
pub mod report;
pub mod run;
pub mod shard;
pub mod tasks;

pub use file::{Experiment, FileError};

// The tests run counterpoint's exercises and measure twelve-tone's pieces through
// the registry: link the domains in.
#[cfg(test)]
use cantus_counterpoint as _;
#[cfg(test)]
use cantus_twelve_tone as _;
pub use record::{Key, Record, RunOutcome};
