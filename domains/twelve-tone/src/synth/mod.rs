//! Synthetic **valid** serial pieces of any size, for tests and benchmarks, and
//! mutations that break them in known ways.
//!
//! The gate needs judging at scale (thousands of pieces for the cross-check against
//! the independent checker, a million events for the benchmarks), and it needs
//! pieces whose every violation is one we put there. [`piece`] writes 1..=6 voices,
//! each stating seeded random row forms one after another, with chords, rests and
//! overlapping voices, that pass the strict gate by construction (see
//! [`schedule`](self) for how collisions, crowding and crossing are avoided).
//! [`from_plan`] writes a piece that follows a [`Blueprint`]'s schedule, so it also
//! passes the gate built for that plan. [`mutate`] then breaks a copy of any score
//! in one of the [`MutationKind`]s and says where the gate should see it.
//!
//! Everything is deterministic in the seed.

mod mutate;
mod schedule;

pub use mutate::{Mutation, MutationKind, mutate};

use crate::blueprint::Blueprint;
use crate::event::Tag;
use crate::gate::{GateLimits, GateMode, SerialGate};
use crate::row::{Convention, FormTable, Row, RowForm};
use cantus_music::{Event, Meter, Pitch, Score, Time, Voice};
use schedule::{Chunk, Line, Outcome, Placed, place};

/// What kind of piece to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SynthOptions {
    pub row: Row,
    pub convention: Convention,
    /// Number of voices, 1..=6 (clamped).
    pub voices: usize,
    /// Events to write at least, over all voices; each voice then finishes its
    /// statement, so the piece has a few more.
    pub events: usize,
    pub seed: u64,
    /// Largest chord, 1..=4 (clamped). Chords never straddle two statements.
    pub max_chord: u8,
    /// Chance in percent that an event is a chord (when `max_chord > 1`).
    pub chord_percent: u8,
    /// Chance in percent of a rest after an event (always shorter than a bar).
    pub rest_percent: u8,
    /// The unit of every onset and duration, in quarter notes (`1/4`: sixteenths).
    pub grid: Time,
    pub meter: Meter,
    /// Whether events carry their row tags (`P0:1-3`), as the engine writes them.
    pub tags: bool,
}

impl SynthOptions {
    /// Defaults: zero-centred labels, chords of up to 2 pitches in 15% of events,
    /// rests after 10%, a sixteenth grid, 4/4, tags written.
    pub fn new(row: Row, voices: usize, events: usize, seed: u64) -> SynthOptions {
        SynthOptions {
            row,
            convention: Convention::ZeroCentred,
            voices,
            events,
            seed,
            max_chord: 2,
            chord_percent: 15,
            rest_percent: 10,
            grid: Time::new(1, 4),
            meter: Meter::COMMON,
            tags: true,
        }
    }
}

/// A synthetic piece and what it was built to.
#[derive(Clone, Debug)]
pub struct SynthPiece {
    pub score: Score,
    pub row: Row,
    pub convention: Convention,
    /// The limits it keeps (registers are the voices' bands).
    pub limits: GateLimits,
    /// The forms each voice states, in order.
    pub forms: Vec<Vec<RowForm>>,
}

impl SynthPiece {
    /// The gate for this piece's row and limits.
    pub fn gate(&self, mode: GateMode) -> SerialGate<'static> {
        SerialGate::for_row(self.row, self.convention, mode).with_limits(self.limits.clone())
    }
}

/// Why [`from_plan`] could not fit the plan.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot write a synthetic piece for this plan: {0}")]
pub struct SynthError(pub String);

/// Registers of `voices` synthetic voices: 18 semitones each, top voice highest,
/// neighbours overlapping by 7 (so octave choice matters for crossing).
pub fn bands(voices: usize) -> Vec<(u8, u8)> {
    (0..voices.min(6))
        .map(|v| {
            let high = 101 - 11 * v as u8;
            (high - 17, high)
        })
        .collect()
}

/// Durations drawn, in grid units.
const DURATIONS: [i64; 8] = [1, 2, 2, 3, 4, 4, 6, 8];

/// Writes a valid piece (see the module docs).
pub fn piece(opts: &SynthOptions) -> SynthPiece {
    let voices = opts.voices.clamp(1, 6);
    let table = FormTable::new(&opts.row, opts.convention);
    let registers = bands(voices);
    let limits = GateLimits {
        registers: registers.clone(),
        max_chord: opts.max_chord.clamp(1, 4),
        ..GateLimits::unspecified(voices)
    };
    let mut rng = fastrand::Rng::with_seed(opts.seed);
    let mut lines: Vec<Line> = registers
        .iter()
        .map(|&(lo, hi)| Line::new(lo, hi))
        .collect();
    let mut forms: Vec<Vec<RowForm>> = (0..voices).map(|_| vec![random_form(&mut rng)]).collect();
    let mut pos = vec![0u8; voices];
    let mut done = vec![false; voices];
    let mut single = vec![false; voices];
    let bar_units = (opts.meter.bar_length() / opts.grid)
        .floor()
        .to_integer()
        .max(2);
    let max_rest = (bar_units - 1).clamp(1, 4);
    let mut total = 0usize;
    let mut scratch = Vec::new();
    while let Some(v) = next_voice(&lines, &done) {
        let form = forms[v]
            .last()
            .copied()
            .unwrap_or_else(|| random_form(&mut rng));
        let n = if single[v] {
            1
        } else {
            chord_size(opts, 12 - pos[v], &mut rng)
        };
        let p = usize::from(pos[v]);
        let pcs = &table.pcs(form)[p..p + usize::from(n)];
        let chunk = Chunk {
            pcs,
            form,
            start: pos[v],
            t: lines[v].free_at,
            d: DURATIONS[rng.usize(..DURATIONS.len())],
        };
        match place(
            &mut lines,
            v,
            chunk,
            limits.max_sounding,
            &mut rng,
            &mut scratch,
        ) {
            Outcome::Placed => {
                single[v] = false;
                total += 1;
                pos[v] += n;
                if rng.u8(..100) < opts.rest_percent {
                    lines[v].free_at += rng.i64(1..=max_rest);
                }
                if pos[v] == 12 {
                    pos[v] = 0;
                    if total >= opts.events {
                        done[v] = true;
                    } else {
                        forms[v].push(random_form(&mut rng));
                    }
                }
            }
            Outcome::Delay(at) => lines[v].free_at = at.max(lines[v].free_at + 1),
            Outcome::Fewer => single[v] = true,
        }
    }
    let names: Vec<String> = crate::spec::defaults::default_voices(voices)
        .into_iter()
        .map(|s| s.name)
        .collect();
    let score = to_score(&lines, &names, opts.grid, opts.meter, None, opts.tags);
    SynthPiece {
        score,
        row: opts.row,
        convention: opts.convention,
        limits,
        forms,
    }
}

/// The unfinished voice that is free first (ties: fewer events, then lower voice).
fn next_voice(lines: &[Line], done: &[bool]) -> Option<usize> {
    (0..lines.len())
        .filter(|&v| !done[v])
        .min_by_key(|&v| (lines[v].free_at, lines[v].placed.len(), v))
}

fn random_form(rng: &mut fastrand::Rng) -> RowForm {
    RowForm::all()
        .nth(rng.usize(..48))
        .unwrap_or(RowForm::new(crate::row::FormKind::P, 0))
}

fn chord_size(opts: &SynthOptions, left: u8, rng: &mut fastrand::Rng) -> u8 {
    let most = opts.max_chord.clamp(1, 4).min(left);
    if most > 1 && rng.u8(..100) < opts.chord_percent {
        rng.u8(2..=most)
    } else {
        1
    }
}

/// The score of placed events; `bars` defaults to the bars the events need.
fn to_score(
    lines: &[Line],
    names: &[String],
    grid: Time,
    meter: Meter,
    bars: Option<u32>,
    tags: bool,
) -> Score {
    let mut voices = Vec::with_capacity(lines.len());
    let mut last_end = Time::default();
    for (line, name) in lines.iter().zip(names) {
        let mut voice = Voice::new(name.clone());
        voice.events.reserve(line.placed.len());
        for p in &line.placed {
            voice.events.push(to_event(p, grid, tags));
        }
        if let Some(last) = voice.events.last() {
            last_end = last_end.max(last.end());
        }
        voices.push(voice);
    }
    let needed = (last_end / meter.bar_length()).ceil().to_integer();
    Score {
        title: None,
        key: None,
        meter,
        tempo: Some(Time::from_integer(72)),
        bars: Some(bars.unwrap_or_else(|| u32::try_from(needed.max(1)).unwrap_or(u32::MAX))),
        voices,
    }
}

fn to_event(p: &Placed, grid: Time, tags: bool) -> Event {
    let mut e = Event::new(
        grid * Time::from_integer(p.onset),
        grid * Time::from_integer(p.end - p.onset),
        p.pitches().iter().map(|&m| Pitch::new(m)).collect(),
    );
    if tags {
        let tag = Tag {
            form: p.form,
            start: p.start,
            len: p.size,
        };
        e.tag = Some(tag.to_string());
    }
    e
}

/// Writes a piece that follows `plan`: in each section every voice states the
/// planned form inside the section, within its working register, with the plan's
/// texture limits, without crossing, tagged as the engine tags. Sections are filled
/// on a sixteenth grid, or finer when a section is too short for its voices.
pub fn from_plan(plan: &Blueprint, seed: u64) -> Result<Score, SynthError> {
    let mut last = String::new();
    for attempt in 0..9u64 {
        let per_quarter = 4i64 << (attempt / 3);
        match plan_attempt(plan, seed.wrapping_add(attempt), Time::new(1, per_quarter)) {
            Ok(score) => return Ok(score),
            Err(why) => last = why,
        }
    }
    Err(SynthError(last))
}

fn plan_attempt(plan: &Blueprint, seed: u64, grid: Time) -> Result<Score, String> {
    let voices = plan.limits.voices.len();
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut lines: Vec<Line> = plan
        .limits
        .voices
        .iter()
        .map(|v| Line::new(v.low, v.high))
        .collect();
    let mut scratch = Vec::new();
    let ticks = |t: Time| -> Result<i64, String> {
        let q = t / grid;
        if q.is_integer() {
            Ok(q.to_integer())
        } else {
            Err(format!("time {t} is not on the grid {grid}"))
        }
    };
    for section in &plan.sections {
        let (start, end) = (ticks(section.start)?, ticks(section.end)?);
        let mut pos = vec![0u8; voices];
        let mut single = vec![false; voices];
        for line in &mut lines {
            line.free_at = line.free_at.max(start);
        }
        let longest = ((end - start) / 24).clamp(1, 4);
        loop {
            let open: Vec<bool> = pos.iter().map(|&p| p >= 12).collect();
            let Some(v) = next_voice(&lines, &open) else {
                break;
            };
            let t = lines[v].free_at;
            if t >= end {
                return Err(format!(
                    "voice {} could not finish section {}",
                    v + 1,
                    section.index + 1
                ));
            }
            let form = section
                .forms
                .get(v)
                .copied()
                .ok_or("the plan lacks a form")?;
            let max_chord = plan.limits.max_chord.clamp(1, 4);
            let n = if single[v] || max_chord < 2 || rng.u8(..100) >= 15 {
                1
            } else {
                rng.u8(2..=max_chord.min(12 - pos[v]).max(2))
                    .min(12 - pos[v])
            };
            let p = usize::from(pos[v]);
            let pcs = &plan.table.pcs(form)[p..p + usize::from(n)];
            let chunk = Chunk {
                pcs,
                form,
                start: pos[v],
                t,
                d: rng.i64(1..=longest).min(end - t),
            };
            match place(
                &mut lines,
                v,
                chunk,
                plan.limits.max_sounding,
                &mut rng,
                &mut scratch,
            ) {
                Outcome::Placed => {
                    single[v] = false;
                    pos[v] += n;
                }
                Outcome::Delay(at) => lines[v].free_at = at.max(t + 1),
                Outcome::Fewer => single[v] = true,
            }
        }
        // Let the last sound of the section ring to its end, so no bar falls silent.
        let latest = (0..voices)
            .filter_map(|v| lines[v].placed.last().map(|p| (p.end, v)))
            .max();
        if let Some((_, v)) = latest
            && let Some(p) = lines[v].placed.last_mut()
            && p.onset >= start
        {
            p.end = end;
            lines[v].free_at = end;
        }
    }
    let names: Vec<String> = plan.limits.voices.iter().map(|v| v.name.clone()).collect();
    let mut score = to_score(&lines, &names, grid, plan.meter, Some(plan.bars), true);
    score.title = plan.title.clone();
    score.tempo = Some(Time::from_integer(i64::from(plan.tempo)));
    Ok(score)
}
