//! Names for the 48 forms of a row: the form kind (P, I, R, RI), a [`RowForm`] label
//! such as `RI11`, and the labelling [`Convention`] that says which pitch class the
//! number in a label refers to.
//!
//! Labels are what users type (`"P0"`, `"I11"`, `"T5"`) and what reports print, so they
//! serialise as their label string rather than as a struct.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::PitchClass;

/// The four kinds of row form: prime, inversion, retrograde, retrograde inversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum FormKind {
    /// Prime (music21 also spells it `T`, "transposition").
    P,
    /// Inversion.
    I,
    /// Retrograde: the prime read backwards.
    R,
    /// Retrograde inversion: the inversion read backwards.
    RI,
}

impl FormKind {
    /// All four kinds in the order music21 lists labels: P, I, R, RI.
    pub const ALL: [FormKind; 4] = [FormKind::P, FormKind::I, FormKind::R, FormKind::RI];

    /// The label prefix: `"P"`, `"I"`, `"R"` or `"RI"`.
    pub fn prefix(self) -> &'static str {
        match self {
            FormKind::P => "P",
            FormKind::I => "I",
            FormKind::R => "R",
            FormKind::RI => "RI",
        }
    }

    /// Position of this kind in [`FormKind::ALL`] (0..4).
    pub(crate) fn index(self) -> usize {
        match self {
            FormKind::P => 0,
            FormKind::I => 1,
            FormKind::R => 2,
            FormKind::RI => 3,
        }
    }
}

/// One of the 48 labelled forms of a row, e.g. `P0`, `I11`, `R3`, `RI11`.
///
/// What pitch class `n` names depends on the [`Convention`]. The derived ordering is
/// P0..P11, I0..I11, R0..R11, RI0..RI11, the order [`super::Row::forms`] yields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RowForm {
    /// Prime, inversion, retrograde or retrograde inversion.
    pub kind: FormKind,
    /// The transposition number, 0..=11.
    pub n: PitchClass,
}

impl RowForm {
    /// A form label; `n` is reduced mod 12.
    pub fn new(kind: FormKind, n: PitchClass) -> RowForm {
        RowForm { kind, n: n % 12 }
    }

    /// All 48 labels in the order P0..P11, I0..I11, R0..R11, RI0..RI11.
    pub fn all() -> impl Iterator<Item = RowForm> {
        FormKind::ALL
            .into_iter()
            .flat_map(|kind| (0..12).map(move |n| RowForm { kind, n }))
    }

    /// Index 0..48 of this label in [`RowForm::all`] order.
    pub fn index(self) -> usize {
        self.kind.index() * 12 + usize::from(self.n % 12)
    }
}

impl fmt::Display for RowForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.kind.prefix(), self.n)
    }
}

/// Why a form label could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid row form label {label:?}: {reason} (expected P, T, I, R or RI followed by 0..=11, e.g. \"P0\", \"T5\", \"RI11\")"
)]
pub struct FormParseError {
    /// The text that was given.
    pub label: String,
    /// What is wrong with it.
    pub reason: String,
}

impl FromStr for RowForm {
    type Err = FormParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = |reason: &str| FormParseError {
            label: s.to_string(),
            reason: reason.to_string(),
        };
        let text = s.trim();
        let upper = text.to_ascii_uppercase();
        let (kind, digits) = if let Some(rest) = upper.strip_prefix("RI") {
            (FormKind::RI, rest)
        } else if let Some(rest) = upper.strip_prefix('P') {
            (FormKind::P, rest)
        } else if let Some(rest) = upper.strip_prefix('T') {
            (FormKind::P, rest)
        } else if let Some(rest) = upper.strip_prefix('I') {
            (FormKind::I, rest)
        } else if let Some(rest) = upper.strip_prefix('R') {
            (FormKind::R, rest)
        } else {
            return Err(err("unknown form kind"));
        };
        if digits.is_empty() {
            return Err(err("missing transposition number"));
        }
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err("transposition must be a number"));
        }
        match digits.parse::<u8>() {
            Ok(n) if n < 12 => Ok(RowForm { kind, n }),
            _ => Err(err("transposition out of range")),
        }
    }
}

impl Serialize for RowForm {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for RowForm {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Which pitch class the number in a form label refers to (see the module docs of
/// [`super`] for both rules in full).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Convention {
    /// music21's `zeroCenteredTransformation`: Pn and In start on n, Rn and RIn end on n.
    #[default]
    ZeroCentred,
    /// music21's `originalCenteredTransformation`: every form of the given row moved up n.
    Relative,
}

impl Convention {
    /// The kebab-case name: `"zero-centred"` or `"relative"`.
    pub fn name(self) -> &'static str {
        match self {
            Convention::ZeroCentred => "zero-centred",
            Convention::Relative => "relative",
        }
    }
}

impl fmt::Display for Convention {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a convention name could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown labelling convention {0:?} (expected \"zero-centred\" or \"relative\")")]
pub struct ConventionParseError(pub String);

impl FromStr for Convention {
    type Err = ConventionParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let key: String = s
            .trim()
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .map(|c| c.to_ascii_lowercase())
            .collect();
        match key.as_str() {
            "zerocentred" | "zerocentered" | "zero" => Ok(Convention::ZeroCentred),
            "relative" | "originalcentred" | "originalcentered" => Ok(Convention::Relative),
            _ => Err(ConventionParseError(s.to_string())),
        }
    }
}
