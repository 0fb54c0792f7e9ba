//! `cantus extend FILE --bars N`: continue a piece by N bars (6–40), by the
//! embedded gap filler or a model (`--config`), judged against the piece and
//! the reference set.

use super::workflow::{Setup, WorkflowArgs, read_score};
use super::{Exit, bad_input};
use cantus_backend::Configured;
use cantus_libretto::fill::ModelFillOptions;
use cantus_libretto::workflow::extend::{ExtendJob, ExtendRequest};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The piece (`.txt`, `.mid`, `.musicxml`).
    pub file: PathBuf,
    /// Bars to add, 6–40.
    #[arg(long)]
    pub bars: u32,
    #[command(flatten)]
    pub common: WorkflowArgs,
}

pub fn run(args: Args) -> Exit {
    let piece = match read_score(&args.file) {
        Ok(p) => p,
        Err(e) => return e,
    };
    let Setup {
        table,
        references,
        model,
        rounds,
        constrained,
    } = match args.common.setup() {
        Ok(s) => s,
        Err(exit) => return exit,
    };
    let req = ExtendRequest {
        piece: &piece,
        bars: args.bars,
        table: &table,
        references: references.as_ref(),
    };
    let job = match ExtendJob::new(&req) {
        Ok(j) => j,
        Err(e) => return bad_input(format!("{}: {e}", args.file.display())),
    };
    let run = match &model {
        None => super::runtime().block_on(job.run(&job.embedded(), rounds, args.common.seed)),
        Some(Configured { backend, .. }) => {
            let author = job.model(
                backend.as_ref(),
                ModelFillOptions {
                    ask: super::workflow::author_options(constrained),
                    ..ModelFillOptions::default()
                },
            );
            super::runtime().block_on(job.run(&author, rounds, args.common.seed))
        }
    };
    args.common.finish(&run)
}
