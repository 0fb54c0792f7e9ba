//! `cantus verify FILE`: judge any piece by the release gate.

use super::{Exit, bad_input};
use cantus::twelve_tone::{Against, verify};
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::report::VerifyReport;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rule domain: `twelve-tone` (the default) or `counterpoint` (Fux species).
    #[arg(long, default_value = "twelve-tone")]
    pub domain: super::DomainName,
    /// The piece: .txt (grammar), .mid or .musicxml.
    pub file: PathBuf,
    /// Read leniently: a text-grammar file as raw model output is read; grace notes
    /// (MusicXML, MEI, grammar) are kept and judged as row tones.
    #[arg(long)]
    pub lenient: bool,
    /// Print a JSON object: passed, mode, violations [{predicate, bar, voice, onset, reason}], facts.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub twelve_tone: TwelveToneArgs,
    #[command(flatten)]
    pub counterpoint: super::counterpoint::VerifyArgs,
}

/// The twelve-tone flags of `cantus verify`.
#[derive(clap::Args, Debug)]
pub struct TwelveToneArgs {
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
}

pub fn run(args: Args) -> Exit {
    if args.domain == super::DomainName::Counterpoint {
        return super::counterpoint::verify(
            &args.file,
            args.lenient,
            args.json,
            &args.counterpoint,
        );
    }
    let tt = &args.twelve_tone;
    let against = Against {
        mode: tt.mode,
        spec: tt.spec.clone(),
        seed: tt.seed,
        row: tt.row.clone(),
    };
    let verified = match verify(&args.file, args.lenient, &against) {
        Ok(v) => v,
        Err(e) => return bad_input(e),
    };
    let (loaded, report) = (&verified.loaded, &verified.report);
    for w in &loaded.warnings {
        eprintln!("{w}");
    }
    if args.json {
        let out = VerifyReport::new(
            args.file.display().to_string(),
            loaded.score.event_count(),
            report,
        );
        super::print_json(&out);
    } else {
        let hard = report.hard_count();
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
        if let Some(line) = report.unlisted_line() {
            say!("  {line}");
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
