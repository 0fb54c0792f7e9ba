//! `cantus verify [--domain ID] FILE`: judge any file by a domain's release gate.

use super::{Exit, bad_input, domains};
use clap::ArgMatches;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rule domain (`cantus plugins` lists them); each adds its own flags below.
    #[arg(long)]
    pub domain: String,
    /// The piece: .txt (grammar), .mid or .musicxml (or the domain's own format).
    pub file: PathBuf,
    /// Read leniently: a text-grammar file as raw model output is read; grace notes
    /// (MusicXML, MEI, grammar) are kept and judged as row tones.
    #[arg(long)]
    pub lenient: bool,
    /// Print a JSON object: passed, mode, violations [{predicate, bar, voice, onset, reason}], facts.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, matches: &ArgMatches) -> Exit {
    let unit = match cantus_registry::find(&args.domain) {
        Ok(u) => u,
        Err(e) => return bad_input(e),
    };
    let verifier = match unit.verifier() {
        Ok(v) => v,
        Err(e) => return bad_input(e),
    };
    let domain_args =
        match domains::args_of(matches, unit, domains::verify_table, &["lenient", "json"]) {
            Ok(a) => a,
            Err(e) => return bad_input(e),
        };
    let verified = match verifier.verify(&args.file, args.lenient, &domain_args) {
        Ok(v) => v,
        Err(e) => return bad_input(e),
    };
    for w in &verified.warnings {
        eprintln!("{w}");
    }
    if args.json {
        super::print_json(&verified.json);
    } else {
        for line in &verified.lines {
            say!("{line}");
        }
    }
    if verified.passed {
        Exit::Ok
    } else {
        Exit::Failed
    }
}
