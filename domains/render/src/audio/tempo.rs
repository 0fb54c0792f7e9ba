//! The tempo map: when, in seconds, each quarter note of a score sounds.
//!
//! The score model keeps one tempo; a MIDI file may change it anywhere, so a
//! piece read from MIDI keeps the file's tempo changes here (read from its Set
//! Tempo events). Everything else has one tempo, or MIDI's default of 120 bpm
//! when the score says none.

use cantus_music::Time;
use midly::{MetaMessage, Smf, Timing, TrackEventKind};

/// Quarter-note tempo MIDI players assume when a file sets none.
pub const DEFAULT_BPM: f64 = 120.0;

/// Tempo changes in quarter notes from the start, each with its tempo in
/// microseconds per quarter note. Always starts at 0.
#[derive(Clone, Debug, PartialEq)]
pub struct TempoMap {
    changes: Vec<(Time, f64)>,
}

impl TempoMap {
    /// One tempo throughout (quarter-note bpm), or [`DEFAULT_BPM`].
    pub fn constant(bpm: Option<Time>) -> TempoMap {
        let bpm = bpm
            .map(|b| *b.numer() as f64 / *b.denom() as f64)
            .filter(|b| b.is_finite() && *b > 0.0)
            .unwrap_or(DEFAULT_BPM);
        TempoMap {
            changes: vec![(Time::from_integer(0), 60e6 / bpm)],
        }
    }

    /// Tempo changes at the given quarter positions (bpm each); the first tempo
    /// also holds before the first change. Positions are sorted; non-positive or
    /// non-finite tempi are skipped.
    pub fn from_changes(changes: &[(Time, f64)]) -> TempoMap {
        let mut list: Vec<(Time, f64)> = changes
            .iter()
            .filter(|(_, bpm)| bpm.is_finite() && *bpm > 0.0)
            .map(|&(at, bpm)| (at.max(Time::from_integer(0)), 60e6 / bpm))
            .collect();
        list.sort_by_key(|a| a.0);
        match list.first_mut() {
            Some(first) => first.0 = Time::from_integer(0),
            None => list.push((Time::from_integer(0), 60e6 / DEFAULT_BPM)),
        }
        TempoMap { changes: list }
    }

    /// The Set Tempo events of a MIDI file (ticks over its resolution give the
    /// quarter positions), else [`TempoMap::constant`] of `fallback`. A file that
    /// does not parse, or counts in SMPTE frames, gets the fallback.
    pub fn from_midi(bytes: &[u8], fallback: Option<Time>) -> TempoMap {
        let Ok(smf) = Smf::parse(bytes) else {
            return TempoMap::constant(fallback);
        };
        let Timing::Metrical(ppq) = smf.header.timing else {
            return TempoMap::constant(fallback);
        };
        let ppq = i64::from(ppq.as_int().max(1));
        let mut changes: Vec<(Time, f64)> = Vec::new();
        for track in &smf.tracks {
            let mut tick: i64 = 0;
            for event in track {
                tick = tick.saturating_add(i64::from(event.delta.as_int()));
                if let TrackEventKind::Meta(MetaMessage::Tempo(micros)) = event.kind {
                    let micros = micros.as_int();
                    if micros > 0 {
                        changes.push((Time::new(tick, ppq), 60e6 / f64::from(micros)));
                    }
                }
            }
        }
        if changes.is_empty() {
            return TempoMap::constant(fallback);
        }
        TempoMap::from_changes(&changes)
    }

    /// Seconds from the start to quarter position `q`.
    pub fn seconds_at(&self, q: Time) -> f64 {
        let mut seconds = 0.0;
        for (i, &(at, micros)) in self.changes.iter().enumerate() {
            if q <= at {
                break;
            }
            let until = self.changes.get(i + 1).map_or(q, |next| next.0.min(q));
            seconds += quarters(until - at) * micros / 1e6;
        }
        seconds
    }

    /// The tempo changes as (quarter position, bpm).
    pub fn changes(&self) -> Vec<(Time, f64)> {
        self.changes.iter().map(|&(at, m)| (at, 60e6 / m)).collect()
    }
}

fn quarters(t: Time) -> f64 {
    *t.numer() as f64 / *t.denom() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use cantus_music::time;

    #[test]
    fn seconds_add_up_over_tempo_changes() {
        let map = TempoMap::from_changes(&[(time(0, 1), 60.0), (time(4, 1), 120.0)]);
        assert_eq!(map.seconds_at(time(4, 1)), 4.0);
        assert_eq!(map.seconds_at(time(8, 1)), 6.0);
        assert_eq!(map.seconds_at(time(6, 1)), 5.0);
        assert_eq!(TempoMap::constant(None).seconds_at(time(8, 1)), 4.0);
        assert_eq!(
            TempoMap::constant(Some(time(90, 1))).seconds_at(time(3, 1)),
            2.0
        );
    }
}
