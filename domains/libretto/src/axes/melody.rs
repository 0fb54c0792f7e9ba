//! Melody axes, and the choice of bass and melody voices that harmony shares.

use super::{Axis, RawAxes, Tables};
use crate::numeric::{OrderedCounts, entropy};
use crate::song::VoiceId;

/// The bass and melody voices of a piece.
pub(super) struct Roles {
    /// The declared voice with events whose mean MIDI is lowest.
    pub bass: Option<VoiceId>,
    /// The highest-mean "mono" voice (fewer than 1.4 notes per onset and at least
    /// 8 onsets), or the highest-mean voice when none is mono.
    pub melody: Option<VoiceId>,
}

pub(super) fn roles(t: &Tables<'_>) -> Roles {
    let events = t.events();
    // (voice, mean midi, notes per onset, distinct onsets), first-declared order.
    let mut stats: Vec<(VoiceId, f64, f64, usize)> = Vec::new();
    for &v in t.song.declared {
        if stats.iter().any(|s| s.0 == v) {
            continue;
        }
        let evs = &t.voice_events[v as usize];
        if evs.is_empty() {
            continue;
        }
        let sum: i64 = evs.iter().map(|&i| events[i].midi).sum();
        let mut onsets: Vec<u64> = evs.iter().map(|&i| events[i].abs.to_bits()).collect();
        onsets.sort_unstable();
        onsets.dedup();
        let mean = sum as f64 / evs.len() as f64;
        let chord = evs.len() as f64 / onsets.len().max(1) as f64;
        stats.push((v, mean, chord, onsets.len()));
    }
    let first_by = |pick: &dyn Fn(f64, f64) -> bool, pool: &[&(VoiceId, f64, f64, usize)]| {
        pool.iter()
            .fold(None::<&(VoiceId, f64, f64, usize)>, |best, s| match best {
                Some(b) if !pick(s.1, b.1) => Some(b),
                _ => Some(s),
            })
            .map(|s| s.0)
    };
    let all: Vec<_> = stats.iter().collect();
    let mono: Vec<_> = stats.iter().filter(|s| s.2 < 1.4 && s.3 >= 8).collect();
    let pool = if mono.is_empty() { &all } else { &mono };
    Roles {
        bass: first_by(&|a, b| a < b, &all),
        melody: first_by(&|a, b| a > b, pool),
    }
}

pub(super) fn measure(t: &Tables<'_>, melody: Option<VoiceId>, out: &mut RawAxes) {
    let events = t.events();
    let lo = events.iter().map(|e| e.midi).min().unwrap_or(0);
    let hi = events.iter().map(|e| e.midi).max().unwrap_or(0);
    out[Axis::MelPitchRange.index()] = (hi - lo) as f64;
    let Some(mel) = melody else {
        for a in [
            Axis::MelStepRatio,
            Axis::MelIntervalEntropy,
            Axis::MelUpRatio,
            Axis::MelVoiceRange,
        ] {
            out[a.index()] = 0.0;
        }
        return;
    };
    // The line: the top note at each onset time of the melody voice.
    let evs = &t.voice_events[mel as usize];
    let mut notes: Vec<(f64, i64)> = evs
        .iter()
        .map(|&i| (events[i].abs, events[i].midi))
        .collect();
    notes.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
    // Highest note first within each onset: keep the first of each onset.
    notes.dedup_by(|later, first| later.0 == first.0);
    let line = notes;
    let moves: Vec<i64> = line
        .windows(2)
        .map(|w| w[1].1 - w[0].1)
        .filter(|&d| d != 0)
        .collect();
    let n = moves.len() as f64;
    let (step, ent, up) = if moves.is_empty() {
        (0.0, 0.0, 0.5)
    } else {
        let mut sizes = OrderedCounts::new();
        for d in &moves {
            sizes.add(d.abs().min(12), 1.0);
        }
        (
            moves.iter().filter(|d| d.abs() <= 2).count() as f64 / n,
            entropy(&sizes.values()),
            moves.iter().filter(|&&d| d > 0).count() as f64 / n,
        )
    };
    out[Axis::MelStepRatio.index()] = step;
    out[Axis::MelIntervalEntropy.index()] = ent;
    out[Axis::MelUpRatio.index()] = up;
    let vlo = evs.iter().map(|&i| events[i].midi).min().unwrap_or(0);
    let vhi = evs.iter().map(|&i| events[i].midi).max().unwrap_or(0);
    out[Axis::MelVoiceRange.index()] = (vhi - vlo) as f64;
}
