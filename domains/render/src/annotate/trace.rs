//! What the harness did, drawn from its trace: repaired notes coloured by rung,
//! dropped events as ghost notes.

use crate::trace::{EventStatus, TraceView, time_of};
use cantus_music::annotation::{Annotations, Colour, MarkKind};
use cantus_music::{Score, Time};
use serde_json::Value;

/// The colour of the ladder's `index`-th rung (from 0): blue, green, orange,
/// purple, then red for the fifth and later. Grey is kept for ghosts and red
/// for violations, so the first four rungs never look like either.
pub fn rung_colour(index: usize) -> Colour {
    match index {
        0 => Colour::Blue,
        1 => Colour::Green,
        2 => Colour::Orange,
        3 => Colour::Purple,
        _ => Colour::Red,
    }
}

/// Colours and ghosts from the events of the trace's kept section attempts: a
/// repaired event's note in its rung's colour (by the rung's place in the run's
/// ladder), a dropped event as a ghost of its last candidate. Events whose voice
/// the score does not have are skipped.
pub fn repairs(score: &Score, trace: &TraceView) -> Annotations {
    let ladder = trace.ladder();
    let mut out = Annotations::new();
    for e in trace.events.iter().filter(|e| e.kept) {
        let voice = e
            .voice
            .or_else(|| e.voice_name.as_deref().and_then(|n| score.voice_index(n)));
        let (Some(voice), Some(onset)) = (voice, e.onset) else {
            continue;
        };
        if voice >= score.voices.len() {
            continue;
        }
        match &e.status {
            EventStatus::Repaired { rung } => {
                let index = ladder
                    .iter()
                    .position(|r| r == rung)
                    .unwrap_or(ladder.len());
                out.push(voice, onset, MarkKind::Colour(rung_colour(index)));
            }
            EventStatus::Dropped => {
                if let Some((pitches, duration)) = ghost_of(&e.record) {
                    out.push(voice, onset, MarkKind::Ghost { pitches, duration });
                }
            }
            _ => {}
        }
    }
    out
}

/// The pitches and duration of a dropped event's last candidate: the last step's
/// `before` if a rung ran, else the proposal. Twelve-tone events have `pitches`
/// and `duration`; a species event has one `midi` and no duration (one quarter
/// is drawn).
fn ghost_of(record: &Value) -> Option<(Vec<u8>, Time)> {
    let candidate = record
        .get("steps")
        .and_then(Value::as_array)
        .and_then(|s| s.last())
        .and_then(|s| s.get("before"))
        .or_else(|| record.get("proposed"))?;
    let pitches: Vec<u8> = match candidate.get("pitches").and_then(Value::as_array) {
        Some(list) => list
            .iter()
            .filter_map(|p| p.as_u64().and_then(|p| u8::try_from(p).ok()))
            .collect(),
        None => candidate
            .get("midi")
            .and_then(Value::as_u64)
            .and_then(|p| u8::try_from(p).ok())
            .into_iter()
            .collect(),
    };
    let duration = candidate
        .get("duration")
        .and_then(time_of)
        .unwrap_or_else(|| Time::from_integer(1));
    (!pitches.is_empty()).then_some((pitches, duration))
}
