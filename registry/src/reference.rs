//! A piece people wrote, as an experiment's report measures against it: its
//! pitch-class and interval-class distributions and the share of its notes the
//! domain's analyser explains. Only these numbers are kept (in an experiment's
//! results), so a report needs no score file; a domain ships its reference set as
//! such numbers ([`crate::Trials::reference`]).

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
