//! `cantus compose --domain chorale --melody FILE`: harmonise a chorale melody (the
//! soprano of any score Cantus reads, or a melody alone) with the embedded search
//! or a model, and leave it on disk as one run directory.

use super::verify::read_options;
use crate::domain::{ChoraleDomain, Harmonisation};
use crate::read::read_chorale;
use crate::rules::Profile;
use crate::{EmbeddedProposer, ModelProposer};
use cantus_framework::{Outcome, Proposer};
use cantus_registry::summary::{failure_lines, totals_line};
use cantus_registry::{
    Args, Compose, Composed, DomainError, Job, Model, Opt, Request, Run, RunDir, layout,
};
use serde::Serialize;
use std::path::Path;

const OPTIONS: &[Opt] = &[
    Opt::text(
        "melody",
        "FILE",
        "Chorale: the melody to harmonise — any score Cantus reads; its soprano (the top voice, or the only one), key and fermatas are used.",
    ),
    Opt::choice(
        "profile",
        "strict|lenient",
        &["strict", "lenient"],
        "Chorale: the rules the harmonisation must keep — `strict` (the textbook) or `lenient` (Bach's practice).",
    )
    .default("strict"),
    Opt::text(
        "phrase-ends",
        "MARKS",
        "Chorale: where the phrases end, comma-separated (`4`, `4:3`); default: the melody's fermatas, else the end.",
    ),
];

/// `cantus compose --domain chorale`: `--melody`, `--profile`, `--phrase-ends`.
pub struct ComposeChorale;

impl Compose for ComposeChorale {
    fn options(&self) -> &'static [Opt] {
        OPTIONS
    }

    fn prepare(&self, args: &Args, request: Request<'_>) -> Result<Box<dyn Job>, DomainError> {
        let Some(file) = args.text("melody") else {
            return Err(DomainError::new(
                "--domain chorale needs --melody FILE (a chorale or a melody in any score format Cantus reads)",
            ));
        };
        if request.raw {
            return Err(DomainError::new(
                "--raw is not available for --domain chorale; the model proposer always runs through the harness",
            ));
        }
        let options = read_options(args)?;
        let path = Path::new(file);
        let loaded = cantus_music::format::read_path(path, false).map_err(DomainError::new)?;
        let reading = read_chorale(&loaded.score, &options)
            .map_err(|e| DomainError::new(format!("{file}: not a chorale melody: {e}")))?;
        let id = path
            .file_stem()
            .map_or_else(|| "melody".to_owned(), |s| s.to_string_lossy().into_owned());
        let mut notes: Vec<String> = reading
            .inferred
            .iter()
            .map(|i| format!("inferred  {i}"))
            .collect();
        if !args.given("profile") {
            notes
                .push("default  the strict profile (--profile lenient for Bach's practice)".into());
        }
        Ok(Box::new(HarmonisationJob {
            spec: Harmonisation::of(id, &reading.chorale),
            profile: options.profile,
            notes,
            model: request.model.cloned(),
            constrained: request.constrained,
        }))
    }
}

/// A prepared harmonisation.
struct HarmonisationJob {
    spec: Harmonisation,
    profile: Profile,
    notes: Vec<String>,
    model: Option<Model>,
    constrained: bool,
}

/// `report.json` of a harmonisation run.
#[derive(Serialize)]
struct RunReport<'a> {
    domain: &'static str,
    melody: &'a str,
    key: String,
    profile: &'static str,
    seed: u64,
    released: bool,
    beats: usize,
    phrases: usize,
    diagnostics: Vec<String>,
    totals: &'a cantus_framework::Totals,
    files: Vec<String>,
    write_errors: Vec<String>,
}

#[cantus_registry::async_trait(?Send)]
impl Job for HarmonisationJob {
    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    async fn run(&self, run: Run) -> Result<Composed, DomainError> {
        let out = run.folder.path().to_owned();
        let (proposer, budget): (Box<dyn Proposer<ChoraleDomain>>, _) = match &self.model {
            None => (
                Box::new(EmbeddedProposer::default()),
                crate::compose::budget(),
            ),
            Some(m) => (
                Box::new(ModelProposer::new(
                    m.backend.clone(),
                    m.ask(self.constrained),
                    self.profile,
                )),
                m.budget(crate::compose::budget()),
            ),
        };
        let engine = crate::compose::engine(self.profile).with_budget(budget);
        let outcome = engine.run(&self.spec, proposer.as_ref(), run.seed).await;
        let (released, write_errors, dir) =
            write(run.folder, &self.spec, self.profile, &outcome, run.seed);
        let trace = outcome.trace();
        let gate = trace
            .gate
            .as_ref()
            .map_or("gate not reached".to_owned(), |g| g.gate.clone());
        let mut lines = Vec::new();
        match &outcome {
            Outcome::Released { .. } => {
                lines.push(format!(
                    "released ({gate}): {}, {} beats → {}",
                    self.spec.title(),
                    self.spec.open().total(),
                    out.display()
                ));
                lines.push(format!(
                    "check it again with: cantus verify --domain chorale --profile {} {}",
                    self.profile,
                    out.join(layout::artefact_file(true, "musicxml")).display()
                ));
            }
            Outcome::Failure { diagnostics, .. } => lines.extend(failure_lines(&gate, diagnostics)),
        }
        lines.push(totals_line(&trace.totals));
        Ok(Composed {
            released,
            lines,
            write_errors,
            dir,
        })
    }
}

/// Writes the chorale in every format, the trace and `report.json`, and commits.
fn write(
    dir: RunDir,
    spec: &Harmonisation,
    profile: Profile,
    outcome: &Outcome<ChoraleDomain>,
    seed: u64,
) -> (bool, Vec<String>, Option<std::path::PathBuf>) {
    let released = outcome.is_released();
    let (mut files, mut write_errors) = (Vec::new(), Vec::new());
    if let Some(score) = outcome.artefact() {
        let (written, errors) = dir.write_artefact(released, score);
        files.extend(written.iter().map(|p| p.display().to_string()));
        write_errors.extend(errors);
    }
    match dir.write_trace(outcome.trace()) {
        Ok(p) => files.push(p.display().to_string()),
        Err(e) => write_errors.push(e.to_string()),
    }
    let diagnostics = match outcome {
        Outcome::Failure { diagnostics, .. } => {
            diagnostics.iter().map(ToString::to_string).collect()
        }
        Outcome::Released { .. } => Vec::new(),
    };
    let report = RunReport {
        domain: "chorale",
        melody: &spec.id,
        key: spec.melody.key.name(),
        profile: profile.as_str(),
        seed,
        released,
        beats: spec.open().total(),
        phrases: spec.melody.phrase_ends.len(),
        diagnostics,
        totals: &outcome.trace().totals,
        files,
        write_errors: write_errors.clone(),
    };
    if let Err(e) = dir.write_json(layout::REPORT, &report) {
        write_errors.push(e.to_string());
    }
    let dir = match dir.commit() {
        Ok(d) => Some(d),
        Err(e) => {
            write_errors.push(e.to_string());
            None
        }
    };
    (released, write_errors, dir)
}
