//! [`RowsReport`]: what `cantus rows` prints about a row — its 48 forms, the matrix
//! and its properties — as pretty JSON for tools and as a labelled matrix for people.

use std::fmt;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::{Convention, FormKind, PitchClass, Row, RowForm, note_name};

/// Everything `cantus rows` reports about one row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RowsReport {
    /// The row as given.
    pub row: Row,
    /// The historical id or other name the row was given by, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The convention the labels follow.
    pub convention: Convention,
    /// All 48 forms, label → pitch classes, in the order P0..P11, I0.., R0.., RI0..RI11.
    pub forms: OrderedForms,
    /// music21's matrix (top row P0).
    pub matrix: [[PitchClass; 12]; 12],
    /// Whether the row is all-interval.
    pub all_interval: bool,
    /// The successive intervals, `T` = 10, `E` = 11.
    pub interval_string: String,
    /// Labels combinatorial with P0 (first hexachords make the aggregate).
    pub combinatorial_partners: Vec<String>,
    /// Labels other than P0 with P0's pitch classes.
    pub symmetries: Vec<String>,
}

/// The 48 forms in label order; serialises as a JSON object whose keys keep that order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderedForms(pub Vec<(RowForm, [PitchClass; 12])>);

impl Serialize for OrderedForms {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (label, pcs) in &self.0 {
            map.serialize_entry(&label.to_string(), pcs)?;
        }
        map.end()
    }
}

impl RowsReport {
    /// Computes the report for `row`, labelled under `convention`.
    pub fn new(row: &Row, name: Option<&str>, convention: Convention) -> Self {
        let labels = |forms: Vec<RowForm>| forms.iter().map(RowForm::to_string).collect();
        RowsReport {
            row: *row,
            name: name.map(str::to_string),
            convention,
            forms: OrderedForms(row.forms(convention).collect()),
            matrix: row.matrix(),
            all_interval: row.is_all_interval(),
            interval_string: row.interval_string(),
            combinatorial_partners: labels(row.combinatorial_partners(convention)),
            symmetries: labels(row.symmetries(convention)),
        }
    }

    /// The report as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        // Only strings, numbers, booleans and label-keyed maps: serde_json cannot fail.
        serde_json::to_string_pretty(self).expect("RowsReport always serialises")
    }

    fn label(&self, kind: FormKind, zero_n: PitchClass) -> String {
        RowForm::new(kind, self.row.label_n(zero_n, self.convention)).to_string()
    }
}

/// Width of one matrix column, enough for `RI11`.
const CELL: usize = 5;

impl fmt::Display for RowsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(name) => writeln!(f, "Row {name}")?,
            None => writeln!(f, "Row")?,
        }
        let pcs = self.row.pcs();
        write!(f, "  pitch classes:")?;
        for pc in pcs {
            write!(f, "{pc:>4}")?;
        }
        writeln!(f)?;
        write!(f, "  notes:        ")?;
        for pc in pcs {
            write!(f, "{:>4}", note_name(pc))?;
        }
        writeln!(f)?;
        writeln!(f, "  intervals:    {}", self.interval_string)?;
        writeln!(f)?;

        writeln!(
            f,
            "Matrix ({} labels): P left to right, R right to left, I top to bottom, RI bottom to top",
            self.convention
        )?;
        let top = self.matrix[0];
        write!(f, "{:CELL$}", "")?;
        for &n in &top {
            write!(f, "{:>CELL$}", self.label(FormKind::I, n))?;
        }
        writeln!(f)?;
        for line in &self.matrix {
            write!(f, "{:<CELL$}", self.label(FormKind::P, line[0]))?;
            for &pc in line {
                write!(f, "{pc:>CELL$}")?;
            }
            writeln!(f, "   {}", self.label(FormKind::R, line[0]))?;
        }
        write!(f, "{:CELL$}", "")?;
        for &n in &top {
            write!(f, "{:>CELL$}", self.label(FormKind::RI, n))?;
        }
        writeln!(f)?;
        writeln!(f)?;

        writeln!(f, "Properties")?;
        let yes_no = if self.all_interval { "yes" } else { "no" };
        writeln!(f, "  all-interval:           {yes_no}")?;
        writeln!(
            f,
            "  combinatorial with P0:  {}",
            list_or(&self.combinatorial_partners, "none")
        )?;
        write!(
            f,
            "  symmetries:             {}",
            list_or(&self.symmetries, "none (48 distinct forms)")
        )?;
        if !self.symmetries.is_empty() {
            write!(f, " (each form has two labels)")?;
        }
        writeln!(f)
    }
}

fn list_or(items: &[String], empty: &str) -> String {
    if items.is_empty() {
        empty.to_string()
    } else {
        items.join(", ")
    }
}
