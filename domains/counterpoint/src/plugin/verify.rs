//! `cantus verify --domain counterpoint FILE`: judge any two-voice exercise file by
//! the species gate.

use super::compose::{position, species};
use crate::report::{VerifyReport, soft_line};
use crate::rules::Profile;
use crate::{ModeName, ReadOptions, SpeciesGate};
use cantus_music::Score;
use cantus_music::format::read_path;
use cantus_registry::{Args, DomainError, Opt, Verified, Verify};
use std::path::Path;

const OPTIONS: &[Opt] = &[
    Opt::number(
        "species",
        "SPECIES",
        1,
        2,
        "Counterpoint: the species (1 or 2); inferred from the rhythm when not given.",
    ),
    Opt::text(
        "cantus-voice",
        "NAME",
        "Counterpoint: the cantus voice's name; default: the voice whose name starts with \"Cantus\" (any case).",
    ),
    Opt::flag(
        "above",
        "Counterpoint: the counterpoint is the upper voice (inferred from the pitches when not given).",
    )
    .conflicts_with(&["below"]),
    Opt::flag("below", "Counterpoint: the counterpoint is the lower voice."),
    Opt::choice(
        "profile",
        "fux|lenient",
        &["fux", "lenient"],
        "Counterpoint: severities — `fux` (his prohibitions are hard) or `lenient` (as modern textbooks: contrary fifths/octaves and the battuta only warn).",
    )
    .default("fux"),
];

/// `cantus verify --domain counterpoint`.
pub struct VerifyCounterpoint;

impl Verify for VerifyCounterpoint {
    fn options(&self) -> &'static [Opt] {
        OPTIONS
    }

    fn verify(&self, file: &Path, lenient: bool, args: &Args) -> Result<Verified, DomainError> {
        let loaded = read_path(file, lenient).map_err(DomainError::caused_by)?;
        let mut verified = judge(&loaded.score, &file.display().to_string(), args)?;
        verified.warnings = loaded.warnings.iter().map(ToString::to_string).collect();
        Ok(verified)
    }

    fn verify_score(
        &self,
        score: &Score,
        source: &str,
        args: &Args,
    ) -> Result<Verified, DomainError> {
        judge(score, source, args)
    }
}

/// Judges `score` (read from `source`) by the species gate the flags choose.
fn judge(score: &Score, source: &str, args: &Args) -> Result<Verified, DomainError> {
    let options = ReadOptions {
        species: species(args),
        cantus_voice: args.text("cantus-voice").map(str::to_owned),
        position: position(args),
        profile: args
            .text("profile")
            .and_then(Profile::parse)
            .unwrap_or_default(),
    };
    let (report, reading) = SpeciesGate::reading(options.clone())
        .try_judge(score)
        .map_err(|e| {
            DomainError::new(format!("{source}: not a two-voice species exercise: {e}"))
        })?;
    let ex = &reading.exercise;
    let json = serde_json::to_value(VerifyReport::new(
        source.to_owned(),
        score.event_count(),
        &report,
        ex,
        options.profile,
    ))
    .unwrap_or_default();
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
    let mut lines = Vec::new();
    if report.passed {
        lines.push(format!("PASSED {source} ({}): {head}", report.gate));
    } else {
        lines.push(format!(
            "FAILED {source} ({}): {hard} violation{}; {head}",
            report.gate,
            if hard == 1 { "" } else { "s" }
        ));
    }
    lines.extend(report.violations.iter().map(|v| format!("  {v}")));
    if let Some(line) = report.unlisted_line() {
        lines.push(format!("  {line}"));
    }
    lines.push(format!("  soft: {}", soft_line(&report)));
    for key in ["spelling", "inferred"] {
        match report.facts.get(key) {
            Some(serde_json::Value::String(s)) => lines.push(format!("  {key}: {s}")),
            Some(serde_json::Value::Array(a)) if !a.is_empty() => {
                let items: Vec<String> = a
                    .iter()
                    .filter_map(|x| x.as_str().map(str::to_owned))
                    .collect();
                lines.push(format!("  {key}: {}", items.join("; ")));
            }
            _ => {}
        }
    }
    Ok(Verified {
        passed: report.passed,
        warnings: Vec::new(),
        lines,
        json,
    })
}
