//! `cantus`: the program — what each command does, as functions the command line,
//! the end-to-end tests and the benchmarks call.
//!
//! The domain crates know how to compose, judge and measure, and each registers
//! itself as one unit (`cantus-registry`); this crate knows the program around
//! them: the brief [`bank`], the serial analysis of a directory of scores
//! ([`corpus`]), and the command line ([`cli`]), which parses arguments into these
//! calls, the registered domains' and the [`experiment`] runner's (its own crate,
//! `cantus-experiment`), and prints what comes back. Which model a command runs with
//! is `cantus_backend::ModelSource` (the `cantus.toml` it names, read as
//! `cantus_backend::Config`, the one type of that file). [`domains`] links the
//! domains the program ships, one line each.
#![forbid(unsafe_code)]

pub mod bank;
pub mod cli;
pub mod corpus;
pub mod domains;

/// The experiment runner, its own crate (`cantus-experiment`): re-exported under its
/// old path, so `cantus::experiment::…` keeps working.
pub use cantus_experiment as experiment;
