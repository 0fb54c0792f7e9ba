//! `cantus bank FILE --out DIR`: compose every brief of a bank (one per line, `#`
//! comments), for one or more seeds, into `DIR/<NNN>-s<SEED>/`. A run can be
//! stopped and started again: a brief whose earlier run's files are all still as
//! they were written (size and hash, in `DIR/bank-files.jsonl`) is counted from its
//! `report.json`, not composed again (`--force` composes everything anew).
//! `--jobs N` composes N at once; `--shard i/N` composes one slice of the bank.

use super::{Exit, bad_input};
use cantus::bank::{BankRun, Summary, briefs, run as run_bank};
use cantus::experiment::jobs::Jobs;
use cantus::experiment::shard::Shard;
use cantus_twelve_tone::gate::GateMode;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The bank: one English brief per line; `#` starts a comment.
    file: PathBuf,
    /// Output directory (one folder per brief and seed, plus summary.json).
    #[arg(long, default_value = "out/bank")]
    out: PathBuf,
    /// Seeds 0..N for every brief.
    #[arg(long, default_value_t = 1)]
    seeds: u64,
    #[arg(long, default_value = "strict")]
    gate: GateMode,
    /// Compose again even where a report is already written.
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
    let briefs = match briefs(&args.file) {
        Ok(b) => b,
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
        seeds: args.seeds,
        gate: args.gate,
        force: args.force,
        jobs: args.jobs,
        shard: args.shard,
    };
    let entries = run_bank(&briefs, &args.out, &how, &progress);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let summary = Summary::new(&args.file, args.gate, args.shard, &entries);
    for e in entries.iter().filter(|e| e.released != Some(true)) {
        say!("line {} seed {}: {}", e.line, e.seed, e.note);
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
