//! What an experiment of twelve-tone tasks measures its pieces against: the serial
//! analyser's share of a piece's notes explained by row statements, and the shipped
//! reference set — the corpus `corpus/second-viennese` (free-atonal songs by
//! Schoenberg and Webern and the opening of Webern's twelve-tone Op. 21; see its
//! README), used when an experiment file names no `[metrics] reference`.
//!
//! The corpus's numbers are built into the program (`second_viennese.json`), so an
//! experiment measures against it from any directory; the `cantus` package's
//! `tests/corpus.rs` keeps them equal to what the experiment runner reads from the
//! corpus (`CANTUS_BLESS=1 cargo test --test corpus` rewrites them after a corpus
//! change).

use crate::analysis::{Options, analyze};
use cantus_music::Score;
use cantus_registry::{Analyser, Reference};

/// Where the shipped corpus lives in the repository; its pieces are named by their
/// paths under it.
pub const CORPUS: &str = "corpus/second-viennese";

/// The file its numbers are kept in, from the repository's root (for the test that
/// rewrites them).
pub const NUMBERS: &str = "domains/twelve-tone/src/plugin/second_viennese.json";

/// The shipped corpus's numbers (see the module documentation).
pub fn shipped() -> Vec<Reference> {
    serde_json::from_str(include_str!("second_viennese.json"))
        .expect("second_viennese.json is a list of references (checked by its test)")
}

/// How the report words its section on [`explained_share`].
pub const ANALYSER: Analyser = Analyser {
    title: "Serial analysis",
    explains: "Share of a piece's notes `cantus analyze` explains by row statements (order \
               positions, doublings, repetitions; the row inferred from the piece, as for music \
               people wrote)",
    column: "notes explained by rows",
};

/// The share of the notes of `score` that the serial analyser explains by row
/// statements (positions, doublings, repetitions), the row inferred as `cantus
/// analyze` infers it; `None` for a piece with no notes or one it cannot time. The
/// verdict's control (shuffled copies) is not computed: the share does not use it.
pub fn explained_share(score: &Score) -> Option<f64> {
    let options = Options {
        control_copies: 0,
        ..Options::default()
    };
    let analysis = analyze(score, &options).ok()?;
    (analysis.notes > 0).then(|| analysis.explained as f64 / analysis.notes as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_numbers_read_and_name_pieces_of_the_corpus() {
        let pieces = shipped();
        assert!(!pieces.is_empty());
        for p in &pieces {
            assert!(p.name.starts_with(CORPUS), "{}", p.name);
            assert_eq!(p.pitch_classes.len(), 12, "{}", p.name);
            assert_eq!(p.interval_classes.len(), 7, "{}", p.name);
            let sum: f64 = p.pitch_classes.iter().sum();
            assert!((sum - 1.0).abs() < 1e-9, "{}: {sum}", p.name);
            assert!(p.analysis_share.is_some(), "{}", p.name);
        }
    }
}
