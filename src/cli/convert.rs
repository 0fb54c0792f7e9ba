//! `cantus convert IN OUT`: between the text grammar, MIDI, MusicXML and LilyPond.

use super::{Exit, ReadFlags, bad_input};
use cantus_music::format::{read_path_with, write_path};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Input score (.txt grammar, .mid, .musicxml, .mxl, .mei).
    input: PathBuf,
    /// Output score (.txt, .mid, .musicxml, .ly); the extension picks the format.
    output: PathBuf,
    #[command(flatten)]
    read: ReadFlags,
}

pub fn run(args: Args) -> Exit {
    let loaded = match read_path_with(&args.input, &args.read.options()) {
        Ok(l) => l,
        Err(e) => return bad_input(e),
    };
    for w in &loaded.warnings {
        eprintln!("{w}");
    }
    match write_path(&args.output, &loaded.score) {
        Ok(renamed) => renamed.iter().for_each(|w| eprintln!("{w}")),
        Err(e) => return bad_input(e),
    }
    eprintln!(
        "wrote {} ({} voices, {} events, {} bars)",
        args.output.display(),
        loaded.score.voices.len(),
        loaded.score.event_count(),
        loaded.score.bar_count()
    );
    Exit::Ok
}
