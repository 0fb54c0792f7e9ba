//! `cantus compose --raw`: the model writes the whole piece in one reply, with no
//! harness, and the same strict gate judges it — the baseline the harness is measured
//! against. The model's reply is always kept (`raw-reply.txt`) so a person can see
//! what it wrote; a readable piece is written as `piece.*` when released and
//! `unreleased-piece.*` when refused.

use super::{Exit, bad_input, runtime};
use cantus_framework::ModelBackend;
use cantus_music::Score;
use cantus_twelve_tone::proposer::llm::LlmOptions;
use cantus_twelve_tone::raw::{RawVerdict, compose_raw};
use cantus_twelve_tone::spec::Spec;
use serde_json::json;
use std::path::Path;

pub fn run(
    out: &Path,
    spec: &Spec,
    seed: u64,
    backend: &dyn ModelBackend,
    options: &LlmOptions,
) -> Exit {
    let outcome = match runtime().block_on(compose_raw(spec, seed, backend, options)) {
        Ok(o) => o,
        Err(e) => return bad_input(format!("cannot plan this piece: {e}")),
    };
    let mut write_errors = Vec::new();
    write(
        &out.join("raw-reply.txt"),
        Ok(outcome.text.clone().into_bytes()),
        &mut write_errors,
    );
    let (score, prefix): (Option<&Score>, &str) = match &outcome.verdict {
        RawVerdict::Released { score, .. } => (Some(score), "piece"),
        RawVerdict::Refused { score, .. } => (Some(score), "unreleased-piece"),
        _ => (None, ""),
    };
    if let Some(score) = score {
        let (_, failed) = super::outputs::write_score_files(out, prefix, score);
        write_errors.extend(failed);
    }
    let violations: Vec<_> = outcome
        .report()
        .map(|r| {
            r.violations
                .iter()
                .map(super::verify::violation_json)
                .collect()
        })
        .unwrap_or_default();
    let report = json!({
        "mode": "raw",
        "released": outcome.is_released(),
        "outcome": outcome.summary(),
        "seed": seed,
        "spec": spec,
        "violations": violations,
        "warnings": outcome.warnings,
        "calls": outcome.calls,
        "tokens_in": outcome.tokens_in,
        "tokens_out": outcome.tokens_out,
        "wall_ms": outcome.wall.as_millis() as u64,
        "model": outcome.exchange,
    });
    write(
        &out.join("report.json"),
        serde_json::to_string_pretty(&report)
            .map(String::into_bytes)
            .map_err(|e| e.to_string()),
        &mut write_errors,
    );
    say!("raw ({}): {}", backend.name(), outcome.summary());
    say!(
        "1 model call, tokens in/out {}/{}, {:.1} s → {}",
        outcome.tokens_in.map_or("?".into(), |t| t.to_string()),
        outcome.tokens_out.map_or("?".into(), |t| t.to_string()),
        outcome.wall.as_secs_f64(),
        out.display()
    );
    for e in &write_errors {
        eprintln!("error: could not write {e}");
    }
    if outcome.is_released() && write_errors.is_empty() {
        Exit::Ok
    } else {
        Exit::Failed
    }
}

/// Writes `bytes` to `path`, or notes why it could not.
fn write(path: &Path, bytes: Result<Vec<u8>, String>, errors: &mut Vec<String>) {
    if let Err(e) = bytes.and_then(|b| std::fs::write(path, b).map_err(|e| e.to_string())) {
        errors.push(format!("{}: {e}", path.display()));
    }
}
