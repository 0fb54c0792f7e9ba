//! `cantus fingerprint`: a piece's 29 Libretto axes — raw value, percentile
//! against a calibration table, and whether it sits at an extreme.

use super::{Exit, bad_input};
use cantus_libretto::fingerprint::raw_axes;
use cantus_libretto::load::{Loaded, load};
use cantus_libretto::{Calibration, Extreme, Fingerprint};
use serde_json::{Map, json};
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The piece (`.txt`, `.mid`, `.musicxml`).
    pub file: PathBuf,
    /// A calibration table (`cantus calibrate`, or the original's format); default:
    /// Libretto's 314-song table, shipped with Cantus.
    #[arg(long)]
    pub calibration: Option<PathBuf>,
    /// Read the text grammar as leniently as Libretto did (warnings on stderr).
    #[arg(long)]
    pub lenient: bool,
    /// Print JSON: `{ "axes": { id: { "raw", "percentile", "extreme" } }, … }`.
    #[arg(long)]
    pub json: bool,
}

/// Reads `--calibration`, or the shipped table.
pub fn table(path: Option<&Path>) -> Result<Calibration, cantus_libretto::CalibrationError> {
    Calibration::from_file_or_original(path)
}

/// Measures one file against `table`; `Err` holds the exit to return.
pub fn measure(path: &Path, lenient: bool, table: &Calibration) -> Result<Fingerprint, Exit> {
    let loaded = load(path, lenient).map_err(bad_input)?;
    for w in &loaded.warnings {
        eprintln!("warning: {w}");
    }
    place(path, &loaded, table)
}

/// The fingerprint of a piece already loaded from `path`.
pub fn place(path: &Path, loaded: &Loaded, table: &Calibration) -> Result<Fingerprint, Exit> {
    match raw_axes(&loaded.layout) {
        Ok(raw) => Ok(Fingerprint::place(&raw, table)),
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            Err(Exit::Failed)
        }
    }
}

fn extreme_word(e: Option<Extreme>) -> Option<&'static str> {
    e.map(|e| match e {
        Extreme::Low => "low",
        Extreme::High => "high",
    })
}

pub fn run(args: Args) -> Exit {
    let table = match table(args.calibration.as_deref()) {
        Ok(t) => t,
        Err(e) => return bad_input(e),
    };
    let fp = match measure(&args.file, args.lenient, &table) {
        Ok(fp) => fp,
        Err(exit) => return exit,
    };
    if args.json {
        let mut axes = Map::new();
        for r in &fp.readings {
            axes.insert(
                r.axis.id().to_string(),
                json!({
                    "raw": r.raw,
                    "percentile": r.percentile,
                    "extreme": extreme_word(r.extreme()),
                }),
            );
        }
        let doc = json!({
            "file": args.file.display().to_string(),
            "calibration": table.source,
            "reference_pieces": table.pieces(),
            "axes": axes,
            "extremes": fp.extremes().map(|r| r.axis.id()).collect::<Vec<_>>(),
        });
        say!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        return Exit::Ok;
    }
    say!(
        "{}: fingerprint against {} ({} pieces)",
        args.file.display(),
        table.source,
        table.pieces()
    );
    say!("{:<28} {:>14} {:>5}  extreme", "axis", "raw", "pct");
    for r in &fp.readings {
        let flag = match r.extreme() {
            Some(Extreme::Low) => "low (≤ 5th)",
            Some(Extreme::High) => "high (≥ 95th)",
            None => "",
        };
        say!(
            "{:<28} {:>14.6} {:>5}  {flag}",
            r.axis.id(),
            r.raw,
            r.percentile
        );
    }
    say!("{} of 29 axes at an extreme", fp.extremes().count());
    Exit::Ok
}
