//! Whole pieces in one reply: the prompt and the reading shared by the proposer's
//! whole-piece requests (the revise loop) and the raw baseline (`crate::raw`).
//!
//! The model is given the header, the VOICES line, every section's row forms and the
//! voices' ranges, and asked for the bars. Its reply is read with the lenient grammar
//! reader (a header of its own is used when it wrote one; otherwise the planned one
//! is put in front), and the voices are put in the plan's order by name so the
//! strict gate holds each to its own schedule.

use super::constraint::pitch_name;
use crate::blueprint::Blueprint;
use crate::event::{Tag, ToneEvent};
use crate::row::note_name;
use cantus_framework::Message;
use cantus_music::grammar::{self, ParseOptions, Severity};
use cantus_music::{Score, Spelling};
use std::fmt::Write as _;

/// The header and VOICES lines the piece is planned with.
pub(crate) fn header(plan: &Blueprint) -> String {
    let names: Vec<&str> = plan.limits.voices.iter().map(|v| v.name.as_str()).collect();
    format!(
        "KEY: ? | METER: {}/{} | TEMPO: {} | GRID: {} | BARS: {}\nVOICES: {}\n",
        plan.meter.num,
        plan.meter.den,
        plan.tempo,
        16.max(plan.meter.den),
        plan.bars,
        names.join(", ")
    )
}

/// The messages asking for a whole piece; `feedback` says what was wrong last time.
pub(crate) fn messages(plan: &Blueprint, feedback: &[String]) -> Vec<Message> {
    let mut p = String::from(
        "Write a whole twelve-tone piece in onset-slot notation. Bars are `@N [-]`, each \
         followed by one indented line per voice: `  Name: NOTE NOTE ...`, \
         NOTE = PITCH@SLOT>LENGTH (C4 = middle C; slots count from 1 in each bar, GRID per whole note).\n",
    );
    p.push_str("The piece:\n");
    p.push_str(&header(plan));
    p.push_str("Each voice sounds each of its row forms once per section, every pitch class once, in this order:\n");
    for s in &plan.sections {
        let _ = write!(
            p,
            "Bars {}-{}:",
            s.first_bar,
            s.first_bar + s.bars.saturating_sub(1)
        );
        for (v, form) in s.forms.iter().enumerate() {
            let name = plan.limits.voices.get(v).map_or("?", |x| x.name.as_str());
            let pcs: Vec<&str> = plan
                .table
                .pcs(*form)
                .iter()
                .map(|&pc| note_name(pc))
                .collect();
            let _ = write!(p, " {name} {form}: {};", pcs.join(" "));
        }
        p.push('\n');
    }
    let ranges: Vec<String> = plan
        .limits
        .voices
        .iter()
        .map(|v| {
            let name = |m: u8| pitch_name(m, Spelling::sharp_default(m % 12));
            format!("{} {}-{}", v.name, name(v.low), name(v.high))
        })
        .collect();
    let _ = writeln!(p, "Ranges: {}.", ranges.join(", "));
    p.push_str("No pitch class in two voices at the same time; notes of a voice do not overlap.\n");
    for line in feedback.iter().take(6) {
        let clipped: String = line.chars().take(220).collect();
        let _ = writeln!(p, "- last time: {clipped}");
    }
    p.push_str("Example bar:\n@1 [-]\n  Violin: E5@1>4 F5@5>4 C5@9>8\n  Cello: A2@1>8 D3@9>4\nAnswer with the bars only.");
    vec![
        Message::system(
            "You write twelve-tone music in a compact text notation. Answer with notation only.",
        ),
        Message::user(p),
    ]
}

/// A whole piece read from a reply, with the reader's warnings.
pub(crate) struct ReadPiece {
    pub score: Score,
    pub warnings: Vec<String>,
}

/// Reads a whole-piece reply. `Err` carries the reader's diagnostic.
pub(crate) fn read(plan: &Blueprint, text: &str) -> Result<ReadPiece, String> {
    let has_header = text.lines().any(|l| l.contains("METER:"));
    let full = if has_header {
        text.to_owned()
    } else {
        format!("{}{text}", header(plan))
    };
    let parsed = grammar::parse(&full, &ParseOptions::named("reply").lenient())
        .map_err(|e| e.to_string())?;
    let warnings: Vec<String> = parsed
        .warnings
        .iter()
        .filter(|w| w.severity == Severity::Warning)
        .map(|w| format!("line {}: [{}] {}", w.line, w.rule, w.message))
        .collect();
    let mut score = parsed.score;
    if score.event_count() == 0 {
        let first = warnings.first().cloned().unwrap_or_default();
        return Err(format!(
            "the reply holds no note{}",
            if first.is_empty() {
                String::new()
            } else {
                format!(" ({} warnings; first: {first})", warnings.len())
            }
        ));
    }
    // The plan's voices first, in its order (matched by name); others after.
    let mut voices = std::mem::take(&mut score.voices);
    let mut ordered = Vec::with_capacity(voices.len());
    for spec in &plan.limits.voices {
        match voices
            .iter()
            .position(|v| v.name.eq_ignore_ascii_case(&spec.name))
        {
            Some(i) => ordered.push(voices.remove(i)),
            None => ordered.push(cantus_music::Voice::new(spec.name.clone())),
        }
    }
    ordered.extend(voices);
    score.voices = ordered;
    if score.title.is_none() {
        score.title.clone_from(&plan.title);
    }
    Ok(ReadPiece { score, warnings })
}

/// A read piece as tagged events: each planned voice's notes in onset order take the
/// next positions of its schedule (statement `k` = section `k`'s form). Voices the
/// plan does not know are left out; notes past the schedule's end keep the last form.
pub(crate) fn tagged(plan: &Blueprint, score: &Score) -> Vec<ToneEvent> {
    let mut out = Vec::new();
    for (v, voice) in score
        .voices
        .iter()
        .enumerate()
        .take(plan.limits.voices.len())
    {
        let forms: Vec<_> = plan.schedule(v).collect();
        let (mut statement, mut position) = (0usize, 0u8);
        for e in &voice.events {
            let Some(&form) = forms.get(statement).or(forms.last()) else {
                break;
            };
            let len = u8::try_from(e.pitches.len().clamp(1, 12)).unwrap_or(1);
            let start = position.min(11);
            out.push(ToneEvent {
                voice: v,
                onset: e.onset,
                duration: e.duration,
                pitches: e.pitches.iter().map(|p| p.midi).collect(),
                tag: Tag {
                    form,
                    start,
                    len: len.min(12 - start),
                },
            });
            position = position.saturating_add(len);
            if position >= 12 {
                statement += 1;
                position = 0;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::compile_brief;

    #[test]
    fn a_reply_without_a_header_is_read_at_the_plans_tempo_and_grid() {
        let spec = compile_brief("A 4-bar duo in 3/4 at 90 bpm").unwrap().spec;
        let plan = Blueprint::new(&spec, 0).unwrap();
        let head = header(&plan);
        assert!(
            head.starts_with("KEY: ? | METER: 3/4 | TEMPO: 90 | GRID: 16 | BARS: 4\n"),
            "{head}"
        );
        // A quarter note on the 16th grid lasts four slots: one beat of 3/4.
        let voice = &plan.limits.voices[0].name;
        let piece = read(&plan, &format!("@1 [-]\n  {voice}: C4@1>4\n"));
        let score = piece.map(|p| p.score);
        let first = score.as_ref().map(|s| s.voices[0].events[0].duration);
        assert_eq!(
            first.ok(),
            Some(cantus_music::Time::from_integer(1)),
            "{score:?}"
        );
    }
}
