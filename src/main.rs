//! `cantus`: the command-line program (`cantus::cli::main`).
//!
//! Exit codes everywhere: 0 released / passed, 1 explicit failure (the report says
//! why), 2 bad input (a usage, file or spec error).

fn main() -> std::process::ExitCode {
    cantus::cli::main()
}
