//! `cantus generate`: a whole piece in a style — a genre of the calibration table
//! or the centre of `--reference DIR` — by a model (`--config`), judged round by
//! round by Libretto's gates (length, degeneracy, copy, style fit).

use super::workflow::{Setup, WorkflowArgs, author_options};
use super::{Exit, bad_input};
use cantus_backend::Configured;
use cantus_libretto::workflow::generate::{GenerateJob, GenerateRequest, Style, embedded_author};
use cantus_libretto::workflow::model::ModelAuthor;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The style's genre in the calibration table (classical, core_pop_rock,
    /// electronic_dance, film_score, folk_country, funk_soul_rnb, jazz,
    /// latin_reggae_world); without it, the centre of the --reference pieces.
    #[arg(long)]
    pub genre: Option<String>,
    /// Length bounds in bars, `MIN-MAX` (default Libretto's 64-179).
    #[arg(long, default_value = "64-179")]
    pub bars: String,
    /// Reference excerpts shown (the pieces nearest the style's centre).
    #[arg(long, default_value_t = 3)]
    pub shown: usize,
    /// Draw the shown pieces at random (with --seed) among the nearest max(6, 3k).
    #[arg(long)]
    pub sample: bool,
    #[command(flatten)]
    pub common: WorkflowArgs,
}

fn bounds(text: &str) -> Option<std::ops::RangeInclusive<u32>> {
    let (a, b) = text.split_once('-')?;
    let (a, b): (u32, u32) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
    (1 <= a && a <= b && b <= 4096).then_some(a..=b)
}

pub fn run(args: Args) -> Exit {
    let Some(bars) = bounds(&args.bars) else {
        return bad_input(format!(
            "--bars {}: expected MIN-MAX with 1 ≤ MIN ≤ MAX ≤ 4096",
            args.bars
        ));
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
    let style = args.genre.clone().map_or(Style::References, Style::Genre);
    let mut req = GenerateRequest::new(style, &table, references.as_ref());
    req.bars = bars;
    req.shown = args.shown;
    req.sample = args.sample.then_some(args.common.seed);
    let job = match GenerateJob::new(&req) {
        Ok(j) => j,
        Err(e) => return bad_input(e),
    };
    let run = match &model {
        None => match embedded_author() {
            Ok(author) => {
                super::runtime().block_on(job.run(author.as_ref(), rounds, args.common.seed))
            }
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
