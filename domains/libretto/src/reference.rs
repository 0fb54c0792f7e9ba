//! The serial reference: a calibration table of Cantus's own released
//! twelve-tone pieces, shipped with the program.
//!
//! Against the original's pop-song table every serial piece sits at an extreme
//! of its pitch-class axes by construction, which says nothing about whether it
//! is degenerate. A twelve-tone piece is therefore placed against pieces of its
//! own style: the embedded proposer's released pieces of the brief bank
//! (`data/README.md` says exactly how the table was computed; `cantus bank` then
//! `cantus calibrate` recompute it).
//!
//! A table's `header.degeneracy` (written by `cantus calibrate`) carries the
//! degeneracy gate calibrated on the same pieces — the judged axes and the
//! extreme budget of the original's rule — because the budget needs each
//! piece's own extreme count, which the per-axis columns no longer hold.

use crate::axes::{Axis, RawAxes};
use crate::calibration::{Calibration, CalibrationError};
use crate::gates::Degeneracy;
use serde_json::{Value, json};
use std::sync::OnceLock;

/// The shipped serial reference table (JSON, the original's format).
pub const SERIAL_JSON: &str = include_str!("../data/serial-reference.json");

/// Where the shipped serial table comes from (shown in reports).
pub const SERIAL_SOURCE: &str = "Cantus serial reference (embedded proposer, brief bank)";

impl Calibration {
    /// The serial reference: Cantus's released embedded twelve-tone pieces of
    /// the brief bank.
    pub fn serial() -> &'static Calibration {
        static TABLE: OnceLock<Calibration> = OnceLock::new();
        TABLE.get_or_init(|| {
            Calibration::from_json(SERIAL_JSON, SERIAL_SOURCE)
                .expect("the shipped serial table is valid (checked by a test)")
        })
    }
}

impl Degeneracy {
    /// The degeneracy gate calibrated with the serial reference (its judged axes
    /// and budget from the table's header).
    pub fn serial() -> Degeneracy {
        static GATE: OnceLock<Degeneracy> = OnceLock::new();
        GATE.get_or_init(|| {
            Degeneracy::from_table_json(SERIAL_JSON)
                .ok()
                .flatten()
                .expect("the shipped serial table has a degeneracy header (checked by a test)")
        })
        .clone()
    }

    /// The gate stored in a table's `header.degeneracy`; `Ok(None)` when the
    /// table has none (e.g. the original's).
    pub fn from_table_json(text: &str) -> Result<Option<Degeneracy>, CalibrationError> {
        let doc: Value =
            serde_json::from_str(text).map_err(|e| CalibrationError::Json(e.to_string()))?;
        let Some(stored) = doc.get("header").and_then(|h| h.get("degeneracy")) else {
            return Ok(None);
        };
        let bad = |problem: &str| CalibrationError::Json(format!("header.degeneracy: {problem}"));
        let budget = stored
            .get("budget")
            .and_then(Value::as_u64)
            .ok_or_else(|| bad("no integer `budget`"))?;
        let axes = stored
            .get("axes")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("no `axes` array"))?
            .iter()
            .map(|id| {
                id.as_str()
                    .and_then(Axis::from_id)
                    .ok_or_else(|| bad(&format!("unknown axis {id}")))
            })
            .collect::<Result<Vec<Axis>, _>>()?;
        Ok(Some(Degeneracy {
            budget: usize::try_from(budget).map_err(|_| bad("budget too large"))?,
            axes,
            idiomatic: Vec::new(),
        }))
    }

    /// The gate as a table header entry (`{"budget": n, "axes": [ids]}`).
    pub fn header_json(&self) -> Value {
        json!({
            "budget": self.budget,
            "axes": self.axes.iter().map(|a| a.id()).collect::<Vec<_>>(),
            "rule": "axes whose reference column separates pieces; budget = ceil(p85 of the \
                     reference pieces' own extreme counts), clamped to 3..=6",
        })
    }
}

/// A table of `pieces` in the original's format, with the degeneracy gate
/// calibrated on them in its header (what `cantus calibrate` writes).
pub fn table_json(source: &str, pieces: &[RawAxes], names: &[String]) -> (Calibration, Value) {
    let table = Calibration::from_pieces(source, pieces);
    let gate = Degeneracy::calibrated(&table, pieces);
    let mut doc = table.to_json(names);
    if let Some(header) = doc.get_mut("header").and_then(Value::as_object_mut) {
        header.insert("degeneracy".into(), gate.header_json());
    }
    (table, doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_serial_table_reads_with_its_gate() {
        let table = Calibration::serial();
        assert!(table.pieces() >= 100, "{} pieces", table.pieces());
        let gate = Degeneracy::serial();
        assert!((3..=6).contains(&gate.budget), "{gate:?}");
        // The judged axes are exactly those whose column separates pieces.
        for axis in Axis::ALL {
            assert_eq!(
                gate.axes.contains(&axis),
                !table.column(axis).is_degenerate(),
                "{}",
                axis.id()
            );
        }
    }

    #[test]
    fn a_bad_degeneracy_header_is_an_error_and_none_is_none() {
        let none = r#"{"header": {}, "axes": {}}"#;
        assert_eq!(Degeneracy::from_table_json(none), Ok(None));
        let bad = r#"{"header": {"degeneracy": {"budget": 3, "axes": ["no_such_axis"]}}}"#;
        let err = Degeneracy::from_table_json(bad).unwrap_err().to_string();
        assert!(err.contains("unknown axis \"no_such_axis\""), "{err}");
        let bad = r#"{"header": {"degeneracy": {"axes": []}}}"#;
        let err = Degeneracy::from_table_json(bad).unwrap_err().to_string();
        assert!(err.contains("no integer `budget`"), "{err}");
    }
}
