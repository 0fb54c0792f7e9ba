//! The blind-evaluation package: pairs of pieces for experts to judge without
//! knowing which condition made which, and the scoring of their ratings.
//!
//! # Input contract
//!
//! `cantus blind DIR` reads a directory of run folders (or an experiment's output
//! directory, whose run folders are under `runs/`), each holding a piece
//! (`piece.txt`, `.musicxml` or `.mid`, or the `unreleased-` ones) and a
//! `report.json` naming its study cell under `"study"` — as every run folder of
//! `cantus experiment run` (with `run_folders = true`) and of `cantus bank` does —
//! or, in a folder made by hand, at its top:
//!
//! * `condition` — e.g. `harness` or `raw` (required);
//! * `task` — what was asked (default: the report's `brief.text`);
//! * `model` — who proposed (default: the trace's `run.proposer`).
//!
//! Pairs are runs of the same task and model under the two conditions. From an
//! experiment to a package is two commands: `cantus experiment run FILE --out DIR`
//! (with `run_folders = true`), then `cantus blind DIR --conditions A,B --out PKG`.
//!
//! # The package
//!
//! [`build`] writes `PKG/index.html` (one rating form per pair: both pieces
//! engraved plain — no labels, colours or marks that would tell the condition —
//! with a player each; the paper's four criteria, each with a preference A / B /
//! no preference and a 1–5 rating of each side; an "export ratings" button that
//! downloads a CSV), the pair files, `PKG/MANIFEST.sha256` (`sha256sum -c`
//! format, every file of the package), and the key — which side is which
//! condition, and the seed the sides were drawn with (a fresh one unless given) —
//! outside the package, refused inside it however the path is spelled. [`check`]
//! holds a package to its manifest (no file missing, changed or added); [`score`]
//! reads the key and the CSVs back.

mod key;
mod manifest;
mod package;
mod ratings;
mod score;
pub mod stats;

pub use key::{KEY_FILE_CAP, Key};
pub use manifest::{Checked, MANIFEST, check, key_place};
pub use package::{BlindOptions, Package, build};
pub use ratings::{RATINGS_LINE_CAP, Ratings};
pub use score::{CriterionResult, RaterAgreement, Scores, score, scores};

/// The four criteria of the harness paper's expert study, in its order.
pub const CRITERIA: [Criterion; 4] = [
    Criterion::RuleAdherence,
    Criterion::PerceivedLegality,
    Criterion::Coherence,
    Criterion::OverallQuality,
];

/// One criterion raters judge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Criterion {
    RuleAdherence,
    PerceivedLegality,
    Coherence,
    OverallQuality,
}

impl Criterion {
    /// The id written in the CSV.
    pub fn id(self) -> &'static str {
        match self {
            Criterion::RuleAdherence => "rule-adherence",
            Criterion::PerceivedLegality => "perceived-legality",
            Criterion::Coherence => "coherence",
            Criterion::OverallQuality => "overall-quality",
        }
    }

    /// The name raters read.
    pub fn title(self) -> &'static str {
        match self {
            Criterion::RuleAdherence => "Rule adherence",
            Criterion::PerceivedLegality => "Perceived legality",
            Criterion::Coherence => "Coherence",
            Criterion::OverallQuality => "Overall quality",
        }
    }

    /// What raters are asked.
    pub fn question(self) -> &'static str {
        match self {
            Criterion::RuleAdherence => "Which piece keeps the rules of its style more strictly?",
            Criterion::PerceivedLegality => {
                "Which piece sounds more like a correct piece of its style?"
            }
            Criterion::Coherence => "Which piece hangs together better as music?",
            Criterion::OverallQuality => "Which piece is better overall?",
        }
    }

    /// The criterion with this CSV id.
    pub fn from_id(id: &str) -> Option<Criterion> {
        CRITERIA.into_iter().find(|c| c.id() == id)
    }
}

/// The header of a ratings CSV, as the package's export writes it.
pub const CSV_HEADER: &str = "rater,pair,criterion,preference,rating_a,rating_b";
