//! The twelve-tone row engine: a validated [`Row`], its 48 labelled forms, the 12 × 12
//! matrix, row theory (all-interval, hexachordal combinatoriality, symmetry), a
//! [`FormTable`] for constant-time verification, the 71 historical rows music21 ships,
//! and the [`RowsReport`] that `cantus rows` prints.
//!
//! Every figure here is checked against music21 10.5.1 (`music21.serial`), whose
//! output is shipped as a test oracle. Pitch classes are integers, C = 0 … B = 11.
//!
//! # Labelling conventions
//!
//! Let `r` be the row as given and `r0 = r[0]`.
//!
//! **Zero-centred** ([`Convention::ZeroCentred`], the default; music21's
//! `zeroCenteredTransformation`):
//! * `Pn[i] = r[i] − r0 + n`: Pn **starts on n** (P(r0) is the given row; P0 usually is not);
//! * `In[i] = n − (r[i] − r0)`: In starts on n;
//! * `Rn = reverse(Pn)`: Rn **ends** on n; `RIn = reverse(In)`: RIn ends on n.
//!
//! **Relative** ([`Convention::Relative`]; music21's `originalCenteredTransformation`):
//! every form of the given row is computed, then moved up n semitones:
//! `Pn = r + n` (P0 is the given row), `In` = inversion about `r0`, `+ n`,
//! `Rn = reverse(r) + n`, `RIn = reverse(I0) + n`.
//!
//! The two are related by: relative `X_n` = zero-centred `X_{(r0 + n) mod 12}`, for every
//! kind X. All arithmetic is mod 12.
//!
//! # Matrix
//!
//! [`Row::matrix`] is music21's `matrix()`: `matrix[r][c] = (pcs[c] − pcs[r]) mod 12`.
//! Its top row is P0, row r is P(`matrix[r][0]`), column c read down is I(`matrix[0][c]`);
//! rows read right to left are R forms, columns read upwards are RI forms (zero-centred).

mod error;
mod form;
pub mod historical;
mod parse;
pub mod report;
mod table;
pub(crate) mod theory;

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use error::RowError;
pub use form::{Convention, ConventionParseError, FormKind, FormParseError, RowForm};
pub use historical::{HistoricalRow, RowOrNameError, historical_rows, resolve, row_or_name};
pub use report::{OrderedForms, RowsReport};
pub use table::FormTable;

/// A pitch class, 0..=11 (C = 0, C♯/D♭ = 1, … B = 11).
pub type PitchClass = u8;

/// A twelve-tone row: each of the twelve pitch classes exactly once, in order.
///
/// A `Row` can only be built through validation ([`Row::new`], [`Row::parse`],
/// deserialisation), so holding one means holding a valid row.
///
/// ```
/// use cantus_twelve_tone::row::{Convention, FormKind, Row, RowForm};
///
/// // Berg's Lyric Suite row, by note names.
/// let row = Row::parse("F E C A G D Ab Db Eb Gb Bb B")?;
/// assert_eq!(row.pcs(), [5, 4, 0, 9, 7, 2, 8, 1, 3, 6, 10, 11]);
/// assert!(row.is_all_interval());
///
/// // Zero-centred labels: I5 starts on F and mirrors every interval.
/// let i5 = row.form(RowForm::new(FormKind::I, 5), Convention::ZeroCentred);
/// assert_eq!(i5[..3], [5, 6, 10]);
///
/// // A repeated pitch class is refused, naming where.
/// let err = Row::parse("0 1 2 3 4 5 6 7 8 9 10 10").unwrap_err();
/// assert!(err.to_string().contains("pitch class 10 occurs 2 times"), "{err}");
/// # Ok::<(), cantus_twelve_tone::row::RowError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Row {
    pcs: [PitchClass; 12],
}

impl Row {
    /// Checks that `pcs` is a twelve-tone row: exactly 12 values, each 0..=11, none twice.
    ///
    /// The error names the first problem found, in that order (length, range, duplicates).
    pub fn new(pcs: &[u8]) -> Result<Row, RowError> {
        if let Some((position, &value)) = pcs.iter().enumerate().find(|&(_, &v)| v > 11)
            && pcs.len() == 12
        {
            return Err(RowError::OutOfRange {
                value: i64::from(value),
                position,
            });
        }
        let mut seen = [false; 12];
        for &v in pcs {
            if let Some(slot) = seen.get_mut(usize::from(v)) {
                *slot = true;
            }
        }
        let missing: Vec<PitchClass> = (0..12u8).filter(|&pc| !seen[usize::from(pc)]).collect();
        if pcs.len() != 12 {
            return Err(RowError::WrongLength {
                got: pcs.len(),
                missing,
            });
        }
        let mut first_at = [None::<usize>; 12];
        for (position, &v) in pcs.iter().enumerate() {
            let slot = &mut first_at[usize::from(v)];
            if slot.is_some() {
                let positions = pcs
                    .iter()
                    .enumerate()
                    .filter(|&(_, &w)| w == v)
                    .map(|(p, _)| p)
                    .collect();
                return Err(RowError::Duplicate {
                    pc: v,
                    positions,
                    missing,
                });
            }
            *slot = Some(position);
        }
        let mut row = [0; 12];
        row.copy_from_slice(pcs);
        Ok(Row { pcs: row })
    }

    /// Reads a row from text: numbers separated by spaces and/or commas (brackets are
    /// ignored), `T`/`A` for 10 and `E`/`B` for 11, or note names (`C C# Db … B`,
    /// accidentals `#`, `♯`, `b`, `♭`, `-`, `x`). A row of note names is recognised by
    /// containing a note letter other than A, B, E; a compact `"0123456789TE"` also works.
    pub fn parse(text: &str) -> Result<Row, RowError> {
        parse::parse_row(text)
    }

    /// The pitch classes in order.
    pub fn pcs(&self) -> [PitchClass; 12] {
        self.pcs
    }

    /// The first pitch class, `r0` in the convention formulas.
    pub fn first(&self) -> PitchClass {
        self.pcs[0]
    }

    /// The row written with sharps: `"C C♯ D …"` style names, in order.
    pub fn note_names(&self) -> Vec<&'static str> {
        self.pcs.iter().map(|&pc| note_name(pc)).collect()
    }
}

/// The sharp-spelled name of a pitch class (`"C"`, `"C#"`, … `"B"`), ASCII so it lines
/// up in terminals.
pub fn note_name(pc: PitchClass) -> &'static str {
    const NAMES: [&str; 12] = [
        "C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B",
    ];
    NAMES[usize::from(pc % 12)]
}

impl fmt::Display for Row {
    /// Space-separated numbers, e.g. `0 11 7 8 3 1 2 10 6 5 4 9` (reads back with [`Row::parse`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, pc) in self.pcs.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{pc}")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Row {
    type Err = RowError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Row::parse(s)
    }
}

impl Serialize for Row {
    /// A row serialises as its list of 12 pitch classes.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.pcs.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Row {
    /// Accepts a list of integers (validated) or a string for [`Row::parse`].
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            List(Vec<i64>),
            Text(String),
        }
        match Repr::deserialize(deserializer)? {
            Repr::Text(text) => Row::parse(&text).map_err(serde::de::Error::custom),
            Repr::List(values) => {
                let mut pcs = Vec::with_capacity(values.len());
                for (position, &value) in values.iter().enumerate() {
                    match u8::try_from(value) {
                        Ok(pc) if pc < 12 => pcs.push(pc),
                        _ if values.len() == 12 => {
                            return Err(serde::de::Error::custom(RowError::OutOfRange {
                                value,
                                position,
                            }));
                        }
                        _ => pcs.push(u8::MAX),
                    }
                }
                Row::new(&pcs).map_err(serde::de::Error::custom)
            }
        }
    }
}
