//! `cantus verify FILE`: judge any piece by the release gate.

use super::{Exit, bad_input};
use cantus_framework::Violation;
use cantus_music::format::read_path;
use cantus_twelve_tone::gate::{GateMode, SerialGate};
use cantus_twelve_tone::row::row_or_name;
use cantus_twelve_tone::spec::Spec;
use cantus_twelve_tone::{Blueprint, Location};
use serde_json::json;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rule domain: `twelve-tone` (the default) or `counterpoint` (Fux species).
    #[arg(long, default_value = "twelve-tone")]
    pub domain: super::DomainName,
    /// The piece: .txt (grammar), .mid or .musicxml.
    pub file: PathBuf,
    /// strict re-derives row labels from the pitches; relaxed trusts the row tags.
    #[arg(long, default_value = "strict")]
    mode: GateMode,
    /// The spec the piece was written to: registers, texture, crossing and (with --seed) the schedule.
    #[arg(long)]
    spec: Option<PathBuf>,
    /// The compose seed, to rebuild the schedule from --spec.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The row, when there is no spec ("0 11 7 …" or a historical name); otherwise it is inferred.
    #[arg(long, conflicts_with = "spec")]
    row: Option<String>,
    /// Read a text-grammar file leniently (raw model output).
    #[arg(long)]
    pub lenient: bool,
    /// Print a JSON object: passed, mode, violations [{predicate, bar, voice, onset, reason}], facts.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub counterpoint: super::counterpoint::VerifyArgs,
}

/// The blueprint of `--spec` and `--seed`, if given.
fn plan(args: &Args) -> Result<Option<Blueprint>, String> {
    let Some(path) = &args.spec else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let spec =
        Spec::from_toml_str(&text, &path.display().to_string()).map_err(|e| e.to_string())?;
    Blueprint::new(&spec, args.seed)
        .map(Some)
        .map_err(|e| e.to_string())
}

fn gate<'p>(args: &Args, plan: Option<&'p Blueprint>) -> Result<SerialGate<'p>, String> {
    if let Some(plan) = plan {
        return Ok(SerialGate::for_plan(plan, args.mode));
    }
    if let Some(text) = &args.row {
        let (row, _) = row_or_name(text).map_err(|e| format!("--row: {e}"))?;
        return Ok(SerialGate::for_row(row, Default::default(), args.mode));
    }
    Ok(SerialGate::inferring(args.mode))
}

pub fn run(args: Args) -> Exit {
    if args.domain == super::DomainName::Counterpoint {
        return super::counterpoint::verify(&args);
    }
    let plan = match plan(&args) {
        Ok(p) => p,
        Err(e) => return bad_input(e),
    };
    let gate = match gate(&args, plan.as_ref()) {
        Ok(g) => g,
        Err(e) => return bad_input(e),
    };
    let loaded = match read_path(&args.file, args.lenient) {
        Ok(l) => l,
        Err(e) => return bad_input(e),
    };
    for w in &loaded.warnings {
        eprintln!("{w}");
    }
    let report = gate.judge_score(&loaded.score);
    if args.json {
        let violations: Vec<_> = report.violations.iter().map(violation_json).collect();
        let out = json!({
            "file": args.file.display().to_string(),
            "passed": report.passed,
            "gate": report.gate,
            "events": loaded.score.event_count(),
            "violations": violations,
            "facts": report.facts,
        });
        say!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    } else {
        let hard = report.hard().count();
        if report.passed {
            say!(
                "PASSED {} ({}): {} events in {} voices",
                args.file.display(),
                report.gate,
                loaded.score.event_count(),
                loaded.score.voices.len()
            );
        } else {
            say!(
                "FAILED {} ({}): {hard} violation{}",
                args.file.display(),
                report.gate,
                if hard == 1 { "" } else { "s" }
            );
        }
        for v in &report.violations {
            say!("  {v}");
        }
        for (k, v) in &report.facts {
            match v {
                serde_json::Value::String(s) => say!("  {k}: {s}"),
                other => say!("  {k}: {other}"),
            }
        }
    }
    if report.passed {
        Exit::Ok
    } else {
        Exit::Failed
    }
}

/// One twelve-tone violation as `verify --json` and `report.json` print it.
pub fn violation_json(v: &Violation<Location>) -> serde_json::Value {
    json!({
        "predicate": v.predicate,
        "severity": v.severity,
        "bar": v.location.bar,
        "voice": v.location.voice,
        "onset": cantus_music::time_text::format(v.location.onset),
        "reason": v.reason,
    })
}
