//! `cantus rows ROW|NAME`: the 48 forms, the matrix and the row's properties.

use super::{Exit, bad_input};
use cantus_twelve_tone::row::{Convention, RowsReport, row_or_name};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A row ("0 11 7 8 3 1 2 10 6 5 4 9", note names, "0123456789TE") or a historical name ("Webern Op. 21").
    #[arg(required = true, num_args = 1..)]
    row: Vec<String>,
    /// Labelling convention.
    #[arg(long, default_value = "zero-centred")]
    convention: Convention,
    /// Print JSON instead of the matrix.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Exit {
    let text = args.row.join(" ");
    let (row, name) = match row_or_name(&text) {
        Ok((row, historical)) => (row, historical.map(|h| h.id.to_string())),
        Err(e) => return bad_input(e),
    };
    let report = RowsReport::new(&row, name.as_deref(), args.convention);
    if args.json {
        say!("{}", report.to_json());
    } else {
        print!("{report}");
    }
    Exit::Ok
}
