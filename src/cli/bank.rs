//! `cantus bank FILE --out DIR`: compose every brief of a bank (one per line, `#`
//! comments), for one or more seeds, into `DIR/<NNN>-s<SEED>/`. A run can be
//! stopped and started again: a brief whose `report.json` is already there is
//! counted from it, not composed again (`--force` composes everything anew).

use super::outputs::write_outputs;
use super::{Exit, bad_input, runtime};
use cantus_twelve_tone::EmbeddedProposer;
use cantus_twelve_tone::compose::{Composer, budget};
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::spec::compile_brief;
use serde_json::json;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The bank: one English brief per line; `#` starts a comment.
    file: PathBuf,
    /// Output directory (one folder per brief and seed, plus summary.json).
    #[arg(long, default_value = "out/bank")]
    out: PathBuf,
    /// Seeds 0..N for every brief.
    #[arg(long, default_value_t = 1)]
    seeds: u64,
    #[arg(long, default_value = "strict")]
    gate: GateMode,
    /// Compose again even where a report is already written.
    #[arg(long)]
    force: bool,
}

/// What one brief and seed came to.
struct Entry {
    line: usize,
    seed: u64,
    released: Option<bool>,
    note: String,
}

fn briefs(path: &Path) -> Result<Vec<(usize, String)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim().to_owned()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect())
}

/// The released flag of an earlier run's report, if there is a readable one.
fn earlier(dir: &Path) -> Option<bool> {
    let text = std::fs::read_to_string(dir.join("report.json")).ok()?;
    let report: serde_json::Value = serde_json::from_str(&text).ok()?;
    report["released"].as_bool()
}

pub fn run(args: Args) -> Exit {
    let briefs = match briefs(&args.file) {
        Ok(b) => b,
        Err(e) => return bad_input(e),
    };
    // Every brief must compile before anything runs: a typo is bad input, not a
    // failure found half-way through a long run.
    let mut compiled = Vec::with_capacity(briefs.len());
    for (line, brief) in &briefs {
        match compile_brief(brief) {
            Ok(c) => compiled.push(c),
            Err(e) => return bad_input(format!("{}:{line}: {e}", args.file.display())),
        }
    }
    let total = briefs.len() as u64 * args.seeds;
    let bar = super::compose::progress_bar();
    if let Some(bar) = &bar {
        bar.set_length(total);
    }
    let rt = runtime();
    let mut entries = Vec::new();
    for ((line, brief), c) in briefs.iter().zip(&compiled) {
        for seed in 0..args.seeds {
            let dir = args.out.join(format!("{line:03}-s{seed}"));
            let entry = match earlier(&dir).filter(|_| !args.force) {
                Some(released) => Entry {
                    line: *line,
                    seed,
                    released: Some(released),
                    note: "from an earlier run".into(),
                },
                None => compose_one(&rt, &dir, brief, c, seed, args.gate, *line),
            };
            if let Some(bar) = &bar {
                bar.inc(1);
            }
            entries.push(entry);
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let released = entries.iter().filter(|e| e.released == Some(true)).count();
    let failed = entries.iter().filter(|e| e.released == Some(false)).count();
    let errors = entries.len() - released - failed;
    for e in entries.iter().filter(|e| e.released != Some(true)) {
        say!("line {} seed {}: {}", e.line, e.seed, e.note);
    }
    say!(
        "{released} of {} released, {failed} explicit failure{}, {errors} could not run → {}",
        entries.len(),
        if failed == 1 { "" } else { "s" },
        args.out.display()
    );
    let summary = json!({
        "bank": args.file.display().to_string(),
        "gate": args.gate.to_string(),
        "released": released,
        "failed": failed,
        "errors": errors,
        "entries": entries.iter().map(|e| json!({
            "line": e.line, "seed": e.seed, "released": e.released, "note": e.note,
        })).collect::<Vec<_>>(),
    });
    if let Err(e) = std::fs::create_dir_all(&args.out).and_then(|()| {
        std::fs::write(
            args.out.join("summary.json"),
            serde_json::to_string_pretty(&summary).unwrap_or_default(),
        )
    }) {
        eprintln!("error: {}: {e}", args.out.display());
    }
    if released == entries.len() {
        Exit::Ok
    } else {
        Exit::Failed
    }
}

fn compose_one(
    rt: &tokio::runtime::Runtime,
    dir: &Path,
    brief: &str,
    compiled: &cantus_twelve_tone::spec::CompiledBrief,
    seed: u64,
    gate: GateMode,
    line: usize,
) -> Entry {
    let entry = |released, note: String| Entry {
        line,
        seed,
        released,
        note,
    };
    if let Err(e) = std::fs::create_dir_all(dir) {
        return entry(None, format!("{}: {e}", dir.display()));
    }
    let spec = &compiled.spec;
    let composition =
        match rt.block_on(Composer::new(gate, budget()).compose(spec, seed, &EmbeddedProposer)) {
            Ok(c) => c,
            Err(e) => return entry(None, format!("cannot plan: {e}")),
        };
    let written = write_outputs(dir, &composition, spec, Some((brief, compiled)), seed);
    let note = match (
        written.released,
        written.write_errors.first(),
        written.diagnostics.first(),
    ) {
        (_, Some(err), _) => format!("could not write {err}"),
        (true, None, _) => "released".to_owned(),
        (false, None, Some(d)) => format!("failed: {d}"),
        (false, None, None) => "failed".to_owned(),
    };
    entry(
        Some(written.released && written.write_errors.is_empty()),
        note,
    )
}
