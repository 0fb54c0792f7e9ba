//! Any [`Score`] → [`Layout`], laid out as Libretto's encoder
//! (`midi_to_grammar.encode`, adaptive grid) would write it, so a MIDI or
//! MusicXML piece is measured as the original measures the text it makes of it.
//!
//! One departure, on purpose: a bar whose onsets and durations all lie exactly
//! on one of Cantus's writer grids ([`WRITER_GRIDS`]) is placed on the coarsest
//! such grid, exactly, as Cantus's canonical text writes it. The original's
//! float heuristic can misjudge such bars (half-to-even rounding lets
//! syncopated sixteenths pass as eighths, and then a 24-triplet grid wins and
//! moves them); since the canonical text is measured exactly as the original
//! measures text, an exact score is measured as its text would be. Only bars
//! off every such grid (quintuplets, unquantized MIDI) take the encoder's route:
//! the coarsest binary grid (4, 8, 16, 32 slots per whole note) on which no
//! voice has two distinct onsets in one slot, a triplet grid (6, 12, 24) only
//! when binary placement misses by more than 0.02 quarter notes on average and
//! the triplet grid halves that miss, and notes rounded to its slots. Notes of
//! one voice on one slot merge into one chord token with the longest duration;
//! every bar from 1 to the end of the last note gets a bar line, silent ones
//! included.

use super::{BarHead, Block, Layout, LayoutError, Token, VoiceLine};
use crate::numeric::py_round;
use cantus_music::grammar::WRITER_GRIDS;
use cantus_music::{Event, Score, Time};
use num_traits::{CheckedDiv, CheckedMul, CheckedSub};
use std::collections::{BTreeMap, HashMap};

fn as_f64(t: Time) -> f64 {
    *t.numer() as f64 / *t.denom() as f64
}

/// Python's float `//`.
fn py_floordiv(x: f64, y: f64) -> f64 {
    let m = x % y;
    let mut div = (x - m) / y;
    if m != 0.0 && ((y < 0.0) != (m < 0.0)) {
        div -= 1.0;
    }
    if div != 0.0 {
        let mut fl = div.floor();
        if div - fl > 0.5 {
            fl += 1.0;
        }
        fl
    } else {
        0.0f64.copysign(x / y)
    }
}

type Grid = (i64, bool);

/// One voice's tokens: (bar, slot) → (length in slots, MIDI numbers).
type Cells = BTreeMap<(i64, i64), (i64, Vec<i64>)>;

/// Whether two distinct onsets of one voice round to one slot. Onsets are sorted
/// and rounding is monotonic, so only neighbours can collide.
fn collapses(voices: &[Vec<f64>], g: i64) -> bool {
    let slot = 4.0 / g as f64;
    voices.iter().any(|onsets| {
        onsets
            .windows(2)
            .any(|w| py_round(w[0] / slot) == py_round(w[1] / slot))
    })
}

fn avg_residual(voices: &[Vec<f64>], g: i64) -> f64 {
    let slot = 4.0 / g as f64;
    let mut total = 0.0;
    let mut n = 0usize;
    for onsets in voices {
        for &o in onsets {
            let k = py_round(o / slot) as f64;
            total += (o - k * slot).abs();
            n += 1;
        }
    }
    if n == 0 { 0.0 } else { total / n as f64 }
}

/// The encoder's `choose_bar_grid` over one bar's per-voice distinct onsets.
fn choose_bar_grid(voices: &[Vec<f64>]) -> Grid {
    let g_bin = [4, 8, 16, 32]
        .into_iter()
        .find(|&g| !collapses(voices, g))
        .unwrap_or(32);
    let r_bin = avg_residual(voices, g_bin);
    if r_bin > 0.02 {
        for g in [6, 12, 24] {
            if !collapses(voices, g) && avg_residual(voices, g) < 0.5 * r_bin {
                return (g, true);
            }
        }
    }
    (g_bin, false)
}

/// An event's exact bar (1-based) and its onset within that bar.
fn exact_place(e: &Event, bar_len: Time) -> Option<(i64, Time)> {
    let index = e.onset.checked_div(&bar_len)?.floor();
    let start = index.checked_mul(&bar_len)?;
    Some((index.to_integer() + 1, e.onset.checked_sub(&start)?))
}

/// `t` in slots of grid `g` (slots per whole note), if it is a whole number.
fn slots(t: Time, g: i64) -> Option<i64> {
    let s = t.checked_mul(&Time::new(g, 4))?;
    s.is_integer().then(|| s.to_integer())
}

/// The coarsest writer grid holding every onset and duration of a bar exactly.
fn exact_grid(events: &[(Time, Time)]) -> Option<i64> {
    WRITER_GRIDS.iter().map(|&g| i64::from(g)).find(|&g| {
        events
            .iter()
            .all(|&(on, dur)| slots(on, g).is_some() && slots(dur, g).is_some())
    })
}

impl Layout {
    /// Lays a score out as the original's encoder would (see the module docs).
    pub fn from_score(score: &Score) -> Result<Layout, LayoutError> {
        let meter = score.meter;
        if meter.den == 0 || meter.num == 0 {
            return Err(LayoutError::ZeroMeter(meter.to_string()));
        }
        let bar_ql = f64::from(meter.num) * 4.0 / f64::from(meter.den);
        // Refused before anything is laid out.
        let end = as_f64(score.end());
        let total_bars = ((end / bar_ql).ceil() as i64).max(1);
        if total_bars > super::MAX_MEASURED_BARS as i64 {
            return Err(LayoutError::TooManyBars {
                bars: total_bars as u64,
                limit: super::MAX_MEASURED_BARS,
            });
        }
        // (bar, voice, in-bar onset) of every event, then each bar's grid.
        let mut onsets: Vec<(i64, usize, f64)> = Vec::with_capacity(score.event_count());
        for (vi, voice) in score.voices.iter().enumerate() {
            for e in &voice.events {
                let off = as_f64(e.onset);
                let bidx = py_floordiv(off, bar_ql);
                onsets.push((bidx as i64 + 1, vi, off - bidx * bar_ql));
            }
        }
        onsets.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.total_cmp(&b.2)));
        onsets.dedup();
        let mut per_bar: HashMap<i64, Grid> = HashMap::new();
        let mut lists: Vec<Vec<f64>> = Vec::new();
        for bar_group in onsets.chunk_by(|a, b| a.0 == b.0) {
            lists.clear();
            for voice_group in bar_group.chunk_by(|a, b| a.1 == b.1) {
                lists.push(voice_group.iter().map(|o| o.2).collect());
            }
            per_bar.insert(bar_group[0].0, choose_bar_grid(&lists));
        }
        // Bars that sit exactly on a writer grid take it instead.
        let bar_len = score.bar_length();
        let mut placed: Vec<(i64, Time, Time)> = Vec::with_capacity(score.event_count());
        let mut off_grid = false;
        for e in score.voices.iter().flat_map(|v| &v.events) {
            match exact_place(e, bar_len) {
                Some((bar, on)) => placed.push((bar, on, e.duration)),
                None => off_grid = true,
            }
        }
        let mut exact: HashMap<i64, i64> = HashMap::new();
        if !off_grid {
            placed.sort_by_key(|p| p.0);
            for group in placed.chunk_by(|a, b| a.0 == b.0) {
                let items: Vec<(Time, Time)> = group.iter().map(|p| (p.1, p.2)).collect();
                if let Some(g) = exact_grid(&items) {
                    exact.insert(group[0].0, g);
                    per_bar.insert(group[0].0, (g, g % 3 == 0));
                }
            }
        }
        let mut counts: HashMap<Grid, usize> = HashMap::new();
        for g in per_bar.values() {
            *counts.entry(*g).or_default() += 1;
        }
        let default = counts
            .into_iter()
            .min_by(|a, b| {
                b.1.cmp(&a.1)
                    .then(a.0.1.cmp(&b.0.1))
                    .then(a.0.0.cmp(&b.0.0))
            })
            .map_or((16, false), |(g, _)| g);
        let grid_of = |bar: i64| per_bar.get(&bar).copied().unwrap_or(default);

        // Per voice, (bar, slot) -> (longest duration, pitches): notes on one slot merge.
        let mut cells: Vec<Cells> = vec![BTreeMap::new(); score.voices.len()];
        for (vi, voice) in score.voices.iter().enumerate() {
            for e in &voice.events {
                let exact_slot = exact_place(e, bar_len).and_then(|(bar, on)| {
                    let g = *exact.get(&bar)?;
                    Some((bar, slots(on, g)? + 1, slots(e.duration, g)?.max(1)))
                });
                if let Some((bar, slot, dur)) = exact_slot {
                    let cell = cells[vi].entry((bar, slot)).or_insert((dur, Vec::new()));
                    cell.0 = cell.0.max(dur);
                    cell.1.extend(e.pitches.iter().map(|p| i64::from(p.midi)));
                    continue;
                }
                let off = as_f64(e.onset);
                let ql = as_f64(e.duration);
                let (g, _) = grid_of(py_floordiv(off, bar_ql) as i64 + 1);
                let slot_ql = 4.0 / g as f64;
                let slots_per_bar = py_round(bar_ql / slot_ql).max(1);
                let mut bar_idx = py_floordiv(off, bar_ql);
                let in_bar = off - bar_idx * bar_ql;
                let mut slot = py_round(in_bar / slot_ql) + 1;
                if slot > slots_per_bar {
                    bar_idx += 1.0;
                    slot = 1;
                }
                let dur = py_round(ql / slot_ql).max(1);
                let cell = cells[vi]
                    .entry((bar_idx as i64 + 1, slot))
                    .or_insert((dur, Vec::new()));
                cell.0 = cell.0.max(dur);
                cell.1.extend(e.pitches.iter().map(|p| i64::from(p.midi)));
            }
        }
        let mut names: Vec<String> = Vec::new();
        for (i, v) in score.voices.iter().enumerate() {
            let base = if v.name.trim().is_empty() {
                format!("Voice{}", i + 1)
            } else {
                v.name.trim().to_string()
            };
            let mut name = base.clone();
            let mut n = 2;
            while names.contains(&name) {
                name = format!("{base}#{n}");
                n += 1;
            }
            names.push(name);
        }
        let declared: Vec<u32> = (0..score.voices.len() as u32).collect();
        let blocks = (1..=total_bars)
            .map(|bar| {
                let g = grid_of(bar);
                let lines = cells
                    .iter()
                    .enumerate()
                    .filter_map(|(vi, slots)| {
                        let tokens: Vec<Token> = slots
                            .range((bar, i64::MIN)..=(bar, i64::MAX))
                            .map(|(&(_, slot), (dur, midis))| {
                                let mut midis = midis.clone();
                                midis.sort_unstable();
                                midis.dedup();
                                Token {
                                    slot,
                                    dur: *dur,
                                    midis,
                                }
                            })
                            .collect();
                        (!tokens.is_empty()).then_some(VoiceLine {
                            voice: vi as u32,
                            tokens,
                        })
                    })
                    .collect();
                Block {
                    head: Some(BarHead {
                        number: bar,
                        grid: (g != default).then_some(g.0),
                    }),
                    triplet: g.1,
                    lines,
                }
            })
            .collect();
        Ok(Layout {
            bar_ql,
            default_grid: default.0,
            names,
            declared: declared.clone(),
            window_declared: Some(declared),
            has_head: true,
            blocks,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_choice_follows_the_encoder() {
        // Onsets on quarters only: the coarsest binary grid, 4 (quarter slots).
        assert_eq!(choose_bar_grid(&[vec![0.0, 1.0, 2.0, 3.0]]), (4, false));
        // Eighths need 8.
        assert_eq!(choose_bar_grid(&[vec![0.0, 0.5, 1.0]]), (8, false));
        // Eighth triplets: binary 16 misses 1/3 by 1/12 (> 0.02); 12t fits exactly.
        let trip = vec![0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0];
        assert_eq!(choose_bar_grid(&[trip]), (12, true));
        assert_eq!(py_floordiv(7.0, 4.0), 1.0);
        assert_eq!(py_floordiv(-1.0, 4.0), -1.0);
    }
}
