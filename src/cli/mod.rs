//! Command-line parsing and dispatch. Each subcommand lives in its own module and
//! returns an [`Exit`]; only this module turns it into a process exit code.
//!
//! The rule domains are not listed here: `compose`, `verify`, `render`, `blind` and
//! `plugins` find them in the registry (`cantus_registry`), their flags come from
//! their option tables (`domains.rs`), and a domain's shortcut (`cantus example`) is
//! `compose --domain <id>` under its own name. A program that links a domain of its
//! own calls [`main`] and gets all of it.

use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};

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
mod domains;
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
    /// Compose with a rule domain (--domain; the default domain when not given): the
    /// embedded proposer, with no network, unless --config names a model.
    Compose(compose::Args),
    /// Compose every brief of a bank file (resumable; a progress bar on a terminal).
    Bank(bank::Args),
    /// Run an experiment (tasks × models × conditions × runs) or write its report.
    #[command(subcommand_required = true)]
    Experiment(experiment::Args),
    /// Judge any piece by a domain's strict release gate (--domain; the default domain
    /// when not given): for generated pieces; to analyse music people wrote, use analyze.
    Verify(verify::Args),
    /// Analyse a piece people wrote: row statements across the whole texture, elisions,
    /// canons, notes left unexplained (use verify to judge a generated piece).
    Analyze(analyze::Args),
    /// Convert a score between the text grammar, MIDI, MusicXML and LilyPond.
    Convert(convert::Args),
    /// Show a twelve-tone row's 48 forms, matrix and properties.
    Rows(rows::Args),
    /// Print a piece's Libretto fingerprint: 29 structural axes, raw value and percentile.
    Fingerprint(fingerprint::Args),
    /// Compare two pieces: copy risk and fingerprint distance.
    Compare(compare::Args),
    /// Compute a calibration table (per-axis reference values) from a directory of scores.
    Calibrate(calibrate::Args),
    /// Fill a gap: propose the bars of a range so they pass the gates against their context.
    Fill(fill::Args),
    /// List the registered domains, backends and proposers: built-in, dynamic and subprocess plugins.
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

/// The command line with every registered domain's flags and shortcuts.
fn command() -> clap::Command {
    let mut command = Cli::command()
        .mut_subcommand("compose", |c| {
            let c = domains::domain_arg(c, domains::compose_table);
            domains::add_options(c, domains::compose_table, None)
        })
        .mut_subcommand("verify", |c| {
            let c = domains::domain_arg(c, domains::verify_table);
            domains::add_options(c, domains::verify_table, None)
        });
    for unit in cantus_registry::domains() {
        for shortcut in unit.shortcuts() {
            if unit.composer().is_err() || command.find_subcommand(shortcut.command).is_some() {
                continue;
            }
            let sub =
                <compose::Args as clap::Args>::augment_args(clap::Command::new(shortcut.command))
                    .about(shortcut.about)
                    .mut_arg("domain", |a| {
                        a.hide(true)
                            .required(false)
                            .default_value(unit.id().as_str())
                    });
            command = command.subcommand(domains::add_options(
                sub,
                domains::compose_table,
                Some(unit),
            ));
        }
    }
    command
}

/// Runs the program: parses the command line (with every registered domain's flags)
/// and dispatches. A binary that links domains of its own calls this and nothing else.
pub fn main() -> ExitCode {
    let matches = match command().try_get_matches() {
        Ok(m) => m,
        Err(e) => return usage_error(e),
    };
    let is_shortcut = |name: &str| {
        cantus_registry::domains()
            .iter()
            .any(|u| u.shortcuts().iter().any(|s| s.command == name))
    };
    if let Some((name, sub)) = matches.subcommand()
        && is_shortcut(name)
    {
        return match <compose::Args as FromArgMatches>::from_arg_matches(sub) {
            Ok(args) => compose::run(args, sub).into(),
            Err(e) => usage_error(e),
        };
    }
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let sub: &ArgMatches = matches.subcommand().map_or(&matches, |(_, m)| m);
    let exit = match cli.command {
        Command::Compose(args) => compose::run(args, sub),
        Command::Verify(args) => verify::run(args, sub),
        Command::Bank(args) => bank::run(args),
        Command::Experiment(args) => experiment::run(args),
        Command::Analyze(args) => analyze::run(args),
        Command::Convert(args) => convert::run(args),
        Command::Rows(args) => rows::run(args),
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

/// Prints a usage error (or `--help`, `--version`) and says how to exit.
fn usage_error(e: clap::Error) -> ExitCode {
    let _ = e.print();
    if e.use_stderr() {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

/// Prints each file that could not be written, and the exit: released and every file
/// written, or an explicit failure.
pub fn written_exit(released: bool, write_errors: &[String]) -> Exit {
    for e in write_errors {
        eprintln!("error: could not write {e}");
    }
    if released && write_errors.is_empty() {
        Exit::Ok
    } else {
        Exit::Failed
    }
}

/// The multi-threaded runtime `cantus experiment run` and `cantus bank` hand the
/// runner ([`crate::experiment::jobs::io_runtime`]), or the exit when the system
/// cannot start one.
pub fn io_runtime() -> Result<tokio::runtime::Runtime, Exit> {
    crate::experiment::jobs::io_runtime().map_err(|e| {
        eprintln!("error: cannot start the runtime: {e}");
        Exit::Failed
    })
}

/// A single-threaded runtime for commands that drive the async engine.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("building a single-threaded tokio runtime")
}
