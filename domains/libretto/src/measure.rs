//! The gates as one [`Measure`] for `Engine::revise`, usable by any domain whose
//! artefact can be seen as a [`Score`].

use crate::calibration::Calibration;
use crate::copy::NoteGrid;
use crate::fingerprint::{Fingerprint, raw_axes};
use crate::gates::{CopyGate, Degeneracy, GateOutcome, Novelty, StyleFit};
use crate::song::Layout;
use cantus_framework::{Assessment, Domain, Measure};
use cantus_music::Score;

/// How a domain's artefact is seen as a score.
pub trait ScoreView<A>: Send + Sync {
    /// The artefact as a score.
    fn score_of(&self, artefact: &A) -> Score;
}

impl<A, F: Fn(&A) -> Score + Send + Sync> ScoreView<A> for F {
    fn score_of(&self, artefact: &A) -> Score {
        self(artefact)
    }
}

/// Libretto's gates as a soft measure: degeneracy always, copy risk, style fit
/// and novelty when configured. Converged when every configured gate passes; the
/// score is the sum of the gates' penalties.
pub struct LibrettoMeasure<V> {
    view: V,
    table: Calibration,
    name: &'static str,
    /// The degeneracy gate.
    pub degeneracy: Degeneracy,
    /// Copy risk against references.
    pub copy: Option<CopyGate>,
    /// Style fit against a reference set.
    pub style: Option<StyleFit>,
    /// Novelty against shown examples.
    pub novelty: Option<Novelty>,
}

/// Everything one assessment found.
#[derive(Clone, Debug)]
pub struct Report {
    /// The fingerprint (`None` when the piece sounds no note).
    pub fingerprint: Option<Fingerprint>,
    /// Each configured gate's verdict.
    pub gates: Vec<GateOutcome>,
}

impl<V> LibrettoMeasure<V> {
    /// Degeneracy against `table` with the default budget; add gates with the
    /// `with_*` methods.
    pub fn new(view: V, table: Calibration) -> Self {
        LibrettoMeasure {
            view,
            table,
            name: "libretto",
            degeneracy: Degeneracy::default(),
            copy: None,
            style: None,
            novelty: None,
        }
    }

    /// The same measure under another name (in traces and failures), e.g.
    /// `libretto-degeneracy` when it holds only that gate.
    pub fn named(mut self, name: &'static str) -> Self {
        self.name = name;
        self
    }

    /// Sets the degeneracy gate.
    pub fn with_degeneracy(mut self, gate: Degeneracy) -> Self {
        self.degeneracy = gate;
        self
    }

    /// Adds a copy-risk gate.
    pub fn with_copy(mut self, gate: CopyGate) -> Self {
        self.copy = Some(gate);
        self
    }

    /// Adds a style-fit gate.
    pub fn with_style(mut self, gate: StyleFit) -> Self {
        self.style = Some(gate);
        self
    }

    /// Adds a novelty gate.
    pub fn with_novelty(mut self, gate: Novelty) -> Self {
        self.novelty = Some(gate);
        self
    }

    /// Runs every configured gate on a score.
    pub fn report(&self, score: &Score) -> Report {
        let layout = match Layout::from_score(score) {
            Ok(l) => l,
            Err(e) => return silent(format!("the piece cannot be measured: {e}")),
        };
        let Ok(raw) = raw_axes(&layout) else {
            return silent("the piece sounds no note: write notes".to_string());
        };
        let fp = Fingerprint::place(&raw, &self.table);
        let grid = NoteGrid::of(&layout.song());
        let mut gates = vec![self.degeneracy.check(&fp)];
        gates.extend(self.copy.as_ref().map(|g| g.check(&grid)));
        gates.extend(self.style.as_ref().map(|g| g.check(&fp)));
        gates.extend(self.novelty.as_ref().map(|g| g.check(&grid)));
        Report {
            fingerprint: Some(fp),
            gates,
        }
    }
}

fn silent(reason: String) -> Report {
    Report {
        fingerprint: None,
        gates: vec![GateOutcome::silent(reason)],
    }
}

impl<D, V> Measure<D> for LibrettoMeasure<V>
where
    D: Domain,
    V: ScoreView<D::Artefact>,
{
    fn name(&self) -> &str {
        self.name
    }

    /// The gates' verdict; its facts: each gate's pass (`gates`), the degeneracy
    /// gate's extreme axes (`extremes`) and its budget (`budget`).
    fn assess(&self, artefact: &D::Artefact) -> Assessment {
        let report = self.report(&self.view.score_of(artefact));
        let extremes: Vec<&str> = report
            .fingerprint
            .as_ref()
            .map(|fp| {
                self.degeneracy
                    .extremes(fp)
                    .iter()
                    .map(|r| r.axis.id())
                    .collect()
            })
            .unwrap_or_default();
        let gates: serde_json::Map<String, serde_json::Value> = report
            .gates
            .iter()
            .map(|g| (g.gate.id().to_owned(), g.passed.into()))
            .collect();
        let facts = [
            ("gates".to_owned(), gates.into()),
            ("extremes".to_owned(), extremes.into()),
            ("budget".to_owned(), self.degeneracy.budget.into()),
        ]
        .into_iter()
        .collect();
        Assessment {
            score: report.gates.iter().map(|g| g.penalty).sum(),
            converged: report.gates.iter().all(|g| g.passed),
            feedback: report.gates.into_iter().flat_map(|g| g.feedback).collect(),
            facts,
        }
    }
}
