//! `cantus compose|verify --domain counterpoint`: Fux species counterpoint.
//!
//! Compose writes an exercise against one of Fux's cantus firmi (by mode) or a
//! cantus from a file, with the embedded search proposer or, with `--config`, the
//! model; verify judges any two-voice exercise file by the species gate. Exit codes as
//! everywhere: 0 released/passed, 1 failed, 2 bad input.

use super::model::ModelArgs;
use super::{Exit, RunArgs, bad_input, runtime, summary};
use cantus_counterpoint::report::{VerifyReport, soft_line};
use cantus_counterpoint::rules::Profile;
use cantus_counterpoint::{Assignment, ModeName, Position, ReadOptions, Species, SpeciesGate};
use cantus_framework::Outcome;
use cantus_music::format::read_path;
use std::path::Path;

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
pub fn compose(run: &RunArgs, cp: &ComposeArgs, model: &ModelArgs) -> Exit {
    let Some(cantus_arg) = cp.cantus.as_deref() else {
        return bad_input(
            "--domain counterpoint needs --cantus MODE|FILE (dorian, phrygian, lydian, mixolydian, aeolian, ionian, or a file)",
        );
    };
    let cantus = match cantus::counterpoint::cantus(cantus_arg) {
        Ok(c) => c,
        Err(e) => return bad_input(e),
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
    if model.raw {
        return bad_input(
            "--raw is not available for --domain counterpoint; the model proposer always runs through the harness",
        );
    }
    let configured = match model.source().open() {
        Ok(c) => c,
        Err(e) => return bad_input(e),
    };
    let composed = match runtime().block_on(cantus::counterpoint::compose(
        &assignment,
        run.seed,
        configured.as_ref(),
        model.constrained,
        &run.out,
        run.force,
    )) {
        Ok(c) => c,
        Err(e) => return bad_input(e),
    };
    let trace = composed.outcome.trace();
    let gate = trace
        .gate
        .as_ref()
        .map_or("gate not reached".to_owned(), |g| g.gate.clone());
    match &composed.outcome {
        Outcome::Released { .. } => {
            say!(
                "released ({gate}): {}, {} bars → {}",
                assignment.title(),
                assignment.cantus.len(),
                run.out.display()
            );
            if let Some(report) = &trace.gate {
                say!("soft: {}", soft_line(report));
            }
            say!(
                "check it again with: cantus verify --domain counterpoint {}",
                run.out.join("piece.txt").display()
            );
        }
        Outcome::Failure { diagnostics, .. } => {
            summary::print_failure(&gate, diagnostics);
        }
    }
    say!("{}", summary::totals_line(&trace.totals));
    summary::exit(composed.released, &composed.write_errors)
}

/// `cantus verify --domain counterpoint FILE`.
pub fn verify(file: &Path, lenient: bool, json: bool, cp: &VerifyArgs) -> Exit {
    let options = ReadOptions {
        species: species(cp.species),
        cantus_voice: cp.cantus_voice.clone(),
        position: position(cp.above, cp.below),
        profile: Profile::parse(&cp.profile).unwrap_or_default(),
    };
    let loaded = match read_path(file, lenient) {
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
                file.display()
            ));
        }
    };
    let ex = &reading.exercise;
    if json {
        super::print_json(&VerifyReport::new(
            file.display().to_string(),
            loaded.score.event_count(),
            &report,
            ex,
            options.profile,
        ));
    } else {
        let hard = report.hard_count();
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
            say!("PASSED {} ({}): {head}", file.display(), report.gate);
        } else {
            say!(
                "FAILED {} ({}): {hard} violation{}; {head}",
                file.display(),
                report.gate,
                if hard == 1 { "" } else { "s" }
            );
        }
        for v in &report.violations {
            say!("  {v}");
        }
        if let Some(line) = report.unlisted_line() {
            say!("  {line}");
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
