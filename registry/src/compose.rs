//! `cantus compose --domain <id>`: what a domain's composer does for the program.
//!
//! The program parses the domain's flags ([`Compose::options`]) and its own (seed,
//! output directory, model), then asks the domain to [`Compose::prepare`] a
//! [`Job`]: the spec is read and checked here, before any work, so a typo is bad
//! input and not a failure half-way through. The program then opens the model (if
//! `--config` names one), prints the job's [`Job::notes`], creates the run directory
//! and runs the job, which composes, writes its files into the directory and
//! commits it, and says what to print.

use crate::options::{Args, ArgsError, Opt};
use crate::run_dir::{OutputError, RunDir};
use cantus_framework::{AskOptions, Budget, BudgetOverrides, GateMode, ModelBackend, Progress};
use std::path::PathBuf;
use std::sync::Arc;

/// Why a domain cannot do what it was asked: bad input (exit code 2), with a
/// message naming what and where.
///
/// The error a domain's own code gave can ride along ([`DomainError::caused_by`]):
/// the command line prints the message alone, while a caller that knows the
/// domain's error types (the Python bindings, which raise a class per kind of
/// bad input) finds it with [`DomainError::cause`] and a `downcast_ref`.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct DomainError {
    message: String,
    #[source]
    cause: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl DomainError {
    /// An error saying `message`.
    pub fn new(message: impl std::fmt::Display) -> DomainError {
        DomainError {
            message: message.to_string(),
            cause: None,
        }
    }

    /// The domain's own error, said as it says itself and kept as the cause.
    pub fn caused_by(error: impl std::error::Error + Send + Sync + 'static) -> DomainError {
        DomainError {
            message: error.to_string(),
            cause: Some(Box::new(error)),
        }
    }

    /// The message, as the command line prints it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The domain's own error, when it was kept ([`DomainError::caused_by`]).
    pub fn cause(&self) -> Option<&(dyn std::error::Error + Send + Sync + 'static)> {
        self.cause.as_deref()
    }
}

impl From<OutputError> for DomainError {
    fn from(e: OutputError) -> Self {
        DomainError::caused_by(e)
    }
}

impl From<ArgsError> for DomainError {
    fn from(e: ArgsError) -> Self {
        DomainError::caused_by(e)
    }
}

/// A model a run asks, as `cantus.toml` configured it. Without one a domain uses
/// its embedded proposer and no network.
#[derive(Clone)]
pub struct Model {
    /// The backend, already wrapped as the program was asked (record, replay).
    pub backend: Arc<dyn ModelBackend>,
    /// How to ask it (`[backend]` sampling, `[harness]` re-asks and constraints).
    pub ask: AskOptions,
    /// What `[harness]` changes of the domain's budget.
    pub budget: BudgetOverrides,
    /// `[gate] mode`.
    pub gate: GateMode,
}

impl Model {
    /// The ask options, with constrained decoding switched on by a flag (`--constrained`).
    pub fn ask(&self, constrained: bool) -> AskOptions {
        AskOptions {
            constrained: constrained || self.ask.constrained,
            ..self.ask.clone()
        }
    }

    /// A domain's default budget with what the configuration changes.
    pub fn budget(&self, base: Budget) -> Budget {
        base.overridden(&self.budget)
    }
}

/// What the program asks of a compose job besides the domain's own flags.
#[derive(Clone, Copy, Default)]
pub struct Request<'a> {
    /// The model, when `--config` names one.
    pub model: Option<&'a Model>,
    /// `--raw`: the model writes the whole artefact in one reply (no harness).
    pub raw: bool,
    /// `--constrained`: constrained decoding, whatever `[harness] constrained` says.
    pub constrained: bool,
}

/// How a domain composes.
pub trait Compose: Send + Sync {
    /// The flags it adds to `cantus compose`.
    fn options(&self) -> &'static [Opt] {
        &[]
    }

    /// Reads `args` into a job, checking everything that can be checked before any
    /// work (the spec, flags that do not apply, a `--raw` the domain cannot do).
    fn prepare(&self, args: &Args, request: Request<'_>) -> Result<Box<dyn Job>, DomainError>;
}

/// A progress callback (sections done of the plan's).
pub type ProgressFn = Box<dyn Fn(Progress) + Send + Sync>;

/// One run of a prepared job.
pub struct Run {
    /// Seeds the plan and the proposer: the same seed gives the same artefact.
    pub seed: u64,
    /// The run directory: the job writes its files there and commits it.
    pub folder: RunDir,
    /// Called as sections are done, for a progress bar.
    pub progress: Option<ProgressFn>,
}

/// A prepared compose job.
#[async_trait::async_trait(?Send)]
pub trait Job {
    /// What to tell the user before the work (defaults applied, words not
    /// understood), one line each, for standard error.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Whether the run reports progress by sections (a progress bar is worth showing).
    fn shows_progress(&self) -> bool {
        true
    }

    /// Composes, writes the run's files into `run.folder` and commits it. `Err` is
    /// bad input found only now (a plan the spec cannot make); a failure of the run
    /// itself is a [`Composed`] that was not released.
    async fn run(&self, run: Run) -> Result<Composed, DomainError>;
}

/// What a compose job came to.
#[derive(Clone, Debug, Default)]
pub struct Composed {
    pub released: bool,
    /// What to print, one line each, for standard output.
    pub lines: Vec<String>,
    /// Files that could not be written, with why.
    pub write_errors: Vec<String>,
    /// The run directory, when it was committed.
    pub dir: Option<PathBuf>,
}
