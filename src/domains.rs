//! The rule domains this program ships. Each line links one domain crate, whose
//! `cantus_registry::register!` makes it known to every command; nothing else in the
//! command line names a domain. A program of your own links its domain the same way
//! (or in its own binary, beside a call to [`crate::cli::main`]).

use cantus_chorale as _;
use cantus_counterpoint as _;
use cantus_example_cycles as _;
use cantus_twelve_tone as _;
