//! [`FormTable`]: every form of one row under one convention, precomputed so a verifier
//! can check a note against its form in constant time (a release gate runs at tens of
//! millions of events per second) and re-derive labels from a pitch sequence's opening.

use super::{Convention, FormKind, PitchClass, Row, RowForm};

/// The 48 forms of a row, their inverse position tables, and an index of forms by their
/// first two pitch classes, for one labelling convention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormTable {
    row: Row,
    convention: Convention,
    /// Indexed by [`RowForm::index`].
    forms: [[PitchClass; 12]; 48],
    /// `positions[f][pc]` = order position of `pc` in form `f`.
    positions: [[u8; 12]; 48],
    /// `starts[first * 12 + second]` = labels whose form opens `first, second`.
    starts: Vec<Vec<RowForm>>,
}

impl FormTable {
    /// Precomputes every form of `row` labelled under `convention`.
    pub fn new(row: &Row, convention: Convention) -> FormTable {
        let mut forms = [[0; 12]; 48];
        let mut positions = [[0; 12]; 48];
        let mut starts = vec![Vec::new(); 144];
        for (label, pcs) in row.forms(convention) {
            let f = label.index();
            forms[f] = pcs;
            for (position, &pc) in pcs.iter().enumerate() {
                positions[f][usize::from(pc)] = position as u8;
            }
            starts[usize::from(pcs[0]) * 12 + usize::from(pcs[1])].push(label);
        }
        FormTable {
            row: *row,
            convention,
            forms,
            positions,
            starts,
        }
    }

    /// The row this table was built from.
    pub fn row(&self) -> &Row {
        &self.row
    }

    /// The convention the labels follow.
    pub fn convention(&self) -> Convention {
        self.convention
    }

    /// The pitch classes of `form`.
    pub fn pcs(&self, form: RowForm) -> &[PitchClass; 12] {
        &self.forms[form.index()]
    }

    /// The 0-based order position of `pc` (taken mod 12) in `form`: a table lookup.
    pub fn position_of(&self, form: RowForm, pc: PitchClass) -> u8 {
        self.positions[form.index()][usize::from(pc % 12)]
    }

    /// Labels (order P, I, R, RI) of the forms that open with `first`, `second`: the
    /// candidates when naming a pitch sequence from its first two notes. Empty if no form
    /// opens that way, or if either value is not a pitch class.
    pub fn forms_starting_with(&self, first: PitchClass, second: PitchClass) -> &[RowForm] {
        if first > 11 || second > 11 {
            return &[];
        }
        self.starts
            .get(usize::from(first) * 12 + usize::from(second))
            .map_or(&[], Vec::as_slice)
    }

    /// Every label whose form equals `pcs` (order P, I, R, RI), found through
    /// [`FormTable::forms_starting_with`] without recomputing forms.
    pub fn labels_of(&self, pcs: &[PitchClass; 12]) -> Vec<RowForm> {
        self.forms_starting_with(pcs[0], pcs[1])
            .iter()
            .copied()
            .filter(|&label| self.pcs(label) == pcs)
            .collect()
    }

    /// The label of the prime form that starts on `first` (every pitch class starts
    /// exactly one P form).
    pub fn prime_starting_on(&self, first: PitchClass) -> RowForm {
        RowForm::new(FormKind::P, self.row.label_n(first % 12, self.convention))
    }
}
