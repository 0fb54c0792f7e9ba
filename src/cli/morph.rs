//! `cantus morph A B --segments K`: K segments moving from A's profile to B's,
//! by the embedded recombiner or a model (`--config`), judged by Libretto's
//! progress and copy gates.

use super::workflow::{Setup, WorkflowArgs, author_options, read_score};
use super::{Exit, bad_input};
use cantus_backend::Configured;
use cantus_libretto::workflow::model::ModelAuthor;
use cantus_libretto::workflow::morph::{MorphJob, MorphRequest, Recombiner};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Where the morph starts (`.txt`, `.mid`, `.musicxml`).
    pub a: PathBuf,
    /// Where it ends.
    pub b: PathBuf,
    /// Number of segments (at least 2).
    #[arg(long, default_value_t = 4)]
    pub segments: u32,
    /// Bars per segment.
    #[arg(long, default_value_t = 8)]
    pub segment_bars: u32,
    #[command(flatten)]
    pub common: WorkflowArgs,
}

pub fn run(args: Args) -> Exit {
    let (a, b) = match (read_score(&args.a), read_score(&args.b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return e,
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
    let req = MorphRequest {
        a: &a,
        b: &b,
        segments: args.segments,
        segment_bars: args.segment_bars,
        table: &table,
        references: references.as_ref(),
    };
    let job = match MorphJob::new(&req) {
        Ok(j) => j,
        Err(e) => return bad_input(e),
    };
    let run = match &model {
        None => match Recombiner::new(&req) {
            Ok(author) => super::runtime().block_on(job.run(&author, rounds, args.common.seed)),
            Err(e) => return bad_input(e),
        },
        Some(Configured { backend, .. }) => {
            let author = ModelAuthor::new(
                backend.as_ref(),
                job.task.clone(),
                author_options(constrained),
            );
            super::runtime().block_on(job.run(&author, rounds, args.common.seed))
        }
    };
    args.common.finish(&run)
}
