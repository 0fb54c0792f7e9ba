//! Merging tied noteheads and regrouping them into events.
//!
//! The model has no ties: a note held over a barline is one event. A notehead
//! carrying a tie stop joins the same-pitch note of its part that ends exactly
//! where it starts (preferring one whose last notehead carried a tie start, then
//! one in the same MusicXML voice). Surviving noteheads are then grouped back
//! into events: noteheads from one `<chord/>` group with equal onset and
//! duration form one event, so a partly tied chord splits cleanly into the
//! held pitches and the rest. A part written on several staves (a piano) gives
//! one event list per staff, as music21 gives one part per staff.

use super::MusicXmlError;
use super::dom::Doc;
use super::part::RawNote;
use super::read::ReadReport;
use crate::score::{Event, Letter, Pitch, Time};
use num_traits::CheckedAdd;
use std::collections::HashMap;

/// Merges ties in one part's noteheads (in document order) and builds the
/// events of each staff (index 0 = staff 1, `staves` lists), each list sorted by
/// onset, duration, pitches and tag.
pub(crate) fn events_from_notes(
    doc: &Doc<'_>,
    mut notes: Vec<RawNote>,
    staves: u32,
    report: &mut ReadReport,
) -> Result<Vec<Vec<Event>>, MusicXmlError> {
    let n = notes.len();
    let mut merged = vec![false; n];
    // Whether the last notehead of the chain headed by a note carried a tie start.
    let mut tail_tied = vec![false; n];
    // Chain heads that can still be continued, by (MIDI, current end).
    let mut open: HashMap<(u8, Time), Vec<usize>> = HashMap::new();
    for i in 0..n {
        let end_of = |note: &RawNote| {
            note.onset
                .checked_add(&note.duration)
                .ok_or_else(|| doc.error_at(note.node, "the note ends too late to represent"))
        };
        if notes[i].grace.is_some() {
            // A grace note is never tied and never continues a tie.
            continue;
        }
        if notes[i].tie_stop {
            let key = (notes[i].midi, notes[i].onset);
            let chosen = open.get_mut(&key).and_then(|heads| {
                let best = heads
                    .iter()
                    .enumerate()
                    .max_by_key(|&(pos, &h)| (tail_tied[h], notes[h].layer == notes[i].layer, pos))
                    .map(|(pos, _)| pos)?;
                Some(heads.remove(best))
            });
            if let Some(h) = chosen {
                let longer = notes[h].duration.checked_add(&notes[i].duration);
                let Some(longer) = longer else {
                    return Err(
                        doc.error_at(notes[i].node, "the tied note is too long to represent")
                    );
                };
                notes[h].duration = longer;
                // A fermata over any notehead of a tied note is the note's.
                notes[h].fermata |= notes[i].fermata;
                tail_tied[h] = notes[i].tie_start;
                merged[i] = true;
                report.ties_merged += 1;
                let end = end_of(&notes[h])?;
                open.entry((notes[h].midi, end)).or_default().push(h);
                continue;
            }
            report.ties_unmatched += 1;
            let at = doc.position(notes[i].node);
            report.warnings.push(format!(
                "{at}: tie stop with no same-pitch note ending here; kept as a separate note"
            ));
        }
        tail_tied[i] = notes[i].tie_start;
        let end = end_of(&notes[i])?;
        open.entry((notes[i].midi, end)).or_default().push(i);
    }

    let mut events: Vec<Event> = Vec::new();
    let mut staff_of: Vec<u32> = Vec::new();
    let mut by_group: HashMap<(u32, usize, Time, Time, bool), Vec<usize>> = HashMap::new();
    for (note, _) in notes.into_iter().zip(merged).filter(|(_, m)| !m) {
        let pitch = Pitch::spelled(note.midi, note.spelling);
        let slots = by_group
            .entry((
                note.staff,
                note.group,
                note.onset,
                note.duration,
                note.grace.is_some(),
            ))
            .or_default();
        // A second notehead of the same pitch in one chord becomes its own event,
        // so no notehead is lost.
        let free = slots
            .iter()
            .copied()
            .find(|&e| events[e].pitches.iter().all(|p| p.midi != note.midi));
        let e = match free {
            Some(e) => e,
            None => {
                events.push(Event {
                    onset: note.onset,
                    duration: note.duration,
                    pitches: Vec::new(),
                    grace: note.grace,
                    ..Event::default()
                });
                staff_of.push(note.staff);
                slots.push(events.len() - 1);
                events.len() - 1
            }
        };
        events[e].pitches.push(pitch);
        events[e].fermata |= note.fermata;
        if events[e].tag.is_none() {
            events[e].tag = note.tag;
        }
    }
    let mut by_staff: Vec<Vec<Event>> = vec![Vec::new(); staves.max(1) as usize];
    for (mut e, staff) in events.into_iter().zip(staff_of) {
        e.normalise_pitches();
        let i = (staff.max(1) - 1) as usize;
        if let Some(list) = by_staff.get_mut(i) {
            list.push(e);
        }
    }
    for list in &mut by_staff {
        // Stable: grace notes of one onset keep their written order.
        list.sort_by(|a, b| sort_key(a).cmp(&sort_key(b)));
    }
    Ok(by_staff)
}

/// Pitches compared by MIDI number, then spelling.
type PitchKey = (u8, Option<(Letter, i8)>);

/// Onset, whether timed (grace notes first), then for a timed event its duration,
/// pitches and tag.
type EventOrder<'e> = (Time, bool, Option<(Time, Vec<PitchKey>, Option<&'e str>)>);

/// An order refining [`crate::score::Voice::sort`], so equal inputs give equal
/// event lists: total except between grace notes of one onset (which the stable
/// sort leaves in written order).
fn sort_key(e: &Event) -> EventOrder<'_> {
    if e.is_grace() {
        return (e.onset, false, None);
    }
    let pitches = e
        .pitches
        .iter()
        .map(|p| (p.midi, p.spelling.map(|s| (s.letter, s.alter))))
        .collect();
    (e.onset, true, Some((e.duration, pitches, e.tag.as_deref())))
}
