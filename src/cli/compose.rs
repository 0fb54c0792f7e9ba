//! `cantus compose [--domain ID]`: the domain's flags are checked, the model opened,
//! the domain's job prepared (its spec read and checked), its notes printed, the run
//! directory created, the job run with a progress bar, and what it says printed.

use super::model::ModelArgs;
use super::{Exit, RunArgs, bad_input, domains, runtime, written_exit};
use cantus_framework::Progress;
use cantus_registry::{Request, Run, RunDir};
use clap::ArgMatches;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rule domain (`cantus plugins` lists them); each adds its own flags below.
    #[arg(long)]
    pub domain: String,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub model: ModelArgs,
}

/// The program's own flags of `cantus compose`, which a domain's flags may exclude.
const PROGRAM_FLAGS: &[&str] = &[
    "seed",
    "out",
    "force",
    "config",
    "record",
    "replay",
    "raw",
    "constrained",
];

pub fn run(args: Args, matches: &ArgMatches) -> Exit {
    let unit = match cantus_registry::find(&args.domain) {
        Ok(u) => u,
        Err(e) => return bad_input(e),
    };
    let composer = match unit.composer() {
        Ok(c) => c,
        Err(e) => return bad_input(e),
    };
    let domain_args = match domains::args_of(matches, unit, domains::compose_table, PROGRAM_FLAGS) {
        Ok(a) => a,
        Err(e) => return bad_input(e),
    };
    let model = match args.model.source().open() {
        Ok(m) => m.as_ref().map(crate::experiment::file::registry_model),
        Err(e) => return bad_input(e),
    };
    let request = Request {
        model: model.as_ref(),
        raw: args.model.raw,
        constrained: args.model.constrained,
    };
    let job = match composer.prepare(&domain_args, request) {
        Ok(j) => j,
        Err(e) => return bad_input(e),
    };
    for note in job.notes() {
        eprintln!("{note}");
    }
    let folder = match RunDir::create(&args.run.out, args.run.force) {
        Ok(f) => f,
        Err(e) => return bad_input(e),
    };
    let bar = job.shows_progress().then(progress_bar).flatten();
    let progress = bar.clone().map(|bar| {
        Box::new(move |p: Progress| {
            if let Progress::Section { done, total } = p {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            }
        }) as cantus_registry::ProgressFn
    });
    let composed = runtime().block_on(job.run(Run {
        seed: args.run.seed,
        folder,
        progress,
    }));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    match composed {
        Ok(composed) => {
            for line in &composed.lines {
                say!("{line}");
            }
            written_exit(composed.released, &composed.write_errors)
        }
        Err(e) => bad_input(e),
    }
}

/// A progress bar on a terminal (none when stderr is not one).
pub fn progress_bar() -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("composing {bar:30} section {pos}/{len} {elapsed}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    Some(bar)
}
