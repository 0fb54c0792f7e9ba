//! `cantus convert IN OUT`: between the text grammar, MIDI, MusicXML and LilyPond.

use super::{Exit, ReadFlags, bad_input};
use cantus_music::format::{Format, read_path_with, write_path};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Input score (.txt grammar, .mid, .musicxml, .mxl, .mei).
    input: PathBuf,
    /// Output score (.txt, .mid, .musicxml, .ly); the extension picks the format.
    output: PathBuf,
    #[command(flatten)]
    read: ReadFlags,
    /// Keep grace notes (MusicXML, MEI, text grammar) as notes without duration. Only the
    /// text grammar writes them (`>g`); other outputs leave them out and say how many.
    #[arg(long)]
    grace_notes: bool,
}

pub fn run(args: Args) -> Exit {
    let options = cantus_music::ReadOptions {
        grace_notes: args.grace_notes,
        ..args.read.options()
    };
    let loaded = match read_path_with(&args.input, &options) {
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
    // Only the text grammar writes grace notes; the others left them out.
    let graces_kept = Format::from_path(&args.output).is_ok_and(|f| f == Format::Grammar);
    let left_out = if graces_kept {
        0
    } else {
        loaded.score.grace_count()
    };
    eprintln!(
        "wrote {} ({} voices, {} events, {} bars)",
        args.output.display(),
        loaded.score.voices.len(),
        loaded.score.event_count() - left_out,
        loaded.score.bar_count()
    );
    Exit::Ok
}
