//! The model flags: which `cantus.toml` to use, and whether to record the run's model
//! exchanges to a cassette or replay them from one. Without `--config` Cantus uses its
//! embedded symbolic proposers and no network.

use cantus_backend::ModelSource;
use std::path::PathBuf;

/// Model backend flags of `cantus compose` and `cantus fill`.
#[derive(clap::Args, Debug, Default)]
pub struct ModelArgs {
    /// A `cantus.toml` naming the model backend, its settings, harness budgets and gate
    /// (see examples/config/cantus.toml). Without it the embedded proposer is used.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Store every model exchange of this run in FILE (JSON lines) for --replay.
    #[arg(
        long,
        value_name = "FILE",
        requires = "config",
        conflicts_with = "replay"
    )]
    pub record: Option<PathBuf>,
    /// Answer every model call from FILE, written by --record: offline and deterministic.
    #[arg(long, value_name = "FILE", requires = "config")]
    pub replay: Option<PathBuf>,
    /// Ask the model for the whole piece in one reply and judge it with the strict gate
    /// (no harness: the baseline the harness is measured against).
    #[arg(long, requires = "config")]
    pub raw: bool,
    /// Constrained decoding: send a grammar generated from the domain (for twelve-tone
    /// compose, only the pitch classes the row cursor allows next; for fill and extend,
    /// exactly the gap's bars; for generate, morph and teach, every bar of the task's
    /// header with a line per voice) — overrides `[harness] constrained`.
    #[arg(long, requires = "config", conflicts_with = "raw")]
    pub constrained: bool,
}

impl ModelArgs {
    /// Where the model comes from.
    pub fn source(&self) -> ModelSource {
        ModelSource {
            config: self.config.clone(),
            record: self.record.clone(),
            replay: self.replay.clone(),
        }
    }
}
