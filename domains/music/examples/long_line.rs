//! Release-mode timing harness for issue 17 item 6: one voice line holding `N`
//! onsets outside their bar, read strictly and leniently.
//!
//! ```text
//! cargo run --release -p cantus-music --example long_line -- 25000 100000 1000000
//! ```
//!
//! Prints the time per read; the reader must grow linearly with `N` (the errors
//! past the first 1000 are only counted).

use cantus_music::grammar::{ParseOptions, parse};
use std::time::Instant;

fn text(n: usize) -> String {
    let mut t = String::from("KEY: ? | METER: 4/4 | GRID: 16th\nVOICES: A\n@1 [-]\n  A:");
    for _ in 0..n {
        t.push_str(" C4@17>1");
    }
    t.push('\n');
    t
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![25_000, 100_000]
    } else {
        sizes
    };
    for n in sizes {
        let t = text(n);
        for (mode, opts) in [
            ("strict", ParseOptions::default()),
            ("lenient", ParseOptions::default().lenient()),
        ] {
            let start = Instant::now();
            let out = parse(&t, &opts);
            let took = start.elapsed();
            let diagnostics = match &out {
                Ok(p) => p.warnings.len(),
                Err(e) => e.diagnostics.len(),
            };
            println!(
                "N = {n:>8} ({:>9} bytes) {mode:<7} {:>9.3} s, {diagnostics} diagnostics kept",
                t.len(),
                took.as_secs_f64()
            );
        }
    }
}
