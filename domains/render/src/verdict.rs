//! The gate's verdict on a piece, judged afresh by its domain's review
//! ([`cantus_registry::Review::judge`]) in the one shape every domain shares: what
//! the report page lists and links.

use crate::piece::Piece;
use cantus_registry::{Reviewed, Verdict};
use serde_json::Value;

/// Judges the piece by its domain's gate. A domain without a review gives a
/// verdict that says so (nothing passed, no findings).
pub fn judge(piece: &Piece) -> Verdict {
    match piece.domain.reviewer() {
        Ok(review) => review.judge(reviewed(piece)),
        Err(missing) => Verdict {
            gate: piece.domain.id().to_string(),
            passed: false,
            findings: Vec::new(),
            facts: [("error".to_owned(), Value::from(missing.to_string()))].into(),
        },
    }
}

/// The piece as its domain's review takes it.
pub(crate) fn reviewed(piece: &Piece) -> Reviewed<'_> {
    Reviewed {
        view: &piece.view,
        report: piece.report.as_ref(),
    }
}
