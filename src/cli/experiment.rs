//! `cantus experiment run FILE --out DIR` and `cantus experiment report DIR`: parse,
//! call `cantus::experiment`, print. A progress bar with an ETA on a terminal.

use super::{Exit, bad_input, runtime};
use cantus::experiment::run::{RunError, run as run_experiment};
use cantus::experiment::{Experiment, RunOutcome, report};
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
    },
    /// Write the report of DIR/results.jsonl (report.md, report.json, CSV, SVG, HTML).
    Report {
        /// An experiment's output directory.
        dir: PathBuf,
    },
}

pub fn run(args: Args) -> Exit {
    match args.command {
        Sub::Run { file, out } => run_file(&file, &out),
        Sub::Report { dir } => match report::report(&dir) {
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

fn run_file(file: &std::path::Path, out: &std::path::Path) -> Exit {
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
    let result = runtime().block_on(run_experiment(&exp, out, &progress));
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    match result {
        Ok(ran) => {
            let n = |o| ran.outcomes.get(&o).copied().unwrap_or(0);
            say!(
                "{} runs ({} kept from an earlier run): {} released, {} refused, {} failed, {} not applicable → {}",
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
        Err(e @ (RunError::OtherExperiment { .. } | RunError::Reference { .. })) => bad_input(e),
        Err(e) => {
            eprintln!("error: {e}");
            Exit::Failed
        }
    }
}
