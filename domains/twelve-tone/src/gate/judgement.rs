//! One judgement of one score: the passes in order, then the report.
//!
//! Order: the row (given, planned or inferred), the time grid, each voice read once
//! (slots, per-event rules and the serial walk together), the plan's rules, the
//! vertical sweep; then findings are sorted by onset and given bars and voice names.

use super::events::{EventLimits, SlotError, VoiceSlots, build_slots};
use super::findings::Findings;
use super::infer::infer_row;
use super::plan::{ScheduleInput, Span, aggregate, schedule};
use super::rules::{Finding, Rule};
use super::segment::{TagCounts, Walker};
use super::tables::SerialTables;
use super::time::{Grid, GridBuilder, GridProblem, Ticker, bar_of, ratio_text};
use super::vertical::{VerticalInput, sweep};
use super::{
    ALL_VOICES, GateLimits, GateMode, RowSource, SerialGate, StatementSpan, Unsorted, labels_line,
};
use crate::blueprint::Blueprint;
use crate::event::Location;
use crate::row::Convention;
use cantus_framework::{GateReport, Violation};
use cantus_music::{Score, Time};

/// Namespace for running one judgement.
pub(super) struct Judgement;

/// The time facts of a judgement whose times could be placed.
struct Timing {
    grid: Grid,
    bar_ticks: i64,
    spans: Vec<Span>,
}

impl Judgement {
    /// Judges a score whose voices are in onset order (else `Err(Unsorted)`).
    pub(super) fn run(
        gate: &SerialGate<'_>,
        score: &Score,
    ) -> Result<GateReport<Location>, Unsorted> {
        Self::run_into(gate, score, None)
    }

    /// [`Judgement::run`], also handing out the statements each voice was cut into.
    pub(super) fn run_into(
        gate: &SerialGate<'_>,
        score: &Score,
        mut statements: Option<&mut Vec<StatementSpan>>,
    ) -> Result<GateReport<Location>, Unsorted> {
        let mut findings = Findings::new();
        let plan: Option<&Blueprint> = match &gate.source {
            RowSource::Plan(p, _) => Some(*p),
            _ => None,
        };
        let inferred;
        let (tables, row_source): (Option<&SerialTables>, String) = match &gate.source {
            RowSource::Plan(_, t) => (Some(t), "plan".to_owned()),
            RowSource::Given(t) => (Some(t), "given".to_owned()),
            RowSource::Infer => match infer_row(score) {
                Some((row, v)) => {
                    inferred = SerialTables::new(&row, Convention::ZeroCentred);
                    let name = score.voices.get(v).map_or("?", |voice| voice.name.as_str());
                    (Some(&inferred), format!("inferred from {name}"))
                }
                None => {
                    findings.push(Finding::new(
                        Rule::Row,
                        None,
                        Time::default(),
                        "no twelve-tone statement found: no voice sounds all 12 pitch classes, so the row \
                         cannot be read from the piece"
                            .to_owned(),
                    ));
                    (None, "none".to_owned())
                }
            },
        };
        let limits = gate
            .limits
            .clone()
            .unwrap_or_else(|| GateLimits::unspecified(score.voices.len()));
        let bar = bar_length(score, plan, &mut findings);
        if let Some(plan) = plan {
            voice_count(plan, score, &mut findings);
        }
        let declared_bars = plan.map(|p| p.bars).or(score.bars);
        // First a generous grid that needs no pass over the events; if some time is
        // off it (or too far out for it), the least grid of the piece; failing that,
        // untimed with a TT-TIME finding.
        let mut timing = timing(score, plan, bar, Some(GENEROUS_GRID)).ok();
        let mut exact = timing.is_none();
        if exact {
            timing = exact_timing(score, plan, bar, &mut findings);
        }
        let relaxed = gate.mode == GateMode::Relaxed;
        let reading = Reading {
            score,
            limits: &limits,
            tables,
            relaxed,
            declared_bars,
        };
        let lines = loop {
            let mut local = Findings::new();
            match reading.all_voices(timing.as_ref(), &mut local) {
                Ok(built) => {
                    findings.append(local);
                    break built;
                }
                Err((_, SlotError::Unsorted)) => return Err(Unsorted),
                Err((v, SlotError::Grid(k, problem))) => {
                    if exact {
                        findings.push(time_finding(score, Some((v, k)), &problem));
                        timing = None;
                    } else {
                        exact = true;
                        timing = exact_timing(score, plan, bar, &mut findings);
                    }
                }
            }
        };
        let per_quarter = timing.as_ref().map_or(1, |t| t.grid.per_quarter);

        let mut statements_total = 0usize;
        let mut labels = serde_json::Map::new();
        let mut tags = TagCounts::default();
        if tables.is_some() {
            for (v, (voice, line)) in score.voices.iter().zip(&lines).enumerate() {
                statements_total += line.statements.len();
                if let Some(out) = statements.as_deref_mut() {
                    out.extend(
                        line.statements
                            .iter()
                            .map(|st| StatementSpan::new(v, voice, st)),
                    );
                }
                tags.relying += line.tags.relying;
                tags.repetitions += line.tags.repetitions;
                tags.unreadable += line.tags.unreadable;
                if let Some(plan) = plan
                    && v < plan.limits.voices.len()
                {
                    let input = ScheduleInput {
                        plan,
                        spans: timing.as_ref().map(|t| t.spans.as_slice()),
                        per_quarter,
                        voice: v,
                        events: &voice.events,
                        statements: &line.statements,
                    };
                    schedule(&input, &mut findings);
                }
                let mut key = voice.name.clone();
                if labels.contains_key(&key) {
                    key = format!("{key} (voice {})", v + 1);
                }
                labels.insert(key, labels_line(&line.statements).into());
            }
        }
        if let (Some(plan), Some(t)) = (plan, &timing) {
            aggregate(plan, &t.spans, &lines, per_quarter, &mut findings);
        }
        let events = score.event_count();
        if events == 0 {
            findings.push(Finding::new(
                Rule::Bars,
                None,
                Time::default(),
                "the score has no events: a piece must sound something".to_owned(),
            ));
        }
        let mut crossing = None;
        if let Some(t) = &timing {
            let max_end = lines
                .iter()
                .map(|l| l.reach(l.slots.len().wrapping_sub(1)))
                .max()
                .unwrap_or(0)
                .max(0);
            let needed = if t.bar_ticks > 0 {
                max_end.div_euclid(t.bar_ticks) + i64::from(max_end.rem_euclid(t.bar_ticks) != 0)
            } else {
                0
            };
            let bars =
                declared_bars.unwrap_or_else(|| u32::try_from(needed.max(0)).unwrap_or(u32::MAX));
            let input = VerticalInput {
                lines: &lines,
                voices: &score.voices,
                max_sounding: limits.max_sounding,
                max_crossing: limits.max_crossing,
                per_quarter,
                bar_ticks: t.bar_ticks,
                bars: if events == 0 { 0 } else { bars },
            };
            let tally = sweep(&input, &mut findings);
            crossing = Some(if tally.together > 0 {
                ratio_text(tally.crossed, tally.together)
            } else {
                "0".to_owned()
            });
        }

        let (listed, unlisted) = findings.finish();
        let mut report = GateReport::from_violations(gate.name(), locate(listed, score, plan, bar))
            .with_unlisted(unlisted)
            .with_fact("mode", gate.mode.name())
            .with_fact("row_source", row_source)
            .with_fact("events", events)
            .with_fact("statements", statements_total)
            .with_fact("labels", serde_json::Value::Object(labels));
        if let Some(tables) = tables {
            report = report
                .with_fact("row", tables.table.row().to_string())
                .with_fact("convention", tables.table.convention().name());
        }
        if let Some(share) = crossing {
            report = report.with_fact("crossing", share);
        }
        if gate.mode == GateMode::Relaxed {
            report = report
                .with_fact("events_relying_on_tags", tags.relying)
                .with_fact("tagged_repetitions", tags.repetitions)
                .with_fact("unreadable_tags", tags.unreadable);
        }
        Ok(report)
    }
}

/// The bar length, reporting a meter that has none (then 4 quarter notes) or that
/// differs from the plan's.
fn bar_length(score: &Score, plan: Option<&Blueprint>, findings: &mut Findings) -> Time {
    let m = score.meter;
    if let Some(plan) = plan
        && plan.meter != m
    {
        findings.push(Finding::new(
            Rule::Bars,
            None,
            Time::default(),
            format!("the score is in {m}, but the plan is in {}", plan.meter),
        ));
    }
    if m.num == 0 || m.den == 0 {
        findings.push(Finding::new(
            Rule::Bars,
            None,
            Time::default(),
            format!("the meter {m} has no bar length; expected a meter like 4/4 (bars are counted as 4/4)"),
        ));
        return Time::from_integer(4);
    }
    Time::new(4 * i64::from(m.num), i64::from(m.den))
}

fn voice_count(plan: &Blueprint, score: &Score, findings: &mut Findings) {
    let planned = &plan.limits.voices;
    if planned.len() != score.voices.len() {
        let names: Vec<&str> = planned.iter().map(|v| v.name.as_str()).collect();
        findings.push(Finding::new(
            Rule::Voices,
            None,
            Time::default(),
            format!(
                "the score has {} voices, but the plan has {} ({})",
                score.voices.len(),
                planned.len(),
                names.join(", ")
            ),
        ));
    }
}

/// Ticks per quarter note tried first: 2^6 · 3^2 · 5 · 7, which places every
/// duration down to 256th notes and their triplets, quintuplets, septuplets and
/// nonuplets, and still counts 10^14 quarter notes below the tick limit.
const GENEROUS_GRID: i64 = 20_160;

/// The grid, bar and section spans; or where a time cannot be placed. With `base`,
/// the grid is `base` refined by the bar and the plan's times only (the events are
/// checked as they are read); without, the least grid of every time in the piece.
fn timing(
    score: &Score,
    plan: Option<&Blueprint>,
    bar: Time,
    base: Option<i64>,
) -> Result<Timing, (Option<(usize, usize)>, GridProblem)> {
    let mut g = GridBuilder::default();
    if let Some(base) = base {
        g.add(Time::new(1, base)).map_err(|p| (None, p))?;
    }
    g.add(bar).map_err(|p| (None, p))?;
    if let Some(plan) = plan {
        for s in &plan.sections {
            g.add(s.start).map_err(|p| (None, p))?;
            g.add(s.end).map_err(|p| (None, p))?;
        }
    }
    if base.is_none() {
        for (v, voice) in score.voices.iter().enumerate() {
            for (k, e) in voice.events.iter().enumerate() {
                g.add(e.onset).map_err(|p| (Some((v, k)), p))?;
                g.add(e.duration).map_err(|p| (Some((v, k)), p))?;
            }
        }
    }
    let grid = g.finish();
    let mut ticker = Ticker::new(grid);
    let bar_ticks = ticker.ticks(bar).map_err(|p| (None, p))?;
    let mut spans = Vec::new();
    if let Some(plan) = plan {
        for s in &plan.sections {
            let start = ticker.ticks(s.start).map_err(|p| (None, p))?;
            let end = ticker.ticks(s.end).map_err(|p| (None, p))?;
            spans.push((start, end));
        }
    }
    Ok(Timing {
        grid,
        bar_ticks,
        spans,
    })
}

/// The least grid of the piece, or `None` with a TT-TIME finding.
fn exact_timing(
    score: &Score,
    plan: Option<&Blueprint>,
    bar: Time,
    findings: &mut Findings,
) -> Option<Timing> {
    match timing(score, plan, bar, None) {
        Ok(t) => Some(t),
        Err((at, problem)) => {
            findings.push(time_finding(score, at, &problem));
            None
        }
    }
}

fn time_finding(score: &Score, at: Option<(usize, usize)>, problem: &GridProblem) -> Finding {
    let onset = at
        .and_then(|(v, k)| score.voices.get(v)?.events.get(k))
        .map_or_else(Time::default, |e| e.onset);
    Finding::new(
        Rule::Time,
        at.map(|(v, _)| v),
        onset,
        format!(
            "{}; the rules about time (overlap, bars, schedule) were not checked",
            problem.describe()
        ),
    )
}

/// What reading the voices needs besides the timing.
struct Reading<'a> {
    score: &'a Score,
    limits: &'a GateLimits,
    tables: Option<&'a SerialTables>,
    relaxed: bool,
    declared_bars: Option<u32>,
}

impl Reading<'_> {
    /// Every voice read (slots, per-event and serial findings), timed if `timing` is
    /// given; on failure, the voice and why.
    fn all_voices(
        &self,
        timing: Option<&Timing>,
        findings: &mut Findings,
    ) -> Result<Vec<VoiceSlots>, (usize, SlotError)> {
        let mut all = Vec::with_capacity(self.score.voices.len());
        for (v, voice) in self.score.voices.iter().enumerate() {
            let (low, high) = self.limits.register(v);
            let piece_end = match (timing, self.declared_bars) {
                (Some(t), Some(bars)) => t.bar_ticks.checked_mul(i64::from(bars)),
                _ => None,
            };
            let event_limits = EventLimits {
                max_chord: self.limits.max_chord,
                low,
                high,
                piece_end,
            };
            let ticker = timing.map(|t| Ticker::new(t.grid));
            let walker = self
                .tables
                .map(|tables| Walker::new(tables, self.relaxed, v, &voice.events));
            let line = build_slots(v, &voice.events, ticker, &event_limits, walker, findings)
                .map_err(|e| (v, e))?;
            all.push(line);
        }
        Ok(all)
    }
}

/// Gives each finding (already in report order) a bar and a voice name.
fn locate(
    findings: Vec<Finding>,
    score: &Score,
    plan: Option<&Blueprint>,
    bar: Time,
) -> Vec<Violation<Location>> {
    findings
        .into_iter()
        .map(|f| {
            let voice = match f.voice {
                Some(v) => score
                    .voices
                    .get(v)
                    .map(|voice| voice.name.clone())
                    .or_else(|| {
                        plan.and_then(|p| p.limits.voices.get(v))
                            .map(|s| s.name.clone())
                    })
                    .unwrap_or_else(|| format!("voice {}", v + 1)),
                None => ALL_VOICES.to_owned(),
            };
            let location = Location {
                bar: bar_of(f.onset, bar),
                voice,
                onset: f.onset,
            };
            Violation::hard(f.rule, location, f.reason)
        })
        .collect()
}
