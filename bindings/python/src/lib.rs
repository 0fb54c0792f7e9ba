//! `cantus._cantus`: the native half of the Python package `cantus-music`.
//!
//! The Python half (`python/cantus/`) is what people import: typed classes with
//! `fractions.Fraction` times, exceptions with locations, music21 and pandas
//! interop, notebook display. This half holds the score and calls the library
//! crates — `cantus-music` (formats), `cantus-twelve-tone` (gate, analyser, rows),
//! `cantus-counterpoint`, `cantus-libretto` (fingerprint, copy risk), `cantus-render`
//! (engraving) and the program's library `cantus` (the `cantus.toml` settings and
//! the domains it links) — never the binary. `verify` and `compose` find a domain
//! by name in the domain registry (`cantus-registry`) and run its registered
//! verifier and composer, the CLI's own, so a domain the program links is reachable
//! from Python without a line here.
//!
//! Reports cross as the JSON the CLI's `--json` prints, one definition for both;
//! long work runs with the interpreter released.

mod compose;
mod engrave;
mod errors;
mod judge;
mod measure;
mod score;
mod serial;

use pyo3::prelude::*;

/// The native half of `cantus`: use the `cantus` package, not this module.
#[pymodule]
mod _cantus {
    #[pymodule_export]
    use super::compose::{Composed, compose};
    #[pymodule_export]
    use super::engrave::{engrave, lilypond_available};
    #[pymodule_export]
    use super::judge::{domains, verify, verify_file};
    #[pymodule_export]
    use super::measure::{compare, fingerprint};
    #[pymodule_export]
    use super::score::{NativeScore, build, pitch, read_bytes, read_path};
    #[pymodule_export]
    use super::serial::{Marks, analyze, historical_rows, rows};

    use pyo3::prelude::*;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))
    }
}
