//! `cantus compare`: how much of one piece another already holds (Libretto's
//! note-level copy risk, slid over bar offsets), and how far apart their
//! fingerprints are.

use super::fingerprint::{place, table};
use super::{Exit, bad_input};
use cantus_libretto::NoteGrid;
use cantus_libretto::copy::COPY_THRESHOLD;
use cantus_libretto::load::load;
use serde_json::json;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The piece judged.
    pub a: PathBuf,
    /// The piece it may copy.
    pub b: PathBuf,
    /// Calibration table for the fingerprint distance (default: the shipped one).
    #[arg(long)]
    pub calibration: Option<PathBuf>,
    /// Read text leniently.
    #[arg(long)]
    pub lenient: bool,
    /// Print JSON (`copy_risk`, `copy_risk_reverse`, `offset`, `distance`).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Exit {
    let table = match table(args.calibration.as_deref()) {
        Ok(t) => t,
        Err(e) => return bad_input(e),
    };
    // Each file is read once: its note grid and its fingerprint come from the one load.
    let (la, lb) = match (load(&args.a, args.lenient), load(&args.b, args.lenient)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return bad_input(e),
    };
    for w in la.warnings.iter().chain(&lb.warnings) {
        eprintln!("warning: {w}");
    }
    let (ga, gb) = (
        NoteGrid::of(&la.layout.song()),
        NoteGrid::of(&lb.layout.song()),
    );
    let (risk, offset) = ga.slide_overlap(&gb);
    let (reverse, _) = gb.slide_overlap(&ga);
    let fa = match place(&args.a, &la, &table) {
        Ok(f) => f,
        Err(exit) => return exit,
    };
    let fb = match place(&args.b, &lb, &table) {
        Ok(f) => f,
        Err(exit) => return exit,
    };
    let distance = fa.distance(&fb);
    if args.json {
        let doc = json!({
            "a": args.a.display().to_string(),
            "b": args.b.display().to_string(),
            "copy_risk": risk,
            "copy_risk_reverse": reverse,
            "offset": offset,
            "threshold": COPY_THRESHOLD,
            "copy": risk >= COPY_THRESHOLD,
            "distance": distance,
        });
        say!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        return Exit::Ok;
    }
    say!(
        "copy risk {risk:.3} ({} of A's notes found in B at bar offset {offset:+}); threshold {COPY_THRESHOLD:.2}: {}",
        (risk * ga.total as f64).round(),
        if risk >= COPY_THRESHOLD { "COPY" } else { "ok" }
    );
    say!("reverse (B's notes in A) {reverse:.3}");
    say!("fingerprint distance {distance:.2} (mean |Δ percentile| over 29 axes)");
    Exit::Ok
}
