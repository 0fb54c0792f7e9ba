//! Command-line parsing and dispatch. Each subcommand lives in its own module and
//! returns an [`Exit`]; only this module turns it into a process exit code.

use clap::{Parser, Subcommand};

/// `println!` that does not panic when stdout is closed early (`cantus verify … | head`):
/// output to a closed pipe is dropped, like ripgrep does.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}
use std::process::ExitCode;

mod analyze;
mod bank;
mod blind;
mod calibrate;
mod compare;
mod compose;
mod convert;
mod counterpoint;
mod example;
mod experiment;
mod extend;
mod fill;
mod fingerprint;
mod generate;
mod model;
mod morph;
mod plugins;
mod render;
mod rows;
mod summary;
mod teach;
mod verify;
mod workflow;

/// Cantus: constrained symbolic generation — propose, verify, repair, trace, release.
#[derive(Parser, Debug)]
#[command(name = "cantus", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Write a twelve-tone piece from a brief or spec, or a species exercise (--domain
    /// counterpoint); the embedded proposer, with no network, unless --config names a model.
    Compose(compose::Args),
    /// Compose every brief of a bank file (resumable; a progress bar on a terminal).
    Bank(bank::Args),
    /// Run an experiment (tasks × models × conditions × runs) or write its report.
    #[command(subcommand_required = true)]
    Experiment(experiment::Args),
    /// Judge any piece by a domain's strict release gate (twelve-tone, or --domain
    /// counterpoint): for generated pieces; to analyse music people wrote, use analyze.
    Verify(verify::Args),
    /// Analyse a piece people wrote: row statements across the whole texture, elisions,
    /// canons, notes left unexplained (use verify to judge a generated piece).
    Analyze(analyze::Args),
    /// Convert a score between the text grammar, MIDI, MusicXML and LilyPond.
    Convert(convert::Args),
    /// Show a twelve-tone row's 48 forms, matrix and properties.
    Rows(rows::Args),
    /// Run the tiny non-musical example domain (cycles over a small alphabet).
    Example(example::Args),
    /// Print a piece's Libretto fingerprint: 29 structural axes, raw value and percentile.
    Fingerprint(fingerprint::Args),
    /// Compare two pieces: copy risk and fingerprint distance.
    Compare(compare::Args),
    /// Compute a calibration table (per-axis reference values) from a directory of scores.
    Calibrate(calibrate::Args),
    /// Fill a gap: propose the bars of a range so they pass the gates against their context.
    Fill(fill::Args),
    /// List the registered backends and proposers: built-in, dynamic and subprocess plugins.
    Plugins(plugins::Args),
    /// Engrave (LilyPond), hear (a General MIDI SoundFont) or report (HTML) a piece or a directory of runs.
    Render(render::Args),
    /// Build a blind-evaluation package of paired pieces, or score its ratings (`blind score`).
    Blind(blind::Args),
    /// Write a whole piece in a style (a genre, or the --reference pieces) with a model.
    Generate(generate::Args),
    /// Morph piece A into piece B in K segments.
    Morph(morph::Args),
    /// Write a teaching example of a named device (--list shows the catalogue).
    Teach(teach::Args),
    /// Continue a piece by N bars (6-40).
    Extend(extend::Args),
}

/// The rule domains `compose` and `verify` know.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DomainName {
    /// Serial (twelve-tone) composition.
    TwelveTone,
    /// Fux species counterpoint, first and second species, two voices.
    Counterpoint,
}

/// Where and how a generating command writes its run.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Seed for the plan and the proposer: the same seed gives the same piece.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output directory: written as one unit (a reader sees the earlier run or this
    /// one, never a mixture); must not exist, be empty, or hold an earlier run.
    #[arg(long, default_value = "out")]
    pub out: std::path::PathBuf,
    /// Replace an earlier run in --out.
    #[arg(long)]
    pub force: bool,
}

/// How a command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Released, passed, done.
    Ok,
    /// An explicit, reported failure (gate refused, verification failed).
    Failed,
    /// Bad input: usage, file, format or spec error.
    BadInput,
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        match e {
            Exit::Ok => ExitCode::SUCCESS,
            Exit::Failed => ExitCode::from(1),
            Exit::BadInput => ExitCode::from(2),
        }
    }
}

/// Prints `value` as pretty JSON with sorted keys (as every Cantus report is written).
pub fn print_json(value: &impl serde::Serialize) {
    let value = serde_json::to_value(value).unwrap_or_default();
    say!(
        "{}",
        serde_json::to_string_pretty(&value).unwrap_or_default()
    );
}

/// How a score file is read: the flags every command that reads scores shares.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct ReadFlags {
    /// Read leniently, warning about what is skipped: the text grammar as Libretto's
    /// parser does, a damaged MIDI file as far as it goes.
    #[arg(long)]
    pub lenient: bool,
    /// MusicXML and MEI: read transposing parts at written pitch (default: sounding).
    #[arg(long)]
    pub written_pitch: bool,
}

impl ReadFlags {
    pub fn options(self) -> cantus_music::ReadOptions {
        cantus_music::ReadOptions {
            lenient: self.lenient,
            pitch: if self.written_pitch {
                cantus_music::PitchLevel::Written
            } else {
                cantus_music::PitchLevel::Sounding
            },
            ..cantus_music::ReadOptions::default()
        }
    }
}

/// Prints an error for bad input and returns [`Exit::BadInput`].
pub fn bad_input(message: impl std::fmt::Display) -> Exit {
    eprintln!("error: {message}");
    Exit::BadInput
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let exit = match cli.command {
        Command::Compose(args) => compose::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Bank(args) => bank::run(args),
        Command::Experiment(args) => experiment::run(args),
        Command::Analyze(args) => analyze::run(args),
        Command::Convert(args) => convert::run(args),
        Command::Rows(args) => rows::run(args),
        Command::Example(args) => example::run(args),
        Command::Fingerprint(args) => fingerprint::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Calibrate(args) => calibrate::run(args),
        Command::Fill(args) => fill::run(args),
        Command::Plugins(args) => plugins::run(args),
        Command::Render(args) => render::run(args),
        Command::Blind(args) => blind::run(args),
        Command::Generate(args) => generate::run(args),
        Command::Morph(args) => morph::run(args),
        Command::Teach(args) => teach::run(args),
        Command::Extend(args) => extend::run(args),
    };
    exit.into()
}

/// A single-threaded runtime for commands that drive the async engine.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("building a single-threaded tokio runtime")
}
