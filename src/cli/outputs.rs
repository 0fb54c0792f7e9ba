//! What a composition leaves on disk: the piece in every format, the trace, the
//! spec and a JSON report. Shared by `cantus compose` and `cantus bank`.

use cantus_framework::Outcome;
use cantus_music::Score;
use cantus_music::format::{Format, render};
use cantus_twelve_tone::compose::Composition;
use cantus_twelve_tone::spec::{CompiledBrief, Spec};
use serde_json::json;
use std::path::{Path, PathBuf};

/// What was written, and what to tell the user.
pub struct Written {
    pub released: bool,
    /// The failure's diagnostics (empty when released).
    pub diagnostics: Vec<String>,
    /// Files that could not be written, with why.
    pub write_errors: Vec<String>,
    pub spec_path: PathBuf,
    /// Gate name and mode, or "gate not reached".
    pub gate: String,
}

/// Writes every output of `composition` into `out` (which must exist). A released
/// piece is `piece.*`; an unreleased one is kept as `unreleased-piece.*`.
pub fn write_outputs(
    out: &Path,
    composition: &Composition,
    spec: &Spec,
    brief: Option<(&str, &CompiledBrief)>,
    seed: u64,
) -> Written {
    let outcome = &composition.outcome;
    let trace = outcome.trace();
    let released = outcome.is_released();
    let prefix = if released {
        "piece"
    } else {
        "unreleased-piece"
    };
    let spec_path = out.join("spec.toml");
    let mut files = vec![
        write_trace(out, outcome),
        std::fs::write(&spec_path, spec.to_toml_string())
            .map(|()| spec_path.clone())
            .map_err(|e| e.to_string()),
    ];
    let mut write_errors = Vec::new();
    let (score, diagnostics): (Option<&Score>, Vec<String>) = match outcome {
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
        let (written, errors) = write_score_files(out, prefix, score);
        files.extend(written.into_iter().map(Ok));
        write_errors.extend(errors);
    }
    for e in files.iter().filter_map(|f| f.as_ref().err()) {
        write_errors.push(e.clone());
    }
    let files: Vec<String> = files
        .into_iter()
        .flatten()
        .map(|p| p.display().to_string())
        .collect();
    let schedule: Vec<_> = composition
        .plan
        .sections
        .iter()
        .map(|s| {
            json!({
                "section": s.index + 1,
                "bars": [s.first_bar, s.first_bar + s.bars - 1],
                "forms": s.forms.iter().map(ToString::to_string).collect::<Vec<_>>(),
            })
        })
        .collect();
    let report = json!({
        "released": released,
        "seed": seed,
        "gate": trace.gate,
        "diagnostics": diagnostics,
        "brief": brief.map(|(text, b)| json!({
            "text": text,
            "defaults_applied": b.defaults_applied,
            "not_understood": b.not_understood,
        })),
        "spec": spec,
        "row": composition.plan.row.pcs(),
        "schedule": schedule,
        "totals": trace.totals,
        "files": files,
        "write_errors": write_errors,
    });
    let report_path = out.join("report.json");
    if let Err(e) = std::fs::write(
        &report_path,
        serde_json::to_string_pretty(&report).unwrap_or_default(),
    ) {
        write_errors.push(format!("{}: {e}", report_path.display()));
    }
    let gate = trace
        .gate
        .as_ref()
        .map_or("gate not reached".to_owned(), |g| g.gate.clone());
    Written {
        released,
        diagnostics,
        write_errors,
        spec_path,
        gate,
    }
}

/// Writes `score` as `{prefix}.txt`, `.musicxml`, `.ly` and `.mid` into `out`: the
/// files written, and for each one that could not be, why.
pub fn write_score_files(out: &Path, prefix: &str, score: &Score) -> (Vec<PathBuf>, Vec<String>) {
    let mut written = Vec::new();
    let mut errors = Vec::new();
    for format in [
        Format::Grammar,
        Format::MusicXml,
        Format::LilyPond,
        Format::Midi,
    ] {
        let path = out.join(format!("{prefix}.{}", format.extension()));
        match render(score, format)
            .map_err(|e| e.to_string())
            .and_then(|bytes| std::fs::write(&path, bytes).map_err(|e| e.to_string()))
        {
            Ok(()) => written.push(path),
            Err(e) => errors.push(format!("{}: {e}", path.display())),
        }
    }
    (written, errors)
}

fn write_trace(
    dir: &Path,
    outcome: &Outcome<cantus_twelve_tone::TwelveTone>,
) -> Result<PathBuf, String> {
    let path = dir.join("trace.jsonl");
    let file = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    outcome
        .trace()
        .write_jsonl(std::io::BufWriter::new(file), true)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}
