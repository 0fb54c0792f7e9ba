//! From events to measures: what the writer puts in each bar of each part.
//!
//! MusicXML is measure by measure and, within one `<voice>`, strictly
//! sequential, while a Cantus voice is a set of timed events that may overlap.
//! This module spreads a voice's events over as few non-overlapping layers as
//! possible (each becomes a MusicXML `<voice>`, reached with `<backup>`), cuts
//! events at barlines and into drawable values (tied together), fills silence
//! with rests, and finds the exact `<divisions>` every length is a multiple of.

use super::MusicXmlError;
use super::notation::{NoteValue, notated_values};
use crate::score::{Event, Pitch, Score, Time, Voice};
use num_integer::Integer;
use num_traits::Zero;

/// Most measures the writer will lay out (a guard against absurd onsets).
const MAX_MEASURES: u32 = 100_000;
/// Most layers × measures one voice is laid out over: each costs a walk, so a
/// voice of 10^5 simultaneous notes and 10^5 measures is refused, not ground through.
const MAX_LAYER_MEASURES: u64 = 4_000_000;

/// One item of a measure, in writing order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Item<'s> {
    /// A note, chord or rest (`pitches` empty) in one layer.
    Sound(Sound<'s>),
    /// Silence in an upper layer, written as `<forward>`.
    Forward { duration: Time, layer: usize },
    /// Back to the start of the measure for the next layer.
    Backup { duration: Time },
}

/// A written note, chord or rest.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sound<'s> {
    /// Empty for a rest.
    pub pitches: &'s [Pitch],
    pub duration: Time,
    /// How it is drawn; `None` writes the duration alone.
    pub value: Option<NoteValue>,
    /// A rest filling the whole measure.
    pub whole_measure: bool,
    pub tie_stop: bool,
    pub tie_start: bool,
    pub tuplet_start: bool,
    pub tuplet_stop: bool,
    pub tag: Option<&'s str>,
    /// A fermata over it (the last tied piece of an event with one).
    pub fermata: bool,
    /// 0-based layer (MusicXML `<voice>` is `layer + 1`).
    pub layer: usize,
}

/// The measures of one part.
pub(crate) struct PartLayout<'s> {
    pub measures: Vec<Vec<Item<'s>>>,
}

/// Checks what MusicXML requires of a score before laying it out.
pub(crate) fn validate(score: &Score) -> Result<(), MusicXmlError> {
    let fail = |msg: String| Err(MusicXmlError::Unwritable(msg));
    if score.voices.is_empty() {
        return fail("a MusicXML score needs at least one part; the score has no voices".into());
    }
    if score.meter.num == 0 || score.meter.den == 0 {
        return fail(format!("meter {} has a zero term", score.meter));
    }
    if let Some(tempo) = score.tempo.filter(|t| *t <= Time::zero()) {
        return fail(format!("tempo {tempo} is not positive"));
    }
    for voice in &score.voices {
        for (i, ev) in voice.events.iter().enumerate() {
            let at = format!(
                "voice {:?}, event {} (onset {})",
                voice.name,
                i + 1,
                ev.onset
            );
            if ev.pitches.is_empty() {
                return fail(format!("{at}: an event needs at least one pitch"));
            }
            if ev.is_grace() {
                return fail(format!(
                    "{at}: a grace note; the MusicXML writer does not write them \
                     (a conversion leaves them out)"
                ));
            }
            if ev.duration <= Time::zero() {
                return fail(format!("{at}: duration {} is not positive", ev.duration));
            }
            if ev.onset < Time::zero() {
                return fail(format!("{at}: onset is negative"));
            }
        }
    }
    Ok(())
}

/// Number of measures written: every bar the score declares or needs, at least one.
pub(crate) fn measure_count(score: &Score) -> Result<u32, MusicXmlError> {
    let count = score.bar_count().max(1);
    if count > MAX_MEASURES {
        return Err(MusicXmlError::Unwritable(format!(
            "the score spans {count} bars; at most {MAX_MEASURES} are written"
        )));
    }
    Ok(count)
}

/// Lays out one voice over `measures` bars of `bar` quarter notes.
pub(crate) fn lay_out_voice(
    voice: &Voice,
    bar: Time,
    measures: u32,
) -> Result<PartLayout<'_>, MusicXmlError> {
    let layers = layers(&voice.events);
    let cells = layers.len() as u64 * u64::from(measures);
    if cells > MAX_LAYER_MEASURES {
        return Err(MusicXmlError::Unwritable(format!(
            "voice {:?} needs {} layers (notes sounding at once) over {measures} measures; \
             at most {MAX_LAYER_MEASURES} layer-measures are written",
            voice.name,
            layers.len()
        )));
    }
    let mut next = vec![0usize; layers.len()];
    let mut out = Vec::with_capacity(measures as usize);
    for m in 0..measures {
        let start = bar * Time::from_integer(i64::from(m));
        let end = start + bar;
        let mut items = Vec::new();
        let mut pos = start;
        for (layer, events) in layers.iter().enumerate() {
            // Events of a layer never overlap, so their ends are sorted too.
            while next[layer] < events.len() && events[next[layer]].end() <= start {
                next[layer] += 1;
            }
            let here: Vec<&Event> = events[next[layer]..]
                .iter()
                .take_while(|e| e.onset < end)
                .copied()
                .collect();
            if layer > 0 && here.is_empty() {
                continue;
            }
            if layer > 0 {
                items.push(Item::Backup {
                    duration: pos - start,
                });
                pos = start;
            }
            let first = items.len();
            for ev in here {
                let from = ev.onset.max(start);
                let to = ev.end().min(end);
                if from > pos {
                    silence(&mut items, pos, from, start, end, layer);
                }
                sound(&mut items, ev, from, to, layer);
                pos = to;
            }
            if layer == 0 && pos < end {
                silence(&mut items, pos, end, start, end, layer);
                pos = end;
            }
            mark_tuplets(&mut items[first..]);
        }
        out.push(items);
    }
    Ok(PartLayout { measures: out })
}

/// Greedy interval colouring: each event goes to the first layer free at its
/// onset. Processing by onset makes the number of layers minimal. Busy layers
/// wait in a heap by the end of their last event and free ones in an ordered
/// set, so each event costs O(log layers) however many sound at once.
fn layers(events: &[Event]) -> Vec<Vec<&Event>> {
    use std::cmp::Reverse;
    use std::collections::{BTreeSet, BinaryHeap};
    let mut sorted: Vec<&Event> = events.iter().collect();
    sorted.sort_by_key(|e| e.onset);
    let mut layers: Vec<Vec<&Event>> = vec![Vec::new()];
    let mut free: BTreeSet<usize> = BTreeSet::from([0]);
    let mut busy: BinaryHeap<Reverse<(Time, usize)>> = BinaryHeap::new();
    for ev in sorted {
        while let Some(&Reverse((end, layer))) = busy.peek() {
            if end > ev.onset {
                break;
            }
            busy.pop();
            free.insert(layer);
        }
        let layer = match free.pop_first() {
            Some(layer) => layer,
            None => {
                layers.push(Vec::new());
                layers.len() - 1
            }
        };
        layers[layer].push(ev);
        busy.push(Reverse((ev.end(), layer)));
    }
    layers
}

/// Silence from `from` to `to` inside the measure `[start, end)`: rests in the
/// first layer, `<forward>` in the others.
fn silence<'s>(
    items: &mut Vec<Item<'s>>,
    from: Time,
    to: Time,
    start: Time,
    end: Time,
    layer: usize,
) {
    if layer > 0 {
        items.push(Item::Forward {
            duration: to - from,
            layer,
        });
        return;
    }
    let rest = |duration, value, whole_measure| Sound {
        pitches: &[],
        duration,
        value,
        whole_measure,
        tie_stop: false,
        tie_start: false,
        tuplet_start: false,
        tuplet_stop: false,
        tag: None,
        fermata: false,
        layer,
    };
    if from == start && to == end {
        items.push(Item::Sound(rest(to - from, None, true)));
        return;
    }
    match notated_values(to - from) {
        Some(values) => {
            for v in values {
                items.push(Item::Sound(rest(v.duration, Some(v), false)));
            }
        }
        None => items.push(Item::Sound(rest(to - from, None, false))),
    }
}

/// The part of `ev` between `from` and `to`, as tied drawable pieces.
fn sound<'s>(items: &mut Vec<Item<'s>>, ev: &'s Event, from: Time, to: Time, layer: usize) {
    let values: Vec<(Time, Option<NoteValue>)> = match notated_values(to - from) {
        Some(values) => values.into_iter().map(|v| (v.duration, Some(v))).collect(),
        None => vec![(to - from, None)],
    };
    let mut at = from;
    for (duration, value) in values {
        items.push(Item::Sound(Sound {
            pitches: &ev.pitches,
            duration,
            value,
            whole_measure: false,
            tie_stop: at > ev.onset,
            tie_start: at + duration < ev.end(),
            tuplet_start: false,
            tuplet_stop: false,
            tag: if at == ev.onset {
                ev.tag.as_deref()
            } else {
                None
            },
            fermata: ev.fermata && at + duration == ev.end(),
            layer,
        }));
        at += duration;
    }
}

/// Brackets each run of consecutive sounds sharing a tuplet ratio.
fn mark_tuplets(items: &mut [Item<'_>]) {
    let ratio = |item: &Item<'_>| match item {
        Item::Sound(s) => s.value.and_then(|v| v.tuplet),
        _ => None,
    };
    let mut i = 0;
    while i < items.len() {
        let Some(r) = ratio(&items[i]) else {
            i += 1;
            continue;
        };
        let mut j = i;
        while j + 1 < items.len() && ratio(&items[j + 1]) == Some(r) {
            j += 1;
        }
        if let Item::Sound(s) = &mut items[i] {
            s.tuplet_start = true;
        }
        if let Item::Sound(s) = &mut items[j] {
            s.tuplet_stop = true;
        }
        i = j + 1;
    }
}

/// The smallest `<divisions>` (per quarter note) in which every length of every
/// part is a whole number.
pub(crate) fn divisions(parts: &[PartLayout<'_>], bar: Time) -> Result<i64, MusicXmlError> {
    let mut lcm: i64 = *bar.denom();
    let all = parts
        .iter()
        .flat_map(|p| p.measures.iter().flatten())
        .map(|item| match item {
            Item::Sound(s) => s.duration,
            Item::Forward { duration, .. } | Item::Backup { duration } => *duration,
        });
    for d in all {
        let denom = *d.denom();
        let g = lcm.gcd(&denom);
        lcm = (lcm / g).checked_mul(denom).ok_or_else(|| {
            MusicXmlError::Unwritable(
                "the note lengths need more divisions per quarter than fit in 64 bits".into(),
            )
        })?;
    }
    Ok(lcm)
}

/// `duration` as a whole number of `divisions` per quarter note.
pub(crate) fn in_divisions(duration: Time, divisions: i64) -> Result<i64, MusicXmlError> {
    duration
        .numer()
        .checked_mul(divisions / duration.denom())
        .ok_or_else(|| {
            MusicXmlError::Unwritable(format!(
                "duration {duration} at {divisions} divisions per quarter overflows"
            ))
        })
}
