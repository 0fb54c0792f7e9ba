//! `cantus compose`: write a serial piece from a brief or a spec file.

use super::{Exit, bad_input, runtime, summary};
use cantus_framework::{Outcome, Progress};
use cantus_music::Score;
use cantus_music::format::{Format, render};
use cantus_twelve_tone::EmbeddedProposer;
use cantus_twelve_tone::compose::{budget, compose};
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::spec::{CompiledBrief, Spec, compile_brief};
use serde_json::json;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// What to write, in English: "a 16-bar trio in 3/4 at 72 bpm on Webern's Op. 21 row, with a canon between the outer voices".
    #[arg(long, conflicts_with = "spec", required_unless_present = "spec")]
    brief: Option<String>,
    /// A spec file (TOML) instead of a brief; see examples/specs/.
    #[arg(long)]
    spec: Option<PathBuf>,
    /// Seed for the plan and the proposer: the same seed gives the same piece.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Release gate: strict re-derives row labels from the pitches; relaxed trusts the tags.
    #[arg(long, default_value = "strict")]
    gate: GateMode,
    /// Output directory.
    #[arg(long, default_value = "out")]
    out: PathBuf,
}

/// The spec, and the brief it came from if any.
fn load_spec(args: &Args) -> Result<(Spec, Option<CompiledBrief>), String> {
    if let Some(path) = &args.spec {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let spec =
            Spec::from_toml_str(&text, &path.display().to_string()).map_err(|e| e.to_string())?;
        return Ok((spec, None));
    }
    let brief = args.brief.as_deref().unwrap_or_default();
    let compiled = compile_brief(brief).map_err(|e| e.to_string())?;
    Ok((compiled.spec.clone(), Some(compiled)))
}

pub fn run(args: Args) -> Exit {
    let (spec, brief) = match load_spec(&args) {
        Ok(s) => s,
        Err(e) => return bad_input(e),
    };
    if let Some(b) = &brief {
        for d in &b.defaults_applied {
            eprintln!("default  {d}");
        }
        if !b.not_understood.is_empty() {
            eprintln!("not understood (ignored): {}", b.not_understood.join(", "));
        }
    }
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        return bad_input(format!("{}: {e}", args.out.display()));
    }
    let bar = progress_bar();
    let progress = bar.clone().map(|bar| {
        Box::new(move |p: Progress| {
            if let Progress::Section { done, total } = p {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            }
        }) as Box<dyn Fn(Progress) + Send + Sync>
    });
    let proposer = EmbeddedProposer;
    let composed = runtime().block_on(compose(
        &spec,
        args.seed,
        args.gate,
        &proposer,
        budget(),
        progress,
    ));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let composition = match composed {
        Ok(c) => c,
        Err(e) => return bad_input(format!("cannot plan this piece: {e}")),
    };
    let outcome = &composition.outcome;
    let trace = outcome.trace();
    let released = outcome.is_released();
    let prefix = if released {
        "piece"
    } else {
        "unreleased-piece"
    };
    let spec_path = args.out.join("spec.toml");
    let mut files = vec![
        write_trace(&args.out, outcome),
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
        for format in [
            Format::Grammar,
            Format::MusicXml,
            Format::LilyPond,
            Format::Midi,
        ] {
            let path = args.out.join(format!("{prefix}.{}", format.extension()));
            match render(score, format)
                .and_then(|bytes| std::fs::write(&path, bytes).map_err(|e| e.to_string()))
            {
                Ok(()) => files.push(Ok(path)),
                Err(e) => write_errors.push(format!("{}: {e}", path.display())),
            }
        }
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
        "seed": args.seed,
        "gate": trace.gate,
        "diagnostics": diagnostics,
        "brief": brief.as_ref().map(|b| json!({
            "text": args.brief,
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
    let report_path = args.out.join("report.json");
    if let Err(e) = std::fs::write(
        &report_path,
        serde_json::to_string_pretty(&report).unwrap_or_default(),
    ) {
        eprintln!("error: {}: {e}", report_path.display());
    }
    let gate = trace
        .gate
        .as_ref()
        .map_or("gate not reached".to_owned(), |g| g.gate.clone());
    if released {
        println!(
            "released ({gate}): {} bars, {} voices → {}",
            spec.bars,
            spec.voices.len(),
            args.out.display()
        );
        println!(
            "check it again with: cantus verify {} --spec {} --seed {}",
            args.out.join("piece.txt").display(),
            spec_path.display(),
            args.seed
        );
    } else {
        println!(
            "FAILED ({gate}): {} problem{}",
            diagnostics.len(),
            if diagnostics.len() == 1 { "" } else { "s" }
        );
        for d in diagnostics.iter().take(12) {
            println!("  {d}");
        }
        if diagnostics.len() > 12 {
            println!("  … {} more in report.json", diagnostics.len() - 12);
        }
    }
    println!("{}", summary::totals_line(&trace.totals));
    for e in &write_errors {
        eprintln!("error: could not write {e}");
    }
    if released && write_errors.is_empty() {
        Exit::Ok
    } else {
        Exit::Failed
    }
}

fn write_trace(
    dir: &Path,
    outcome: &Outcome<cantus_twelve_tone::TwelveTone>,
) -> Result<PathBuf, String> {
    let path = dir.join("trace.jsonl");
    let file = std::fs::File::create(&path).map_err(|e| e.to_string())?;
    outcome
        .trace()
        .write_jsonl(std::io::BufWriter::new(file), true)
        .map_err(|e| e.to_string())?;
    Ok(path)
}

fn progress_bar() -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("composing {bar:30} section {pos}/{len} {elapsed}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    Some(bar)
}
