//! `cantus compose`: write a serial piece from a brief or a spec file.

use super::outputs::{Written, write_outputs};
use super::{Exit, bad_input, runtime, summary};
use cantus_framework::Progress;
use cantus_twelve_tone::EmbeddedProposer;
use cantus_twelve_tone::compose::{budget, compose};
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::spec::{CompiledBrief, Repetition, Spec, compile_brief};
use std::path::PathBuf;

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
    if matches!(spec.repetition, Repetition::Tremolo { .. }) && args.gate == GateMode::Strict {
        eprintln!(
            "note: the strict gate never allows an immediate repetition; the spec's tremolo \
             allowance applies only with --gate relaxed"
        );
    }
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
    let trace = composition.outcome.trace();
    let brief_text = args.brief.as_deref().unwrap_or_default();
    let Written {
        released,
        diagnostics,
        write_errors,
        spec_path,
        gate,
    } = write_outputs(
        &args.out,
        &composition,
        &spec,
        brief.as_ref().map(|b| (brief_text, b)),
        args.seed,
    );
    if released {
        say!(
            "released ({gate}): {} bars, {} voices → {}",
            spec.bars,
            spec.voices.len(),
            args.out.display()
        );
        say!(
            "check it again with: cantus verify {} --spec {} --seed {}",
            args.out.join("piece.txt").display(),
            spec_path.display(),
            args.seed
        );
    } else {
        say!(
            "FAILED ({gate}): {} problem{}",
            diagnostics.len(),
            if diagnostics.len() == 1 { "" } else { "s" }
        );
        for d in diagnostics.iter().take(12) {
            say!("  {d}");
        }
        if diagnostics.len() > 12 {
            say!("  … {} more in report.json", diagnostics.len() - 12);
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

pub fn progress_bar() -> Option<indicatif::ProgressBar> {
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
