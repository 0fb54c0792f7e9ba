//! Lookup tables that let the gate re-derive row labels from pitches in one pass.
//!
//! A statement is tracked as a 48-bit set of candidate forms (bit = [`RowForm::index`]).
//! An event sounding the pitch-class set `m` at order positions `start..start + len`
//! keeps exactly the forms whose pitch classes at those positions are `m` (in any order,
//! as a chord allows): because a form is a permutation and `|m| = len`, that is the
//! forms that hold every pitch class of `m` somewhere in the window. [`SerialTables`]
//! stores, per window and pitch class, the set of such forms, so narrowing costs one
//! AND per pitch class and re-derivation never allocates.

use crate::row::{Convention, FormKind, FormTable, PitchClass, Row, RowForm};

/// All 48 forms.
pub(crate) const ALL_FORMS: u64 = (1 << 48) - 1;

/// Window tables for one row under one convention.
#[derive(Clone, Debug)]
pub(crate) struct SerialTables {
    pub table: FormTable,
    /// `window[(start * 12 + len - 1) * 12 + pc]`: forms holding `pc` at one of the
    /// positions `start..start + len` (0 where the window runs past position 12).
    window: Box<[u64]>,
    /// `same[f]`: forms with exactly the pitch classes of form `f` (itself included;
    /// two for each form of a symmetric row).
    same: [u64; 48],
    /// `prefix[f][k]`: pitch-class set of the first `k` positions of form `f`.
    prefix: [[u16; 13]; 48],
}

impl SerialTables {
    /// Tables for `row` labelled under `convention`.
    pub fn new(row: &Row, convention: Convention) -> SerialTables {
        SerialTables::from_table(FormTable::new(row, convention))
    }

    /// Tables over an existing form table.
    pub fn from_table(table: FormTable) -> SerialTables {
        let mut window = vec![0u64; 12 * 12 * 12].into_boxed_slice();
        let mut prefix = [[0u16; 13]; 48];
        let mut same = [0u64; 48];
        for form in RowForm::all() {
            let f = form.index();
            let pcs = table.pcs(form);
            for k in 0..12 {
                prefix[f][k + 1] = prefix[f][k] | 1 << pcs[k];
            }
            for start in 0..12 {
                for len in 1..=12 - start {
                    for &pc in &pcs[start..start + len] {
                        window[(start * 12 + len - 1) * 12 + usize::from(pc)] |= 1 << f;
                    }
                }
            }
            for other in RowForm::all() {
                if table.pcs(other) == pcs {
                    same[f] |= 1 << other.index();
                }
            }
        }
        SerialTables {
            table,
            window,
            same,
            prefix,
        }
    }

    /// The forms that sound the set `mask` (of `len` pitch classes) at positions
    /// `start..start + len`. Needs `start + len <= 12`, `len = popcount(mask) >= 1`.
    #[inline]
    pub fn narrow(&self, start: u8, len: u8, mask: u16) -> u64 {
        let base = (usize::from(start) * 12 + usize::from(len.max(1)) - 1) * 12;
        let Some(row) = self.window.get(base..base + 12) else {
            return 0;
        };
        let mut forms = ALL_FORMS;
        let mut rest = mask;
        while rest != 0 {
            let pc = rest.trailing_zeros() as usize;
            forms &= row[pc];
            rest &= rest - 1;
        }
        forms
    }

    /// Forms with the same pitch classes as `form`.
    pub fn same_as(&self, form: RowForm) -> u64 {
        self.same[form.index()]
    }

    /// The pitch-class set of positions `start..start + len` of `form` (0 if the
    /// window runs past the end).
    pub fn window_mask(&self, form: RowForm, start: u8, len: u8) -> u16 {
        let (s, e) = (usize::from(start), usize::from(start) + usize::from(len));
        if e > 12 {
            return 0;
        }
        let p = &self.prefix[form.index()];
        p[e] ^ p[s]
    }

    /// The pitch classes of `form`.
    pub fn pcs(&self, form: RowForm) -> &[PitchClass; 12] {
        self.table.pcs(form)
    }
}

/// The label of bit `index` of a form set.
pub(crate) fn form_of_index(index: u32) -> RowForm {
    let i = index as usize % 48;
    RowForm::new(FormKind::ALL[i / 12], (i % 12) as u8)
}

/// The labels in a form set, in P, I, R, RI order.
pub(crate) fn forms_in(set: u64) -> impl Iterator<Item = RowForm> {
    let mut rest = set & ALL_FORMS;
    std::iter::from_fn(move || {
        if rest == 0 {
            return None;
        }
        let i = rest.trailing_zeros();
        rest &= rest - 1;
        Some(form_of_index(i))
    })
}

/// `"P0"` or `"P0=R6"` (a symmetric row's two labels for one statement).
pub(crate) fn labels_text(set: u64) -> String {
    let mut out = String::new();
    push_labels(&mut out, set);
    out
}

/// Every label's text, by form index ([`RowForm::index`]).
const LABELS: [&str; 48] = [
    "P0", "P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9", "P10", "P11", "I0", "I1", "I2",
    "I3", "I4", "I5", "I6", "I7", "I8", "I9", "I10", "I11", "R0", "R1", "R2", "R3", "R4", "R5",
    "R6", "R7", "R8", "R9", "R10", "R11", "RI0", "RI1", "RI2", "RI3", "RI4", "RI5", "RI6", "RI7",
    "RI8", "RI9", "RI10", "RI11",
];

/// Appends [`labels_text`] to `out` without allocating.
pub(crate) fn push_labels(out: &mut String, set: u64) {
    let mut rest = set & ALL_FORMS;
    let mut first = true;
    while rest != 0 {
        let i = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        if !first {
            out.push('=');
        }
        first = false;
        out.push_str(LABELS.get(i).copied().unwrap_or("?"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::resolve;

    #[test]
    fn narrowing_finds_the_form_of_a_statement() {
        let row = resolve("SchoenbergOp25").unwrap().row;
        let t = SerialTables::new(&row, Convention::ZeroCentred);
        let form = RowForm::new(FormKind::RI, 5);
        let pcs = *t.pcs(form);
        let mut set = ALL_FORMS;
        for (i, &pc) in pcs.iter().enumerate() {
            set &= t.narrow(i as u8, 1, 1 << pc);
        }
        assert_eq!(labels_text(set), "RI5");
        // The same statement as chords of 3: positions in any order within a chord.
        let mut chords = ALL_FORMS;
        for c in 0..4 {
            let mask = pcs[c * 3..c * 3 + 3].iter().fold(0u16, |m, &p| m | 1 << p);
            chords &= t.narrow((c * 3) as u8, 3, mask);
        }
        assert_ne!(chords & 1 << form.index(), 0);
        // A swap of two single notes is no form.
        let mut swapped = pcs;
        swapped.swap(4, 7);
        let mut bad = ALL_FORMS;
        for (i, &pc) in swapped.iter().enumerate() {
            bad &= t.narrow(i as u8, 1, 1 << pc);
        }
        assert_eq!(bad, 0);
    }

    #[test]
    fn label_texts_follow_the_form_order() {
        for form in RowForm::all() {
            assert_eq!(labels_text(1 << form.index()), form.to_string());
        }
    }

    #[test]
    fn a_symmetric_row_gives_two_labels() {
        let row = resolve("WebernOp21").unwrap().row;
        let t = SerialTables::new(&row, Convention::ZeroCentred);
        let p = RowForm::new(FormKind::P, row.first());
        assert_eq!(t.same_as(p).count_ones(), 2);
        assert_eq!(labels_text(t.same_as(p)).split('=').count(), 2);
    }
}
