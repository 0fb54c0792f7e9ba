//! `cantus`: the program — what each command does, as functions the command line,
//! the end-to-end tests and the benchmarks call.
//!
//! The domain crates know how to compose, judge and measure, and each registers
//! itself as one unit (`cantus-registry`); this crate knows the program around
//! them: which model a command runs with ([`models`]: the `cantus.toml` it names, read
//! as `cantus_backend::Config`, the one type of that file), the brief [`bank`], the serial analysis of a directory of scores
//! ([`corpus`]) and the [`experiment`] runner, and the command
//! line ([`cli`]), which parses arguments into these calls and the registered
//! domains' and prints what comes back. [`domains`] links the domains the program
//! ships, one line each.
#![forbid(unsafe_code)]

pub mod bank;
pub mod cli;
pub mod corpus;
pub mod domains;
pub mod experiment;
pub mod models;
