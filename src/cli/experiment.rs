//! `cantus experiment run FILE --out DIR [--jobs N] [--shard i/N]`, `cantus experiment
//! merge OUT DIR…` and `cantus experiment report DIR`: parse, call
//! `cantus::experiment`, print. A progress bar with an ETA on a terminal.

use super::{Exit, bad_input};
use crate::experiment::jobs::Jobs;
use crate::experiment::merge::{MergeError, merge};
use crate::experiment::run::{Plan, Quarantined, RunError, run as run_experiment};
use crate::experiment::shard::Shard;
use crate::experiment::{Experiment, RunOutcome, report};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(clap::Subcommand, Debug)]
enum Sub {
    /// Run every (task, model, condition, run) of FILE into DIR/results.jsonl
    /// (resumable: a rerun runs only what is missing).
    Run {
        /// The experiment file (TOML; see examples/experiments/).
        file: PathBuf,
        #[arg(long)]
        out: PathBuf,
        /// Pieces in flight at once (each model's `concurrency` still caps its requests).
        #[arg(long, default_value = "1", value_name = "N")]
        jobs: Jobs,
        /// Run only shard i of N of the grid (cells whose index is i mod N), for a job
        /// array; merge the shards' directories with `cantus experiment merge`.
        #[arg(long, default_value = "0/1", value_name = "i/N")]
        shard: Shard,
    },
    /// Merge the output directories of an experiment's shards into OUT, refusing
    /// another experiment file or records that disagree.
    Merge {
        /// The merged output directory (must not hold results yet).
        out: PathBuf,
        /// The shards' output directories.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
    },
    /// Write the report of DIR/results.jsonl (report.md, report.json, CSV, SVG, HTML).
    Report {
        /// An experiment's output directory.
        dir: PathBuf,
        /// Measure the corpus distance (and the reference set's analysis share) against
        /// these score files or directories instead of the set the experiment ran with.
        #[arg(long, value_name = "PATH")]
        reference: Vec<PathBuf>,
    },
}

pub fn run(args: Args) -> Exit {
    match args.command {
        Sub::Run {
            file,
            out,
            jobs,
            shard,
        } => run_file(&file, &out, Plan { jobs, shard }),
        Sub::Merge { out, dirs } => merge_dirs(&out, &dirs),
        Sub::Report { dir, reference } => match report::report(
            &dir,
            (!reference.is_empty()).then_some(reference.as_slice()),
        ) {
            Ok(w) => {
                say!(
                    "report of {} records → {}",
                    w.records,
                    dir.join("report.md").display()
                );
                Exit::Ok
            }
            Err(e) => bad_input(e),
        },
    }
}

fn merge_dirs(out: &std::path::Path, dirs: &[PathBuf]) -> Exit {
    match merge(out, dirs) {
        Ok(m) => {
            say!(
                "{} records from {} directories ({} duplicates, the same in each) → {}",
                m.records,
                dirs.len(),
                m.duplicates,
                out.join("results.jsonl").display()
            );
            if !m.missing.is_empty() {
                let names: Vec<String> = m.missing.iter().map(ToString::to_string).collect();
                say!(
                    "missing shards: {}; `cantus experiment run FILE --out {}` runs what they would have",
                    names.join(", "),
                    out.display()
                );
            }
            Exit::Ok
        }
        Err(e @ MergeError::Io { .. }) => {
            eprintln!("error: {e}");
            Exit::Failed
        }
        Err(e) => bad_input(e),
    }
}

fn run_file(file: &std::path::Path, out: &std::path::Path, plan: Plan) -> Exit {
    let exp = match Experiment::load(file) {
        Ok(e) => e,
        Err(e) => return bad_input(e),
    };
    let bar = super::compose::progress_bar();
    if let Some(bar) = &bar {
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:30} {pos}/{len} runs {elapsed} ETA {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
    }
    let progress = |done: usize, total: usize| {
        if let Some(bar) = &bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    };
    let io = match super::io_runtime() {
        Ok(io) => io,
        Err(exit) => return exit,
    };
    let result = run_experiment(&exp, out, plan, io.handle(), &progress);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    match result {
        Ok(ran) => {
            warn_quarantined(out, ran.quarantined.as_ref());
            let n = |o| ran.outcomes.get(&o).copied().unwrap_or(0);
            let shard = if plan.shard.is_whole() {
                String::new()
            } else {
                format!("shard {}: ", plan.shard)
            };
            say!(
                "{shard}{} runs ({} kept from an earlier run): {} released, {} refused, {} failed, {} not applicable → {}",
                ran.total,
                ran.kept,
                n(RunOutcome::Released),
                n(RunOutcome::Refused),
                n(RunOutcome::Failed),
                n(RunOutcome::NotApplicable),
                out.join("results.jsonl").display()
            );
            Exit::Ok
        }
        Err(
            e @ (RunError::OtherExperiment { .. }
            | RunError::OtherShard { .. }
            | RunError::Reference { .. }),
        ) => bad_input(e),
        Err(e) => {
            eprintln!("error: {e}");
            Exit::Failed
        }
    }
}

/// Says which lines of `out`'s results file a resumed run moved aside, and where.
pub(super) fn warn_quarantined(out: &std::path::Path, quarantined: Option<&Quarantined>) {
    for bad in quarantined.iter().flat_map(|q| &q.lines) {
        eprintln!(
            "warning: {}: {}; moved to {} (its run ran again)",
            out.join("results.jsonl").display(),
            bad.why,
            quarantined.map_or_else(String::new, |q| q.file.display().to_string())
        );
    }
}
