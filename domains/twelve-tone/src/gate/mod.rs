//! The twelve-tone release gate: the last word on a finished piece.
//!
//! The paper Cantus re-creates had a lenient gate that trusted the generator's own
//! row tags and let tagged repetitions through. This one is symmetric and **strict
//! by default**: it re-derives every statement's row labels from the pitches and
//! judges every artefact — the engine's, a raw model's, a person's — the same way,
//! from the [`Score`] alone. [`GateMode::Relaxed`] reproduces the lenient reading
//! (tags trusted where present, tagged repetitions counted and let through) so the
//! two verdicts can be compared.
//!
//! # Rules
//!
//! Each violation carries a predicate id ([`Rule::id`]), a [`Location`] (bar, voice,
//! onset) and a reason that says what was found and what was expected.
//!
//! * `TT-ROW`, `TT-REPEAT`, `TT-ROW-COMPLETE`: serial order, in one pass per voice
//!   (see `segment.rs` for how voices are cut into statements and judged);
//! * `TT-SCHEDULE`, `TT-AGGREGATE` (only with a plan): see `plan.rs`;
//! * `TT-COLLISION`, `TT-CROSSING`, pitches at once (`TT-TEXTURE`), silent bars
//!   (`TT-BARS`): one k-way sweep over all voices (see `vertical.rs`);
//! * `TT-OCTAVE`, chord size and one line per voice (`TT-TEXTURE`), `TT-REGISTER`,
//!   extent (`TT-BARS`), durations (`TT-TIME`): per event (see `events.rs`);
//! * `TT-VOICES`: the score has the plan's number of voices;
//! * `TT-TIME`: the times can be placed exactly (see `time.rs`).
//!
//! Score voice `i` is spec voice `i`. Violations are listed in onset order.
//!
//! # Limits without a plan
//!
//! [`SerialGate::for_row`] and [`SerialGate::inferring`] judge pieces written to no
//! spec, so they hold them to the loosest limits a spec may declare
//! ([`GateLimits::unspecified`]): registers 0..=127, chords of up to 4 pitches,
//! `max(4, min(12, voices + 2))` pitches at once (the spec default for that many
//! voices, raised to admit one full chord), and crossing at most 1/10 (the spec
//! default). [`SerialGate::with_limits`] sets others.
//!
//! # Facts
//!
//! Every report carries `mode`, `row` (as pitch classes), `row_source` (`plan`,
//! `given`, `inferred from <voice>` or `none`), `convention`, `events`, `statements`,
//! `labels` (per voice, each statement's labels in order: `P0=R6` for the two labels
//! of a symmetric row's statement, `?` for a statement that is no form, `…` after an
//! incomplete one) and `crossing` (the crossed share, exact). Relaxed mode adds
//! `events_relying_on_tags`, `tagged_repetitions` and `unreadable_tags`.
//!
//! # Cost
//!
//! Each voice's events are read once (`events.rs`, feeding the serial walker of
//! `segment.rs`), then all voices are swept once together (`vertical.rs`). No
//! per-event allocation and no hashing on the strict path: times become integer
//! ticks (`time.rs`), each event a 24-byte slot with a 12-bit pitch-class set,
//! labels are narrowed with table lookups (`tables.rs`), and slot buffers are reused
//! across judgements on a thread. `benches/gate.rs` measures it against parsing the
//! same piece.

mod events;
mod findings;
mod infer;
mod judgement;
mod plan;
mod rules;
mod segment;
mod tables;
pub(crate) mod time;
mod vertical;

pub use rules::Rule;

use crate::blueprint::{Blueprint, Limits};
use crate::domain::TwelveTone;
use crate::event::Location;
use crate::row::{Convention, Row};
use cantus_framework::{GateReport, ReleaseGate, Violation};
use cantus_music::{Score, Time};
use num_rational::Ratio;
use segment::Statement;
use serde::Serialize;
use tables::{SerialTables, push_labels};

/// How the gate treats row tags: strict derives every label from the pitches,
/// relaxed trusts readable tags (the framework's [`GateMode`], re-exported here).
pub use cantus_framework::{GateMode, GateModeParseError};

/// The limits of the texture rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GateLimits {
    /// Inclusive MIDI register per voice, by index; voices beyond the list: 0..=127.
    pub registers: Vec<(u8, u8)>,
    /// Most pitches in one event.
    pub max_chord: u8,
    /// Most distinct pitches sounding at any instant.
    pub max_sounding: u8,
    /// Largest crossed share of the voices' time together.
    pub max_crossing: Ratio<i64>,
}

impl GateLimits {
    /// Largest chord a spec may declare, the chord limit without a spec.
    pub const UNSPECIFIED_MAX_CHORD: u8 = 4;

    /// The loosest limits a spec may declare, for a piece with `voices` voices
    /// written to no spec (see the module docs).
    pub fn unspecified(voices: usize) -> GateLimits {
        GateLimits {
            registers: Vec::new(),
            max_chord: Self::UNSPECIFIED_MAX_CHORD,
            max_sounding: crate::spec::defaults::default_max_sounding(voices)
                .max(Self::UNSPECIFIED_MAX_CHORD),
            max_crossing: crate::spec::defaults::DEFAULT_MAX_CROSSING,
        }
    }

    /// The limits a blueprint enforces.
    pub fn from_plan(limits: &Limits) -> GateLimits {
        GateLimits {
            registers: limits.voices.iter().map(|v| (v.low, v.high)).collect(),
            max_chord: limits.max_chord,
            max_sounding: limits.max_sounding,
            max_crossing: limits.max_crossing,
        }
    }

    /// The register of voice `voice`.
    pub fn register(&self, voice: usize) -> (u8, u8) {
        self.registers.get(voice).copied().unwrap_or((0, 127))
    }
}

/// Where the gate gets its row.
#[derive(Clone, Debug)]
enum RowSource<'p> {
    Plan(&'p Blueprint, Box<SerialTables>),
    Given(Box<SerialTables>),
    Infer,
}

/// The strict (or relaxed) twelve-tone release gate (borrowing the blueprint it
/// holds pieces to, if any).
#[derive(Clone, Debug)]
pub struct SerialGate<'p> {
    mode: GateMode,
    source: RowSource<'p>,
    limits: Option<GateLimits>,
}

impl<'p> SerialGate<'p> {
    /// A gate holding pieces to a blueprint: its row and convention, its limits
    /// (registers, texture, crossing), its bars and its schedule.
    pub fn for_plan(plan: &'p Blueprint, mode: GateMode) -> SerialGate<'p> {
        let tables = Box::new(SerialTables::from_table(plan.table.clone()));
        let limits = GateLimits::from_plan(&plan.limits);
        SerialGate {
            mode,
            source: RowSource::Plan(plan, tables),
            limits: Some(limits),
        }
    }

    /// A gate for pieces on `row`, labelled under `convention`, with no schedule and
    /// the limits of [`GateLimits::unspecified`] for the judged score's voice count.
    pub fn for_row(row: Row, convention: Convention, mode: GateMode) -> SerialGate<'p> {
        SerialGate {
            mode,
            source: RowSource::Given(Box::new(SerialTables::new(&row, convention))),
            limits: None,
        }
    }

    /// A gate that does not know the row: it reads it from the piece as the first
    /// twelve distinct pitch classes, in order, of the first voice that sounds all
    /// twelve — preferring a voice that reaches twelve with single notes, since a
    /// chord does not say the order of its pitch classes (failing that, a chord counts
    /// low to high) — and labels zero-centred. A piece in which no voice sounds all
    /// twelve gets the `TT-ROW` violation "no twelve-tone statement found".
    pub fn inferring(mode: GateMode) -> SerialGate<'p> {
        SerialGate {
            mode,
            source: RowSource::Infer,
            limits: None,
        }
    }

    /// The same gate with other texture limits.
    pub fn with_limits(mut self, limits: GateLimits) -> SerialGate<'p> {
        self.limits = Some(limits);
        self
    }

    /// The gate's mode.
    pub fn mode(&self) -> GateMode {
        self.mode
    }

    /// The gate's name in reports: `"twelve-tone/strict"` or `"twelve-tone/relaxed"`.
    pub fn name(&self) -> String {
        format!("twelve-tone/{}", self.mode)
    }

    /// Judges `score` on its own (see the module docs for the rules).
    pub fn judge_score(&self, score: &Score) -> GateReport<Location> {
        match Judgement::run(self, score) {
            Ok(report) => report,
            Err(Unsorted) => {
                let mut sorted = score.clone();
                sorted.sort();
                Judgement::run(self, &sorted).unwrap_or_else(|Unsorted| {
                    let location = Location {
                        bar: 1,
                        voice: ALL_VOICES.to_owned(),
                        onset: Time::default(),
                    };
                    GateReport::from_violations(
                        self.name(),
                        vec![Violation::hard(
                            Rule::Time,
                            location,
                            "the events cannot be put in onset order",
                        )],
                    )
                })
            }
        }
    }
}

impl SerialGate<'_> {
    /// The row statements the gate cut `score`'s voices into, in voice order and
    /// onset order within a voice: what renderers label (`P0` over a statement's
    /// first note). Events are indexed as [`Voice::sort`](cantus_music::Voice::sort)
    /// leaves them (the order readers give). Empty when the gate has no row (an
    /// inferring gate that found none).
    pub fn statements(&self, score: &Score) -> Vec<StatementSpan> {
        let mut out = Vec::new();
        if Judgement::run_into(self, score, Some(&mut out)).is_err() {
            out.clear();
            let mut sorted = score.clone();
            sorted.sort();
            let _ = Judgement::run_into(self, &sorted, Some(&mut out));
        }
        out
    }
}

/// One row statement as the gate derived it (see `segment.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StatementSpan {
    /// Voice index in the score.
    pub voice: usize,
    /// Index of the statement's first event in the voice.
    pub first_event: usize,
    /// Onset of that event, in quarter notes.
    #[serde(with = "cantus_music::time_text")]
    pub onset: Time,
    /// The forms it realises: one, or two for a symmetric row's statement; for an
    /// incomplete statement, every form its opening fits; empty when broken.
    pub forms: Vec<crate::row::RowForm>,
    /// Order positions sounded, 1..=12 (12 for a complete statement).
    pub filled: u8,
    /// Whether a `TT-ROW` violation was found in it.
    pub broken: bool,
}

impl StatementSpan {
    fn new(voice: usize, events: &cantus_music::Voice, st: &Statement) -> StatementSpan {
        StatementSpan {
            voice,
            first_event: st.first,
            onset: events
                .events
                .get(st.first)
                .map_or_else(Time::default, |e| e.onset),
            forms: tables::forms_in(st.forms).collect(),
            filled: st.filled,
            broken: st.broken,
        }
    }

    /// The statement's label as the gate's `labels` fact writes it: `P0`, `P0=R6`
    /// for a symmetric row, `?` when broken, `…` after an incomplete one's forms.
    pub fn label(&self) -> String {
        if self.broken || self.forms.is_empty() {
            return "?".to_owned();
        }
        let mut out = self
            .forms
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("=");
        if self.filled < 12 {
            out.push('…');
        }
        out
    }
}

/// The release gate of the engine: each composed piece judged by
/// [`SerialGate::for_plan`] against the blueprint it was composed to, so one engine
/// serves every piece.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanGate(pub GateMode);

impl ReleaseGate<TwelveTone> for PlanGate {
    fn name(&self) -> String {
        format!("twelve-tone/{}", self.0)
    }

    fn judge(&self, plan: &Blueprint, artefact: &Score) -> GateReport<Location> {
        SerialGate::for_plan(plan, self.0).judge_score(artefact)
    }
}

/// The voice name of findings about the whole texture.
const ALL_VOICES: &str = "(all voices)";

/// A voice's events were out of onset order.
struct Unsorted;

use judgement::Judgement;

/// A report as text for people: a verdict line, one line per violation, then the
/// facts (`labels` one voice per line).
pub fn report_text(report: &GateReport<Location>) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let verdict = if report.passed { "passed" } else { "FAILED" };
    let count = report.violations.len();
    let plural = if count == 1 { "" } else { "s" };
    let _ = writeln!(
        out,
        "{}: {verdict} ({count} violation{plural})",
        report.gate
    );
    for v in &report.violations {
        let _ = writeln!(out, "{v}");
    }
    for (key, value) in &report.facts {
        match value {
            serde_json::Value::Object(map) => {
                for (sub, value) in map {
                    let _ = writeln!(out, "{key}.{sub}: {}", plain(value));
                }
            }
            other => {
                let _ = writeln!(out, "{key}: {}", plain(other));
            }
        }
    }
    out
}

/// A JSON value without quotes around strings.
fn plain(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Statements a voice stated, for the `labels` fact: `"P0 RI5 ? I3…"` (`?` for a
/// statement that is no form, `…` after an incomplete one's opening).
fn labels_line(statements: &[Statement]) -> String {
    let mut out = String::with_capacity(statements.len() * 4);
    for st in statements {
        if !out.is_empty() {
            out.push(' ');
        }
        if st.broken {
            out.push('?');
        } else {
            push_labels(&mut out, st.forms);
            if st.filled < 12 {
                out.push('…');
            }
        }
    }
    out
}
