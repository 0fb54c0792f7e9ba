//! Building a [`Job`] for each kind of request — a section from its start, the
//! continuation of one cut short, a patch of one event, a rewrite of a segment — from
//! the plan, the section and the state of the row cursor.

use super::super::line::{Fixed, Line, Voice};
use super::{Job, JobKind, Owed, Span, VoiceJob, Window, windows};
use crate::blueprint::{Blueprint, CanonPlan, SectionPlan};
use crate::event::{Tag, ToneEvent};
use crate::proposer::canon;
use crate::row::{PitchClass, RowForm};
use crate::state::ToneState;
use cantus_framework::{Freedom, ProposerError};
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

/// What voices other than `voice` already sound in `span`, slot by slot: their
/// accepted events, and `extra` (other voices' events kept beside the answer).
fn fixed(span: &Span, state: &ToneState, voice: usize, extra: &[ToneEvent]) -> Fixed {
    let mut fixed = Fixed::none(span.slots);
    let mut pitches = vec![0u128; fixed.blocked.len()];
    let others = state
        .voices
        .iter()
        .enumerate()
        .filter(|(u, _)| *u != voice)
        .flat_map(|(_, l)| l.overlapping(span.start, span.end()))
        .chain(extra.iter().filter(|e| e.voice != voice));
    for e in others {
        let (a, b) = (span.floor_slot(e.onset), span.ceil_slot(e.end()));
        for j in a..b {
            let j = j as usize;
            if let Some(mask) = fixed.blocked.get_mut(j) {
                *mask |= e.pc_set();
                pitches[j] = e
                    .pitches
                    .iter()
                    .fold(pitches[j], |m, &p| m | 1 << (p & 127));
            }
        }
    }
    for (n, mask) in fixed.sounding.iter_mut().zip(&pitches) {
        *n = u8::try_from(mask.count_ones()).unwrap_or(u8::MAX);
    }
    fixed
}

/// The voice as the rules see it.
fn rules_voice(plan: &Blueprint, voice: &VoiceJob) -> Voice {
    Voice {
        pcs: plan.table.pcs(voice.form).to_vec(),
        low: voice.low,
        high: voice.high,
        max_chord: plan.limits.max_chord,
        max_sounding: plan.limits.max_sounding,
    }
}

/// What the rules leave open for `voice` writing positions `from..to` (then `tail`
/// more) on slots `first..end`, against the voices already fixed — or, if nothing
/// fits against them, against none (the verifier and the ladder then sort it out);
/// `None` if the voice cannot place its notes at all (the even windows are used then).
#[allow(clippy::too_many_arguments)]
fn rules_line(
    plan: &Blueprint,
    span: &Span,
    voice: &VoiceJob,
    (from, to, tail): (u8, u8, u8),
    (first, end): (u32, u32),
    chord: (u8, u8),
    fixed: &Fixed,
) -> Option<Line> {
    let v = rules_voice(plan, voice);
    Line::new(&v, from, to, tail, first, end, chord, fixed).or_else(|| {
        Line::new(
            &v,
            from,
            to,
            tail,
            first,
            end,
            chord,
            &Fixed::none(span.slots),
        )
    })
}

/// Single notes for positions `from..to` of `form`, each open over `first..end` (the
/// notes of a rules job: the grammar, not the windows, holds them).
fn open_notes(
    plan: &Blueprint,
    form: RowForm,
    from: u8,
    to: u8,
    first: u32,
    end: u32,
) -> Vec<Owed> {
    let pcs = plan.table.pcs(form);
    (from..to.min(12))
        .map(|position| Owed {
            pcs: vec![pcs[usize::from(position)]],
            tag: Tag {
                form,
                start: position,
                len: 1,
            },
            window: Window {
                onset_lo: first,
                onset_hi: end.saturating_sub(1).max(first),
                min_len: 1,
                max_len: end.saturating_sub(first).max(1),
            },
            register: None,
        })
        .collect()
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
    freedom: Freedom,
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
            line: None,
        };
        if freedom == Freedom::Rules {
            let first = span.ceil_slot(line.last_end());
            let fixed = fixed(&span, state, v, &[]);
            voice.line = rules_line(
                plan,
                &span,
                &voice,
                (from, 12, 0),
                (first, end),
                (1, plan.limits.max_chord.max(1)),
                &fixed,
            );
            if voice.line.is_some() {
                voice.notes = open_notes(plan, form, from, 12, first, end);
            }
        }
        if voice.line.is_none() {
            voice.notes = planned_notes(plan, &span, &voice, from, lo, end, planned)
                .unwrap_or_else(|| line_notes(plan, form, from, lo, end));
        }
        voices.push(voice);
    }
    if voices.is_empty() {
        return Err(ProposerError::BadOutput(format!(
            "no voice owes notes in section {}",
            section.index + 1
        )));
    }
    let planned_asked = planned
        .iter()
        .filter(|e| voices.iter().any(|v| v.voice == e.voice))
        .cloned()
        .collect();
    let plan_events = planned
        .iter()
        .filter(|e| {
            voices
                .iter()
                .any(|v| v.voice == e.voice && v.line.is_some())
        })
        .cloned()
        .collect();
    Ok(Job {
        kind: JobKind::Section,
        section: section.index,
        span,
        voices,
        keep: Vec::new(),
        followers,
        plan: plan_events,
        planned: planned_asked,
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
    freedom: Freedom,
) -> Result<Job, ProposerError> {
    let mut job = section_job(plan, section, state, planned, freedom)?;
    job.voices
        .retain(|v| owed.iter().any(|o| o.part == v.voice));
    job.followers
        .retain(|c| owed.iter().any(|o| o.part == c.follower));
    job.planned
        .retain(|e| owed.iter().any(|o| o.part == e.voice));
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
    freedom: Freedom,
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
    let mut voice = VoiceJob {
        voice: candidate.voice,
        name,
        low,
        high,
        form,
        notes,
        line: None,
    };
    if freedom == Freedom::Rules {
        // One event for the tag, anywhere from the voice's last note on, leaving room
        // for the positions the statement still owes after it.
        let tag = candidate.tag;
        let to = u8::try_from(tag.end()).unwrap_or(12).min(12);
        let free = free_slot(&span, state, candidate.voice);
        let fixed = fixed(&span, state, candidate.voice, &[]);
        voice.line = rules_line(
            plan,
            &span,
            &voice,
            (tag.start, to, 12 - to),
            (free, span.slots),
            (tag.len, tag.len),
            &fixed,
        );
        if voice.line.is_some() {
            voice.notes[0].window = Window {
                onset_lo: free,
                onset_hi: span.slots.saturating_sub(1).max(free),
                min_len: 1,
                max_len: span.slots.saturating_sub(free).max(1),
            };
        }
    }
    Ok(Job {
        kind: JobKind::Patch,
        section: section.index,
        span,
        voices: vec![voice],
        keep: Vec::new(),
        followers: Vec::new(),
        plan: Vec::new(),
        planned: Vec::new(),
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
    freedom: Freedom,
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
    let keep: Vec<ToneEvent> = pending
        .iter()
        .filter(|e| e.voice != voice)
        .cloned()
        .collect();
    let mut job_voice = VoiceJob {
        voice,
        name,
        low,
        high,
        form,
        notes,
        line: None,
    };
    if freedom == Freedom::Rules {
        let free = free_slot(&span, state, voice);
        let fixed = fixed(&span, state, voice, &keep);
        job_voice.line = rules_line(
            plan,
            &span,
            &job_voice,
            (first, last, 12 - last),
            (free, span.slots),
            (1, plan.limits.max_chord.max(1)),
            &fixed,
        );
        if job_voice.line.is_some() {
            job_voice.notes = open_notes(plan, candidate.tag.form, first, last, free, span.slots);
        }
    }
    Ok(Job {
        kind: JobKind::Rewrite,
        section: section.index,
        span,
        voices: vec![job_voice],
        keep,
        followers: Vec::new(),
        plan: Vec::new(),
        planned: Vec::new(),
    })
}
