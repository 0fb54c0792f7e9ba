//! `cantus bank FILE --out DIR`: compose every brief of a bank (one per line, `#`
//! comments) with the embedded proposer's harness, for one or more seeds — an
//! experiment run (`cantus::bank`): one record per run in `DIR/results.jsonl`, each
//! run's folder in `DIR/runs/<run>/`, and `DIR/summary.json`. A rerun composes only
//! what is missing or no longer whole (`--force` composes everything anew); `--jobs N`
//! composes N at once; `--shard i/N` one slice of the bank.

use super::{Exit, bad_input};
use crate::bank::{BankError, BankRun, Summary, experiment, run as run_bank};
use crate::experiment::jobs::Jobs;
use crate::experiment::shard::Shard;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The bank: one English brief per line; `#` starts a comment.
    file: PathBuf,
    /// Output directory (results.jsonl, runs/ with one folder per brief and seed,
    /// summary.json).
    #[arg(long, default_value = "out/bank")]
    out: PathBuf,
    /// Seeds 0..N for every brief.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    seeds: u32,
    /// Compose again even where an earlier run's files are whole.
    #[arg(long)]
    force: bool,
    /// Briefs composed at once.
    #[arg(long, default_value = "1", value_name = "N")]
    jobs: Jobs,
    /// Compose only shard i of N of the (brief, seed) pairs (index i mod N).
    #[arg(long, default_value = "0/1", value_name = "i/N")]
    shard: Shard,
}

pub fn run(args: Args) -> Exit {
    let exp = match experiment(&args.file, args.seeds) {
        Ok(e) => e,
        Err(e) => return bad_input(e),
    };
    let bar = super::compose::progress_bar();
    let progress = |done: usize, total: usize| {
        if let Some(bar) = &bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    };
    let how = BankRun {
        force: args.force,
        jobs: args.jobs,
        shard: args.shard,
    };
    let io = match super::io_runtime() {
        Ok(io) => io,
        Err(exit) => return exit,
    };
    let entries = run_bank(&exp, &args.out, &how, io.handle(), &progress);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let entries = match entries {
        Ok((e, quarantined)) => {
            super::experiment::warn_quarantined(&args.out, quarantined.as_ref());
            e
        }
        Err(e @ (BankError::Changed { .. } | BankError::Brief(_) | BankError::File(_))) => {
            return bad_input(e);
        }
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Failed;
        }
    };
    let summary = Summary::new(&args.file, args.shard, &entries);
    for e in entries.iter().filter(|e| e.released != Some(true)) {
        say!("{} seed {}: {}", e.brief, e.seed, e.note);
    }
    say!(
        "{} of {} released, {} explicit failure{}, {} could not run → {}",
        summary.released,
        entries.len(),
        summary.failed,
        if summary.failed == 1 { "" } else { "s" },
        summary.errors,
        args.out.display()
    );
    let value = serde_json::to_value(&summary).unwrap_or_default();
    if let Err(e) = std::fs::create_dir_all(&args.out).and_then(|()| {
        std::fs::write(
            args.out.join("summary.json"),
            serde_json::to_string_pretty(&value).unwrap_or_default(),
        )
    }) {
        eprintln!("error: {}: {e}", args.out.display());
    }
    if summary.released == entries.len() {
        Exit::Ok
    } else {
        Exit::Failed
    }
}
