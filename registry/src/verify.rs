//! `cantus verify --domain <id> FILE`: judging a file by the domain's release gate.

use crate::compose::DomainError;
use crate::options::{Args, Opt};
use cantus_music::Score;
use std::path::Path;

/// How a domain judges a file.
pub trait Verify: Send + Sync {
    /// The flags it adds to `cantus verify`.
    fn options(&self) -> &'static [Opt] {
        &[]
    }

    /// Reads `file` (leniently, with `lenient`) and judges it. `Err` is bad input:
    /// the file cannot be read, or is not one of this domain's artefacts at all.
    fn verify(&self, file: &Path, lenient: bool, args: &Args) -> Result<Verified, DomainError>;

    /// Judges a score already in memory (a program holding one: the Python
    /// bindings, a notebook), named `source` in the verdict, as [`Verify::verify`]
    /// judges the file it reads. A domain whose artefact is a score implements it;
    /// the default refuses: the domain judges its files only.
    fn verify_score(
        &self,
        score: &Score,
        source: &str,
        args: &Args,
    ) -> Result<Verified, DomainError> {
        let _ = (score, args);
        Err(DomainError::new(format!(
            "{source}: this domain judges its own files, not a score: give the file"
        )))
    }
}

/// A judged file, as the program prints it.
#[derive(Clone, Debug, PartialEq)]
pub struct Verified {
    /// Whether the gate passed it (exit 0; else 1).
    pub passed: bool,
    /// What reading it warned about, for standard error.
    pub warnings: Vec<String>,
    /// The verdict for people: a `PASSED`/`FAILED` line, then one line per
    /// violation and fact.
    pub lines: Vec<String>,
    /// The verdict as `--json` prints it.
    pub json: serde_json::Value,
}
