//! `cantus fill`: propose the bars of a range so that they pass Libretto's gates
//! against their context (copy risk, degeneracy), with the embedded proposer or,
//! given `--config cantus.toml`, a model backend (recorded or replayed with
//! `--record`/`--replay`, constrained by a GBNF grammar with `--constrained`).
//! The verdict says which proposer filled, how many candidates, calls and
//! tokens it took, and each gate's outcome.

use super::fingerprint::table;
use super::model::ModelArgs;
use super::{Exit, bad_input};
use cantus_framework::AskOptions;
use cantus_libretto::copy::COPY_THRESHOLD;
use cantus_libretto::fill::{
    FillError, FillRequest, Filled, ModelFillOptions, ModelUsage, fill, fill_with_model,
};
use cantus_music::format;
use serde_json::{Value, json};
use std::path::PathBuf;

/// Candidates tried by the embedded proposer unless `--candidates` says otherwise.
const EMBEDDED_CANDIDATES: usize = 24;
/// Model calls unless `--candidates` says otherwise (each is a whole reply).
const MODEL_CANDIDATES: usize = 4;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The piece (`.txt`, `.mid`, `.musicxml`).
    pub file: PathBuf,
    /// The bars to fill, `A-B` (1-based, inclusive), or one bar `A`.
    #[arg(long)]
    pub bars: String,
    /// Write the filled piece here (format by extension); default: the text
    /// grammar on stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Seed of the embedded proposer (and of the model's sampling).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Candidates to try, 1 to 1000 (default 24 embedded, 4 model calls; a model
    /// stops at the first candidate that passes, and within `[harness]
    /// max_proposer_calls`).
    #[arg(long)]
    pub candidates: Option<usize>,
    /// Calibration table (default: the shipped one).
    #[arg(long)]
    pub calibration: Option<PathBuf>,
    /// Read text leniently.
    #[arg(long)]
    pub lenient: bool,
    /// Print the verdict as JSON (with `--out`; otherwise stdout holds the piece).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub model: ModelArgs,
}

fn parse_range(text: &str) -> Option<(u32, u32)> {
    let (a, b) = text.split_once('-').unwrap_or((text, text));
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

fn ok(passed: bool) -> &'static str {
    if passed { "ok" } else { "FAIL" }
}

fn usage_text(u: &ModelUsage) -> String {
    format!(
        "{} call{}, {}, stop reasons [{}]",
        u.calls,
        if u.calls == 1 { "" } else { "s" },
        u.tokens,
        u.stop_reasons.join(", ")
    )
}

fn usage_json(u: &ModelUsage) -> Value {
    json!({
        "backend": u.backend,
        "calls": u.calls,
        "tokens_in": u.tokens.tokens_in,
        "tokens_out": u.tokens.tokens_out,
        "stop_reasons": u.stop_reasons,
        "latency_ms": u.latency_ms,
    })
}

/// The verdict lines: what filled, at what cost, and each gate.
fn verdict_text(first: u32, last: u32, f: &Filled) -> String {
    let mut lines = vec![format!(
        "bars {first}-{last}: {} by {}; copy risk {:.3} (< {COPY_THRESHOLD:.2} {}), {} extremes (≤ {} {}), distance to context {:.1}; best of {} candidates",
        if f.passed {
            "filled"
        } else {
            "NOT filled (best effort kept)"
        },
        f.proposer,
        f.copy_risk,
        ok(f.copy_risk < COPY_THRESHOLD),
        f.extremes,
        f.budget,
        ok(f.extremes <= f.budget),
        f.distance,
        f.tried
    )];
    if let Some(u) = &f.usage {
        lines.push(format!("model: {}", usage_text(u)));
    }
    for g in &f.gates {
        lines.push(format!(
            "{}: {}",
            g.gate,
            if g.passed { "pass" } else { "FAIL" }
        ));
        lines.extend(g.feedback.iter().map(|l| format!("  {l}")));
    }
    for why in &f.failures {
        lines.push(format!("failed {why}"));
    }
    lines.join("\n")
}

fn verdict_json(f: &Filled, out: Option<&PathBuf>) -> Value {
    json!({
        "out": out.map(|o| o.display().to_string()),
        "proposer": f.proposer,
        "copy_risk": f.copy_risk,
        "extremes": f.extremes,
        "budget": f.budget,
        "distance": f.distance,
        "passed": f.passed,
        "candidates": f.tried,
        "gates": f.gates.iter().map(|g| json!({
            "gate": g.gate,
            "passed": g.passed,
            "penalty": g.penalty,
            "feedback": g.feedback,
        })).collect::<Vec<_>>(),
        "failures": f.failures,
        "model": f.usage.as_ref().map(usage_json),
    })
}

pub fn run(args: Args) -> Exit {
    let Some((first_bar, last_bar)) = parse_range(&args.bars) else {
        return bad_input(format!("--bars {}: expected A-B, e.g. 5-8", args.bars));
    };
    if args.model.raw {
        return bad_input("--raw has no meaning for fill: every candidate is judged by the gates");
    }
    let table = match table(args.calibration.as_deref()) {
        Ok(t) => t,
        Err(e) => return bad_input(e),
    };
    let loaded = match format::read_path(&args.file, args.lenient) {
        Ok(l) => l,
        Err(e) => return bad_input(e),
    };
    for w in &loaded.warnings {
        eprintln!("warning: {w}");
    }
    let configured = match args.model.source().open() {
        Ok(c) => c,
        Err(e) => return bad_input(e),
    };
    let mut req = FillRequest {
        first_bar,
        last_bar,
        candidates: args.candidates.unwrap_or(EMBEDDED_CANDIDATES),
        seed: args.seed,
    };
    let result = match &configured {
        None => fill(&loaded.score, &req, &table),
        Some(m) => {
            req.candidates = args.candidates.unwrap_or(MODEL_CANDIDATES);
            if let Some(cap) = m.settings.harness.max_proposer_calls {
                req.candidates = req
                    .candidates
                    .min(usize::try_from(cap).unwrap_or(usize::MAX));
            }
            let options = ModelFillOptions {
                ask: AskOptions {
                    constrained: m.settings.ask(args.model.constrained).constrained,
                    ..AskOptions::default()
                },
                ..ModelFillOptions::default()
            };
            super::runtime().block_on(fill_with_model(
                &loaded.score,
                &req,
                &table,
                m.backend.as_ref(),
                &options,
            ))
        }
    };
    let filled = match result {
        Ok(f) => f,
        Err(FillError::NoCandidate { failures, usage }) => {
            return no_candidate(&args, first_bar, last_bar, &failures, &usage);
        }
        Err(e) => return bad_input(format!("{}: {e}", args.file.display())),
    };
    let verdict = verdict_text(first_bar, last_bar, &filled);
    match &args.out {
        Some(out) => {
            if let Err(e) = format::write_path(out, &filled.score) {
                return bad_input(e);
            }
            if args.json {
                let doc = verdict_json(&filled, Some(out));
                say!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
            } else {
                say!("{verdict}");
                say!("wrote {}", out.display());
            }
        }
        None => {
            match cantus_music::grammar::write(&filled.score) {
                Ok(text) => say!("{}", text.trim_end()),
                Err(e) => return bad_input(e),
            }
            eprintln!("{verdict}");
        }
    }
    if filled.passed {
        Exit::Ok
    } else {
        Exit::Failed
    }
}

/// The explicit failure when no candidate could even be judged.
fn no_candidate(
    args: &Args,
    first: u32,
    last: u32,
    failures: &[String],
    usage: &ModelUsage,
) -> Exit {
    let proposer = if usage.backend.is_empty() {
        "embedded".to_string()
    } else {
        format!("model:{}", usage.backend)
    };
    if args.json && args.out.is_some() {
        let doc = json!({
            "out": Value::Null,
            "proposer": proposer,
            "passed": false,
            "candidates": failures.len(),
            "gates": [],
            "failures": failures,
            "model": (!usage.backend.is_empty()).then(|| usage_json(usage)),
        });
        say!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    }
    eprintln!(
        "bars {first}-{last}: NOT filled by {proposer}: none of {} candidates could be judged",
        failures.len()
    );
    if !usage.backend.is_empty() {
        eprintln!("model: {}", usage_text(usage));
    }
    for why in failures {
        eprintln!("failed {why}");
    }
    Exit::Failed
}
