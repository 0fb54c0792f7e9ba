//! Prompts in the onset-slot grammar: what a small model needs and nothing more.
//!
//! A prompt states the notation in two lines, the section (bars, meter, slots), each
//! voice's range, row form and the pitch classes it must sound next in order (the
//! cursor), the accepted material just before (or, for a repair, around) the notes
//! asked for, written in the grammar, and on a retry what went wrong last time: the
//! engine's feedback, the violations of a refused note (predicate ids first, so a
//! model — or a test — can see exactly which rule), or why a reply could not be read.
//! A one-line few-shot example shows the shape of an answer. Everything is kept short:
//! SmolLM2-135M has a 4096-token context.
//!
//! What does not change within a run (the notation, the rules, the row, the example)
//! is the system message, the same text for every request; everything else follows it,
//! so server-side prefix caching (llama.cpp, vLLM, SGLang) reuses the prefix.

use super::constraint::pitch_name;
use super::job::{Job, JobKind, Span, VoiceJob};
use crate::blueprint::Blueprint;
use crate::event::{Location, ToneEvent};
use crate::row::note_name;
use crate::state::ToneState;
use cantus_framework::{Feedback, Message, Violation};
use cantus_music::{Spelling, Time};
use std::fmt::Write as _;

/// At most this many feedback lines or violations go into a prompt.
const MAX_FEEDBACK: usize = 6;
/// Feedback lines are cut to this many characters.
const MAX_LINE: usize = 220;
/// At most this many accepted notes per voice are shown as context.
const MAX_CONTEXT_NOTES: usize = 8;

/// What went wrong before this request, as the prompt states it.
#[derive(Default)]
pub(crate) struct Retry<'a> {
    /// The engine's feedback (replan reasons, revise feedback).
    pub feedback: &'a [Feedback<Location>],
    /// The violations of the refused note (patch and rewrite requests).
    pub violations: &'a [Violation<Location>],
    /// The refused note itself.
    pub refused: Option<&'a ToneEvent>,
    /// Why the previous reply to this very request could not be used.
    pub unreadable: Option<&'a str>,
}

const SYSTEM: &str = "You write twelve-tone music in a compact text notation. \
Answer with the requested lines only: no prose, no code fences.";

/// The messages for `job`; `json`: the answer is a JSON object of note arrays.
///
/// Every request of a run starts with the same system message ([`run_prefix`]: the
/// notation, the rules, the row, the shape of an answer), and everything that varies
/// from one request to the next — the section, the voices and what they owe, the
/// context, the problems, the lines to answer with — comes after it in the user
/// message, so a server's prefix cache (llama.cpp, vLLM, SGLang) can reuse the prefix.
pub(crate) fn messages(
    job: &Job,
    plan: &Blueprint,
    state: &ToneState,
    retry: &Retry<'_>,
    json: bool,
) -> Vec<Message> {
    let mut p = String::new();
    section_line(&mut p, job);
    match job.kind {
        JobKind::Section if job.voices.iter().any(|v| v.line.is_some()) => {
            context_before(&mut p, &job.span, plan, state);
            if state.voices.iter().any(|l| {
                l.overlapping(job.span.start, job.span.end())
                    .next()
                    .is_some()
            }) {
                context_within(&mut p, &job.span, plan, state);
            }
            let _ = writeln!(
                p,
                "Each voice sounds these pitch classes in this order. You choose each note's \
                 octave (anywhere in the voice's range), onset and length; rests are free; \
                 {}notes of a voice must not overlap, and a pitch class another voice is \
                 sounding must wait until it stops:",
                if plan.limits.max_chord > 1 {
                    format!(
                        "up to {} consecutive pitch classes may sound together as one chord \
                         (joined by +); ",
                        plan.limits.max_chord
                    )
                } else {
                    String::new()
                }
            );
            for voice in &job.voices {
                owed_line(&mut p, voice);
            }
            advice(&mut p, job);
        }
        JobKind::Section => {
            context_before(&mut p, &job.span, plan, state);
            p.push_str(
                "Each voice sounds these pitch classes in this order, one note each, \
                 inside its range; notes of a voice must not overlap:\n",
            );
            for voice in &job.voices {
                owed_line(&mut p, voice);
            }
            texture_line(&mut p, job);
        }
        JobKind::Patch | JobKind::Rewrite => {
            context_within(&mut p, &job.span, plan, state);
            if let Some(refused) = retry.refused {
                let name = job.voices.first().map_or("?", |v| v.name.as_str());
                let _ = writeln!(
                    p,
                    "This note was refused:\n{name}: {}",
                    token(&job.span, refused)
                );
            }
            for voice in &job.voices {
                repair_line(&mut p, job.kind, voice);
            }
        }
    }
    problems(&mut p, retry);
    let names: Vec<String> = job.voices.iter().map(|v| v.name.clone()).collect();
    if json {
        let _ = write!(
            p,
            "Answer with one JSON object with the keys {}, each an array of NOTE strings.",
            names
                .iter()
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", ")
        );
    } else {
        let lines = job.voices.len();
        let _ = write!(
            p,
            "Answer with exactly {lines} line{}, starting {}.",
            if lines == 1 { "" } else { "s" },
            names
                .iter()
                .map(|n| format!("`{n}:`"))
                .collect::<Vec<_>>()
                .join(" and ")
        );
    }
    vec![Message::system(run_prefix(plan, json)), Message::user(p)]
}

/// What every request of a run on `plan` starts with, word for word: the task, the
/// notation, the rules, the row, an example answer.
pub(crate) fn run_prefix(plan: &Blueprint, json: bool) -> String {
    let mut p = String::from(SYSTEM);
    p.push_str(
        "\nNotation: one line per voice, `Name: NOTE NOTE ...`. NOTE = PITCH@SLOT>LENGTH, \
         e.g. C#4@1>4 (C4 = middle C; SLOT counts from 1 at the section start; LENGTH in slots).\n",
    );
    p.push_str(
        "Rules: each voice sounds the pitch classes it is given in order; no pitch class in two \
         voices at the same time; an upper voice stays above a lower one.\n",
    );
    let _ = writeln!(p, "The row: {}.", plan.table.row().note_names().join(" "));
    if json {
        p.push_str("Example answer (two voices, three notes each):\n{\"Violin\": [\"E5@1>4\", \"F5@5>4\", \"C5@9>8\"], \"Cello\": [\"A2@1>8\", \"D3@9>4\", \"G2@13>4\"]}");
    } else {
        p.push_str("Example answer (two voices, three notes each):\nViolin: E5@1>4 F5@5>4 C5@9>8\nCello: A2@1>8 D3@9>4 G2@13>4");
    }
    p
}

/// `Section 2: bars 5-8 of 4/4 = slots 1-64, 16 per bar (bar 5 = 1-16, bar 6 = 17-32, …).`
fn section_line(p: &mut String, job: &Job) {
    let s = &job.span;
    let last_bar = s.first_bar + s.bars.saturating_sub(1);
    let _ = write!(
        p,
        "Section {}: bars {}-{last_bar} of {}/{} = slots 1-{}, {} per bar (",
        job.section + 1,
        s.first_bar,
        s.meter.num,
        s.meter.den,
        s.slots,
        s.bar_slots
    );
    for b in 0..s.bars.min(2) {
        let _ = write!(
            p,
            "bar {} = {}-{}, ",
            s.first_bar + b,
            b * s.bar_slots + 1,
            (b + 1) * s.bar_slots
        );
    }
    p.push_str("...).\n");
}

/// `Soprano (C4-A5), P0 from position 1: E F G C# ...`
fn owed_line(p: &mut String, voice: &VoiceJob) {
    let first = voice.notes.first().map_or(0, |n| n.tag.start) + 1;
    let pcs: Vec<&str> = voice.pcs().map(note_name).collect();
    let _ = writeln!(
        p,
        "{} ({}), {} from position {first}: {}",
        voice.name,
        range(voice),
        voice.form,
        pcs.join(" ")
    );
}

/// The rhythm and register plan, as the embedded proposer follows it: each voice's
/// notes spread over its room with varied lengths and rests, lines that move through
/// the range. `Rhythm: Violin about 4 slots a note (mix 1-8, rest between phrases); …`
fn texture_line(p: &mut String, job: &Job) {
    let mut parts = Vec::new();
    for voice in &job.voices {
        let (Some(first), Some(last)) = (voice.notes.first(), voice.notes.last()) else {
            continue;
        };
        let room =
            (last.window.onset_hi + last.window.max_len).saturating_sub(first.window.onset_lo);
        let per = (room / u32::try_from(voice.notes.len()).unwrap_or(1).max(1)).max(1);
        parts.push(format!(
            "{} about {per} slot{} a note (mix lengths {}-{}, some rests)",
            voice.name,
            if per == 1 { "" } else { "s" },
            (per / 2).max(1),
            per * 2
        ));
    }
    if parts.is_empty() {
        return;
    }
    let _ = writeln!(
        p,
        "Rhythm: {}. Voices should not all move together: stagger their onsets. \
         Use the whole range, leaps as well as steps.",
        parts.join("; ")
    );
}

/// The plan as advice: the embedded planner's line for each voice asked, which the
/// model may follow, vary or ignore (under `freedom = "rules"` the grammar holds the
/// rules only). Without a planned line, the rhythm targets alone.
fn advice(p: &mut String, job: &Job) {
    let lines: Vec<String> = job
        .voices
        .iter()
        .filter_map(|voice| {
            let planned: Vec<String> = job
                .plan
                .iter()
                .filter(|e| {
                    e.voice == voice.voice
                        && voice
                            .notes
                            .last()
                            .is_some_and(|n| u16::from(e.tag.start) < n.tag.end())
                })
                .map(|e| token(&job.span, e))
                .collect();
            (!planned.is_empty()).then(|| format!("{}: {}", voice.name, planned.join(" ")))
        })
        .collect();
    if lines.is_empty() {
        let targets: Vec<String> = job
            .voices
            .iter()
            .filter_map(|voice| {
                let line = voice.line.as_ref()?;
                let notes = u32::try_from(voice.notes.len()).unwrap_or(1).max(1);
                let per = ((line.end - line.first) / notes).max(1);
                Some(format!(
                    "{} about {per} slot{} a note",
                    voice.name,
                    if per == 1 { "" } else { "s" }
                ))
            })
            .collect();
        if !targets.is_empty() {
            let _ = writeln!(
                p,
                "Aim for: {}; varied lengths, some rests, staggered onsets, the whole range.",
                targets.join("; ")
            );
        }
        return;
    }
    p.push_str(
        "A suggested plan (follow it, vary it or write your own; varied lengths, rests and \
         staggered onsets between voices sound best):\n",
    );
    for line in lines {
        p.push_str(&line);
        p.push('\n');
    }
}

/// What a patch or rewrite asks of its voice.
fn repair_line(p: &mut String, kind: JobKind, voice: &VoiceJob) {
    let (Some(first), Some(last)) = (voice.notes.first(), voice.notes.last()) else {
        return;
    };
    let pcs: Vec<&str> = voice.pcs().map(note_name).collect();
    let from = first.window.onset_lo + 1;
    if kind == JobKind::Patch {
        let w = first.window;
        let _ = writeln!(
            p,
            "Write one note for {} instead: pitch class{} {} (row {}), range {}, onset slot {from}-{}, length 1-{} slots.",
            voice.name,
            if pcs.len() == 1 {
                ""
            } else {
                "es (one chord, joined by +)"
            },
            pcs.join("+"),
            first.tag,
            range(voice),
            w.onset_hi + 1,
            w.max_len
        );
    } else {
        let end = last.window.onset_hi + last.window.max_len;
        let _ = writeln!(
            p,
            "Rewrite {} from {}: pitch classes {} in this order, one note each, range {}, from slot {from}, ending by slot {end}.",
            voice.name,
            first.tag,
            pcs.join(" "),
            range(voice)
        );
    }
}

/// `C4-A5`.
fn range(voice: &VoiceJob) -> String {
    let name = |m: u8| pitch_name(m, Spelling::sharp_default(m % 12));
    format!("{}-{}", name(voice.low), name(voice.high))
}

/// One event as a token on `span`'s slots (onsets before the span clamp to slot 1;
/// times off the grid round to the nearest slot outward — context only, never read back).
pub(crate) fn token(span: &Span, e: &ToneEvent) -> String {
    let pitches: Vec<String> = e
        .pitches
        .iter()
        .map(|&m| pitch_name(m, Spelling::sharp_default(m % 12)))
        .collect();
    let at = span.floor_slot(e.onset);
    let end = span.ceil_slot(e.end()).max(at + 1);
    format!("{}@{}>{}", pitches.join("+"), at + 1, end - at)
}

/// The accepted notes of the bar before the span, as one bar of the grammar.
fn context_before(p: &mut String, span: &Span, plan: &Blueprint, state: &ToneState) {
    let bar = span.meter.bar_length();
    let from = span.start - bar;
    if span.first_bar <= 1 || from < Time::default() {
        return;
    }
    let before = Span {
        start: from,
        slots: span.bar_slots,
        first_bar: span.first_bar - 1,
        bars: 1,
        ..span.clone()
    };
    let lines = voice_lines(&before, plan, state, from, span.start);
    if !lines.is_empty() {
        let _ = writeln!(
            p,
            "Just before (bar {}, slots 1-{}):",
            before.first_bar, before.slots
        );
        p.push_str(&lines);
    }
}

/// The notes accepted inside the span so far.
fn context_within(p: &mut String, span: &Span, plan: &Blueprint, state: &ToneState) {
    let lines = voice_lines(span, plan, state, span.start, span.end());
    if lines.is_empty() {
        p.push_str("Nothing is accepted in this section yet.\n");
    } else {
        p.push_str("Accepted so far in this section:\n");
        p.push_str(&lines);
    }
}

/// One line per voice with accepted onsets in `[from, to)` (its last few).
fn voice_lines(span: &Span, plan: &Blueprint, state: &ToneState, from: Time, to: Time) -> String {
    let mut out = String::new();
    for (v, line) in state.voices.iter().enumerate() {
        let events: Vec<&ToneEvent> = line
            .events
            .iter()
            .filter(|e| e.onset >= from && e.onset < to)
            .collect();
        if events.is_empty() {
            continue;
        }
        let skip = events.len().saturating_sub(MAX_CONTEXT_NOTES);
        let tokens: Vec<String> = events[skip..].iter().map(|e| token(span, e)).collect();
        let name = plan.limits.voices.get(v).map_or("?", |s| s.name.as_str());
        let _ = writeln!(out, "{name}: {}", tokens.join(" "));
    }
    out
}

/// `text` cut to [`MAX_LINE`] characters.
fn clip(text: &str) -> String {
    if text.chars().count() <= MAX_LINE {
        text.to_owned()
    } else {
        let mut s: String = text.chars().take(MAX_LINE).collect();
        s.push('…');
        s
    }
}

/// The problems section: violations, engine feedback, an unreadable reply.
fn problems(p: &mut String, retry: &Retry<'_>) {
    let mut lines: Vec<String> = retry
        .violations
        .iter()
        .map(|v| format!("[{}] at {}: {}", v.predicate, v.location, v.reason))
        .chain(retry.feedback.iter().map(ToString::to_string))
        .take(MAX_FEEDBACK)
        .map(|l| clip(&l))
        .collect();
    if let Some(why) = retry.unreadable {
        let mut parts = why.lines();
        let first = parts.next().unwrap_or_default();
        lines.push(clip(&format!(
            "your last answer could not be used: {first}"
        )));
        lines.extend(parts.take(MAX_FEEDBACK).map(clip));
    }
    if lines.is_empty() {
        return;
    }
    p.push_str("Problems to fix:\n");
    for line in lines {
        let _ = writeln!(p, "- {line}");
    }
}
