//! Libretto's measures in Cantus: a fingerprint of 29 structural axes (rhythm,
//! harmony, melody, texture, form, within-piece variation), each placed as a
//! percentile against a reference corpus, and the gates built on it — so a
//! musical domain can tell music from a degenerate texture that obeys the letter
//! of its rules (held notes, empty bars, one cell repeated).
//!
//! * [`song`]: the piece as the original measures it (from text, or any score).
//! * [`axes`]: the 29 axes, exactly as Libretto v2.2 computes them.
//! * [`calibration`]: per-axis reference columns and percentiles; the original's
//!   314-song table ships inside the crate.
//! * [`fingerprint`](mod@fingerprint): raw value, percentile and extreme flag per axis.
//! * [`fill`](mod@fill): gap filling, by a deterministic embedded proposer or a model
//!   backend, both judged by the same gates.
//! * [`copy`]: note-level copy risk, slid over bar offsets.
//! * [`load`]: score files → layouts, with the readers' diagnostics.
//! * [`gates`]: degeneracy, copy risk, style fit, novelty; [`measure`]: all of
//!   them as a [`cantus_framework::Measure`] for `Engine::revise`.
//! * [`reference`](mod@reference): the serial reference table of Cantus's own pieces, shipped
//!   for the twelve-tone domain's revise loop.
//! * [`retrieval`]: reference pieces from any directory (a cached fingerprint
//!   index), the nearest to a target, and the excerpts shown to a proposer.
//! * [`workflow`]: whole pieces in a style, morphs, teaching examples and
//!   extensions — one revise loop, each workflow's gates and score.
#![forbid(unsafe_code)]

pub mod axes;
pub mod calibration;
pub mod copy;
pub mod fill;
pub mod fingerprint;
pub mod gates;
pub mod load;
pub mod measure;
pub mod numeric;
pub mod reference;
pub mod retrieval;
pub mod song;
pub mod workflow;

pub use axes::{AXIS_COUNT, Axis, Family};
pub use calibration::{Calibration, CalibrationError, Column};
pub use copy::{NoteGrid, copy_risk};
pub use fingerprint::{
    AxisReading, Extreme, Fingerprint, MeasureError, Profile, fingerprint, fingerprint_text,
};

pub use gates::{CopyGate, Degeneracy, GateId, GateOutcome, Novelty, StyleFit};
pub use measure::{LibrettoMeasure, Report, ScoreView};
pub use song::{Layout, LayoutError};
