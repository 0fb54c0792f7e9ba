//! The chorale experiment: harmonise the soprano lines of the shared Bach chorales
//! and measure the results against Bach's (see `cantus_chorale::experiment`).
//!
//! ```text
//! cargo run --release -p cantus-chorale --example harmonise_bach -- \
//!     --out OUT [--n 40] [--seed 1] [--config cantus.toml --name smollm2] [--dir CHORALES]
//! ```
//!
//! Without `--config` the embedded proposer harmonises; with one, its backend (any
//! kind `cantus.toml` names: `openai` for the local SmolLM2, `null` for the null
//! model) through the model proposer, constrained by the grammar. Every run is one
//! line of `OUT/results.jsonl`, appended when it ends; a rerun skips the runs already
//! there, so a stopped experiment resumes. `OUT/report.md` and `OUT/report.json`
//! are rewritten whole after every run, released chorales go to
//! `OUT/pieces/<name>/<task>.txt` (the text grammar; the phrase ends are the melody's).

use cantus_chorale::experiment::{self, Record, report};
use cantus_chorale::{EmbeddedProposer, ModelProposer, Profile};
use cantus_framework::{AskOptions, Proposer};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

struct Args {
    out: PathBuf,
    dir: PathBuf,
    n: usize,
    seed: u64,
    config: Option<PathBuf>,
    name: String,
}

fn args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let shared = std::env::var_os("CANTUS_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        PathBuf::from,
    );
    let mut a = Args {
        out: PathBuf::new(),
        dir: shared.join("data/corpus/bach_chorales"),
        n: 40,
        seed: 1,
        config: None,
        name: String::new(),
    };
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--out" => a.out = value()?.into(),
            "--dir" => a.dir = value()?.into(),
            "--n" => a.n = value()?.parse().map_err(|e| format!("--n: {e}"))?,
            "--seed" => a.seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--config" => a.config = Some(value()?.into()),
            "--name" => a.name = value()?,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if a.out.as_os_str().is_empty() {
        return Err("--out OUT is required".into());
    }
    if a.name.is_empty() {
        a.name = if a.config.is_some() {
            "model"
        } else {
            "embedded"
        }
        .into();
    }
    Ok(a)
}

/// Writes `bytes` to `path` whole (a temporary file renamed into place).
fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

fn read_records(path: &Path) -> Result<Vec<Record>, String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(Vec::new());
    };
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map_err(|e| format!("{}:{}: not a record: {e}", path.display(), i + 1))
        })
        .collect()
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let a = args()?;
    let (tasks, skipped) =
        experiment::tasks(&a.dir, a.n).map_err(|e| format!("{}: {e}", a.dir.display()))?;
    for s in &skipped {
        eprintln!("passed over {}: {}", s.path.display(), s.reason);
    }
    let pieces = a.out.join("pieces").join(&a.name);
    std::fs::create_dir_all(&pieces).map_err(|e| format!("{}: {e}", pieces.display()))?;
    let results = a.out.join("results.jsonl");
    let mut records = read_records(&results)?;
    let proposer: Box<dyn Proposer<_>> = match &a.config {
        None => Box::new(EmbeddedProposer::default()),
        Some(path) => {
            let config = cantus_backend::Config::load(path).map_err(|e| e.to_string())?;
            let backend = cantus_backend::build(&config).map_err(|e| e.to_string())?;
            let options = AskOptions {
                constrained: true,
                reasks: 1,
                seed: Some(a.seed),
                max_tokens: Some(16),
                ..AskOptions::default()
            };
            Box::new(ModelProposer::new(
                Arc::clone(&backend),
                options,
                Profile::Strict,
            ))
        }
    };
    // A model's run is bounded (a small model can circle a beat for long): 15
    // minutes and 400 calls, as `examples/config/local.toml`'s `[harness]` allows.
    let engine = match &a.config {
        None => cantus_chorale::engine(Profile::Strict),
        Some(_) => cantus_chorale::engine(Profile::Strict).with_budget(cantus_framework::Budget {
            deadline: Some(std::time::Duration::from_secs(900)),
            max_proposer_calls: Some(400),
            ..cantus_chorale::compose::budget()
        }),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    for (i, task) in tasks.iter().enumerate() {
        let done = records
            .iter()
            .any(|r| r.task == task.id && r.proposer == a.name && r.seed == a.seed);
        if done {
            continue;
        }
        let run = runtime.block_on(experiment::run(
            task,
            &engine,
            proposer.as_ref(),
            &a.name,
            a.seed,
        ));
        if let Some(score) = &run.score {
            let bytes = cantus_music::format::render(score, cantus_music::format::Format::Grammar)
                .map_err(|e| e.to_string())?;
            write_whole(&pieces.join(format!("{}.txt", task.id)), &bytes)
                .map_err(|e| e.to_string())?;
        }
        let r = &run.record;
        eprintln!(
            "[{}/{}] {} {}: {} in {} calls, {:.1} s",
            i + 1,
            tasks.len(),
            a.name,
            task.id,
            if r.released {
                "released"
            } else {
                r.failure.as_deref().unwrap_or("failed")
            },
            r.calls,
            r.seconds
        );
        let mut line = serde_json::to_string(r).map_err(|e| e.to_string())?;
        line.push('\n');
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&results)
            .map_err(|e| format!("{}: {e}", results.display()))?;
        file.write_all(line.as_bytes()).map_err(|e| e.to_string())?;
        records.push(run.record);
        let summary = report::summarise(&records);
        write_whole(
            &a.out.join("report.md"),
            report::markdown(&summary, &records).as_bytes(),
        )
        .map_err(|e| e.to_string())?;
        let json = serde_json::to_vec_pretty(&summary).map_err(|e| e.to_string())?;
        write_whole(&a.out.join("report.json"), &json).map_err(|e| e.to_string())?;
    }
    Ok(())
}
