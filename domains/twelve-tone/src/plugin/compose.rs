//! `cantus compose` in the twelve-tone domain: the flags (`--brief` or `--spec`,
//! `--gate`, `--revise`) read into a [`Piece`] and a [`Way`] before any work, the
//! job run (`job.rs`), and what the user reads of it.

use super::job::{Composed, Job, Piece, RoundLine, Way, compose, gate_mode};
use crate::gate::GateMode;
use crate::spec::Repetition;
use cantus_registry::summary::{failure_lines, totals_line};
use cantus_registry::{
    Args, Compose, Composed as RunComposed, DomainError, Job as RunJob, Model, Opt, Request, Run,
    layout,
};
use std::path::Path;

const OPTIONS: &[Opt] = &[
    Opt::text(
        "brief",
        "BRIEF",
        "What to write, in English: \"a 16-bar trio in 3/4 at 72 bpm on Webern's Op. 21 row, with a canon between the outer voices\".",
    )
    .conflicts_with(&["spec"]),
    Opt::path(
        "spec",
        "SPEC",
        "A spec file (TOML) instead of a brief; see examples/specs/.",
    ),
    Opt::choice(
        "gate",
        "GATE",
        &["strict", "relaxed"],
        "Release gate: strict (the default, or `[gate] mode` of --config) re-derives row labels from the pitches; relaxed trusts the tags.",
    ),
    Opt::number(
        "revise",
        "N",
        1,
        u32::MAX as u64,
        "Revise up to N rounds (N ≥ 1; twelve-tone only): each round runs the whole harness, Libretto's degeneracy gate judges it against the serial reference, and its feedback steers the next; only a piece passing both gates is released.",
    )
    .conflicts_with(&["raw"]),
];

/// `cantus compose` (the default domain): `--brief` or `--spec`, `--gate`, `--revise`.
pub struct ComposeTwelveTone;

impl Compose for ComposeTwelveTone {
    fn options(&self) -> &'static [Opt] {
        OPTIONS
    }

    fn prepare(&self, args: &Args, request: Request<'_>) -> Result<Box<dyn RunJob>, DomainError> {
        let piece =
            Piece::load(args.text("brief"), args.path("spec")).map_err(DomainError::caused_by)?;
        let gate = args
            .text("gate")
            .map(str::parse::<GateMode>)
            .transpose()
            .map_err(DomainError::new)?;
        let revise = args
            .number("revise")
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX));
        if request.raw && request.model.is_none() {
            return Err(DomainError::new(
                "--raw needs --config: the model writes the piece",
            ));
        }
        Ok(Box::new(TwelveToneJob {
            piece,
            gate,
            revise,
            model: request.model.cloned(),
            raw: request.raw,
            constrained: request.constrained,
        }))
    }
}

/// A prepared twelve-tone compose job.
struct TwelveToneJob {
    piece: Piece,
    gate: Option<GateMode>,
    revise: Option<u32>,
    model: Option<Model>,
    raw: bool,
    constrained: bool,
}

#[cantus_registry::async_trait(?Send)]
impl RunJob for TwelveToneJob {
    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        let mode = gate_mode(self.gate, self.model.as_ref());
        if matches!(self.piece.spec.repetition, Repetition::Tremolo { .. })
            && mode == GateMode::Strict
        {
            notes.push(
                "note: the strict gate never allows an immediate repetition; the spec's tremolo \
                 allowance applies only with --gate relaxed"
                    .to_owned(),
            );
        }
        if let Some((_, b)) = &self.piece.brief {
            for d in &b.defaults_applied {
                notes.push(format!("default  {d}"));
            }
            if !b.not_understood.is_empty() {
                notes.push(format!(
                    "not understood (ignored): {}",
                    b.not_understood.join(", ")
                ));
            }
        }
        notes
    }

    fn shows_progress(&self) -> bool {
        !self.raw
    }

    async fn run(&self, run: Run) -> Result<RunComposed, DomainError> {
        let way = match (&self.model, self.raw, self.revise) {
            (Some(m), true, _) => Way::Raw { model: m },
            (m, _, Some(rounds)) => Way::Revise {
                model: m.as_ref(),
                rounds,
            },
            (m, _, None) => Way::Harness { model: m.as_ref() },
        };
        let out = run.folder.path().to_owned();
        let job = Job {
            piece: &self.piece,
            seed: run.seed,
            mode: gate_mode(self.gate, self.model.as_ref()),
            way,
            constrained: self.constrained,
        };
        let composed = compose(job, run.folder, run.progress)
            .await
            .map_err(DomainError::new)?;
        Ok(self.summary(composed, &out, run.seed))
    }
}

impl TwelveToneJob {
    /// What the user reads of the run.
    fn summary(&self, composed: Composed, out: &Path, seed: u64) -> RunComposed {
        let mut lines = Vec::new();
        let written = match composed {
            Composed::Harness {
                composition,
                rounds,
                written,
            } => {
                if let Some(total) = self.revise {
                    lines.extend(round_lines(&rounds, total, written.released));
                }
                let trace = composition.outcome.trace();
                if written.released {
                    lines.push(format!(
                        "released ({}): {} bars, {} voices → {}",
                        written.gate,
                        self.piece.spec.bars,
                        self.piece.spec.voices.len(),
                        out.display()
                    ));
                    lines.push(format!(
                        "check it again with: cantus verify {} --spec {} --seed {seed}",
                        out.join(layout::artefact_file(true, "txt")).display(),
                        out.join(layout::SPEC).display(),
                    ));
                    if let Some(d) = &written.degeneracy {
                        lines.push(format!(
                            "libretto degeneracy: {} ({} extreme{}, budget {}{}{})",
                            if d.passed { "passed" } else { "refused" },
                            d.extremes.len(),
                            if d.extremes.len() == 1 { "" } else { "s" },
                            d.budget,
                            if d.extremes.is_empty() { "" } else { ": " },
                            d.extremes.join(", ")
                        ));
                    }
                } else {
                    lines.extend(failure_lines(&written.gate, &written.diagnostics));
                }
                lines.push(totals_line(&trace.totals));
                written
            }
            Composed::Raw { outcome, written } => {
                let backend = self
                    .model
                    .as_ref()
                    .map_or_else(String::new, |m| m.backend.name());
                lines.push(format!("raw ({backend}): {}", outcome.summary()));
                lines.push(format!(
                    "1 model call, tokens in/out {}/{}, {:.1} s → {}",
                    outcome
                        .tokens
                        .tokens_in
                        .map_or("?".into(), |t| t.to_string()),
                    outcome
                        .tokens
                        .tokens_out
                        .map_or("?".into(), |t| t.to_string()),
                    outcome.wall.as_secs_f64(),
                    out.display()
                ));
                written
            }
        };
        RunComposed {
            released: written.released,
            lines,
            write_errors: written.write_errors,
            dir: written.dir,
        }
    }
}

/// One verdict line per revise round, then the loop's outcome.
fn round_lines(rounds: &[RoundLine], total: u32, released: bool) -> Vec<String> {
    let mut lines = Vec::new();
    for r in rounds {
        let gate = if r.gate_passed {
            "strict gate passed".to_owned()
        } else {
            format!("strict gate failed ({} violations)", r.hard_violations)
        };
        let degeneracy = match &r.degeneracy {
            Some((_, extremes, budget)) if extremes.is_empty() => {
                format!("degeneracy passed (0 extremes, budget {budget})")
            }
            Some((passed, extremes, budget)) => format!(
                "degeneracy {} ({} extreme{}, budget {budget}: {})",
                if *passed { "passed" } else { "failed" },
                extremes.len(),
                if extremes.len() == 1 { "" } else { "s" },
                extremes.join(", ")
            ),
            None => "degeneracy not measured".to_owned(),
        };
        lines.push(format!(
            "round {}/{total}: {gate}; {degeneracy}{}",
            r.round,
            if r.best { "; best so far" } else { "" }
        ));
    }
    lines.push(format!(
        "revise: {} after {} of at most {total} round{}",
        if released {
            "released"
        } else {
            "nothing released"
        },
        rounds.len(),
        if total == 1 { "" } else { "s" }
    ));
    lines
}
