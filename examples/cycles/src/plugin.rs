//! The cycles domain as a registered unit (`cantus-registry`): `cantus compose
//! --domain cycles` (and its shortcut `cantus example`), `cantus verify --domain
//! cycles FILE`, `cantus render RUN --html`, `cantus experiment` (its
//! [`trials`](crate::trials)) and `cantus plugins` find it here, and nothing in the
//! program names it.
//!
//! Its artefact is not a score: a [`CyclesString`] is written as one text file,
//! `piece.txt` — a `window N` line, then the cycles (`ABCDE|CDEAB|…`, `_` where a
//! slot stayed empty) — and read back from it, so a file carries everything its
//! gate needs.

use crate::{CycleGate, CycleSpec, CyclesString, SloppyProposer, engine};
use cantus_framework::{Outcome, ReleaseGate, Totals};
use cantus_registry::summary::{failure_lines, totals_line};
use cantus_registry::{
    Args, Artefact, Compose, Composed, DomainError, DomainId, DomainPlugin, Job, Opt, Request,
    Review, Reviewed, Run, Unit, Verdict, Verified, Verify, View, layout,
};
use serde::Serialize;
use std::path::Path;

/// The domain's name.
const NAME: &str = "cycles";
/// The domain's id.
pub const ID: DomainId = DomainId::new(NAME);

/// The cycles domain's plugin.
pub struct CyclesPlugin;

impl DomainPlugin for CyclesPlugin {
    fn id(&self) -> DomainId {
        ID
    }

    fn build(&self, unit: &mut Unit) {
        unit.describe(
            "a tiny non-musical example domain: cycles over a small alphabet, no symbol recurring within a window",
            env!("CARGO_PKG_VERSION"),
        )
        .artefact::<CyclesString>()
        .compose(ComposeCycles)
        .verify(VerifyCycles)
        .review(ReviewCycles)
        .trials(crate::trials::CyclesTrials)
        .proposer(
            "sloppy",
            "seeded shuffled cycles, a share of symbols or their position tags spoiled on purpose (--mistakes); no network",
        )
        .shortcut(
            "example",
            "Run the tiny non-musical example domain (cycles over a small alphabet): compose --domain cycles",
        );
    }
}

cantus_registry::register!(CyclesPlugin);

impl Artefact for CyclesString {
    const EXTENSIONS: &'static [&'static str] = &["txt"];
    const READS: &'static [&'static str] = &["txt"];

    fn to_bytes(&self, _extension: &str) -> Result<Vec<u8>, String> {
        Ok(format!("window {}\n{self}\n", self.window).into_bytes())
    }

    fn read(path: &Path) -> Result<(CyclesString, Vec<String>), String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        parse(&text)
            .map(|s| (s, Vec::new()))
            .map_err(|e| format!("{}:{e}", path.display()))
    }

    fn view(&self) -> View {
        View::Text(self.to_string())
    }
}

/// Reads `window N` and the cycles line; errors say `line:column: why`.
pub fn parse(text: &str) -> Result<CyclesString, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (n, head) = lines.next().ok_or("1:1: empty: expected `window N`")?;
    let window = head
        .trim()
        .strip_prefix("window ")
        .and_then(|w| w.trim().parse::<usize>().ok())
        .ok_or_else(|| format!("{}:1: expected `window N`, found `{}`", n + 1, head.trim()))?;
    let (n, body) = lines
        .next()
        .ok_or_else(|| format!("{}:1: no cycles after the window line", n + 2))?;
    let cycles: Vec<&str> = body.trim().split('|').collect();
    let alphabet = cycles[0].chars().count();
    if !(2..=26).contains(&alphabet) {
        return Err(format!(
            "{}:1: a cycle of {alphabet} symbols; the alphabet has 2 to 26",
            n + 1
        ));
    }
    let mut symbols = Vec::new();
    for (column, c) in body.trim().chars().enumerate() {
        match c {
            '|' => {}
            '_' => symbols.push(None),
            'A'..='Z' => symbols.push(Some(c)),
            other => {
                return Err(format!(
                    "{}:{}: `{other}` is neither a symbol (A-Z), `_` nor `|`",
                    n + 1,
                    column + 1
                ));
            }
        }
    }
    if let Some((extra, _)) = lines.next() {
        return Err(format!("{}:1: one line of cycles only", extra + 1));
    }
    Ok(CyclesString {
        alphabet,
        window,
        cycles: cycles.len(),
        symbols,
    })
}

const COMPOSE: &[Opt] = &[
    Opt::number(
        "alphabet",
        "N",
        2,
        26,
        "Cycles: alphabet size (symbols A, B, ...).",
    )
    .default("5"),
    Opt::number(
        "window",
        "N",
        1,
        26,
        "Cycles: no symbol may recur within this many positions.",
    )
    .default("4"),
    Opt::number("cycles", "N", 1, 10_000, "Cycles: number of cycles.").default("4"),
    Opt::real(
        "mistakes",
        "P",
        0.0,
        1.0,
        "Cycles: probability that the proposer spoils a symbol.",
    )
    .default("0.3"),
];

/// `cantus compose --domain cycles`.
struct ComposeCycles;

impl Compose for ComposeCycles {
    fn options(&self) -> &'static [Opt] {
        COMPOSE
    }

    fn prepare(&self, args: &Args, request: Request<'_>) -> Result<Box<dyn Job>, DomainError> {
        if request.model.is_some() {
            return Err(DomainError::new(
                "--domain cycles has no model proposer; leave out --config",
            ));
        }
        let number = |name| args.number(name).map_or(0, |n| n as usize);
        let spec = CycleSpec {
            alphabet: number("alphabet"),
            window: number("window"),
            cycles: number("cycles"),
        };
        if spec.window > spec.alphabet {
            return Err(DomainError::new(format!(
                "--window {} cannot be kept with only {} symbols (--alphabet)",
                spec.window, spec.alphabet
            )));
        }
        let mistakes = args.real("mistakes").unwrap_or(0.3);
        Ok(Box::new(CyclesJob { spec, mistakes }))
    }
}

struct CyclesJob {
    spec: CycleSpec,
    mistakes: f64,
}

/// `report.json` of a cycles run.
#[derive(Serialize)]
struct Report<'a> {
    domain: &'a str,
    released: bool,
    seed: u64,
    spec: &'a CycleSpec,
    artefact: Option<String>,
    gate: Option<String>,
    diagnostics: Vec<String>,
    totals: &'a Totals,
    files: Vec<String>,
    write_errors: Vec<String>,
}

#[cantus_registry::async_trait(?Send)]
impl Job for CyclesJob {
    async fn run(&self, run: Run) -> Result<Composed, DomainError> {
        let proposer = SloppyProposer {
            mistakes: self.mistakes,
        };
        let outcome = engine().run(&self.spec, &proposer, run.seed).await;
        let dir = run.folder;
        let out = dir.path().to_owned();
        let released = outcome.is_released();
        let trace = outcome.trace();
        let (mut files, mut write_errors) = match outcome.artefact() {
            Some(a) => dir.write_artefact(released, a),
            None => (Vec::new(), Vec::new()),
        };
        match dir.write_trace(trace) {
            Ok(p) => files.push(p),
            Err(e) => write_errors.push(e.to_string()),
        }
        let gate = trace.gate.as_ref().map(|g| g.gate.clone());
        let diagnostics: Vec<String> = match &outcome {
            Outcome::Failure { diagnostics, .. } => {
                diagnostics.iter().map(ToString::to_string).collect()
            }
            Outcome::Released { .. } => Vec::new(),
        };
        let report = Report {
            domain: NAME,
            released,
            seed: run.seed,
            spec: &self.spec,
            artefact: outcome.artefact().map(ToString::to_string),
            gate: gate.clone(),
            diagnostics: diagnostics.clone(),
            totals: &trace.totals,
            files: files.iter().map(|p| p.display().to_string()).collect(),
            write_errors: write_errors.clone(),
        };
        if let Err(e) = dir.write_json(layout::REPORT, &report) {
            write_errors.push(e.to_string());
        }
        let committed = match dir.commit() {
            Ok(d) => Some(d),
            Err(e) => {
                write_errors.push(e.to_string());
                None
            }
        };
        let gate = gate.unwrap_or_else(|| "gate not reached".to_owned());
        let mut lines = Vec::new();
        match outcome.artefact() {
            Some(a) if released => {
                lines.push(format!("released ({gate}): {a} → {}", out.display()));
            }
            artefact => {
                lines.extend(failure_lines(&gate, &diagnostics));
                if let Some(a) = artefact {
                    lines.push(format!("  unreleased: {a}"));
                }
            }
        }
        lines.push(totals_line(&trace.totals));
        Ok(Composed {
            released,
            lines,
            write_errors,
            dir: committed,
        })
    }
}

const VERIFY: &[Opt] = &[Opt::number(
    "window",
    "N",
    1,
    26,
    "Cycles: judge against this window instead of the file's.",
)];

/// `cantus verify --domain cycles FILE`.
struct VerifyCycles;

impl Verify for VerifyCycles {
    fn options(&self) -> &'static [Opt] {
        VERIFY
    }

    fn verify(&self, file: &Path, _lenient: bool, args: &Args) -> Result<Verified, DomainError> {
        let (mut artefact, warnings) = CyclesString::read(file).map_err(DomainError::new)?;
        if let Some(w) = args.number("window") {
            artefact.window = w as usize;
        }
        let report = judge(&artefact);
        let hard = report.hard_count();
        let mut lines = vec![format!(
            "{} {} ({}): {} cycles of {}{}",
            if report.passed { "PASSED" } else { "FAILED" },
            file.display(),
            report.gate,
            artefact.cycles,
            artefact.alphabet,
            if report.passed {
                String::new()
            } else {
                format!("; {hard} violation{}", if hard == 1 { "" } else { "s" })
            }
        )];
        lines.extend(report.violations.iter().map(|v| format!("  {v}")));
        let json = serde_json::json!({
            "file": file.display().to_string(),
            "passed": report.passed,
            "gate": report.gate,
            "violations": report.violations,
        });
        Ok(Verified {
            passed: report.passed,
            warnings,
            lines,
            json,
        })
    }
}

/// The strict gate's report on `artefact`, against the spec it carries.
fn judge(artefact: &CyclesString) -> cantus_framework::GateReport<crate::Slot> {
    let spec = CycleSpec {
        alphabet: artefact.alphabet,
        window: artefact.window,
        cycles: artefact.cycles,
    };
    CycleGate.judge(&spec, artefact)
}

/// The renderer's view: the gate's verdict, located by cycle and slot.
struct ReviewCycles;

impl Review for ReviewCycles {
    fn judge(&self, piece: Reviewed<'_>) -> Verdict {
        let parsed = match piece.view {
            View::Text(text) => {
                let window = piece
                    .report
                    .and_then(|r| r.pointer("/spec/window"))
                    .and_then(serde_json::Value::as_u64)
                    .unwrap_or(1);
                parse(&format!("window {window}\n{text}\n"))
            }
            View::Score(_) => Err("a score is not a cycles string".to_owned()),
        };
        match parsed {
            Ok(artefact) => Verdict::of_text(&judge(&artefact)),
            Err(e) => Verdict {
                gate: CycleGate.name(),
                passed: false,
                findings: Vec::new(),
                facts: [("error".to_owned(), serde_json::Value::from(e))].into(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_reads_back_as_it_was_written() {
        let s = CyclesString {
            alphabet: 3,
            window: 2,
            cycles: 2,
            symbols: vec![Some('A'), Some('B'), None, Some('C'), Some('A'), Some('B')],
        };
        let text = String::from_utf8(s.to_bytes("txt").unwrap()).unwrap();
        assert_eq!(text, "window 2\nAB_|CAB\n");
        assert_eq!(parse(&text).unwrap(), s);
        let err = parse("window 2\nAB1|CAB\n").unwrap_err();
        assert_eq!(err, "2:3: `1` is neither a symbol (A-Z), `_` nor `|`");
        assert!(
            parse("ABC\n")
                .unwrap_err()
                .starts_with("1:1: expected `window N`")
        );
    }
}
