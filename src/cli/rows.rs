//! `cantus rows ROW|NAME`: the 48 forms, the matrix and the row's properties.

use super::{Exit, bad_input};
use cantus_twelve_tone::row::{Convention, Row, RowsReport, resolve};

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
    let (row, name) = match Row::parse(&text) {
        Ok(row) => (row, None),
        Err(parse_err) => match resolve(&text) {
            Ok(h) => (h.row, Some(h.id.to_string())),
            Err(name_err) => {
                return bad_input(format!(
                    "{text:?} is neither a row ({parse_err}) nor a historical row name ({name_err})"
                ));
            }
        },
    };
    let report = RowsReport::new(&row, name.as_deref(), args.convention);
    if args.json {
        say!("{}", report.to_json());
    } else {
        print!("{report}");
    }
    Exit::Ok
}
