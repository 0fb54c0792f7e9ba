//! `cantus calibrate`: a calibration table (per-axis sorted reference values and
//! quantiles, in the original's format) from every score under a directory.
//!
//! It reads what `cantus bank` writes: each piece once (one file per stem and
//! folder, text preferred over MusicXML over MIDI, since a bank folder holds the
//! same piece in every format) and never a piece the gate did not release
//! (`unreleased-piece.*`). The table's header also carries the degeneracy gate
//! calibrated on the same pieces (judged axes and extreme budget), which the
//! revise loop needs and the per-axis columns cannot give back.

use super::{Exit, bad_input};
use cantus_libretto::fingerprint::raw_axes;
use cantus_libretto::load::{load, piece_files};
use cantus_libretto::reference::table_json;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Directory of scores (`.txt`, `.mid`, `.musicxml`; searched recursively).
    pub dir: PathBuf,
    /// Where to write the table (JSON).
    #[arg(long)]
    pub out: PathBuf,
    /// Read text leniently.
    #[arg(long)]
    pub lenient: bool,
}

pub fn run(args: Args) -> Exit {
    let (files, unreleased) = match piece_files(&args.dir) {
        Ok(f) => f,
        Err(e) => return bad_input(format!("{}: {e}", args.dir.display())),
    };
    let mut pieces = Vec::new();
    let mut names = Vec::new();
    let mut skipped = 0;
    for file in &files {
        let measured = load(file, args.lenient)
            .map_err(|e| e.to_string())
            .and_then(|l| raw_axes(&l.layout).map_err(|e| format!("{}: {e}", file.display())));
        match measured {
            Ok(raw) => {
                pieces.push(raw);
                names.push(
                    file.strip_prefix(&args.dir)
                        .unwrap_or(file)
                        .display()
                        .to_string(),
                );
            }
            Err(e) => {
                eprintln!("warning: skipped {e}");
                skipped += 1;
            }
        }
    }
    if pieces.is_empty() {
        return bad_input(format!(
            "{}: no readable score (.txt, .mid, .musicxml) with notes",
            args.dir.display()
        ));
    }
    let (_, doc) = table_json(&args.dir.display().to_string(), &pieces, &names);
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    if let Err(e) = std::fs::write(&args.out, text + "\n") {
        return bad_input(format!("{}: {e}", args.out.display()));
    }
    let gate = &doc["header"]["degeneracy"];
    say!(
        "calibrated {} pieces ({skipped} skipped, {unreleased} unreleased left out); \
         degeneracy budget {} over {} axes → {}",
        pieces.len(),
        gate["budget"],
        gate["axes"].as_array().map_or(0, Vec::len),
        args.out.display()
    );
    Exit::Ok
}
