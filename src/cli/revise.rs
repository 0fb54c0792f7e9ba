//! `cantus compose --revise N`: the generate–measure–revise loop on a serial piece.
//!
//! The strict gate says whether a piece obeys the rules; it cannot say whether it
//! is music or a degenerate texture that obeys them (held notes, one rhythm, a
//! static block). Here every round runs the whole propose–verify–repair harness
//! (so every round is legal), Libretto's degeneracy gate measures the result
//! against the serial reference shipped with the program (Cantus's own released
//! pieces), and its feedback — what is extreme and which way to move — goes
//! first into every section request of the next round. Only a piece that passes
//! both gates is released; after N rounds without one, the best round is kept as
//! `unreleased-piece.*` with the measure's feedback as the failure's diagnostics.

use cantus_framework::{
    Assessment, Budget, Entry, Measure, Progress, Proposer, Revise, RoundRecord,
};
use cantus_libretto::{Calibration, Degeneracy, LibrettoMeasure};
use cantus_music::Score;
use cantus_twelve_tone::TwelveTone;
use cantus_twelve_tone::blueprint::{Blueprint, BlueprintError};
use cantus_twelve_tone::compose::{Composition, engine};
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::spec::Spec;
use std::sync::Mutex;

/// What the degeneracy gate said about one round's piece.
#[derive(Clone, Debug)]
struct Verdict {
    passed: bool,
    extremes: Vec<&'static str>,
    budget: usize,
}

/// Libretto's measure with the serial reference, remembering each verdict so
/// the command can print one line per round.
struct Recorded {
    inner: LibrettoMeasure<fn(&Score) -> Score>,
    verdicts: Mutex<Vec<Verdict>>,
}

impl Recorded {
    fn new() -> Recorded {
        let view: fn(&Score) -> Score = Score::clone;
        Recorded {
            inner: LibrettoMeasure::new(view, Calibration::serial().clone())
                .with_degeneracy(Degeneracy::serial()),
            verdicts: Mutex::new(Vec::new()),
        }
    }

    fn verdicts(&self) -> Vec<Verdict> {
        self.verdicts.lock().map(|v| v.clone()).unwrap_or_default()
    }
}

impl Measure<TwelveTone> for Recorded {
    fn name(&self) -> &str {
        "libretto-degeneracy"
    }

    fn assess(&self, piece: &Score) -> Assessment {
        let report = self.inner.report(piece);
        let gate = &self.inner.degeneracy;
        let extremes = report
            .fingerprint
            .as_ref()
            .map(|fp| gate.extremes(fp).iter().map(|r| r.axis.id()).collect())
            .unwrap_or_default();
        if let Ok(mut v) = self.verdicts.lock() {
            v.push(Verdict {
                passed: report.gates.iter().all(|g| g.passed),
                extremes,
                budget: gate.budget,
            });
        }
        Assessment {
            score: report.gates.iter().map(|g| g.penalty).sum(),
            converged: report.gates.iter().all(|g| g.passed),
            feedback: report.gates.into_iter().flat_map(|g| g.feedback).collect(),
        }
    }
}

/// One round's verdict line: the round, the serial gate, the degeneracy extremes
/// against the budget, and whether it became the best so far.
fn round_line(r: &RoundRecord, total: u32, v: Option<&Verdict>) -> String {
    let gate = if r.gate_passed {
        "strict gate passed".to_owned()
    } else {
        format!("strict gate failed ({} violations)", r.hard_violations)
    };
    let degeneracy = match v {
        Some(v) if v.extremes.is_empty() => {
            format!("degeneracy passed (0 extremes, budget {})", v.budget)
        }
        Some(v) => format!(
            "degeneracy {} ({} extreme{}, budget {}: {})",
            if v.passed { "passed" } else { "failed" },
            v.extremes.len(),
            if v.extremes.len() == 1 { "" } else { "s" },
            v.budget,
            v.extremes.join(", ")
        ),
        None => "degeneracy not measured".to_owned(),
    };
    format!(
        "round {}/{total}: {gate}; {degeneracy}{}",
        r.round,
        if r.best { "; best so far" } else { "" }
    )
}

/// Plans `spec` with `seed` and runs up to `rounds` harness rounds, each measured
/// by the degeneracy gate against the serial reference; prints each round's
/// verdict line.
pub fn compose(
    spec: &Spec,
    seed: u64,
    mode: GateMode,
    proposer: &dyn Proposer<TwelveTone>,
    budget: Budget,
    progress: Option<Box<dyn Fn(Progress) + Send + Sync>>,
    rounds: u32,
) -> Result<Composition, BlueprintError> {
    let plan = Blueprint::new(spec, seed)?;
    let mut engine = engine(mode).with_budget(budget);
    if let Some(p) = progress {
        engine = engine.with_progress(p);
    }
    let measure = Recorded::new();
    let outcome = super::runtime().block_on(engine.revise_harness(
        &plan,
        proposer,
        &measure,
        seed,
        Revise::measured(rounds),
    ));
    let verdicts = measure.verdicts();
    let records = outcome.trace().entries.iter().filter_map(|e| match e {
        Entry::Round(r) => Some(r),
        _ => None,
    });
    let mut ran = 0;
    for (i, r) in records.enumerate() {
        say!("{}", round_line(r, rounds, verdicts.get(i)));
        ran += 1;
    }
    say!(
        "revise: {} after {ran} of at most {rounds} round{}",
        if outcome.is_released() {
            "released"
        } else {
            "nothing released"
        },
        if rounds == 1 { "" } else { "s" }
    );
    Ok(Composition { plan, outcome })
}
