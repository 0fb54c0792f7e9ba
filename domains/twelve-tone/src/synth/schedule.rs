//! The greedy scheduler behind [`super::piece`] and [`super::from_plan`]: places
//! each voice's next chunk of its row form at the earliest time no rule forbids.
//!
//! Voices are served in order of when they are free (ties: the voice with fewer
//! events, then the lower voice). A chunk of `n` pitch classes at time `t` for up to
//! `d` ticks must not share a pitch class with anything another voice sounds
//! during it (`TT-COLLISION`), must keep the pitches sounding at once within the
//! limit (`TT-TEXTURE`), and gets octaves that cross no overlapping voice
//! (`TT-CROSSING`). A conflict with an event already sounding at `t` delays the voice
//! to that event's end (someone sounds meanwhile, so no bar falls silent); a
//! conflict with an event starting later shortens the chunk to end there.

use crate::row::{PitchClass, RowForm};

/// One placed event, in ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Placed {
    pub onset: i64,
    pub end: i64,
    pub mask: u16,
    pub lo: u8,
    pub hi: u8,
    pub size: u8,
    pub pitches: [u8; 4],
    pub form: RowForm,
    /// First order position (0-based) the event realises.
    pub start: u8,
}

impl Placed {
    /// The pitches, ascending.
    pub fn pitches(&self) -> &[u8] {
        &self.pitches[..usize::from(self.size).min(4)]
    }
}

/// One voice being written.
#[derive(Clone, Debug)]
pub(crate) struct Line {
    pub placed: Vec<Placed>,
    /// Earliest tick the voice may sound again.
    pub free_at: i64,
    pub low: u8,
    pub high: u8,
}

impl Line {
    pub fn new(low: u8, high: u8) -> Line {
        Line {
            placed: Vec::new(),
            free_at: 0,
            low,
            high,
        }
    }
}

/// What one attempt to place a chunk came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Placed (already pushed onto the line).
    Placed,
    /// Try again at this tick.
    Delay(i64),
    /// Too many pitches at `t`: try fewer pitch classes.
    Fewer,
}

/// A chunk to place.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Chunk<'a> {
    pub pcs: &'a [PitchClass],
    pub form: RowForm,
    pub start: u8,
    pub t: i64,
    /// Longest duration wanted, in ticks (≥ 1).
    pub d: i64,
}

/// Events of other voices overlapping `[t, t + d)`, as (voice, placed).
fn overlapping(lines: &[Line], v: usize, t: i64, d: i64, out: &mut Vec<(usize, Placed)>) {
    out.clear();
    for (u, line) in lines.iter().enumerate() {
        if u == v {
            continue;
        }
        for c in line.placed.iter().rev() {
            if c.end <= t {
                break;
            }
            if c.onset < t + d {
                out.push((u, *c));
            }
        }
    }
}

/// Tries to place `chunk` in voice `v`.
pub(crate) fn place(
    lines: &mut [Line],
    v: usize,
    chunk: Chunk<'_>,
    max_sounding: u8,
    rng: &mut fastrand::Rng,
    scratch: &mut Vec<(usize, Placed)>,
) -> Outcome {
    let (t, mut d) = (chunk.t, chunk.d.max(1));
    let mask = chunk.pcs.iter().fold(0u16, |m, &pc| m | 1 << (pc % 12));
    let n = chunk.pcs.len() as u32;
    overlapping(lines, v, t, d, scratch);
    // Collisions.
    let mut delay: Option<i64> = None;
    for &(_, c) in scratch.iter() {
        if c.mask & mask != 0 {
            if c.onset <= t {
                delay = Some(delay.map_or(c.end, |x: i64| x.min(c.end)));
            } else {
                d = d.min(c.onset - t);
            }
        }
    }
    if let Some(at) = delay {
        return Outcome::Delay(at);
    }
    // Pitches at once, at t and at every later onset inside the chunk.
    let sounding_at = |x: i64| -> u32 {
        scratch
            .iter()
            .filter(|(_, c)| c.onset <= x && x < c.end)
            .map(|(_, c)| u32::from(c.size))
            .sum()
    };
    if sounding_at(t) + n > u32::from(max_sounding) {
        if n > 1 {
            return Outcome::Fewer;
        }
        let at = scratch
            .iter()
            .filter(|(_, c)| c.onset <= t)
            .map(|(_, c)| c.end)
            .min()
            .unwrap_or(t + 1);
        return Outcome::Delay(at);
    }
    let mut onsets: Vec<i64> = scratch
        .iter()
        .map(|(_, c)| c.onset)
        .filter(|&x| x > t && x < t + d)
        .collect();
    onsets.sort_unstable();
    for x in onsets {
        if sounding_at(x) + n > u32::from(max_sounding) {
            d = d.min(x - t);
            break;
        }
    }
    // Octaves that cross nothing overlapping [t, t + d).
    loop {
        let (mut floor, mut ceil) = (lines[v].low, lines[v].high);
        for &(u, c) in scratch.iter() {
            if c.onset >= t + d || c.end <= t {
                continue;
            }
            if u < v {
                ceil = ceil.min(c.lo);
            } else {
                floor = floor.max(c.hi);
            }
        }
        if let Some(pitches) = choose_pitches(chunk.pcs, floor, ceil, rng) {
            let mut placed = Placed {
                onset: t,
                end: t + d,
                mask,
                lo: u8::MAX,
                hi: 0,
                size: chunk.pcs.len() as u8,
                pitches: [0; 4],
                form: chunk.form,
                start: chunk.start,
            };
            for (slot, &p) in placed.pitches.iter_mut().zip(&pitches) {
                *slot = p;
            }
            placed.lo = pitches.first().copied().unwrap_or(0);
            placed.hi = pitches.last().copied().unwrap_or(0);
            placed.pitches[..pitches.len()].sort_unstable();
            lines[v].placed.push(placed);
            lines[v].free_at = t + d;
            return Outcome::Placed;
        }
        // Some overlapping voice pins the register: end before the next one that
        // starts after t, or wait for the earliest one sounding at t to end.
        let later = scratch
            .iter()
            .map(|(_, c)| c.onset)
            .filter(|&x| x > t && x < t + d)
            .min();
        match later {
            Some(x) => d = x - t,
            None => {
                let at = scratch
                    .iter()
                    .filter(|(_, c)| c.onset <= t && c.end > t)
                    .map(|(_, c)| c.end)
                    .min()
                    .unwrap_or(t + 1);
                return Outcome::Delay(at);
            }
        }
    }
}

/// One pitch per pitch class in `[floor, ceil]`, chosen at random, ascending; `None`
/// if some pitch class has no pitch there.
fn choose_pitches(
    pcs: &[PitchClass],
    floor: u8,
    ceil: u8,
    rng: &mut fastrand::Rng,
) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(pcs.len());
    let (floor, ceil) = (u16::from(floor), u16::from(ceil));
    for &pc in pcs {
        let first = floor + (u16::from(pc % 12) + 12 - floor % 12) % 12;
        if first > ceil {
            return None;
        }
        let choices = (ceil - first) / 12 + 1;
        let pitch = first + 12 * rng.u16(..choices);
        out.push(u8::try_from(pitch).ok()?);
    }
    out.sort_unstable();
    Some(out)
}
