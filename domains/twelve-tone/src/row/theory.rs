//! Row theory on a [`Row`]: the 48 forms in either labelling convention, the matrix,
//! naming a pitch sequence by its form labels, intervals, hexachordal
//! combinatoriality, symmetry, and a seeded search for all-interval rows.
//!
//! Each operation follows music21 10.5.1's definition of the same name (see the module
//! docs of [`super`]); the shipped oracle tests hold them to it.

use super::{Convention, FormKind, PitchClass, Row, RowForm};

/// `(a - b) mod 12` for pitch classes.
pub(crate) fn sub12(a: PitchClass, b: PitchClass) -> PitchClass {
    (a % 12 + 12 - b % 12) % 12
}

/// `(a + b) mod 12` for pitch classes.
pub(crate) fn add12(a: PitchClass, b: PitchClass) -> PitchClass {
    (a % 12 + b % 12) % 12
}

impl Row {
    /// The zero-centred transposition number that `form` names in `convention`.
    pub(crate) fn zero_centred_n(&self, form: RowForm, convention: Convention) -> PitchClass {
        match convention {
            Convention::ZeroCentred => form.n % 12,
            Convention::Relative => add12(self.first(), form.n),
        }
    }

    /// The label number in `convention` of zero-centred number `zero_n`.
    pub(crate) fn label_n(&self, zero_n: PitchClass, convention: Convention) -> PitchClass {
        match convention {
            Convention::ZeroCentred => zero_n % 12,
            Convention::Relative => sub12(zero_n, self.first()),
        }
    }

    /// The pitch classes of one form, e.g. `P0` or `RI11`, under `convention`.
    pub fn form(&self, form: RowForm, convention: Convention) -> [PitchClass; 12] {
        let n = self.zero_centred_n(form, convention);
        let r0 = self.first();
        let mut out = [0; 12];
        for (slot, &pc) in out.iter_mut().zip(self.pcs.iter()) {
            let step = sub12(pc, r0);
            *slot = match form.kind {
                FormKind::P | FormKind::R => add12(n, step),
                FormKind::I | FormKind::RI => sub12(n, step),
            };
        }
        if matches!(form.kind, FormKind::R | FormKind::RI) {
            out.reverse();
        }
        out
    }

    /// All 48 forms with their labels, in the order P0..P11, I0..I11, R0..R11, RI0..RI11.
    pub fn forms(
        &self,
        convention: Convention,
    ) -> impl Iterator<Item = (RowForm, [PitchClass; 12])> + use<> {
        let row = *self;
        RowForm::all().map(move |label| (label, row.form(label, convention)))
    }

    /// music21's matrix: `matrix[r][c] = (pcs[c] - pcs[r]) mod 12`. The top row is P0;
    /// rows are P forms, columns are I forms (see the module docs of [`super`]).
    pub fn matrix(&self) -> [[PitchClass; 12]; 12] {
        let mut m = [[0; 12]; 12];
        for (line, &from) in m.iter_mut().zip(self.pcs.iter()) {
            for (cell, &to) in line.iter_mut().zip(self.pcs.iter()) {
                *cell = sub12(to, from);
            }
        }
        m
    }

    /// Every label whose form has exactly these pitch classes, in the order P, I, R, RI:
    /// one label for most rows, two for a symmetric row, none if `pcs` is no form of it.
    pub fn labels_of(&self, pcs: &[PitchClass; 12], convention: Convention) -> Vec<RowForm> {
        FormKind::ALL
            .into_iter()
            .filter_map(|kind| {
                // P and I start on n, R and RI end on n (zero-centred).
                let anchor = match kind {
                    FormKind::P | FormKind::I => pcs[0],
                    FormKind::R | FormKind::RI => pcs[11],
                };
                if anchor > 11 {
                    return None;
                }
                let label = RowForm::new(kind, self.label_n(anchor, convention));
                (self.form(label, convention) == *pcs).then_some(label)
            })
            .collect()
    }

    /// The 11 successive ordered intervals, each `(next - previous) mod 12`.
    pub fn intervals(&self) -> [PitchClass; 11] {
        let mut out = [0; 11];
        for (slot, pair) in out.iter_mut().zip(self.pcs.windows(2)) {
            *slot = sub12(pair[1], pair[0]);
        }
        out
    }

    /// music21's `getIntervalsAsString`: the intervals as one character each, `T` = 10,
    /// `E` = 11 (e.g. `"E3E41914E3E"`).
    pub fn interval_string(&self) -> String {
        self.intervals()
            .iter()
            .map(|&i| match i {
                10 => 'T',
                11 => 'E',
                d => char::from(b'0' + d),
            })
            .collect()
    }

    /// Whether the 11 successive intervals are 1..=11, each once.
    pub fn is_all_interval(&self) -> bool {
        let mut seen = [false; 12];
        for i in self.intervals() {
            seen[usize::from(i)] = true;
        }
        seen[1..].iter().all(|&s| s)
    }

    /// Labels X (in `convention`, order P, I, R, RI) whose first hexachord together with
    /// P0's first hexachord is the aggregate: music21's `areCombinatorial('P', 0, X)`.
    /// R0 is always among them. The same labels come out in both conventions, since
    /// moving P0 and X by the same interval keeps the aggregate.
    pub fn combinatorial_partners(&self, convention: Convention) -> Vec<RowForm> {
        let p0 = self.form(RowForm::new(FormKind::P, 0), convention);
        let mut p0_mask = 0u16;
        for &pc in &p0[..6] {
            p0_mask |= 1 << pc;
        }
        self.forms(convention)
            .filter(|(_, pcs)| {
                let mask = pcs[..6].iter().fold(0u16, |m, &pc| m | 1 << pc);
                mask & p0_mask == 0
            })
            .map(|(label, _)| label)
            .collect()
    }

    /// Labels other than P0 (in `convention`) whose form has P0's pitch classes: empty
    /// for most rows; one label (e.g. BergLyricSuite's R6) for a symmetric row.
    pub fn symmetries(&self, convention: Convention) -> Vec<RowForm> {
        let p0_label = RowForm::new(FormKind::P, 0);
        let p0 = self.form(p0_label, convention);
        self.labels_of(&p0, convention)
            .into_iter()
            .filter(|&label| label != p0_label)
            .collect()
    }

    /// An all-interval row found by a depth-first search whose choices are shuffled by
    /// `seed`: the same seed always gives the same row, different seeds usually differ.
    pub fn all_interval(seed: u64) -> Row {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut pcs = [0 as PitchClass; 12];
        pcs[0] = rng.u8(0..12);
        let mut used_pc = 1u16 << pcs[0];
        // `orders[d]` is the shuffled list of intervals to try at depth d (1..12),
        // `next[d]` how many of them have been tried.
        let mut orders = [[0 as PitchClass; 11]; 12];
        let mut next = [0usize; 12];
        let mut used_interval = 0u16;
        let mut depth = 1;
        orders[1] = shuffled_intervals(&mut rng);
        while depth < 12 {
            let candidate = orders[depth]
                .get(next[depth])
                .copied()
                .filter(|_| next[depth] < 11);
            match candidate {
                Some(interval) => {
                    next[depth] += 1;
                    let pc = add12(pcs[depth - 1], interval);
                    if used_interval & (1 << interval) != 0 || used_pc & (1 << pc) != 0 {
                        continue;
                    }
                    pcs[depth] = pc;
                    used_pc |= 1 << pc;
                    used_interval |= 1 << interval;
                    depth += 1;
                    if depth < 12 {
                        orders[depth] = shuffled_intervals(&mut rng);
                        next[depth] = 0;
                    }
                }
                None => {
                    // Exhausted this depth: undo the choice that led here.
                    depth -= 1;
                    let pc = pcs[depth];
                    used_pc &= !(1 << pc);
                    used_interval &= !(1 << sub12(pc, pcs[depth - 1]));
                }
            }
        }
        Row { pcs }
    }
}

/// The intervals 1..=11 in a seeded random order.
fn shuffled_intervals(rng: &mut fastrand::Rng) -> [PitchClass; 11] {
    let mut out = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
    rng.shuffle(&mut out);
    out
}
