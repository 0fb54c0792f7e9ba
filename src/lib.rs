//! `cantus`: the program — what each command does, as functions the command line,
//! the end-to-end tests and the benchmarks call.
//!
//! The domain crates know how to compose, judge and measure; this crate knows the
//! program around them: the whole `cantus.toml` ([`settings`]: the one mapping from
//! `[harness]` to a budget and to how a model is asked), which model a command runs
//! with ([`models`]), a run's files written as one unit ([`outputs`]), and the jobs of
//! each domain ([`twelve_tone`], [`counterpoint`], the brief [`bank`]) and the
//! [`experiment`] runner over them. The binary's `cli` module only
//! parses arguments into these calls and prints what comes back.
#![forbid(unsafe_code)]

pub mod bank;
pub mod counterpoint;
pub mod experiment;
pub mod models;
pub mod outputs;
pub mod settings;
pub mod twelve_tone;
