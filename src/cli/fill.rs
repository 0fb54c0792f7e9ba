//! `cantus fill`: propose the bars of a range so that they pass Libretto's gates
//! against their context (copy risk, degeneracy), with the embedded proposer.

use super::fingerprint::table;
use super::{Exit, bad_input};
use cantus_libretto::fill::{FillRequest, fill};
use cantus_music::format;
use serde_json::json;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The piece (`.txt`, `.mid`, `.musicxml`).
    pub file: PathBuf,
    /// The bars to fill, `A-B` (1-based, inclusive), or one bar `A`.
    #[arg(long)]
    pub bars: String,
    /// Write the filled piece here (format by extension); default: the text
    /// grammar on stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Seed of the embedded proposer.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Candidates to try.
    #[arg(long, default_value_t = 24)]
    pub candidates: usize,
    /// Calibration table (default: the shipped one).
    #[arg(long)]
    pub calibration: Option<PathBuf>,
    /// Read text leniently.
    #[arg(long)]
    pub lenient: bool,
    /// Print the verdict as JSON (with `--out`; otherwise stdout holds the piece).
    #[arg(long)]
    pub json: bool,
}

fn parse_range(text: &str) -> Option<(u32, u32)> {
    let (a, b) = text.split_once('-').unwrap_or((text, text));
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

pub fn run(args: Args) -> Exit {
    let Some((first_bar, last_bar)) = parse_range(&args.bars) else {
        return bad_input(format!("--bars {}: expected A-B, e.g. 5-8", args.bars));
    };
    let table = match table(args.calibration.as_deref()) {
        Ok(t) => t,
        Err(e) => return bad_input(e),
    };
    let loaded = match format::read_path(&args.file, args.lenient) {
        Ok(l) => l,
        Err(e) => return bad_input(e),
    };
    for w in &loaded.warnings {
        eprintln!("warning: {w}");
    }
    let req = FillRequest {
        first_bar,
        last_bar,
        candidates: args.candidates,
        seed: args.seed,
    };
    let filled = match fill(&loaded.score, &req, &table) {
        Ok(f) => f,
        Err(e) => return bad_input(format!("{}: {e}", args.file.display())),
    };
    let verdict = format!(
        "bars {first_bar}-{last_bar}: copy risk {:.3} (< 0.30 {}), {} extremes (≤ {} {}), distance to context {:.1}; best of {} candidates",
        filled.copy_risk,
        if filled.copy_risk < 0.30 {
            "ok"
        } else {
            "FAIL"
        },
        filled.extremes,
        filled.budget,
        if filled.extremes <= filled.budget {
            "ok"
        } else {
            "FAIL"
        },
        filled.distance,
        filled.tried
    );
    match &args.out {
        Some(out) => {
            if let Err(e) = format::write_path(out, &filled.score) {
                return bad_input(e);
            }
            if args.json {
                let doc = json!({
                    "out": out.display().to_string(),
                    "copy_risk": filled.copy_risk,
                    "extremes": filled.extremes,
                    "budget": filled.budget,
                    "distance": filled.distance,
                    "passed": filled.passed,
                    "candidates": filled.tried,
                });
                say!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
            } else {
                say!("{verdict}");
                say!("wrote {}", out.display());
            }
        }
        None => {
            match cantus_music::grammar::write(&filled.score) {
                Ok(text) => say!("{}", text.trim_end()),
                Err(e) => return bad_input(e),
            }
            eprintln!("{verdict}");
        }
    }
    if filled.passed {
        Exit::Ok
    } else {
        Exit::Failed
    }
}
