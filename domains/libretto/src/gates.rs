//! Soft gates on a fingerprint or a piece's notes, each with its feedback text.
//!
//! Every gate answers three things: did the piece pass, how far off is it (a
//! penalty, lower is better, weighted as the original's loop weighs it), and what
//! to tell the proposer — what the measure means, where the piece sits and which
//! way to move, never how.

use crate::axes::{Axis, RawAxes};
use crate::calibration::Calibration;
use crate::copy::{COPY_THRESHOLD, NoteGrid, copy_risk};
use crate::fingerprint::{AxisReading, Extreme, Fingerprint};

/// Which gate spoke. The ids (`LIB-…`, [`GateId::id`]) are stable: reports,
/// JSON and feedback name gates by them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum GateId {
    /// Too many axes at a corpus extreme ([`Degeneracy`]).
    #[serde(rename = "LIB-DEGENERACY")]
    Degeneracy,
    /// Too many notes found in a reference piece ([`CopyGate`]).
    #[serde(rename = "LIB-COPY")]
    Copy,
    /// Too few traits in the style's middle band ([`StyleFit`]).
    #[serde(rename = "LIB-STYLE")]
    Style,
    /// Too close to an example shown ([`Novelty`]).
    #[serde(rename = "LIB-NOVELTY")]
    Novelty,
    /// Nothing to measure: the piece sounds no note.
    #[serde(rename = "LIB-SILENT")]
    Silent,
    /// Too short or too long for the task.
    #[serde(rename = "LIB-LENGTH")]
    Length,
    /// A morph's segments do not move steadily from A to B.
    #[serde(rename = "LIB-PROGRESS")]
    Progress,
    /// A teaching example that does not show its device.
    #[serde(rename = "LIB-CHALLENGE")]
    Challenge,
}

impl GateId {
    /// The stable id, e.g. `"LIB-DEGENERACY"`.
    pub fn id(self) -> &'static str {
        match self {
            GateId::Degeneracy => "LIB-DEGENERACY",
            GateId::Copy => "LIB-COPY",
            GateId::Style => "LIB-STYLE",
            GateId::Novelty => "LIB-NOVELTY",
            GateId::Silent => "LIB-SILENT",
            GateId::Length => "LIB-LENGTH",
            GateId::Progress => "LIB-PROGRESS",
            GateId::Challenge => "LIB-CHALLENGE",
        }
    }
}

impl std::fmt::Display for GateId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// One gate's verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct GateOutcome {
    /// Which gate.
    pub gate: GateId,
    /// Whether the piece passes.
    pub passed: bool,
    /// How far off it is; 0 when it passes.
    pub penalty: f64,
    /// Feedback lines (empty when it passes).
    pub feedback: Vec<String>,
}

impl GateOutcome {
    /// The verdict on a piece that cannot be measured (no note sounds, or the
    /// layout refuses it): failed, with the reason as feedback.
    pub fn silent(why: impl Into<String>) -> GateOutcome {
        GateOutcome {
            gate: GateId::Silent,
            passed: false,
            penalty: 1000.0,
            feedback: vec![why.into()],
        }
    }
}

/// `3` → "3rd", `11` → "11th", `22` → "22nd".
pub fn ordinal(n: u8) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The feedback line for one axis that should move toward the middle band.
pub fn explain(axis: Axis, percentile: Option<u8>, raise: bool) -> String {
    let here = percentile.map_or(String::new(), |p| {
        format!(" — now at the {} percentile", ordinal(p))
    });
    let verb = if raise { "raise" } else { "lower" };
    format!(
        "{} ({}){here}: {verb} it toward the 25th–75th percentile range; you choose how",
        axis.name(),
        axis.meaning()
    )
}

/// Degeneracy: how many axes sit at an extreme (≤ 5th or ≥ 95th percentile);
/// passes while that count is within the budget.
#[derive(Clone, Debug, PartialEq)]
pub struct Degeneracy {
    /// Extremes allowed (the original's default without a genre is 3).
    pub budget: usize,
    /// The axes judged (all 29 against the original's table).
    pub axes: Vec<Axis>,
    /// Extremes that are idiomatic for the target genre: an axis whose raw
    /// value lies inside its (p25, p75) here is not counted.
    pub idiomatic: Vec<(Axis, f64, f64)>,
}

/// The original's extreme budget per genre (`tasks/newgen/calibrate.py`).
const GENRE_BUDGETS: [(&str, usize); 8] = [
    ("classical", 6),
    ("core_pop_rock", 4),
    ("electronic_dance", 6),
    ("film_score", 6),
    ("folk_country", 5),
    ("funk_soul_rnb", 4),
    ("jazz", 6),
    ("latin_reggae_world", 5),
];

impl Default for Degeneracy {
    fn default() -> Self {
        Degeneracy::with_budget(3)
    }
}

impl Degeneracy {
    /// The original's budget rule (`tasks/newgen/calibrate.py`): the 85th
    /// percentile of the reference pieces' own extreme counts, rounded up and
    /// clamped to 3..=6 — so a typical piece of the style passes.
    ///
    /// Axes whose reference column cannot tell pieces apart
    /// ([`Column::is_degenerate`](crate::Column::is_degenerate), e.g. a voice
    /// count every piece shares) are left out, as the original's metric
    /// discovery left such axes out of its own set.
    pub fn calibrated(table: &Calibration, pieces: &[RawAxes]) -> Degeneracy {
        let axes: Vec<Axis> = Axis::ALL
            .into_iter()
            .filter(|&a| !table.column(a).is_degenerate())
            .collect();
        let probe = Degeneracy {
            budget: 0,
            axes,
            idiomatic: Vec::new(),
        };
        let mut counts: Vec<f64> = pieces
            .iter()
            .map(|p| probe.extremes(&Fingerprint::place(p, table)).len() as f64)
            .collect();
        counts.sort_by(f64::total_cmp);
        let q = crate::calibration::quantile(&counts, 85.0).ceil();
        Degeneracy {
            budget: (q as usize).clamp(3, 6),
            ..probe
        }
    }

    /// All 29 axes with this budget.
    pub fn with_budget(budget: usize) -> Degeneracy {
        Degeneracy {
            budget,
            axes: Axis::ALL.to_vec(),
            idiomatic: Vec::new(),
        }
    }

    /// The original's genre-aware gate: the genre's budget, and the genre's
    /// idiomatic bands from the table (`None` for a genre without a budget or
    /// without bands in the table).
    pub fn for_genre(table: &Calibration, genre: &str) -> Option<Degeneracy> {
        let budget = GENRE_BUDGETS.iter().find(|(g, _)| *g == genre)?.1;
        Some(Degeneracy {
            idiomatic: table.genre_bands(genre)?.to_vec(),
            ..Degeneracy::with_budget(budget)
        })
    }

    /// The judged axes at an extreme that is not idiomatic.
    pub fn extremes<'f>(&self, fp: &'f Fingerprint) -> Vec<&'f AxisReading> {
        fp.extremes()
            .filter(|r| self.axes.contains(&r.axis))
            .filter(|r| {
                !self
                    .idiomatic
                    .iter()
                    .any(|&(a, lo, hi)| a == r.axis && lo <= r.raw && r.raw <= hi)
            })
            .collect()
    }

    /// Judges a fingerprint.
    pub fn check(&self, fp: &Fingerprint) -> GateOutcome {
        let extremes = self.extremes(fp);
        let passed = extremes.len() <= self.budget;
        let mut feedback = Vec::new();
        if !passed {
            let ids: Vec<&str> = extremes.iter().map(|r| r.axis.id()).collect();
            feedback.push(format!(
                "non-degeneracy: {} traits sit at an extreme of the reference corpus ({}); at most {} may — bring the others toward the middle",
                extremes.len(),
                ids.join(", "),
                self.budget
            ));
            for r in &extremes {
                let raise = r.extreme() == Some(Extreme::Low);
                feedback.push(explain(r.axis, Some(r.percentile), raise));
            }
        }
        GateOutcome {
            gate: GateId::Degeneracy,
            passed,
            penalty: 40.0 * extremes.len().saturating_sub(self.budget) as f64,
            feedback,
        }
    }
}

/// Copy risk against reference pieces (the corpus, cited songs, the context of a
/// gap): passes below the threshold.
#[derive(Clone, Debug, PartialEq)]
pub struct CopyGate {
    /// The pieces a generated one must not copy.
    pub references: Vec<NoteGrid>,
    /// The original's strict threshold is 0.30.
    pub threshold: f64,
}

impl CopyGate {
    /// A gate at the original's threshold.
    pub fn new(references: Vec<NoteGrid>) -> Self {
        CopyGate {
            references,
            threshold: COPY_THRESHOLD,
        }
    }

    /// Judges a piece's notes.
    pub fn check(&self, piece: &NoteGrid) -> GateOutcome {
        overlap_gate(
            GateId::Copy,
            piece,
            &self.references,
            self.threshold,
            |risk, thr| {
                format!(
                    "copy risk {risk:.2} ≥ {thr:.2}: that share of the notes repeats a reference piece at the same bar position and pitch — invent fresher material; vary the pitches of reused cells"
                )
            },
        )
    }
}

/// Novelty against examples shown to the proposer: passes while the overlap with
/// every shown example stays below the threshold (the original uses 0.50).
#[derive(Clone, Debug, PartialEq)]
pub struct Novelty {
    /// The examples shown.
    pub shown: Vec<NoteGrid>,
    /// Largest overlap allowed.
    pub threshold: f64,
}

impl Novelty {
    /// A gate at the original's threshold for shown examples (0.50).
    pub fn new(shown: Vec<NoteGrid>) -> Self {
        Novelty {
            shown,
            threshold: 0.50,
        }
    }

    /// Judges a piece's notes.
    pub fn check(&self, piece: &NoteGrid) -> GateOutcome {
        overlap_gate(
            GateId::Novelty,
            piece,
            &self.shown,
            self.threshold,
            |risk, _| {
                format!(
                    "novelty: the piece reproduces a shown example (overlap {risk:.2}); keep the idea but write different notes"
                )
            },
        )
    }
}

fn overlap_gate(
    gate: GateId,
    piece: &NoteGrid,
    refs: &[NoteGrid],
    threshold: f64,
    say: impl Fn(f64, f64) -> String,
) -> GateOutcome {
    let risk = copy_risk(piece, refs);
    let passed = risk < threshold;
    GateOutcome {
        gate,
        passed,
        penalty: 300.0 * (risk - threshold).max(0.0),
        feedback: if passed {
            Vec::new()
        } else {
            vec![say(risk, threshold)]
        },
    }
}

/// Style fit: how many of the chosen axes lie inside a reference set's middle
/// band (its 25th–75th percentile, in raw values); passes at `min_inside` or more.
#[derive(Clone, Debug, PartialEq)]
pub struct StyleFit {
    /// The reference set (e.g. a calibration table computed from a style's pieces).
    pub reference: Calibration,
    /// The axes judged (the original judges its 8 genre-split axes).
    pub axes: Vec<Axis>,
    /// Axes that must lie inside the band (the original's floor is 3).
    pub min_inside: usize,
}

impl StyleFit {
    /// Judges a fingerprint's raw values.
    pub fn check(&self, fp: &Fingerprint) -> GateOutcome {
        let mut inside = 0;
        let mut feedback = Vec::new();
        for &axis in &self.axes {
            let col = self.reference.column(axis);
            let raw = fp.get(axis).raw;
            if raw < col.p25 {
                feedback.push(band_line(axis, raw, col.p25, col.p75, true));
            } else if raw > col.p75 {
                feedback.push(band_line(axis, raw, col.p25, col.p75, false));
            } else {
                inside += 1;
            }
        }
        let passed = inside >= self.min_inside;
        if passed {
            feedback.clear();
        } else {
            feedback.insert(
                0,
                format!(
                    "style fit: {inside} of {} traits lie in the reference style's middle band ({}); at least {} should",
                    self.axes.len(),
                    self.reference.source,
                    self.min_inside
                ),
            );
        }
        GateOutcome {
            gate: GateId::Style,
            passed,
            penalty: 15.0 * self.min_inside.saturating_sub(inside) as f64,
            feedback,
        }
    }
}

fn band_line(axis: Axis, raw: f64, lo: f64, hi: f64, raise: bool) -> String {
    let verb = if raise { "raise" } else { "lower" };
    format!(
        "{} ({}) — now {raw:.3}, outside the style's middle band {lo:.3}–{hi:.3}: {verb} it toward that range; you choose how",
        axis.name(),
        axis.meaning()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 95, 100]
            .map(ordinal)
            .to_vec();
        assert_eq!(
            got,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "95th", "100th"
            ]
        );
    }

    #[test]
    fn feedback_says_what_where_and_which_way() {
        assert_eq!(
            explain(Axis::TexMeanSimultaneity, Some(3), true),
            "texture fullness (how many notes sound at once) — now at the 3rd percentile: raise it toward the 25th–75th percentile range; you choose how"
        );
    }
}
