//! `cantus compose`: write a serial piece from a brief or a spec file.

use super::outputs::{Written, write_outputs};
use super::{Exit, bad_input, runtime, summary};
use cantus_framework::{Budget, Progress, Proposer};
use cantus_twelve_tone::compose::{Composer, budget};
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::proposer::llm::{LlmOptions, LlmProposer};
use cantus_twelve_tone::spec::{CompiledBrief, Repetition, Spec, compile_brief};
use cantus_twelve_tone::{EmbeddedProposer, TwelveTone};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rule domain: `twelve-tone` (the default) or `counterpoint` (Fux species).
    #[arg(long, default_value = "twelve-tone")]
    pub domain: super::DomainName,
    /// What to write, in English: "a 16-bar trio in 3/4 at 72 bpm on Webern's Op. 21 row, with a canon between the outer voices".
    #[arg(long, conflicts_with = "spec")]
    brief: Option<String>,
    /// A spec file (TOML) instead of a brief; see examples/specs/.
    #[arg(long)]
    spec: Option<PathBuf>,
    /// Seed for the plan and the proposer: the same seed gives the same piece.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Release gate: strict (the default, or `[gate] mode` of --config) re-derives row
    /// labels from the pitches; relaxed trusts the tags.
    #[arg(long)]
    gate: Option<GateMode>,
    /// Output directory.
    #[arg(long, default_value = "out")]
    pub out: PathBuf,
    /// Revise up to N rounds (N ≥ 1; twelve-tone only): each round runs the whole
    /// harness, Libretto's degeneracy gate judges it against the serial reference, and
    /// its feedback steers the next; only a piece passing both gates is released.
    #[arg(long, value_name = "N", conflicts_with = "raw",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub revise: Option<u32>,
    #[command(flatten)]
    pub counterpoint: super::counterpoint::ComposeArgs,
    #[command(flatten)]
    pub model: super::model::ModelArgs,
}

/// The spec, and the brief it came from if any.
fn load_spec(args: &Args) -> Result<(Spec, Option<CompiledBrief>), String> {
    if let Some(path) = &args.spec {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let spec =
            Spec::from_toml_str(&text, &path.display().to_string()).map_err(|e| e.to_string())?;
        return Ok((spec, None));
    }
    let Some(brief) = args.brief.as_deref() else {
        return Err("give --brief \"…\" or --spec FILE".into());
    };
    let compiled = compile_brief(brief).map_err(|e| e.to_string())?;
    Ok((compiled.spec.clone(), Some(compiled)))
}

pub fn run(args: Args) -> Exit {
    if args.domain == super::DomainName::Counterpoint {
        if args.revise.is_some() {
            return bad_input("--revise works with --domain twelve-tone only");
        }
        return super::counterpoint::compose(&args);
    }
    let (spec, brief) = match load_spec(&args) {
        Ok(s) => s,
        Err(e) => return bad_input(e),
    };
    let configured = match super::model::backend(&args.model) {
        Ok(c) => c,
        Err(e) => return bad_input(e),
    };
    let gate_mode = match gate_mode(&args, configured.as_ref().map(|(c, _)| c)) {
        Ok(g) => g,
        Err(e) => return bad_input(e),
    };
    if matches!(spec.repetition, Repetition::Tremolo { .. }) && gate_mode == GateMode::Strict {
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
    let (proposer, budget): (Box<dyn Proposer<TwelveTone>>, Budget) = match &configured {
        None => (Box::new(EmbeddedProposer), budget()),
        Some((config, backend)) if args.model.raw => {
            let options = llm_options(config, &args.model);
            return super::raw::run(&args.out, &spec, args.seed, backend.as_ref(), &options);
        }
        Some((config, backend)) => (
            Box::new(LlmProposer::new(
                backend.clone(),
                llm_options(config, &args.model),
            )),
            harness_budget(&config.harness),
        ),
    };
    let bar = progress_bar();
    let progress = bar.clone().map(|bar| {
        Box::new(move |p: Progress| {
            if let Progress::Section { done, total } = p {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            }
        }) as Box<dyn Fn(Progress) + Send + Sync>
    });
    let composed = match args.revise {
        Some(rounds) => super::revise::compose(
            &spec,
            args.seed,
            gate_mode,
            proposer.as_ref(),
            budget,
            progress,
            rounds,
        ),
        None => {
            let mut composer = Composer::new(gate_mode, budget);
            if let Some(p) = progress {
                composer = composer.with_progress(p);
            }
            runtime().block_on(composer.compose(&spec, args.seed, proposer.as_ref()))
        }
    };
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
        summary::print_failure(&gate, &diagnostics);
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

/// `--gate`, else the config's `[gate] mode`, else strict.
fn gate_mode(args: &Args, config: Option<&cantus_backend::Config>) -> Result<GateMode, String> {
    if let Some(mode) = args.gate {
        return Ok(mode);
    }
    match config {
        Some(c) => c.gate.mode.parse().map_err(|e| format!("[gate] mode: {e}")),
        None => Ok(GateMode::Strict),
    }
}

/// How the LLM proposer asks, from `[backend]`, `[harness]` and the flags.
fn llm_options(config: &cantus_backend::Config, flags: &super::model::ModelArgs) -> LlmOptions {
    let defaults = LlmOptions::default();
    LlmOptions {
        constrained: flags.constrained_with(config),
        json_schema: config.harness.json_schema,
        reasks: config.harness.reasks,
        temperature: config.backend.temperature,
        seed: config.backend.seed,
        max_tokens: config.backend.max_tokens.or(defaults.max_tokens),
    }
}

/// The twelve-tone budget with `[harness]` overrides.
fn harness_budget(h: &cantus_backend::HarnessConfig) -> Budget {
    let mut b = budget();
    if let Some(n) = h.attempts_per_event {
        b.attempts_per_event = n;
    }
    if let Some(n) = h.replans_per_section {
        b.replans_per_section = n;
    }
    if let Some(n) = h.max_proposer_calls {
        b.max_proposer_calls = Some(n);
    }
    if let Some(s) = h.deadline_s {
        b.deadline = Some(std::time::Duration::from_secs_f64(s));
    }
    b
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
