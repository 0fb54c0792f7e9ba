//! The rhythm palette and the line rhythms built from it.
//!
//! A line's rhythm is a chain of cells — one- to three-pulse figures such as a
//! quarter, two eighths, a dotted eighth and sixteenth, a syncopated eighth–quarter–
//! eighth, triplet eighths (only in triplet bars), or a rest — chosen pulse by pulse
//! so that exactly the wanted number of notes spreads over the window: the cell
//! weights lean towards the density still needed, so a short window gets quick values
//! and a long one gets long values and rests. Phrases of three to six notes end in a
//! breath (a rest), and a voice may enter late. Cells never cross a bar line, so every
//! note is on its bar's grid ([`Clock::fits`]).

use super::grid::{Clock, PulseKind, SIXTEENTH};

/// One rhythmic figure: positive parts are notes, negative parts rests (in ticks).
#[derive(Clone, Debug)]
struct Cell {
    pulses: i64,
    parts: Vec<i64>,
    weight: f64,
}

impl Cell {
    fn notes(&self) -> usize {
        self.parts.iter().filter(|&&p| p > 0).count()
    }
}

fn cell(pulses: i64, parts: &[i64], weight: f64) -> Cell {
    Cell {
        pulses,
        parts: parts.to_vec(),
        weight,
    }
}

/// The cells that suit a pulse (in ticks) of the given kind.
fn palette(kind: PulseKind, pulse: i64) -> Vec<Cell> {
    match kind {
        PulseKind::Quarter => vec![
            cell(1, &[48], 10.0),
            cell(2, &[96], 5.0),
            cell(2, &[72, 24], 5.0),
            cell(3, &[144], 2.0),
            cell(1, &[24, 24], 8.0),
            cell(1, &[36, 12], 5.0),
            cell(1, &[12, 36], 2.0),
            cell(1, &[24, 12, 12], 3.0),
            cell(1, &[12, 12, 24], 3.0),
            cell(1, &[12, 24, 12], 2.0),
            cell(1, &[12, 12, 12, 12], 2.0),
            cell(2, &[24, 48, 24], 4.0),
            cell(2, &[48, -24, 24], 3.0),
            cell(1, &[16, 16, 16], 7.0),
            cell(1, &[32, 16], 4.0),
            cell(1, &[-24, 24], 4.0),
            cell(1, &[24, -24], 3.0),
            cell(1, &[-48], 3.0),
        ],
        PulseKind::DottedQuarter => vec![
            cell(1, &[72], 10.0),
            cell(2, &[144], 4.0),
            cell(1, &[48, 24], 8.0),
            cell(1, &[24, 24, 24], 6.0),
            cell(1, &[24, 48], 3.0),
            cell(1, &[36, 12, 24], 3.0),
            cell(1, &[12, 12, 24, 24], 2.0),
            cell(1, &[-24, 24, 24], 3.0),
            cell(1, &[48, -24], 3.0),
            cell(1, &[-72], 2.0),
        ],
        PulseKind::Eighth => vec![
            cell(1, &[24], 10.0),
            cell(2, &[48], 6.0),
            cell(3, &[72], 3.0),
            cell(1, &[12, 12], 5.0),
            cell(2, &[36, 12], 3.0),
            cell(2, &[12, 36], 1.0),
            cell(1, &[-24], 3.0),
            cell(1, &[-12, 12], 2.0),
        ],
        PulseKind::Fine => {
            let mut cells = vec![
                cell(1, &[pulse], 10.0),
                cell(2, &[2 * pulse], 5.0),
                cell(3, &[3 * pulse], 2.0),
                cell(1, &[-pulse], 3.0),
            ];
            if pulse % 2 == 0 && pulse / 2 >= 3 {
                cells.push(cell(1, &[pulse / 2, pulse / 2], 3.0));
            }
            cells
        }
    }
}

/// How a line should breathe (the `Whole` loop softens it after collision feedback).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Style {
    /// Share of events that are dyads or chords (before capacity forces more).
    pub chord_rate: f64,
    /// Multiplies the weight of rest cells and phrase-end rests.
    pub rest_weight: f64,
    /// Chance that a voice enters a pulse or two late.
    pub late_entry: f64,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            chord_rate: 0.12,
            rest_weight: 1.0,
            late_entry: 0.3,
        }
    }
}

/// A note of a line: onset and duration in ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    pub onset: i64,
    pub duration: i64,
}

impl Slot {
    pub fn end(self) -> i64 {
        self.onset + self.duration
    }
}

/// The pulses of a window, each with the cells allowed to start there.
struct Pulses<'c> {
    clock: &'c Clock,
    cells: Vec<Cell>,
    /// Start tick of each whole pulse of the window.
    starts: Vec<i64>,
    /// `capacity[j]`: most notes that fit from pulse `j` to the end.
    capacity: Vec<usize>,
}

impl<'c> Pulses<'c> {
    fn new(clock: &'c Clock, from: i64, to: i64) -> Self {
        let p = clock.pulse.ticks.max(1);
        let first = clock.start + (from - clock.start + p - 1).max(0) / p * p;
        let starts: Vec<i64> = (0..)
            .map(|j| first + j * p)
            .take_while(|&s| s + p <= to)
            .collect();
        let mut pulses = Pulses {
            clock,
            cells: palette(clock.pulse.kind, p),
            starts,
            capacity: Vec::new(),
        };
        let mut capacity = vec![0; pulses.starts.len() + 1];
        for j in (0..pulses.starts.len()).rev() {
            let densest = pulses
                .allowed(j)
                .filter(|c| c.pulses == 1)
                .map(Cell::notes)
                .max()
                .unwrap_or(0);
            capacity[j] = capacity[j + 1] + densest;
        }
        pulses.capacity = capacity;
        pulses
    }

    /// Cells that may start at pulse `j`: inside the bar and the window, on the grid.
    fn allowed(&self, j: usize) -> impl Iterator<Item = &Cell> + '_ {
        let start = self.starts.get(j).copied().unwrap_or(i64::MAX);
        let bar_end = self.clock.bar_start(start) + self.clock.bar;
        let unit = self.clock.unit(start);
        let left = self.starts.len() - j.min(self.starts.len());
        self.cells.iter().filter(move |c| {
            let span = c.pulses * self.clock.pulse.ticks;
            usize::try_from(c.pulses).is_ok_and(|n| n <= left)
                && start + span <= bar_end
                && c.parts.iter().all(|p| p % unit == 0)
        })
    }

    fn capacity_from(&self, j: usize) -> usize {
        self.capacity.get(j).copied().unwrap_or(0)
    }
}

/// Splits `notes` into phrase lengths of three to six (a short tail joins the last).
fn phrases(rng: &mut fastrand::Rng, notes: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut left = notes;
    while left > 0 {
        let take = rng.usize(3..=6).min(left);
        if left - take < 2 || out.is_empty() && left <= 6 && rng.bool() {
            out.push(left);
            break;
        }
        out.push(take);
        left -= take;
    }
    out
}

/// A rhythm of exactly `notes` notes inside `[from, to)`, or `None` if the palette
/// cannot hold that many there (the caller then uses [`even_rhythm`]).
pub(crate) fn line_rhythm(
    rng: &mut fastrand::Rng,
    clock: &Clock,
    from: i64,
    to: i64,
    notes: usize,
    style: Style,
) -> Option<Vec<Slot>> {
    let pulses = Pulses::new(clock, from, to);
    if pulses.capacity_from(0) < notes {
        return None;
    }
    let count = pulses.starts.len();
    let mut phrase_ends: Vec<usize> = phrases(rng, notes)
        .iter()
        .scan(0, |acc, n| {
            *acc += n;
            Some(*acc)
        })
        .collect();
    phrase_ends.reverse();
    let mut out = Vec::with_capacity(notes);
    let mut j = 0;
    if rng.f64() < style.late_entry {
        let wait = rng.usize(1..=2);
        if pulses.capacity_from(wait) >= notes * 2 {
            j = wait;
        }
    }
    while out.len() < notes && j < count {
        let left = notes - out.len();
        if phrase_ends.last().is_some_and(|&end| out.len() >= end) {
            phrase_ends.pop();
            let rest = if rng.f64() < 0.3 { 2 } else { 1 };
            if !out.is_empty() && rng.f64() < 0.8 * style.rest_weight.min(1.2) {
                if pulses.capacity_from(j + rest) >= left + left / 2 {
                    j += rest;
                    continue;
                } else if pulses.capacity_from(j + 1) >= left {
                    j += 1;
                    continue;
                }
            }
        }
        let target = left as f64 / (count - j) as f64;
        let choices: Vec<(&Cell, f64)> = pulses
            .allowed(j)
            .filter_map(|c| {
                let n = c.notes();
                let after = j + usize::try_from(c.pulses).unwrap_or(usize::MAX);
                if n > left || pulses.capacity_from(after) < left - n {
                    return None;
                }
                let density = n as f64 / c.pulses as f64;
                let fit = 1.0 / (1.0 + 4.0 * (density - target).powi(2));
                let rest = if n == 0 { style.rest_weight } else { 1.0 };
                Some((c, c.weight * fit * rest))
            })
            .collect();
        let chosen = pick(rng, &choices)?;
        let mut t = pulses.starts[j];
        for &part in &chosen.parts {
            if part > 0 && out.len() < notes {
                out.push(Slot {
                    onset: t,
                    duration: part,
                });
            }
            t += part.abs();
        }
        j += usize::try_from(chosen.pulses).unwrap_or(1);
    }
    (out.len() == notes).then_some(out)
}

/// Picks one item by weight.
pub(crate) fn pick<'a, T>(rng: &mut fastrand::Rng, choices: &[(&'a T, f64)]) -> Option<&'a T> {
    let total: f64 = choices.iter().map(|(_, w)| w.max(0.0)).sum();
    if choices.is_empty() || total <= 0.0 {
        return choices.first().map(|(c, _)| *c);
    }
    let mut x = rng.f64() * total;
    for (c, w) in choices {
        x -= w.max(0.0);
        if x < 0.0 {
            return Some(c);
        }
    }
    choices.last().map(|(c, _)| *c)
}

/// The fallback when the palette cannot hold `notes` notes: equal values on the
/// coarsest binary grid that holds them (down to a 64th note, never in a triplet
/// bar), or `None` if even that does not fit.
pub(crate) fn even_rhythm(clock: &Clock, from: i64, to: i64, notes: usize) -> Option<Vec<Slot>> {
    let n = i64::try_from(notes).ok()?.max(1);
    for unit in [2 * SIXTEENTH, SIXTEENTH, SIXTEENTH / 2, SIXTEENTH / 4] {
        let first = clock.start + (from - clock.start + unit - 1).max(0) / unit * unit;
        let step = (to - first) / n / unit * unit;
        if step < unit {
            continue;
        }
        let slots: Vec<Slot> = (0..n)
            .map(|i| Slot {
                onset: first + i * step,
                duration: step,
            })
            .collect();
        let writable = |s: &Slot| {
            clock.fits(s.onset, s.end())
                || (s.end() <= to && !clock.is_triplet(s.onset) && !clock.is_triplet(s.end() - 1))
        };
        if slots.iter().all(writable) {
            return Some(slots);
        }
    }
    None
}
