//! `cantus analyze FILE`: the serial analysis of any piece (statements across the
//! texture, elisions, canons, what is left unexplained); `cantus analyze DIR`: one
//! table row per piece of a corpus (`crate::corpus`). Use `cantus verify` to judge a
//! generated piece by the strict release gate instead.

use super::{Exit, ReadFlags, bad_input};
use cantus_music::format::read_path_with;
use cantus_music::lilypond;
use cantus_twelve_tone::analysis::{
    CONTROL_COPIES, DEFAULT_MIN_POSITIONS, Options, analyze, annotations,
};
use cantus_twelve_tone::row::row_or_name;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The piece: .txt (grammar), .mid, .musicxml, .mxl or .mei, at most 20,000 notes
    /// (every pitch of every event) analysed; or a directory, to analyse every score file
    /// in it and print one table row per piece.
    file: PathBuf,
    /// The row ("0 11 7 …", note names, or a historical name such as "Webern Op. 21"); inferred when absent.
    #[arg(long)]
    row: Option<String>,
    /// Fewest order positions (of 12) a statement must sound to be reported.
    #[arg(long, default_value_t = DEFAULT_MIN_POSITIONS)]
    min_positions: u8,
    /// Copies of the piece with its pitch classes shuffled, analysed the same way, that the
    /// verdict is judged against (each one more analysis; 0: none, the verdict then rests on
    /// the share in complete statements alone; at most 16; skipped past 5,000 notes).
    #[arg(long, default_value_t = CONTROL_COPIES)]
    control_copies: u8,
    /// Print the analysis (for a directory: every piece's row) as JSON instead of the listing.
    #[arg(long)]
    json: bool,
    /// Also write the analysis as score annotations (labels, order positions) to this JSON file.
    #[arg(long, value_name = "OUT.json")]
    marks: Option<PathBuf>,
    /// Also write the piece as LilyPond with the analysis drawn on it: each statement's
    /// labels over its first note, order positions by the notes, unexplained notes grey.
    #[arg(long, value_name = "OUT.ly")]
    annotate: Option<PathBuf>,
    #[command(flatten)]
    read: ReadFlags,
}

pub fn run(args: Args) -> Exit {
    let row = match args.row.as_deref().map(row_or_name).transpose() {
        Ok(row) => row.map(|(row, _)| row),
        Err(e) => return bad_input(format!("--row: {e}")),
    };
    let options = Options {
        row,
        min_positions: args.min_positions,
        control_copies: args.control_copies,
    };
    if args.file.is_dir() {
        return corpus(&args, &options);
    }
    // Composers write row tones as grace notes: the analysis reads them.
    let read = cantus_music::ReadOptions {
        grace_notes: true,
        ..args.read.options()
    };
    let loaded = match read_path_with(&args.file, &read) {
        Ok(l) => l,
        Err(e) => return bad_input(e),
    };
    for w in &loaded.warnings {
        eprintln!("{w}");
    }
    let analysis = match analyze(&loaded.score, &options) {
        Ok(a) => a,
        Err(e) => return bad_input(format!("{}: {e}", args.file.display())),
    };
    let marks = annotations(&analysis);
    if let Some(path) = &args.marks {
        let text = serde_json::to_string_pretty(&marks).unwrap_or_default();
        if let Err(e) = std::fs::write(path, text + "\n") {
            return bad_input(format!("{}: {e}", path.display()));
        }
    }
    if let Some(path) = &args.annotate {
        // LilyPond output leaves grace notes out (their marks are not drawn either).
        let mut drawn = loaded.score.clone();
        let left_out = drawn.remove_grace_notes();
        if left_out > 0 {
            eprintln!(
                "{path}: {left_out} grace notes not drawn",
                path = path.display()
            );
        }
        let written = lilypond::write_annotated(&drawn, &marks, &lilypond::Options::default())
            .map_err(|e| format!("cannot write {} as LilyPond: {e}", path.display()))
            .and_then(|text| {
                std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
            });
        if let Err(e) = written {
            return bad_input(e);
        }
    }
    if args.json {
        say!("{}", analysis.to_json());
    } else {
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), "{analysis}");
    }
    Exit::Ok
}

/// `cantus analyze DIR`: the corpus table (or its JSON).
fn corpus(args: &Args, options: &Options) -> Exit {
    if args.marks.is_some() || args.annotate.is_some() {
        return bad_input("--marks and --annotate take one piece, not a directory");
    }
    let corpus = match crate::corpus::analyze_dir(&args.file, &args.read.options(), options) {
        Ok(c) => c,
        Err(e) => return bad_input(e),
    };
    if args.json {
        say!("{}", corpus.to_json());
    } else {
        say!("{corpus}");
    }
    Exit::Ok
}
