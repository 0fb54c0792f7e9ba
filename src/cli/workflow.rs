//! What `generate`, `morph`, `teach` and `extend` share: the reference set,
//! the calibration table, rounds and seed, the model flags, and how a run's
//! report and piece are written out. The workflows themselves live in
//! `cantus_libretto::workflow` (and `cantus_concepts` for teach).

use super::fingerprint::table;
use super::model::ModelArgs;
use super::{Exit, bad_input};
use cantus_backend::Configured;
use cantus_framework::AskOptions;
use cantus_libretto::Calibration;
use cantus_libretto::retrieval::ReferenceSet;
use cantus_libretto::workflow::Run;
use cantus_music::format;
use std::path::{Path, PathBuf};

/// Rounds without `--rounds`: the original's three for a model; the embedded
/// proposers are cheap and deterministic per seed, so they get more.
const MODEL_ROUNDS: u32 = 3;
const EMBEDDED_ROUNDS: u32 = 8;

#[derive(clap::Args, Debug)]
pub struct WorkflowArgs {
    /// A directory of reference scores (searched recursively; their fingerprints
    /// are kept in DIR/.cantus-index.json): excerpts to study, pieces not to copy.
    #[arg(long, value_name = "DIR")]
    pub reference: Option<PathBuf>,
    /// Rounds of the revise loop (default 3 with a model, 8 embedded; a model's
    /// rounds are also capped by `[harness] max_proposer_calls`).
    #[arg(long)]
    pub rounds: Option<u32>,
    /// Seed of the embedded proposers and of the model's sampling (round 1 uses it, each
    /// later round a mix of it and the round, as every revise loop does).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Write the released piece here (format by extension); a piece not released is
    /// written beside it as `unreleased-<name>`. Without it stdout holds the piece.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the report as JSON (with --out; otherwise stdout holds the piece, released
    /// or the best round's, and stderr the report).
    #[arg(long)]
    pub json: bool,
    /// Calibration table (default: Libretto's 314-song table, shipped).
    #[arg(long)]
    pub calibration: Option<PathBuf>,
    #[command(flatten)]
    pub model: ModelArgs,
}

/// How the workflows' model author asks (`constrained`: [`Setup::constrained`]).
pub fn author_options(constrained: bool) -> AskOptions {
    AskOptions {
        constrained,
        ..AskOptions::default()
    }
}

/// What a workflow command starts from.
pub struct Setup {
    pub table: Calibration,
    pub references: Option<ReferenceSet>,
    pub model: Option<Configured>,
    pub rounds: u32,
    /// Hold the model's replies to the task's bars (`--constrained`, or the
    /// config's `[harness] constrained`).
    pub constrained: bool,
}

impl WorkflowArgs {
    /// Reads the table, the reference set and the model configuration.
    pub fn setup(&self) -> Result<Setup, Exit> {
        if self.model.raw {
            return Err(bad_input(
                "--raw has no meaning here: every round is a whole piece judged by the gates",
            ));
        }
        let table = table(self.calibration.as_deref()).map_err(bad_input)?;
        let references = match &self.reference {
            None => None,
            Some(dir) => {
                let set = ReferenceSet::open(dir).map_err(bad_input)?;
                for s in &set.skipped {
                    eprintln!("warning: {}: skipped: {}", s.path.display(), s.why);
                }
                if let Some(problem) = &set.index.problem {
                    eprintln!("warning: {}: index {problem}", set.index.path.display());
                }
                Some(set)
            }
        };
        let model = self.model.source().open().map_err(bad_input)?;
        let constrained = model
            .as_ref()
            .is_some_and(|m| m.settings.ask(self.model.constrained).constrained);
        let mut rounds = self.rounds.unwrap_or(if model.is_some() {
            MODEL_ROUNDS
        } else {
            EMBEDDED_ROUNDS
        });
        if rounds == 0 {
            return Err(bad_input("--rounds must be at least 1"));
        }
        if let Some(m) = &model
            && let Some(cap) = m.settings.harness.max_proposer_calls
        {
            rounds = rounds.min(u32::try_from(cap).unwrap_or(u32::MAX).max(1));
        }
        Ok(Setup {
            table,
            references,
            model,
            rounds,
            constrained,
        })
    }

    /// Prints the report, writes the piece, and returns 0 when released, 1 otherwise.
    pub fn finish(&self, run: &Run) -> Exit {
        let released = run.released();
        match &self.out {
            Some(out) => {
                let path = if released {
                    out.clone()
                } else {
                    unreleased(out)
                };
                if let Some(piece) = run.piece() {
                    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
                        && let Err(e) = std::fs::create_dir_all(dir)
                    {
                        return bad_input(format!("{}: {e}", dir.display()));
                    }
                    if let Err(e) = format::write_path(&path, piece) {
                        return bad_input(e);
                    }
                }
                if self.json {
                    let mut doc = run.json();
                    doc["out"] = run.piece().map(|_| path.display().to_string()).into();
                    say!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
                } else {
                    say!("{}", run.text());
                    if run.piece().is_some() {
                        say!("wrote {}", path.display());
                    }
                }
            }
            None => {
                // The best round's piece even when not released (exit 1 says so),
                // as `cantus fill` does: nothing produced is lost.
                if let Some(piece) = run.piece() {
                    match cantus_music::grammar::write(piece) {
                        Ok(text) => say!("{}", text.trim_end()),
                        Err(e) => return bad_input(e),
                    }
                }
                eprintln!("{}", run.text());
            }
        }
        if released { Exit::Ok } else { Exit::Failed }
    }
}

/// `dir/unreleased-name.ext` for `dir/name.ext`.
fn unreleased(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map_or_else(|| "piece.txt".into(), |n| n.to_string_lossy().into_owned());
    out.with_file_name(format!("unreleased-{name}"))
}

/// Reads a score file for a workflow.
pub fn read_score(path: &Path) -> Result<cantus_music::Score, Exit> {
    let loaded = format::read_path(path, false).map_err(bad_input)?;
    for w in &loaded.warnings {
        eprintln!("warning: {w}");
    }
    Ok(loaded.score)
}
