//! What an experiment's report shows of a domain beyond its strict gate's delivery,
//! in the domain's own words ([`crate::Trials`]): a lenient gate beside the strict
//! one ([`LenientGate`]), an analyser's share of the notes it explains
//! ([`Analyser`]), and the pieces people wrote that its artefacts are measured
//! against ([`Reference`]: their pitch-class and interval-class distributions and
//! analyser's share — only these numbers are kept, in an experiment's results, so a
//! report needs no score file).

use serde::{Deserialize, Serialize};

/// One reference piece's numbers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    /// The piece, as the report names it (its path in the repository).
    pub name: String,
    /// Pitch-class distribution (sums to 1).
    pub pitch_classes: Vec<f64>,
    /// Melodic interval-class distribution, classes 0..=6 (sums to 1).
    pub interval_classes: Vec<f64>,
    /// Share of its notes the domain's analyser explains
    /// ([`crate::Trials::explained_share`]); absent where the domain has no analyser,
    /// and in results written before it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysis_share: Option<f64>,
}

/// A domain's two gates, as the report's Delivery section describes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LenientGate {
    /// What the strict gate does (twelve-tone: "the strict gate (labels re-derived
    /// from the pitches)").
    pub strict: &'static str,
    /// What the lenient one takes on trust (twelve-tone: "the gate that trusts the
    /// generator's row tags").
    pub lenient: &'static str,
}

/// A domain's analyser, as the report's section on it is worded
/// ([`crate::Trials::explained_share`] is what it measures).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Analyser {
    /// The section's title ("Serial analysis").
    pub title: &'static str,
    /// What the share is, a sentence without its full stop, to which the report adds
    /// "averaged over the cell's pieces" ("Share of a piece's notes `cantus analyze`
    /// explains by row statements (…)").
    pub explains: &'static str,
    /// The table column's heading ("notes explained by rows").
    pub column: &'static str,
}

impl Analyser {
    /// The words for a domain that measures a share but names no analyser.
    pub const UNNAMED: Analyser = Analyser {
        title: "Analysis",
        explains: "Share of a piece's notes the domain's analyser explains",
        column: "notes explained",
    };
}
