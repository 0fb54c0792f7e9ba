//! `cantus blind DIR …` builds a blind-evaluation package; `cantus blind score`
//! scores the ratings raters exported from it.

use super::{Exit, bad_input};
use cantus_render::RenderError;
use cantus_render::audio::Instrument;
use cantus_render::blind::{BlindOptions, MANIFEST, build, check, key_place, score};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// A directory of run folders, each with a piece and a report.json naming its "condition" (and "task", "model").
    dir: Option<PathBuf>,
    /// Pairs to put in the package.
    #[arg(long, default_value_t = 24)]
    pairs: usize,
    /// The two conditions to compare, e.g. harness,raw.
    #[arg(long, value_delimiter = ',', default_value = "harness,raw")]
    conditions: Vec<String>,
    /// Seed of the pair choice and the sides (default: a fresh one; either way it is
    /// recorded in the key).
    #[arg(long)]
    seed: Option<u64>,
    /// The package directory to create (raters get only this).
    #[arg(long, value_name = "PKG")]
    out: Option<PathBuf>,
    /// Where to write the key (default: PKG.key.json beside the package); never inside it.
    #[arg(long, value_name = "FILE")]
    key: Option<PathBuf>,
    /// The SoundFont (.sf2); default: CANTUS_SOUNDFONT, else the standard places.
    #[arg(long, value_name = "SF2")]
    soundfont: Option<PathBuf>,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Score exported ratings: preference rates with bootstrap CIs, Fleiss' kappa, per-rater agreement.
    Score {
        /// The package's key.json.
        #[arg(long)]
        key: PathBuf,
        /// Ratings CSV files exported from the package.
        #[arg(required = true)]
        ratings: Vec<PathBuf>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Check a package against its MANIFEST.sha256: every file listed, unchanged, and
    /// nothing else in it (hidden files too).
    Check {
        /// The package directory.
        package: PathBuf,
    },
}

pub fn run(args: Args) -> Exit {
    if let Some(Command::Check { package }) = &args.command {
        return match check(package) {
            Ok(c) => {
                say!(
                    "{}: {} files, each as {MANIFEST} lists it, and nothing else",
                    package.display(),
                    c.files
                );
                Exit::Ok
            }
            Err(e @ RenderError::Io { .. }) => bad_input(e),
            Err(e) => {
                eprintln!("error: {e}");
                Exit::Failed
            }
        };
    }
    if let Some(Command::Score { key, ratings, json }) = args.command {
        return match score(&key, &ratings) {
            Ok(scores) if json => {
                say!(
                    "{}",
                    serde_json::to_string_pretty(&scores).unwrap_or_default()
                );
                Exit::Ok
            }
            Ok(scores) => {
                say!("{}", scores.text().trim_end());
                Exit::Ok
            }
            Err(e) => bad_input(e),
        };
    }
    let (Some(dir), Some(out)) = (args.dir, args.out) else {
        return bad_input(
            "usage: cantus blind DIR --out PKG [--pairs N] [--conditions A,B] [--seed S], or cantus blind score --key key.json RATINGS…",
        );
    };
    let Ok(conditions) = <[String; 2]>::try_from(args.conditions) else {
        return bad_input("--conditions takes two names, e.g. harness,raw");
    };
    // Where the key goes is settled before anything is rendered.
    let key = match key_place(&out, args.key.as_deref()) {
        Ok(k) => k,
        Err(e) => return bad_input(e),
    };
    let instrument = match cantus_render::tools::soundfont(args.soundfont.as_deref())
        .and_then(|sf| Instrument::load(&sf))
    {
        Ok(i) => i,
        Err(e) => return bad_input(e),
    };
    let options = BlindOptions {
        pairs: args.pairs,
        conditions,
        seed: args.seed,
        out,
        key: Some(key),
        instrument,
    };
    match build(&dir, &options) {
        Ok(pkg) => {
            for w in &pkg.warnings {
                eprintln!("warning: {w}");
            }
            if pkg.pairs < args.pairs {
                eprintln!(
                    "warning: {} pairs asked for, only {} available",
                    args.pairs, pkg.available
                );
            }
            say!("wrote {} ({} pairs)", pkg.index.display(), pkg.pairs);
            say!(
                "manifest {} (check with: cantus blind check {})",
                pkg.manifest.display(),
                options.out.display()
            );
            say!(
                "key {} (sides drawn with seed {}; keep it from the raters)",
                pkg.key.display(),
                pkg.seed
            );
            Exit::Ok
        }
        Err(e) => bad_input(e),
    }
}
