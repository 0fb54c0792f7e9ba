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
use cantus_libretto::load::{load, score_files};
use cantus_libretto::reference::table_json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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

/// Preference among formats of one piece: text first.
fn format_rank(path: &Path) -> u8 {
    match path.extension().and_then(|e| e.to_str()) {
        Some("txt") => 0,
        Some("musicxml" | "xml") => 1,
        _ => 2,
    }
}

/// Whether the file is a piece the gate did not release (as `cantus bank` and
/// `cantus compose` name it).
fn unreleased(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("unreleased-"))
}

/// One file per piece (folder + stem), and how many unreleased files were left out.
fn one_per_piece(files: Vec<PathBuf>) -> (Vec<PathBuf>, usize) {
    let mut by_piece: BTreeMap<PathBuf, PathBuf> = BTreeMap::new();
    let mut left_out = 0;
    for file in files {
        if unreleased(&file) {
            left_out += 1;
            continue;
        }
        let key = file.with_extension("");
        match by_piece.get(&key) {
            Some(kept) if format_rank(kept) <= format_rank(&file) => {}
            _ => {
                by_piece.insert(key, file);
            }
        }
    }
    (by_piece.into_values().collect(), left_out)
}

pub fn run(args: Args) -> Exit {
    let files = match score_files(&args.dir) {
        Ok(f) => f,
        Err(e) => return bad_input(format!("{}: {e}", args.dir.display())),
    };
    let (files, unreleased) = one_per_piece(files);
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
