//! `cantus compose`: write a serial piece from a brief or a spec file (or, with
//! `--domain counterpoint`, a species exercise: see `counterpoint.rs`).

use super::model::ModelArgs;
use super::{Exit, RunArgs, bad_input, runtime, summary};
use cantus::twelve_tone::{Composed, Job, Piece, RoundLine, Way, gate_mode};
use cantus_framework::Progress;
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::spec::Repetition;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rule domain: `twelve-tone` (the default) or `counterpoint` (Fux species).
    #[arg(long, default_value = "twelve-tone")]
    pub domain: super::DomainName,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub twelve_tone: TwelveToneArgs,
    #[command(flatten)]
    pub counterpoint: super::counterpoint::ComposeArgs,
    #[command(flatten)]
    pub model: ModelArgs,
}

/// The twelve-tone flags of `cantus compose`.
#[derive(clap::Args, Debug)]
pub struct TwelveToneArgs {
    /// What to write, in English: "a 16-bar trio in 3/4 at 72 bpm on Webern's Op. 21 row, with a canon between the outer voices".
    #[arg(long, conflicts_with = "spec")]
    brief: Option<String>,
    /// A spec file (TOML) instead of a brief; see examples/specs/.
    #[arg(long)]
    spec: Option<PathBuf>,
    /// Release gate: strict (the default, or `[gate] mode` of --config) re-derives row
    /// labels from the pitches; relaxed trusts the tags.
    #[arg(long)]
    gate: Option<GateMode>,
    /// Revise up to N rounds (N ≥ 1; twelve-tone only): each round runs the whole
    /// harness, Libretto's degeneracy gate judges it against the serial reference, and
    /// its feedback steers the next; only a piece passing both gates is released.
    #[arg(long, value_name = "N", conflicts_with = "raw",
          value_parser = clap::value_parser!(u32).range(1..))]
    revise: Option<u32>,
}

pub fn run(args: Args) -> Exit {
    if args.domain == super::DomainName::Counterpoint {
        if args.twelve_tone.revise.is_some() {
            return bad_input("--revise works with --domain twelve-tone only");
        }
        return super::counterpoint::compose(&args.run, &args.counterpoint, &args.model);
    }
    let tt = &args.twelve_tone;
    let piece = match Piece::load(tt.brief.as_deref(), tt.spec.as_deref()) {
        Ok(p) => p,
        Err(e) => return bad_input(e),
    };
    let model = match args.model.source().open() {
        Ok(m) => m,
        Err(e) => return bad_input(e),
    };
    let mode = gate_mode(tt.gate, model.as_ref());
    if matches!(piece.spec.repetition, Repetition::Tremolo { .. }) && mode == GateMode::Strict {
        eprintln!(
            "note: the strict gate never allows an immediate repetition; the spec's tremolo \
             allowance applies only with --gate relaxed"
        );
    }
    if let Some((_, b)) = &piece.brief {
        for d in &b.defaults_applied {
            eprintln!("default  {d}");
        }
        if !b.not_understood.is_empty() {
            eprintln!("not understood (ignored): {}", b.not_understood.join(", "));
        }
    }
    let way = match (&model, args.model.raw, tt.revise) {
        (Some(m), true, _) => Way::Raw { model: m },
        (m, _, Some(rounds)) => Way::Revise {
            model: m.as_ref(),
            rounds,
        },
        (m, _, None) => Way::Harness { model: m.as_ref() },
    };
    let raw = matches!(way, Way::Raw { .. });
    let bar = (!raw).then(progress_bar).flatten();
    let progress = bar.clone().map(|bar| {
        Box::new(move |p: Progress| {
            if let Progress::Section { done, total } = p {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            }
        }) as Box<dyn Fn(Progress) + Send + Sync>
    });
    let job = Job {
        piece: &piece,
        seed: args.run.seed,
        mode,
        way,
        constrained: args.model.constrained,
        out: &args.run.out,
        replace: args.run.force,
    };
    let composed = runtime().block_on(cantus::twelve_tone::compose(job, progress));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    match composed {
        Ok(Composed::Harness {
            composition,
            rounds,
            written,
        }) => {
            if let Some(total) = tt.revise {
                print_rounds(&rounds, total, written.released);
            }
            let trace = composition.outcome.trace();
            if written.released {
                say!(
                    "released ({}): {} bars, {} voices → {}",
                    written.gate,
                    piece.spec.bars,
                    piece.spec.voices.len(),
                    args.run.out.display()
                );
                say!(
                    "check it again with: cantus verify {} --spec {} --seed {}",
                    args.run.out.join("piece.txt").display(),
                    args.run.out.join("spec.toml").display(),
                    args.run.seed
                );
                if let Some(d) = &written.degeneracy {
                    say!(
                        "libretto degeneracy: {} ({} extreme{}, budget {}{}{})",
                        if d.passed { "passed" } else { "refused" },
                        d.extremes.len(),
                        if d.extremes.len() == 1 { "" } else { "s" },
                        d.budget,
                        if d.extremes.is_empty() { "" } else { ": " },
                        d.extremes.join(", ")
                    );
                }
            } else {
                summary::print_failure(&written.gate, &written.diagnostics);
            }
            say!("{}", summary::totals_line(&trace.totals));
            summary::exit(written.released, &written.write_errors)
        }
        Ok(Composed::Raw { outcome, written }) => {
            let backend = model
                .as_ref()
                .map_or_else(String::new, |m| m.backend.name());
            say!("raw ({backend}): {}", outcome.summary());
            say!(
                "1 model call, tokens in/out {}/{}, {:.1} s → {}",
                outcome.tokens_in.map_or("?".into(), |t| t.to_string()),
                outcome.tokens_out.map_or("?".into(), |t| t.to_string()),
                outcome.wall.as_secs_f64(),
                args.run.out.display()
            );
            summary::exit(written.released, &written.write_errors)
        }
        Err(e) => bad_input(e),
    }
}

/// One verdict line per revise round, then the loop's outcome.
fn print_rounds(rounds: &[RoundLine], total: u32, released: bool) {
    for r in rounds {
        let gate = if r.gate_passed {
            "strict gate passed".to_owned()
        } else {
            format!("strict gate failed ({} violations)", r.hard_violations)
        };
        let degeneracy = match &r.degeneracy {
            Some((_, extremes, budget)) if extremes.is_empty() => {
                format!("degeneracy passed (0 extremes, budget {budget})")
            }
            Some((passed, extremes, budget)) => format!(
                "degeneracy {} ({} extreme{}, budget {budget}: {})",
                if *passed { "passed" } else { "failed" },
                extremes.len(),
                if extremes.len() == 1 { "" } else { "s" },
                extremes.join(", ")
            ),
            None => "degeneracy not measured".to_owned(),
        };
        say!(
            "round {}/{total}: {gate}; {degeneracy}{}",
            r.round,
            if r.best { "; best so far" } else { "" }
        );
    }
    say!(
        "revise: {} after {} of at most {total} round{}",
        if released {
            "released"
        } else {
            "nothing released"
        },
        rounds.len(),
        if total == 1 { "" } else { "s" }
    );
}

/// A progress bar on a terminal (none when stderr is not one).
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
