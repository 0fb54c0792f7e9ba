//! `cantus`: the command-line program.
//!
//! Exit codes everywhere: 0 released / passed, 1 explicit failure (the report says
//! why), 2 bad input (a usage, file or spec error).

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
