//! `cantus render PIECE`: the engraving (LilyPond), the audio (a General MIDI
//! SoundFont) and the HTML report of a piece, or the index of a directory of runs.

use super::{Exit, bad_input};
use cantus_render::annotate::Layers;
use cantus_render::audio::AudioFormat;
use cantus_render::engrave::Target;
use cantus_render::run::{Request, render};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A score (.txt, .mid, .musicxml), a `cantus compose` output directory, or (with --html) a directory of such runs (e.g. a `cantus bank` output).
    piece: PathBuf,
    /// Engrave with LilyPond to this format.
    #[arg(long, value_name = "svg|png|pdf", value_parser = ["svg", "png", "pdf"])]
    to: Option<String>,
    /// Render audio through a General MIDI SoundFont in this format.
    #[arg(long, value_name = "wav|ogg|flac", value_parser = ["wav", "ogg", "flac"])]
    audio: Option<String>,
    /// Write the HTML report (engraving, player, verdict, trace viewer); for a directory of runs, an index page too.
    #[arg(long)]
    html: bool,
    /// The trace to draw (repair colours, ghost notes); default: the run directory's trace.jsonl.
    #[arg(long, value_name = "trace.jsonl")]
    trace: Option<PathBuf>,
    /// The SoundFont (.sf2); default: CANTUS_SOUNDFONT, else the standard places (Debian's fluid-soundfont-gm).
    #[arg(long, value_name = "SF2")]
    soundfont: Option<PathBuf>,
    /// Show order positions as small numbers above the notes (twelve-tone).
    #[arg(long)]
    positions: bool,
    /// Output directory (default: the run directory, or the score's folder).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

pub fn run(args: Args) -> Exit {
    if args.to.is_none() && args.audio.is_none() && !args.html {
        return bad_input(
            "say what to render: --to svg|png|pdf, --audio wav|ogg|flac and/or --html",
        );
    }
    let request = Request {
        input: args.piece,
        trace: args.trace,
        to: args.to.as_deref().and_then(Target::parse),
        audio: args.audio.as_deref().and_then(AudioFormat::parse),
        soundfont: args.soundfont,
        html: args.html,
        out: args.out,
        layers: Layers {
            positions: args.positions,
            ..Layers::default()
        },
    };
    match render(&request) {
        Ok(done) => {
            for w in &done.warnings {
                eprintln!("warning: {w}");
            }
            for f in &done.failures {
                eprintln!("error: {f}");
            }
            for f in &done.files {
                say!("wrote {}", f.display());
            }
            if done.failures.is_empty() {
                Exit::Ok
            } else {
                Exit::Failed
            }
        }
        Err(e) => bad_input(e),
    }
}
