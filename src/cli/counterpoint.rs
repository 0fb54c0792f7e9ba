//! `cantus compose|verify --domain counterpoint`: Fux species counterpoint.
//!
//! Compose writes an exercise against one of Fux's cantus firmi (by mode) or a
//! cantus from a file, with the embedded search proposer; verify judges any
//! two-voice exercise file by the species gate. Exit codes as everywhere: 0
//! released/passed, 1 failed, 2 bad input.

use super::{Exit, bad_input, runtime, summary};
use cantus_counterpoint::gate::soft_scores;
use cantus_counterpoint::rules::Profile;
use cantus_counterpoint::{
    Assignment, Cantus, EmbeddedProposer, Location, ModeName, ModelProposer, Position, ReadOptions,
    Species, SpeciesGate, compose_with,
};
use cantus_framework::{GateReport, Outcome, Proposer, Severity};
use cantus_music::format::read_path;
use serde_json::json;
use std::path::Path;
use std::time::Duration;

/// Counterpoint flags of `cantus compose`.
#[derive(clap::Args, Debug, Default)]
pub struct ComposeArgs {
    /// Counterpoint: the cantus firmus — a mode (dorian, phrygian, lydian, mixolydian, aeolian, ionian) for Fux's own, or a file (.json like the shipped data, or a score whose "Cantus" voice has one note per bar).
    #[arg(long, value_name = "MODE|FILE")]
    pub cantus: Option<String>,
    /// Counterpoint: species 1 (note against note) or 2 (two notes against one); default 1.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub species: Option<u8>,
    /// Counterpoint: write the counterpoint above the cantus (the default).
    #[arg(long, conflicts_with = "below")]
    pub above: bool,
    /// Counterpoint: write the counterpoint below the cantus.
    #[arg(long)]
    pub below: bool,
}

/// Counterpoint flags of `cantus verify`.
#[derive(clap::Args, Debug, Default)]
pub struct VerifyArgs {
    /// Counterpoint: the species (1 or 2); inferred from the rhythm when not given.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub species: Option<u8>,
    /// Counterpoint: the cantus voice's name; default: the voice whose name starts with "Cantus" (any case).
    #[arg(long, value_name = "NAME")]
    pub cantus_voice: Option<String>,
    /// Counterpoint: the counterpoint is the upper voice (inferred from the pitches when not given).
    #[arg(long, conflicts_with = "below")]
    pub above: bool,
    /// Counterpoint: the counterpoint is the lower voice.
    #[arg(long)]
    pub below: bool,
    /// Counterpoint: severities — `fux` (his prohibitions are hard) or `lenient` (as modern
    /// textbooks: contrary fifths/octaves and the battuta only warn).
    #[arg(long, value_name = "fux|lenient", default_value = "fux", value_parser = ["fux", "lenient"])]
    pub profile: String,
}

fn position(above: bool, below: bool) -> Option<Position> {
    match (above, below) {
        (true, _) => Some(Position::Above),
        (_, true) => Some(Position::Below),
        _ => None,
    }
}

fn species(n: Option<u8>) -> Option<Species> {
    n.and_then(Species::from_number)
}

/// `cantus compose --domain counterpoint`.
pub fn compose(args: &super::compose::Args) -> Exit {
    let cp = &args.counterpoint;
    let Some(cantus_arg) = cp.cantus.as_deref() else {
        return bad_input(
            "--domain counterpoint needs --cantus MODE|FILE (dorian, phrygian, lydian, mixolydian, aeolian, ionian, or a file)",
        );
    };
    let cantus = match ModeName::parse(cantus_arg) {
        Some(mode) => Cantus::fux(mode),
        None if Path::new(cantus_arg).exists() => match Cantus::from_path(Path::new(cantus_arg)) {
            Ok(c) => c,
            Err(e) => return bad_input(e),
        },
        None => {
            return bad_input(format!(
                "--cantus {cantus_arg:?} is neither a mode (dorian, phrygian, lydian, mixolydian, aeolian, ionian) nor an existing file"
            ));
        }
    };
    if cp.species.is_none() {
        eprintln!("default  species 1 (--species 2 for two notes against one)");
    }
    if !cp.above && !cp.below {
        eprintln!("default  counterpoint above the cantus (--below for below)");
    }
    let assignment = Assignment::new(
        cantus,
        species(cp.species).unwrap_or(Species::First),
        position(cp.above, cp.below).unwrap_or(Position::Above),
    );
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        return bad_input(format!("{}: {e}", args.out.display()));
    }
    // With --config the model backend of cantus.toml proposes (same backends and
    // harness settings as the twelve-tone domain); otherwise the embedded search.
    if args.model.raw {
        return bad_input(
            "--raw is not available for --domain counterpoint; the model proposer always runs through the harness",
        );
    }
    let configured = match super::model::backend(&args.model) {
        Ok(c) => c,
        Err(e) => return bad_input(e),
    };
    let mut budget = cantus_counterpoint::compose::budget();
    let proposer: Box<dyn Proposer<cantus_counterpoint::Counterpoint>> = match configured {
        Some((config, backend)) => {
            let h = &config.harness;
            budget.attempts_per_event = h.attempts_per_event.unwrap_or(budget.attempts_per_event);
            budget.replans_per_section =
                h.replans_per_section.unwrap_or(budget.replans_per_section);
            budget.max_proposer_calls = h.max_proposer_calls;
            budget.deadline = h
                .deadline_s
                .filter(|s| *s > 0.0)
                .map(Duration::from_secs_f64);
            let constrained = args.model.constrained_with(&config);
            Box::new(ModelProposer::new(backend, h.reasks, constrained))
        }
        None => Box::new(EmbeddedProposer),
    };
    let outcome = runtime().block_on(compose_with(
        assignment.clone(),
        args.seed,
        proposer.as_ref(),
        budget,
    ));
    let (released, write_errors) = write_outputs(&args.out, &assignment, &outcome, args.seed);
    let trace = outcome.trace();
    let gate = trace
        .gate
        .as_ref()
        .map_or("gate not reached".to_owned(), |g| g.gate.clone());
    match &outcome {
        Outcome::Released { .. } => {
            say!(
                "released ({gate}): {}, {} bars → {}",
                assignment.title(),
                assignment.cantus.len(),
                args.out.display()
            );
            if let Some(report) = &trace.gate {
                say!("soft: {}", soft_line(report));
            }
            say!(
                "check it again with: cantus verify --domain counterpoint {}",
                args.out.join("piece.txt").display()
            );
        }
        Outcome::Failure { diagnostics, .. } => {
            summary::print_failure(&gate, diagnostics);
        }
    }
    say!("{}", summary::totals_line(&trace.totals));
    for e in &write_errors {
        eprintln!("error: could not write {e}");
    }
    if released && write_errors.is_empty() {
        Exit::Ok
    } else {
        Exit::Failed
    }
}

/// `FS-M-leap-recovery 1, FS-M-double-leap 1` (or `none`).
fn soft_line(report: &GateReport<Location>) -> String {
    let mut counts: Vec<(cantus_framework::RuleId, usize)> = Vec::new();
    for v in report
        .violations
        .iter()
        .filter(|v| v.severity == Severity::Soft)
    {
        match counts.iter_mut().find(|(id, _)| *id == v.predicate) {
            Some((_, n)) => *n += 1,
            None => counts.push((v.predicate, 1)),
        }
    }
    if counts.is_empty() {
        return "none".into();
    }
    counts
        .iter()
        .map(|(id, n)| format!("{id} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Writes the exercise in every format, the trace and report.json; returns whether
/// it was released and what could not be written.
fn write_outputs(
    out: &Path,
    assignment: &Assignment,
    outcome: &Outcome<cantus_counterpoint::Counterpoint>,
    seed: u64,
) -> (bool, Vec<String>) {
    let released = outcome.is_released();
    let prefix = if released {
        "piece"
    } else {
        "unreleased-piece"
    };
    let mut files = Vec::new();
    let mut errors = Vec::new();
    let (score, diagnostics) = match outcome {
        Outcome::Released { artefact, .. } => (Some(artefact), Vec::new()),
        Outcome::Failure {
            artefact,
            diagnostics,
            ..
        } => (
            artefact.as_ref(),
            diagnostics.iter().map(ToString::to_string).collect(),
        ),
    };
    if let Some(score) = score {
        let (written, failed) = super::outputs::write_score_files(out, prefix, score);
        files.extend(written.iter().map(|p| p.display().to_string()));
        errors.extend(failed);
    }
    let trace_path = out.join("trace.jsonl");
    match std::fs::File::create(&trace_path).and_then(|f| {
        outcome
            .trace()
            .write_jsonl(std::io::BufWriter::new(f), true)
    }) {
        Ok(()) => files.push(trace_path.display().to_string()),
        Err(e) => errors.push(format!("{}: {e}", trace_path.display())),
    }
    let trace = outcome.trace();
    let report = json!({
        "domain": "counterpoint",
        "released": released,
        "seed": seed,
        "cantus": {
            "id": assignment.cantus.id,
            "mode": assignment.cantus.mode().map(ModeName::as_str),
            "source": assignment.cantus.source,
            "notes": assignment.cantus.notes.iter().map(ToString::to_string).collect::<Vec<_>>(),
        },
        "species": assignment.species.number(),
        "position": assignment.position.to_string(),
        "rest_start": assignment.rest_start,
        "gate": trace.gate,
        "diagnostics": diagnostics,
        "totals": trace.totals,
        "files": files,
        "write_errors": errors,
    });
    let report_path = out.join("report.json");
    if let Err(e) = std::fs::write(
        &report_path,
        serde_json::to_string_pretty(&report).unwrap_or_default(),
    ) {
        errors.push(format!("{}: {e}", report_path.display()));
    }
    (released, errors)
}

/// `cantus verify --domain counterpoint FILE`.
pub fn verify(args: &super::verify::Args) -> Exit {
    let cp = &args.counterpoint;
    let options = ReadOptions {
        species: species(cp.species),
        cantus_voice: cp.cantus_voice.clone(),
        position: position(cp.above, cp.below),
        profile: Profile::parse(&cp.profile).unwrap_or_default(),
    };
    let loaded = match read_path(&args.file, args.lenient) {
        Ok(l) => l,
        Err(e) => return bad_input(e),
    };
    for w in &loaded.warnings {
        eprintln!("{w}");
    }
    let (report, reading) = match SpeciesGate::reading(options.clone()).try_judge(&loaded.score) {
        Ok(r) => r,
        Err(e) => {
            return bad_input(format!(
                "{}: not a two-voice species exercise: {e}",
                args.file.display()
            ));
        }
    };
    let ex = &reading.exercise;
    if args.json {
        let violations: Vec<_> = report
            .violations
            .iter()
            .map(|v| {
                json!({
                    "predicate": v.predicate,
                    "severity": v.severity,
                    "bar": v.location.bar,
                    "from_bar": v.location.from_bar,
                    "voice": v.location.voice,
                    "onset": cantus_music::time_text::format(v.location.onset),
                    "reason": v.reason,
                })
            })
            .collect();
        let out = json!({
            "file": args.file.display().to_string(),
            "passed": report.passed,
            "gate": report.gate,
            "species": ex.species.number(),
            "position": ex.position.to_string(),
            "events": loaded.score.event_count(),
            "violations": violations,
            "soft_scores": soft_scores(&report, ex, options.profile),
            "facts": report.facts,
        });
        say!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    } else {
        let hard = report.hard().count();
        let head = format!(
            "species {}, counterpoint ({}) {} a {} cantus ({}), {} bars",
            ex.species.number(),
            ex.counterpoint_voice,
            ex.position,
            ex.modality.mode().map_or("modal", ModeName::as_str),
            ex.cantus_voice,
            ex.bars()
        );
        if report.passed {
            say!("PASSED {} ({}): {head}", args.file.display(), report.gate);
        } else {
            say!(
                "FAILED {} ({}): {hard} violation{}; {head}",
                args.file.display(),
                report.gate,
                if hard == 1 { "" } else { "s" }
            );
        }
        for v in &report.violations {
            say!("  {v}");
        }
        say!("  soft: {}", soft_line(&report));
        for key in ["spelling", "inferred"] {
            match report.facts.get(key) {
                Some(serde_json::Value::String(s)) => say!("  {key}: {s}"),
                Some(serde_json::Value::Array(a)) if !a.is_empty() => {
                    let items: Vec<String> = a
                        .iter()
                        .filter_map(|x| x.as_str().map(str::to_owned))
                        .collect();
                    say!("  {key}: {}", items.join("; "));
                }
                _ => {}
            }
        }
    }
    if report.passed {
        Exit::Ok
    } else {
        Exit::Failed
    }
}
