//! `cantus verify` in the twelve-tone domain: judge any piece by the strict (or
//! relaxed) serial gate, against its spec, a given row, or the row inferred from
//! the music.

use super::job::{Piece, PieceError};
use crate::Blueprint;
use crate::Location;
use crate::blueprint::BlueprintError;
use crate::gate::{GateMode, SerialGate};
use crate::report::VerifyReport;
use cantus_framework::GateReport;
use cantus_music::Score;
use cantus_registry::{Args, DomainError, Opt, Verified, Verify};
use std::path::{Path, PathBuf};

const OPTIONS: &[Opt] = &[
    Opt::choice(
        "mode",
        "MODE",
        &["strict", "relaxed"],
        "strict re-derives row labels from the pitches; relaxed trusts the row tags.",
    )
    .default("strict"),
    Opt::path(
        "spec",
        "SPEC",
        "The spec the piece was written to: registers, texture, crossing and (with --seed) the schedule.",
    ),
    Opt::number(
        "seed",
        "SEED",
        0,
        u64::MAX,
        "The compose seed, to rebuild the schedule from --spec.",
    )
    .default("0"),
    Opt::text(
        "row",
        "ROW",
        "The row, when there is no spec (\"0 11 7 …\" or a historical name); otherwise it is inferred.",
    )
    .conflicts_with(&["spec"]),
];

/// `cantus verify` (the default domain): `--mode`, `--spec` and `--seed`, `--row`.
pub struct VerifyTwelveTone;

impl Verify for VerifyTwelveTone {
    fn options(&self) -> &'static [Opt] {
        OPTIONS
    }

    fn verify(&self, file: &Path, lenient: bool, args: &Args) -> Result<Verified, DomainError> {
        let against = Against::from_args(args)?;
        let judged = verify(file, lenient, &against).map_err(DomainError::caused_by)?;
        let warnings = judged.loaded.warnings.iter().map(ToString::to_string);
        Ok(verdict(
            &file.display().to_string(),
            &judged.loaded.score,
            &judged.report,
            warnings.collect(),
        ))
    }

    fn verify_score(
        &self,
        score: &Score,
        source: &str,
        args: &Args,
    ) -> Result<Verified, DomainError> {
        let against = Against::from_args(args)?;
        let plan = against.plan().map_err(DomainError::caused_by)?;
        let gate = against
            .gate(plan.as_ref())
            .map_err(DomainError::caused_by)?;
        Ok(verdict(source, score, &gate.judge_score(score), Vec::new()))
    }
}

/// The verdict on `score` (read from `source`) in the program's words and as JSON.
fn verdict(
    source: &str,
    score: &Score,
    report: &GateReport<Location>,
    warnings: Vec<String>,
) -> Verified {
    let json = serde_json::to_value(VerifyReport::new(
        source.to_owned(),
        score.event_count(),
        report,
    ))
    .unwrap_or_default();
    let mut lines = Vec::new();
    let hard = report.hard_count();
    if report.passed {
        lines.push(format!(
            "PASSED {source} ({}): {} events in {} voices",
            report.gate,
            score.event_count(),
            score.voices.len()
        ));
    } else {
        lines.push(format!(
            "FAILED {source} ({}): {hard} violation{}",
            report.gate,
            if hard == 1 { "" } else { "s" }
        ));
    }
    lines.extend(report.violations.iter().map(|v| format!("  {v}")));
    if let Some(line) = report.unlisted_line() {
        lines.push(format!("  {line}"));
    }
    for (k, v) in &report.facts {
        match v {
            serde_json::Value::String(s) => lines.push(format!("  {k}: {s}")),
            other => lines.push(format!("  {k}: {other}")),
        }
    }
    Verified {
        passed: report.passed,
        warnings,
        lines,
        json,
    }
}

/// What `cantus verify` judges a piece against.
#[derive(Clone, Debug, Default)]
pub struct Against {
    pub mode: GateMode,
    /// The spec the piece was written to (registers, texture, crossing) and, with
    /// `seed`, its schedule.
    pub spec: Option<PathBuf>,
    pub seed: u64,
    /// The row, when there is no spec: pitch classes or a historical name.
    pub row: Option<String>,
}

impl Against {
    /// What the flags say (`--mode`, `--spec`, `--seed`, `--row`).
    fn from_args(args: &Args) -> Result<Against, DomainError> {
        Ok(Against {
            mode: args
                .text("mode")
                .map(str::parse::<GateMode>)
                .transpose()
                .map_err(DomainError::new)?
                .unwrap_or_default(),
            spec: args.path("spec").map(Path::to_path_buf),
            seed: args.number("seed").unwrap_or(0),
            row: args.text("row").map(str::to_owned),
        })
    }

    /// The blueprint of the spec (with the seed), when a spec is given.
    pub fn plan(&self) -> Result<Option<Blueprint>, VerifyError> {
        match &self.spec {
            Some(path) => {
                let piece = Piece::load(None, Some(path))?;
                Ok(Some(Blueprint::new(&piece.spec, self.seed)?))
            }
            None => Ok(None),
        }
    }

    /// The gate: against `plan` (from [`Against::plan`]), else the row given, else
    /// the row inferred from the music.
    pub fn gate<'p>(&self, plan: Option<&'p Blueprint>) -> Result<SerialGate<'p>, VerifyError> {
        Ok(match (plan, &self.row) {
            (Some(plan), _) => SerialGate::for_plan(plan, self.mode),
            (None, Some(text)) => {
                let (row, _) = crate::row::row_or_name(text)?;
                SerialGate::for_row(row, Default::default(), self.mode)
            }
            (None, None) => SerialGate::inferring(self.mode),
        })
    }
}

/// A judged piece.
pub struct Judged {
    pub loaded: cantus_music::format::Loaded,
    pub report: GateReport<Location>,
}

/// Why a piece could not be judged at all; bad input.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error(transparent)]
    Piece(#[from] PieceError),
    #[error("{0}")]
    Plan(#[from] BlueprintError),
    #[error("--row: {0}")]
    Row(#[from] crate::row::RowOrNameError),
    #[error(transparent)]
    Read(#[from] cantus_music::format::FormatError),
}

/// Judges the piece in `file` by the strict (or relaxed) gate, against its spec, a
/// given row, or the row inferred from the music. Read `lenient`ly, grace notes are
/// kept and judged as row tones sounding before the note they lead to (they take no
/// time, so no timing rule applies to them); read strictly, they are left out with a
/// warning, as every command that judges timed notes does.
pub fn verify(file: &Path, lenient: bool, against: &Against) -> Result<Judged, VerifyError> {
    let plan = against.plan()?;
    let gate = against.gate(plan.as_ref())?;
    let options = cantus_music::ReadOptions {
        lenient,
        grace_notes: lenient,
        ..cantus_music::ReadOptions::default()
    };
    let loaded = cantus_music::format::read_path_with(file, &options)?;
    let report = gate.judge_score(&loaded.score);
    Ok(Judged { loaded, report })
}
