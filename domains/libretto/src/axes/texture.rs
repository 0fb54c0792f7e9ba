//! Texture axes: how many voices play, how full each onset is, how wide chords are.

use super::{Axis, RawAxes, Tables};

pub(super) fn measure(t: &Tables<'_>, out: &mut RawAxes) {
    let events = t.events();
    // Declared voices with events (a voice declared twice counts twice, as in the original).
    let count = t
        .song
        .declared
        .iter()
        .filter(|&&v| !t.voice_events[v as usize].is_empty())
        .count();
    out[Axis::TexVoiceCount.index()] = count as f64;
    out[Axis::TexMeanSimultaneity.index()] = events.len() as f64 / t.onsets.len() as f64;
    // Widest same-voice, same-onset group of two or more notes.
    let mut notes: Vec<(u32, u64, i64)> = events
        .iter()
        .map(|e| (e.voice, e.abs.to_bits(), e.midi))
        .collect();
    notes.sort_unstable();
    let width = notes
        .chunk_by(|a, b| a.0 == b.0 && a.1 == b.1)
        .filter(|g| g.len() >= 2)
        .map(|g| g[g.len() - 1].2 - g[0].2)
        .max()
        .unwrap_or(0);
    out[Axis::TexMaxChordWidth.index()] = width as f64;
    // Distinct voices per sounding bar; a sum of small integers is exact.
    let mut total = 0usize;
    for evs in &t.bar_events {
        let mut voices: Vec<u32> = evs.iter().map(|&i| events[i].voice).collect();
        voices.sort_unstable();
        voices.dedup();
        total += voices.len();
    }
    out[Axis::TexActiveVoiceDensity.index()] = total as f64 / t.bars.len() as f64;
}
