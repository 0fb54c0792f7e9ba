//! `cantus example`: the non-musical example domain, end to end.

use super::{Exit, bad_input, runtime, summary};
use cantus_example_cycles::{CycleSpec, SloppyProposer, engine};
use cantus_framework::Outcome;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Alphabet size (symbols A, B, ...).
    #[arg(long, default_value_t = 5)]
    alphabet: usize,
    /// No symbol may recur within this many positions.
    #[arg(long, default_value_t = 4)]
    window: usize,
    /// Number of cycles.
    #[arg(long, default_value_t = 4)]
    cycles: usize,
    /// Probability that the proposer spoils a symbol (0..=1).
    #[arg(long, default_value_t = 0.3)]
    mistakes: f64,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write trace.jsonl here.
    #[arg(long)]
    out: Option<PathBuf>,
}

pub fn run(args: Args) -> Exit {
    if !(0.0..=1.0).contains(&args.mistakes) {
        return bad_input(format!(
            "--mistakes {} is not a probability in 0..=1",
            args.mistakes
        ));
    }
    let spec = CycleSpec {
        alphabet: args.alphabet,
        window: args.window,
        cycles: args.cycles,
    };
    let proposer = SloppyProposer {
        mistakes: args.mistakes,
    };
    let outcome = runtime().block_on(engine().run(&spec, &proposer, args.seed));
    if let Some(dir) = &args.out {
        let written = std::fs::create_dir_all(dir).and_then(|()| {
            let file = std::fs::File::create(dir.join("trace.jsonl"))?;
            outcome
                .trace()
                .write_jsonl(std::io::BufWriter::new(file), true)
        });
        if let Err(e) = written {
            return bad_input(format!(
                "cannot write {}: {e}",
                dir.join("trace.jsonl").display()
            ));
        }
    }
    let totals = summary::totals_line(&outcome.trace().totals);
    match outcome {
        Outcome::Released { artefact, .. } => {
            say!("released: {artefact}");
            say!("{totals}");
            Exit::Ok
        }
        Outcome::Failure {
            diagnostics,
            artefact,
            ..
        } => {
            say!(
                "failed{}",
                artefact.map(|a| format!(": {a}")).unwrap_or_default()
            );
            for d in &diagnostics {
                say!("  {d}");
            }
            say!("{totals}");
            Exit::Failed
        }
    }
}
