//! One twelve-tone compose job: the piece (a spec, and the brief it came from), the
//! way it is composed — the harness with the embedded proposer or a model, Libretto's
//! revise loop, or the raw one-reply baseline — and the run folder's files, which the
//! experiment runner's run folders write too.

use crate::blueprint::BlueprintError;
use crate::compose::{Composer, Composition, budget, model_budget};
use crate::gate::GateMode;
use crate::proposer::llm::LlmProposer;
use crate::raw::{RawOutcome, RawReport, RawVerdict, compose_raw};
use crate::report::{BriefReport, ComposeReport, DegeneracyReport, Study};
use crate::spec::{CompiledBrief, Spec, SpecError, compile_brief};
use crate::{EmbeddedProposer, TwelveTone};
use cantus_framework::{Outcome, Progress, Proposer, Revise};
use cantus_libretto::{Calibration, Degeneracy, LibrettoMeasure};
use cantus_music::Score;
use cantus_registry::{Model, OutputError, RunDir, layout};
use std::path::{Path, PathBuf};

/// What to compose: a spec, and the brief it was compiled from, if any.
pub struct Piece {
    pub spec: Spec,
    pub brief: Option<(String, CompiledBrief)>,
}

/// Why a piece could not be set up; each is bad input.
#[derive(Debug, thiserror::Error)]
pub enum PieceError {
    #[error("give --brief \"…\" or --spec FILE")]
    Missing,
    #[error(transparent)]
    Read(#[from] cantus_music::format::FormatError),
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error("{0}")]
    Brief(String),
}

impl Piece {
    /// The spec of `brief`, or of the spec file at `spec`.
    pub fn load(brief: Option<&str>, spec: Option<&Path>) -> Result<Piece, PieceError> {
        if let Some(path) = spec {
            let text = cantus_music::format::read_text(path)?;
            let spec = Spec::from_toml_str(&text, &path.display().to_string())?;
            return Ok(Piece { spec, brief: None });
        }
        let text = brief.ok_or(PieceError::Missing)?;
        let compiled = compile_brief(text).map_err(|e| PieceError::Brief(e.to_string()))?;
        Ok(Piece {
            spec: compiled.spec.clone(),
            brief: Some((text.to_owned(), compiled)),
        })
    }

    fn brief_report(&self) -> Option<BriefReport<'_>> {
        self.brief
            .as_ref()
            .map(|(text, compiled)| BriefReport::of(text, compiled))
    }
}

/// How to compose.
pub enum Way<'a> {
    /// The propose–verify–repair harness, with the embedded proposer or the model.
    Harness { model: Option<&'a Model> },
    /// Up to `rounds` harness rounds measured by Libretto's degeneracy gate against the
    /// serial reference; only a piece passing both gates is released.
    Revise {
        model: Option<&'a Model>,
        rounds: u32,
    },
    /// The model writes the whole piece in one reply; the same strict gate judges it.
    Raw { model: &'a Model },
}

/// The gate mode: the flag, else the config's `[gate] mode`, else strict.
pub fn gate_mode(flag: Option<GateMode>, model: Option<&Model>) -> GateMode {
    flag.or(model.map(|m| m.gate)).unwrap_or_default()
}

/// One revise round as the CLI prints it.
#[derive(Clone, Debug)]
pub struct RoundLine {
    pub round: u32,
    pub gate_passed: bool,
    pub hard_violations: usize,
    /// The degeneracy gate: passed, its extreme axes and its budget.
    pub degeneracy: Option<(bool, Vec<String>, u64)>,
    pub best: bool,
}

/// What a compose job came to.
pub enum Composed {
    /// A harness or revise run (boxed: a composition with its trace is large).
    Harness {
        composition: Box<Composition>,
        rounds: Vec<RoundLine>,
        written: Written,
    },
    /// A raw run (boxed, as a harness run's composition is).
    Raw {
        outcome: Box<RawOutcome>,
        written: Written,
    },
}

/// What was written, and what to tell the user.
#[derive(Debug, Default)]
pub struct Written {
    pub released: bool,
    /// The failure's diagnostics (empty when released).
    pub diagnostics: Vec<String>,
    /// Files that could not be written, with why.
    pub write_errors: Vec<String>,
    /// The run directory (when it was committed).
    pub dir: Option<PathBuf>,
    /// Gate name and mode, or "gate not reached".
    pub gate: String,
    /// Libretto's degeneracy verdict on a model's released piece.
    pub degeneracy: Option<DegeneracyReport>,
}

/// Why a compose job could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum ComposeError {
    #[error("cannot plan this piece: {0}")]
    Plan(#[from] BlueprintError),
    #[error(transparent)]
    Output(#[from] OutputError),
}

/// The proposer of a harness run with `model` (or the embedded proposer), and the
/// composer judging by `mode` that runs it: a model's budget reopens drops and its
/// ladder moves octaves ([`Composer::for_model`]); the planner keeps the defaults.
pub fn proposer(
    model: Option<&Model>,
    constrained: bool,
    mode: GateMode,
) -> (Box<dyn Proposer<TwelveTone>>, Composer) {
    match model {
        None => (Box::new(EmbeddedProposer), Composer::new(mode, budget())),
        Some(m) => (
            Box::new(LlmProposer::new(m.backend.clone(), m.ask(constrained))),
            Composer::for_model(mode, model_budget(m.budget(budget()))),
        ),
    }
}

/// One compose job, as the command line asks for it.
pub struct Job<'a> {
    pub piece: &'a Piece,
    /// Seeds the plan and the proposer.
    pub seed: u64,
    pub mode: GateMode,
    pub way: Way<'a>,
    /// `--constrained`: constrained decoding whatever `[harness] constrained` says.
    pub constrained: bool,
}

/// Composes the job's piece the way it asks, and writes the run into `dir`.
pub async fn compose(
    job: Job<'_>,
    dir: RunDir,
    progress: Option<Box<dyn Fn(Progress) + Send + Sync>>,
) -> Result<Composed, ComposeError> {
    let Job {
        piece,
        seed,
        mode,
        way,
        constrained,
    } = job;
    let (model, rounds) = match way {
        Way::Raw { model } => {
            let options = model.ask(false);
            let outcome = compose_raw(&piece.spec, seed, model.backend.as_ref(), &options).await?;
            let written = write_raw(dir, &outcome, &piece.spec, seed, None);
            return Ok(Composed::Raw {
                outcome: Box::new(outcome),
                written,
            });
        }
        Way::Harness { model } => (model, None),
        Way::Revise { model, rounds } => (model, Some(rounds)),
    };
    let (proposer, mut composer) = self::proposer(model, constrained, mode);
    if let Some(p) = progress {
        composer = composer.with_progress(p);
    }
    let (composition, rounds) = match rounds {
        None => (
            composer
                .compose(&piece.spec, seed, proposer.as_ref())
                .await?,
            Vec::new(),
        ),
        Some(rounds) => revise(&composer, &piece.spec, seed, proposer.as_ref(), rounds).await?,
    };
    // A model's released piece is measured by default: rule-abiding is not musical.
    let degeneracy = match (&composition.outcome, model) {
        (Outcome::Released { artefact, .. }, Some(_)) => Some(degeneracy(artefact)),
        _ => None,
    };
    let written = write_composition(dir, &composition, piece, seed, degeneracy, None);
    Ok(Composed::Harness {
        composition: Box::new(composition),
        rounds,
        written,
    })
}

/// Libretto's degeneracy gate against the serial reference (Cantus's own released
/// pieces): the measure of `compose --revise`, the experiment's `revise` condition and
/// every degeneracy verdict.
pub fn degeneracy_measure() -> LibrettoMeasure<fn(&Score) -> Score> {
    let view: fn(&Score) -> Score = Score::clone;
    LibrettoMeasure::new(view, Calibration::serial().clone())
        .with_degeneracy(Degeneracy::serial())
        .named("libretto-degeneracy")
}

/// Libretto's degeneracy verdict on `score` (unmeasurable reads as not passed).
pub fn degeneracy(score: &Score) -> DegeneracyReport {
    let assessment = cantus_framework::Measure::<TwelveTone>::assess(&degeneracy_measure(), score);
    let (passed, extremes, budget) =
        degeneracy_of(&assessment.facts).unwrap_or((false, Vec::new(), 0));
    DegeneracyReport {
        passed,
        extremes,
        budget,
    }
}

/// Up to `rounds` harness rounds, each measured by the degeneracy gate against the
/// serial reference (Cantus's own released pieces); its feedback — what is extreme
/// and which way to move — goes first into every section request of the next round.
pub async fn revise(
    composer: &Composer,
    spec: &Spec,
    seed: u64,
    proposer: &dyn Proposer<TwelveTone>,
    rounds: u32,
) -> Result<(Composition, Vec<RoundLine>), BlueprintError> {
    let measure = degeneracy_measure();
    let composition = composer
        .revise(spec, seed, proposer, &measure, Revise::measured(rounds))
        .await?;
    let lines = composition
        .outcome
        .trace()
        .entries
        .iter()
        .filter_map(|e| match e {
            cantus_framework::Entry::Round(r) => Some(RoundLine {
                round: r.round,
                gate_passed: r.gate_passed,
                hard_violations: r.hard_violations,
                degeneracy: degeneracy_of(&r.measure),
                best: r.best,
            }),
            _ => None,
        })
        .collect();
    Ok((composition, lines))
}

/// The degeneracy gate's verdict, from a round's measure facts.
fn degeneracy_of(
    facts: &std::collections::BTreeMap<String, serde_json::Value>,
) -> Option<(bool, Vec<String>, u64)> {
    let passed = facts.get("gates")?.get("LIB-DEGENERACY")?.as_bool()?;
    let extremes = facts
        .get("extremes")?
        .as_array()?
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    let budget = facts.get("budget")?.as_u64()?;
    Some((passed, extremes, budget))
}

/// Writes every output of `composition` and commits the run: a released piece is
/// `piece.*`, an unreleased one `unreleased-piece.*`; `study`: the experiment cell
/// the run is, written into its `report.json`.
pub fn write_composition(
    dir: RunDir,
    composition: &Composition,
    piece: &Piece,
    seed: u64,
    degeneracy: Option<DegeneracyReport>,
    study: Option<Study>,
) -> Written {
    let outcome = &composition.outcome;
    let trace = outcome.trace();
    let released = outcome.is_released();
    let mut files = Vec::new();
    let mut write_errors = Vec::new();
    let mut note = |r: Result<PathBuf, OutputError>| match r {
        Ok(p) => files.push(p.display().to_string()),
        Err(e) => write_errors.push(e.to_string()),
    };
    note(dir.write_trace(trace));
    note(dir.write(layout::SPEC, piece.spec.to_toml_string().as_bytes()));
    if let Some(score) = outcome.artefact() {
        let (written, errors) = dir.write_artefact(released, score);
        files.extend(written.iter().map(|p| p.display().to_string()));
        write_errors.extend(errors);
    }
    let mut report = ComposeReport::new(
        composition,
        &piece.spec,
        piece.brief_report(),
        seed,
        files,
        write_errors.clone(),
    );
    report.degeneracy = degeneracy.clone();
    report.study = study;
    let diagnostics = report.diagnostics.clone();
    if let Err(e) = dir.write_json(layout::REPORT, &report) {
        write_errors.push(e.to_string());
    }
    let mut written = finish(dir, released, diagnostics, write_errors, gate_name(outcome));
    written.degeneracy = degeneracy;
    written
}

fn gate_name(outcome: &Outcome<TwelveTone>) -> String {
    outcome
        .trace()
        .gate
        .as_ref()
        .map_or("gate not reached".to_owned(), |g| g.gate.clone())
}

/// Writes a raw run: the model's reply as it came (`raw-reply.txt`), the piece if it
/// could be read, and `report.json` (with `study`, the experiment cell, if any).
pub fn write_raw(
    dir: RunDir,
    outcome: &RawOutcome,
    spec: &Spec,
    seed: u64,
    study: Option<Study>,
) -> Written {
    let mut write_errors = Vec::new();
    if let Err(e) = dir.write(layout::REPLY, outcome.text.as_bytes()) {
        write_errors.push(e.to_string());
    }
    let scored: Option<(&Score, bool)> = match &outcome.verdict {
        RawVerdict::Released { score, .. } => Some((score, true)),
        RawVerdict::Refused { score, .. } => Some((score, false)),
        _ => None,
    };
    if let Some((score, released)) = scored {
        write_errors.extend(dir.write_artefact(released, score).1);
    }
    let report = RawReport {
        study,
        ..RawReport::new(outcome, spec, seed)
    };
    if let Err(e) = dir.write_json(layout::REPORT, &report) {
        write_errors.push(e.to_string());
    }
    let gate = outcome
        .report()
        .map_or("gate not reached".to_owned(), |r| r.gate.clone());
    finish(
        dir,
        outcome.is_released(),
        vec![outcome.summary()],
        write_errors,
        gate,
    )
}

/// Commits the run directory, whatever the run's verdict: its files are what the
/// user reads next.
fn finish(
    dir: RunDir,
    released: bool,
    diagnostics: Vec<String>,
    mut write_errors: Vec<String>,
    gate: String,
) -> Written {
    let dir = match dir.commit() {
        Ok(d) => Some(d),
        Err(e) => {
            write_errors.push(e.to_string());
            None
        }
    };
    Written {
        released,
        diagnostics: if released { Vec::new() } else { diagnostics },
        write_errors,
        dir,
        gate,
        degeneracy: None,
    }
}
