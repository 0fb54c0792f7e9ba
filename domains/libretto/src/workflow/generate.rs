//! `generate`: a whole piece in a style — the original's newgen task.
//!
//! The style is a genre of the calibration table (its middle bands on the
//! genre-split axes, its extreme budget and copy threshold) or the centre of a
//! reference set (the set's own distribution as the table, its degeneracy
//! budget calibrated on its pieces). A candidate must be 64–179 bars long
//! (`LIB-LENGTH`), have no more unidiomatic extremes than the budget
//! (`LIB-DEGENERACY`), copy no reference piece or shown excerpt
//! (`LIB-COPY`, when there are references) and fit the style (`LIB-STYLE`: at
//! least 3 of the 8 genre-split axes inside the style's middle band). The
//! loop's score is the original's newgen score.
//!
//! Writing a tonal piece in a style is a model's task: the embedded proposers
//! write twelve-tone pieces and species counterpoint, and [`embedded_author`]
//! says so rather than pretend.

use super::gates::{
    GenreFit, Length, PIECE_BARS, copy_threshold, newgen_score, out_of_band, sounding_bars,
};
use super::model::Task;
use super::{Author, Judge, Run, Verdict, Workflow, WorkflowError, refine};
use crate::axes::{AXIS_COUNT, Axis, RawAxes};
use crate::calibration::Calibration;
use crate::copy::NoteGrid;
use crate::fingerprint::{Fingerprint, Profile, raw_axes};
use crate::gates::{CopyGate, Degeneracy, GateId, GateOutcome, StyleFit};
use crate::retrieval::{ReferenceSet, Shown};
use crate::song::Layout;
use cantus_music::Score;
use serde_json::json;
use std::fmt::Write as _;

/// The original's genre-split axes: the traits a style is fitted on.
pub const SPLIT_AXES: [Axis; 8] = [
    Axis::RhySyncopationRate,
    Axis::RhyTripletShare,
    Axis::HarDimaugRate,
    Axis::FormDistinctBarFrac,
    Axis::HarChromaticism,
    Axis::HarDistinctPc,
    Axis::MelVoiceRange,
    Axis::MelIntervalEntropy,
];

/// The style to write in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Style {
    /// A genre of the calibration table (e.g. `jazz`).
    Genre(String),
    /// The centre of the reference set.
    References,
}

/// What to generate.
#[derive(Clone, Debug)]
pub struct GenerateRequest<'a> {
    /// The style.
    pub style: Style,
    /// The calibration table (a genre's bands come from it).
    pub table: &'a Calibration,
    /// Reference pieces (required for [`Style::References`]).
    pub references: Option<&'a ReferenceSet>,
    /// Length bounds in bars (the original's 64–179 by default).
    pub bars: std::ops::RangeInclusive<u32>,
    /// Excerpts shown (the nearest pieces to the style's centre).
    pub shown: usize,
    /// Draw the shown pieces at random among the nearest `max(6, 3k)`, with this seed.
    pub sample: Option<u64>,
}

impl<'a> GenerateRequest<'a> {
    /// A request with the original's length bounds and three excerpts.
    pub fn new(style: Style, table: &'a Calibration, references: Option<&'a ReferenceSet>) -> Self {
        GenerateRequest {
            style,
            table,
            references,
            bars: PIECE_BARS,
            shown: 3,
            sample: None,
        }
    }
}

enum Fit {
    Genre(GenreFit),
    Reference(StyleFit),
}

/// The newgen judge.
pub struct GenerateJudge {
    table: Calibration,
    length: Length,
    degeneracy: Degeneracy,
    copy: Option<CopyGate>,
    fit: Fit,
    /// Bands for the out-of-band count (genre bands; none for a reference style).
    bands: Vec<(Axis, f64, f64)>,
}

/// A prepared generation: its judge, what is shown, and the model's task.
pub struct GenerateJob {
    /// The judge.
    pub judge: GenerateJudge,
    /// The excerpts shown to a model.
    pub shown: Vec<Shown>,
    /// What was set up, for the report.
    pub setup: Vec<String>,
    /// The model's task.
    pub task: Task,
}

/// The centre of a genre: on each genre-split axis, the percentile of its
/// band's middle; 50 elsewhere.
pub fn genre_centre(table: &Calibration, genre: &str) -> Option<Profile> {
    let bands = table.genre_bands(genre)?;
    let mut centre = [50.0; AXIS_COUNT];
    for &(axis, lo, hi) in bands {
        centre[axis.index()] = f64::from(table.column(axis).percentile((lo + hi) / 2.0));
    }
    Some(Profile(centre))
}

fn measure(score: &Score) -> Option<(RawAxes, NoteGrid)> {
    let layout = Layout::from_score(score).ok()?;
    let raw = raw_axes(&layout).ok()?;
    Some((raw, NoteGrid::of(&layout.song())))
}

impl GenerateJob {
    /// Sets the judge up and retrieves the excerpts.
    pub fn new(req: &GenerateRequest<'_>) -> Result<GenerateJob, WorkflowError> {
        let mut setup = Vec::new();
        let (table, degeneracy, fit, bands, threshold, centre, style_words) = match &req.style {
            Style::Genre(genre) => {
                let known = || req.table.genres().collect::<Vec<_>>().join(", ");
                let degeneracy = Degeneracy::for_genre(req.table, genre).ok_or_else(|| {
                    WorkflowError::Input(format!(
                        "no extreme budget and bands for genre `{genre}` in {} (genres: {})",
                        req.table.source,
                        known()
                    ))
                })?;
                let fit = GenreFit::new(req.table, genre)
                    .ok_or_else(|| WorkflowError::Input(format!("no bands for genre `{genre}`")))?;
                let centre = genre_centre(req.table, genre)
                    .ok_or_else(|| WorkflowError::Input(format!("no bands for genre `{genre}`")))?;
                setup.push(format!(
                    "style: {genre} ({}), at most {} unidiomatic extremes, copy below {:.2}",
                    req.table.source,
                    degeneracy.budget,
                    copy_threshold(Some(genre))
                ));
                let bands = fit.bands.clone();
                (
                    req.table.clone(),
                    degeneracy,
                    Fit::Genre(fit),
                    bands,
                    copy_threshold(Some(genre)),
                    centre,
                    format!("in the style of {genre}"),
                )
            }
            Style::References => {
                let set = req.references.ok_or_else(|| {
                    WorkflowError::Input("a reference style needs --reference DIR".into())
                })?;
                if set.pieces.len() < 3 {
                    return Err(WorkflowError::Input(format!(
                        "{}: a style needs at least 3 reference pieces, found {}",
                        set.dir.display(),
                        set.pieces.len()
                    )));
                }
                let table = set.table();
                let raws: Vec<RawAxes> = set.pieces.iter().map(|p| p.raw).collect();
                let degeneracy = Degeneracy::calibrated(&table, &raws);
                let centre = set.centroid(&table);
                setup.push(format!(
                    "style: the centre of {} reference pieces in {}, at most {} extremes, copy below 0.30",
                    set.pieces.len(),
                    set.dir.display(),
                    degeneracy.budget
                ));
                let fit = StyleFit {
                    reference: table.clone(),
                    axes: SPLIT_AXES.to_vec(),
                    min_inside: 3,
                };
                (
                    table,
                    degeneracy,
                    Fit::Reference(fit),
                    Vec::new(),
                    copy_threshold(None),
                    centre,
                    "in the style of the reference pieces".to_owned(),
                )
            }
        };
        let (shown, copy) = match req.references {
            Some(set) => {
                let near = set.nearest(&centre, &table, req.shown, req.sample);
                let shown = set.show(&near);
                let mut grids = set.grids();
                grids.extend(shown.iter().filter_map(|s| measure(&s.score).map(|m| m.1)));
                setup.push(format!(
                    "references: {} pieces ({} fingerprints from the index, {} measured); shown: {}",
                    set.pieces.len(),
                    set.index.reused,
                    set.index.measured,
                    shown.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
                ));
                (
                    shown,
                    Some(CopyGate {
                        references: grids,
                        threshold,
                    }),
                )
            }
            None => {
                setup.push("no reference set: copy risk is not judged".into());
                (Vec::new(), None)
            }
        };
        let length = Length {
            min: *req.bars.start(),
            max: *req.bars.end(),
            what: "piece",
        };
        let task = Task {
            workflow: Workflow::Generate,
            text: task_text(&style_words, &length, &shown),
            header: format!(
                "KEY: ? | METER: 4/4 | TEMPO: 100 | GRID: 16th | BARS: {}\nVOICES: Melody, Harmony, Bass\n",
                length.min
            ),
            context: json!({ "bars_min": length.min, "bars_max": length.max }),
        };
        Ok(GenerateJob {
            judge: GenerateJudge {
                table,
                length,
                degeneracy,
                copy,
                fit,
                bands,
            },
            shown,
            setup,
            task,
        })
    }

    /// Runs the loop with `author`.
    pub async fn run(&self, author: &dyn Author, rounds: u32, seed: u64) -> Run {
        refine(
            Workflow::Generate,
            author,
            &self.judge,
            rounds,
            seed,
            self.setup.clone(),
        )
        .await
    }
}

fn task_text(style: &str, length: &Length, shown: &[Shown]) -> String {
    let mut p = format!(
        "Write a whole piece {style}, {}–{} bars long, with a beginning, a middle and an end.\n",
        length.min, length.max
    );
    if !shown.is_empty() {
        p.push_str(
            "Excerpts of reference pieces, to study how they are made — do not copy their notes:\n",
        );
        for s in shown {
            let _ = writeln!(
                p,
                "--- {} (8 bars from bar {}, renumbered from 1):",
                s.name, s.from_bar
            );
            p.push_str(&s.text);
        }
    }
    p
}

/// The embedded proposers cannot write a tonal piece in a style.
pub fn embedded_author() -> Result<Box<dyn Author>, WorkflowError> {
    Err(WorkflowError::NoEmbeddedAuthor(
        "the embedded proposers write twelve-tone pieces and species counterpoint only; they cannot \
         write a piece in a tonal style: give --config FILE to ask a model"
            .into(),
    ))
}

impl Judge for GenerateJudge {
    fn judge(&self, piece: &Score) -> Verdict {
        let bars = sounding_bars(piece);
        let length = self.length.check(bars);
        let Some((raw, grid)) = measure(piece) else {
            let gates = vec![length, super::silent_gate()];
            return Verdict {
                score: newgen_score(&gates, AXIS_COUNT),
                gates,
                measures: json!({ "bars": bars }),
            };
        };
        let fp = Fingerprint::place(&raw, &self.table);
        let mut gates: Vec<GateOutcome> = vec![length, self.degeneracy.check(&fp)];
        let copy = self
            .copy
            .as_ref()
            .map(|c| (c.check(&grid), crate::copy::copy_risk(&grid, &c.references)));
        if let Some((gate, _)) = &copy {
            gates.push(gate.clone());
        }
        gates.push(match &self.fit {
            Fit::Genre(f) => f.check(&fp),
            Fit::Reference(f) => f.check(&fp),
        });
        let oob = out_of_band(&fp, &self.table, &self.bands);
        let extremes = self.degeneracy.extremes(&fp).len();
        Verdict {
            score: newgen_score(&gates, oob.len()),
            measures: json!({
                "bars": bars,
                "extremes": extremes,
                "budget": self.degeneracy.budget,
                "copy_risk": copy.map(|c| c.1),
                "out_of_band": oob.iter().map(|a| a.id()).collect::<Vec<_>>(),
            }),
            gates,
        }
    }
}

impl GenerateJudge {
    /// The gates this judge runs, in order.
    pub fn gates(&self) -> Vec<GateId> {
        let mut out = vec![GateId::Length, GateId::Degeneracy];
        if self.copy.is_some() {
            out.push(GateId::Copy);
        }
        out.push(GateId::Style);
        out
    }
}
