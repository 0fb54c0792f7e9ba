//! Reading a model's reply into twelve-tone events, or saying why it cannot be read.
//!
//! The reply's voice lines (`Soprano: E5@1>4 …`; any other line — prose, code
//! fences, a bar line, a voice's line repeated — is set aside) are wrapped in a header that makes the job's
//! span one bar of the grammar, and read with the lenient grammar reader, so bad
//! tokens and bad pitches are skipped with a warning rather than sinking the reply.
//! Every note is then checked before it becomes a [`ToneEvent`]: its onset must lie
//! inside the span (later notes are refused), its end is clipped to the span's end,
//! and it takes the tag of the next row positions the voice owes (the verifier checks
//! the claim; the strict gate ignores it). Notes beyond what a voice owes are refused.
//! A reply with no usable note is unreadable; one with notes missing is readable but
//! short, and the proposer may ask again.

use super::job::{Job, JobKind, VoiceJob};
use crate::event::{Tag, ToneEvent};
use cantus_music::Time;
use cantus_music::grammar::{self, ParseOptions, Severity};

/// At most this many problems are kept per reply (they go into the next prompt).
const MAX_PROBLEMS: usize = 8;

/// A readable reply.
#[derive(Clone, Debug, Default)]
pub(crate) struct Read {
    /// The events, voice by voice in the job's order, each voice in onset order,
    /// followed by the job's kept events.
    pub events: Vec<ToneEvent>,
    /// What was skipped, refused or clipped, one line each.
    pub problems: Vec<String>,
    /// Row positions owed but not written, by voice name.
    pub missing: Vec<(String, usize)>,
}

impl Read {
    /// Whether every voice wrote every position it owes.
    pub fn complete(&self) -> bool {
        self.missing.is_empty()
    }

    /// What is missing, for the next prompt.
    pub fn shortfall(&self) -> String {
        let parts: Vec<String> = self
            .missing
            .iter()
            .map(|(name, n)| format!("{name} is {n} note{} short", if *n == 1 { "" } else { "s" }))
            .collect();
        let mut text = parts.join("\n");
        for p in &self.problems {
            text.push('\n');
            text.push_str(p);
        }
        text
    }
}

fn push(problems: &mut Vec<String>, line: String) {
    if problems.len() < MAX_PROBLEMS {
        problems.push(line);
    }
}

/// The voice a line is for, and the rest of the line after the colon.
fn voice_line<'t>(job: &Job, line: &'t str) -> Option<(usize, &'t str)> {
    let (name, rest) = line.split_once(':')?;
    let name = name.trim().trim_start_matches(['-', '*', '>', ' ']);
    let v = job
        .voices
        .iter()
        .position(|v| v.name.eq_ignore_ascii_case(name))?;
    Some((v, rest))
}

/// Reads `text` for `job`. `truncated`: the server ran out of tokens, so the last
/// token may be cut short and is set aside. `Err` says why nothing could be read.
pub(crate) fn read(job: &Job, text: &str, truncated: bool) -> Result<Read, String> {
    let mut problems = Vec::new();
    let (text, note) = cantus_framework::model::set_aside_cut_token(text, truncated);
    if let Some(note) = note {
        push(&mut problems, note);
    }
    let mut body = String::new();
    let mut other = 0usize;
    let mut repeated = 0usize;
    let mut seen = vec![false; job.voices.len()];
    for line in text.lines() {
        match voice_line(job, line) {
            // Small models repeat their answer until the token limit: the first line
            // of each voice is the answer.
            Some((v, _)) if seen[v] => repeated += 1,
            Some((v, rest)) => {
                seen[v] = true;
                body.push_str("  ");
                body.push_str(&job.voices[v].name);
                body.push(':');
                body.push_str(rest);
                body.push('\n');
            }
            None if line.trim().is_empty() => {}
            None => other += 1,
        }
    }
    if body.is_empty() {
        let names: Vec<&str> = job.voices.iter().map(|v| v.name.as_str()).collect();
        return Err(format!(
            "no line starts with a voice name ({}:); {other} line{} of other text",
            names.join(":, "),
            if other == 1 { "" } else { "s" }
        ));
    }
    if repeated > 0 {
        push(
            &mut problems,
            format!(
                "{repeated} repeated voice line{} set aside (write each voice once)",
                if repeated == 1 { " was" } else { "s were" }
            ),
        );
    }
    if other > 0 {
        push(
            &mut problems,
            format!(
                "{other} line{} of other text set aside",
                if other == 1 { " was" } else { "s were" }
            ),
        );
    }
    let names: Vec<&str> = job.voices.iter().map(|v| v.name.as_str()).collect();
    let wrapped = format!(
        "METER: {} | GRID: {}\nVOICES: {}\n@1 [-]\n{body}",
        job.span.meter_text(),
        job.span.grid,
        names.join(", ")
    );
    let parsed = grammar::parse(&wrapped, &ParseOptions::named("reply").lenient())
        .map_err(|e| e.to_string())?;
    let mut read = Read {
        problems,
        ..Read::default()
    };
    for (v, voice) in job.voices.iter().enumerate() {
        let notes = parsed
            .score
            .voices
            .get(v)
            .map_or(&[][..], |pv| &pv.events[..]);
        take_voice(job, voice, notes, &mut read);
    }
    for w in parsed
        .warnings
        .iter()
        .filter(|w| w.severity == Severity::Warning)
    {
        let spot: String = w
            .line_text
            .chars()
            .skip(w.snippet_column.saturating_sub(1))
            .take(w.width.clamp(1, 40))
            .collect();
        push(&mut read.problems, format!("`{spot}`: {}", w.message));
    }
    if read.events.is_empty() {
        return Err(format!(
            "no usable note was found{}",
            if read.problems.is_empty() {
                String::new()
            } else {
                format!(": {}", read.problems.join("\n"))
            }
        ));
    }
    read.events.extend(job.keep.iter().cloned());
    Ok(read)
}

/// Turns one voice's read notes into events with tags from the owed positions.
fn take_voice(job: &Job, voice: &VoiceJob, notes: &[cantus_music::Event], read: &mut Read) {
    let span_len = job.span.len();
    let (Some(first), Some(last)) = (voice.notes.first(), voice.notes.last()) else {
        return;
    };
    let owed_end = last.tag.end();
    let mut position = u16::from(first.tag.start);
    for note in notes {
        let written = super::prompt::token(
            &job.span,
            &ToneEvent {
                voice: voice.voice,
                onset: job.span.start + note.onset,
                duration: note.duration,
                pitches: note.pitches.iter().map(|p| p.midi).collect(),
                tag: first.tag,
            },
        );
        if note.onset < Time::default() || note.onset >= span_len {
            push(
                &mut read.problems,
                format!(
                    "{}: `{written}` starts after slot {}, outside the section; refused",
                    voice.name, job.span.slots
                ),
            );
            continue;
        }
        if note.duration <= Time::default() || note.pitches.is_empty() {
            push(
                &mut read.problems,
                format!(
                    "{}: `{written}` has no length or no pitch; refused",
                    voice.name
                ),
            );
            continue;
        }
        let len = u16::try_from(note.pitches.len()).unwrap_or(u16::MAX);
        let tag = if job.kind == JobKind::Patch {
            if position > u16::from(first.tag.start) {
                push(
                    &mut read.problems,
                    format!(
                        "{}: only one note was asked for; `{written}` refused",
                        voice.name
                    ),
                );
                continue;
            }
            position = owed_end;
            first.tag
        } else {
            if position + len > owed_end {
                push(
                    &mut read.problems,
                    format!(
                        "{}: `{written}` goes past the {} pitch classes owed; refused",
                        voice.name,
                        voice.pcs().count()
                    ),
                );
                continue;
            }
            let tag = Tag {
                form: first.tag.form,
                start: u8::try_from(position).unwrap_or(11),
                len: u8::try_from(len).unwrap_or(1),
            };
            position += len;
            tag
        };
        let duration = note.duration.min(span_len - note.onset);
        if duration < note.duration {
            push(
                &mut read.problems,
                format!("{}: `{written}` clipped at the section's end", voice.name),
            );
        }
        read.events.push(ToneEvent {
            voice: voice.voice,
            onset: job.span.start + note.onset,
            duration,
            pitches: note.pitches.iter().map(|p| p.midi).collect(),
            tag,
        });
    }
    if position < owed_end {
        read.missing
            .push((voice.name.clone(), usize::from(owed_end - position)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blueprint::Blueprint;
    use crate::proposer::llm::job::section_job;
    use crate::spec::Spec;
    use crate::state::ToneState;
    use proptest::prelude::*;

    fn job() -> Job {
        let plan = Blueprint::new(&Spec::with_voice_count(2), 1).expect("plans");
        let state = ToneState::new(&plan);
        section_job(
            &plan,
            &plan.sections[0],
            &state,
            &[],
            cantus_framework::Freedom::Rules,
        )
        .expect("a job")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Whatever a model sends, reading it never panics, and every event it
        /// yields lies inside the section with a bounded tag.
        #[test]
        fn any_reply_reads_without_panic(
            body in "((Soprano|Bass|bass|x)?[:]? ?([A-Gb#éz0-9@>+\\-{}% ]{0,12} ?){0,8}\n?){0,6}",
            truncated in any::<bool>(),
        ) {
            let job = job();
            if let Ok(read) = read(&job, &body, truncated) {
                let end = job.span.end();
                for e in &read.events {
                    prop_assert!(e.onset >= job.span.start && e.onset < end);
                    prop_assert!(e.end() <= end && e.duration > Time::default());
                    prop_assert!(e.tag.end() <= 12 && !e.pitches.is_empty());
                }
            }
        }
    }
}
