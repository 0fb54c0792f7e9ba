//! Building a [`Job`] for each kind of request — a section from its start, the
//! continuation of one cut short, a patch of one event, a rewrite of a segment — from
//! the plan, the section and the state of the row cursor.

use super::{Job, JobKind, Owed, Span, VoiceJob, Window, windows};
use crate::blueprint::{Blueprint, CanonPlan, SectionPlan};
use crate::event::{Tag, ToneEvent};
use crate::proposer::canon;
use crate::row::{PitchClass, RowForm};
use crate::state::ToneState;
use cantus_framework::ProposerError;
use cantus_music::Time;

/// The register, name and form of `voice` in `section`.
fn voice_frame(
    plan: &Blueprint,
    section: &SectionPlan,
    voice: usize,
) -> Result<(String, u8, u8, RowForm), ProposerError> {
    let spec =
        plan.limits.voices.get(voice).ok_or_else(|| {
            ProposerError::BadOutput(format!("voice {} does not exist", voice + 1))
        })?;
    let form = section.forms.get(voice).copied().ok_or_else(|| {
        ProposerError::BadOutput(format!(
            "section {} plans no form for voice {}",
            section.index + 1,
            voice + 1
        ))
    })?;
    Ok((spec.name.clone(), spec.low, spec.high, form))
}

/// Single notes for positions `from..12` of `form`, spread over `[lo, hi)`.
fn line_notes(plan: &Blueprint, form: RowForm, from: u8, lo: u32, hi: u32) -> Vec<Owed> {
    let pcs = plan.table.pcs(form);
    let from = from.min(12);
    let count = usize::from(12 - from);
    windows(lo, hi, count)
        .into_iter()
        .zip(from..12)
        .map(|(window, position)| Owed {
            pcs: vec![pcs[usize::from(position)]],
            tag: Tag {
                form,
                start: position,
                len: 1,
            },
            window,
            register: None,
        })
        .collect()
}

/// A voice's notes as the embedded proposer's `planned` line lays them out — the
/// plan's rhythm, chords and register: each planned event's pitch classes (a chord
/// where the plan groups positions), its onset at the planned slot, its length
/// between half the planned length and all of it, its pitches within a tritone of
/// the planned ones. So the grammar gives a small model the texture the plan
/// intends (varied lengths, rests, staggered onsets, lines through the range)
/// instead of the shortest notes it would write unprompted. `None` when the plan's
/// line does not state positions `from..12` in order on the span's slots inside
/// `lo..end` (the even windows of [`line_notes`] are used then).
#[allow(clippy::too_many_arguments)]
fn planned_notes(
    plan: &Blueprint,
    span: &Span,
    voice: &VoiceJob,
    from: u8,
    lo: u32,
    end: u32,
    planned: &[ToneEvent],
) -> Option<Vec<Owed>> {
    let mut position = from;
    let mut notes = Vec::new();
    for e in planned.iter().filter(|e| e.voice == voice.voice) {
        if e.tag.form != voice.form || e.tag.start != position {
            return None;
        }
        let at = span.floor_slot(e.onset);
        let stop = span.floor_slot(e.end());
        let on_grid = span.start + span.slot() * Time::from_integer(i64::from(at)) == e.onset;
        if !on_grid || at < lo || stop > end || stop <= at {
            return None;
        }
        let pcs = tag_pcs(plan, e.tag).ok()?;
        let register = match (e.pitches.iter().min(), e.pitches.iter().max()) {
            (Some(&min), Some(&max)) => Some((
                min.saturating_sub(6).max(voice.low),
                max.saturating_add(6).min(voice.high),
            ))
            .filter(|&(l, h)| {
                pcs.iter()
                    .all(|&pc| !super::super::constraint::pitch_names(pc, l, h).is_empty())
            }),
            _ => None,
        };
        let len = stop - at;
        notes.push(Owed {
            pcs,
            tag: e.tag,
            window: Window {
                onset_lo: at,
                onset_hi: at,
                min_len: len.div_ceil(2),
                max_len: len,
            },
            register,
        });
        position = position.checked_add(e.tag.len)?;
    }
    (position == 12 && !notes.is_empty()).then_some(notes)
}

/// The job of a section request: every voice still owing positions of this
/// section's statement, from its cursor, laid out as the embedded proposer's
/// `planned` events for the section lay them out ([`planned_notes`]), else spread
/// evenly after its last accepted note.
pub(crate) fn section_job(
    plan: &Blueprint,
    section: &SectionPlan,
    state: &ToneState,
    planned: &[ToneEvent],
) -> Result<Job, ProposerError> {
    let span = Span::of_section(plan.meter, section, 24)?;
    let mut voices: Vec<VoiceJob> = Vec::new();
    let mut followers: Vec<CanonPlan> = Vec::new();
    for (v, line) in state.voices.iter().enumerate() {
        if line.cursor.statement > section.index {
            continue;
        }
        let from = if line.cursor.statement == section.index {
            line.cursor.position
        } else {
            0
        };
        if from >= 12 {
            continue;
        }
        // A canon's follower is the leader's line shifted and mapped: when the
        // leader is being written now, the follower is derived from it, not asked
        // for (asked for, a small model writes it against the leader and the two
        // collide at every note).
        if let Some(c) = plan.canon_following(v) {
            let leader_now = voices.iter().any(|l| l.voice == c.leader)
                || followers.iter().any(|f| f.follower == c.leader);
            if leader_now {
                followers.push(*c);
                continue;
            }
        }
        let (name, low, high, form) = voice_frame(plan, section, v)?;
        // A leader ends early enough for its followers to finish in the section.
        let tail = canon::tail(&plan.canons, v);
        let end = if tail > Time::default() {
            span.floor_slot(span.end() - tail).max(1)
        } else {
            span.slots
        };
        let lo = room_start(end, span.ceil_slot(line.last_end()), 12 - from);
        let mut voice = VoiceJob {
            voice: v,
            name,
            low,
            high,
            form,
            notes: Vec::new(),
        };
        voice.notes = planned_notes(plan, &span, &voice, from, lo, end, planned)
            .unwrap_or_else(|| line_notes(plan, form, from, lo, end));
        voices.push(voice);
    }
    if voices.is_empty() {
        return Err(ProposerError::BadOutput(format!(
            "no voice owes notes in section {}",
            section.index + 1
        )));
    }
    Ok(Job {
        kind: JobKind::Section,
        section: section.index,
        span,
        voices,
        keep: Vec::new(),
        followers,
    })
}

/// The job of a continue request: what the voices named in `owed` still owe this
/// section, from their cursors (the section job restricted to them).
pub(crate) fn continue_job(
    plan: &Blueprint,
    section: &SectionPlan,
    state: &ToneState,
    owed: &[cantus_framework::Owed],
    planned: &[ToneEvent],
) -> Result<Job, ProposerError> {
    let mut job = section_job(plan, section, state, planned)?;
    job.voices
        .retain(|v| owed.iter().any(|o| o.part == v.voice));
    job.followers
        .retain(|c| owed.iter().any(|o| o.part == c.follower));
    if job.voices.is_empty() {
        return Err(ProposerError::BadOutput(format!(
            "a continue request for section {} names no voice that owes notes",
            section.index + 1
        )));
    }
    Ok(job)
}

/// Where `count` notes ending by slot `end` may start being laid out: at `free`, or
/// earlier when fewer than `count` slots remain after it (the ladder then sorts out
/// the overlap).
fn room_start(end: u32, free: u32, count: u8) -> u32 {
    free.min(end.saturating_sub(u32::from(count)))
}

/// The earliest free slot of `voice`: after its last accepted note.
fn free_slot(span: &Span, state: &ToneState, voice: usize) -> u32 {
    state
        .voices
        .get(voice)
        .map_or(0, |l| span.ceil_slot(l.last_end()))
}

/// The pitch classes a tag names, in row order.
fn tag_pcs(plan: &Blueprint, tag: Tag) -> Result<Vec<PitchClass>, ProposerError> {
    let range = usize::from(tag.start)..usize::from(tag.start) + usize::from(tag.len);
    plan.table
        .pcs(tag.form)
        .get(range)
        .filter(|s| !s.is_empty())
        .map(<[PitchClass]>::to_vec)
        .ok_or_else(|| {
            ProposerError::BadOutput(format!("the tag {tag} names positions past the row's end"))
        })
}

/// The job of a patch request: one note for the candidate's tag, between the
/// voice's last accepted note and the candidate's own end.
pub(crate) fn patch_job(
    plan: &Blueprint,
    section: &SectionPlan,
    state: &ToneState,
    candidate: &ToneEvent,
) -> Result<Job, ProposerError> {
    let span = Span::of_section(plan.meter, section, 24)?;
    let (name, low, high, form) = voice_frame(plan, section, candidate.voice)?;
    let lo = free_slot(&span, state, candidate.voice).min(span.slots.saturating_sub(1));
    let cand_end = span.ceil_slot(candidate.end()).max(lo + 1);
    let window = Window {
        onset_lo: lo,
        onset_hi: cand_end - 1,
        min_len: 1,
        max_len: cand_end - lo,
    };
    let notes = vec![Owed {
        pcs: tag_pcs(plan, candidate.tag)?,
        tag: candidate.tag,
        window,
        register: None,
    }];
    Ok(Job {
        kind: JobKind::Patch,
        section: section.index,
        span,
        voices: vec![VoiceJob {
            voice: candidate.voice,
            name,
            low,
            high,
            form,
            notes,
        }],
        keep: Vec::new(),
        followers: Vec::new(),
    })
}

/// The job of a rewrite request: single notes for the candidate's voice from the
/// candidate's first position to the end of its pending segment, spread from the
/// voice's last accepted note to the section's end. Other voices' pending events
/// are kept as they are.
pub(crate) fn rewrite_job(
    plan: &Blueprint,
    section: &SectionPlan,
    state: &ToneState,
    candidate: &ToneEvent,
    pending: &[ToneEvent],
) -> Result<Job, ProposerError> {
    let span = Span::of_section(plan.meter, section, 24)?;
    let voice = candidate.voice;
    let (name, low, high, form) = voice_frame(plan, section, voice)?;
    let end = pending
        .iter()
        .filter(|e| e.voice == voice && e.tag.form == candidate.tag.form)
        .map(|e| e.tag.end())
        .chain(std::iter::once(candidate.tag.end()))
        .max()
        .unwrap_or(12)
        .min(12);
    let pcs = plan.table.pcs(candidate.tag.form);
    let first = candidate.tag.start.min(11);
    let last = u8::try_from(end).unwrap_or(12).max(first + 1);
    let lo = room_start(span.slots, free_slot(&span, state, voice), last - first);
    let notes = windows(lo, span.slots, usize::from(last - first))
        .into_iter()
        .zip(first..last)
        .map(|(window, position)| Owed {
            pcs: vec![pcs[usize::from(position)]],
            tag: Tag {
                form: candidate.tag.form,
                start: position,
                len: 1,
            },
            window,
            register: None,
        })
        .collect();
    let keep = pending
        .iter()
        .filter(|e| e.voice != voice)
        .cloned()
        .collect();
    Ok(Job {
        kind: JobKind::Rewrite,
        section: section.index,
        span,
        voices: vec![VoiceJob {
            voice,
            name,
            low,
            high,
            form,
            notes,
        }],
        keep,
        followers: Vec::new(),
    })
}
