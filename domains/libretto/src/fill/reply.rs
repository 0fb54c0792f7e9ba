//! Reading a model's reply into the gap's notes, or saying why it cannot be read.
//!
//! The reply is read under the piece's own header with the lenient grammar
//! reader, so prose, bad tokens and bad pitches are skipped with a warning
//! rather than sinking it (a header or `VOICES:` line the model repeats is set
//! aside; a token cut off at the token limit is dropped). Only notes starting
//! inside the gap are taken — notes in other bars and in voices the piece does
//! not have are ignored and counted — and every note is checked before it
//! becomes an [`Event`]: onset inside the gap, positive length clipped to the
//! gap's end, at least one MIDI pitch in 0..=127. A reply with no usable note is
//! unreadable, and the reader's first diagnostic says why.

use super::judge::Gap;
use cantus_music::grammar::{self, Diagnostic, ParseOptions};
use cantus_music::{Event, Score, Time};

/// At most this many problems are kept per reply (they go into the next prompt).
const MAX_PROBLEMS: usize = 4;

/// The usable notes of a reply and what was set aside.
#[derive(Clone, Debug, Default)]
pub(crate) struct Read {
    /// `(voice index in the piece, event)`, each inside the gap.
    pub events: Vec<(usize, Event)>,
    /// What was skipped or ignored, one line each.
    pub problems: Vec<String>,
}

impl Read {
    /// The context with these notes in the gap.
    pub fn into_score(self, gap: &Gap<'_>) -> Score {
        let mut out = gap.context.clone();
        for (vi, e) in self.events {
            if let Some(v) = out.voices.get_mut(vi) {
                v.events.push(e);
            }
        }
        out.sort();
        out
    }
}

fn is_header(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("VOICES:")
        || (t.contains('|') && (t.starts_with("KEY:") || t.starts_with("METER:")))
        || t.starts_with("```")
}

/// One line for a reader warning, located in the reply (not the wrapped text).
fn describe(d: &Diagnostic, header_lines: usize) -> String {
    format!(
        "line {}, column {}: {} [{}]",
        d.line.saturating_sub(header_lines),
        d.column,
        d.message,
        d.rule
    )
}

/// The reply without trailing space and, when the server ran out of tokens
/// (`truncated`), without its last token, which may be cut short (said in
/// `problems`).
pub(crate) fn drop_cut_token(text: &str, truncated: bool, problems: &mut Vec<String>) -> String {
    let mut text = text.trim_end().to_owned();
    if truncated {
        let cut = text
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace())
            .map_or(0, |(i, c)| i + c.len_utf8());
        if cut < text.len() {
            problems.push(format!(
                "the answer was cut off at the token limit; `{}` was dropped",
                text.get(cut..).unwrap_or("")
            ));
            text.truncate(cut);
        }
    }
    text
}

/// Reads `text` for `gap` under `header` (two lines). `truncated`: the server ran
/// out of tokens, so the last token may be cut short and is dropped.
pub(crate) fn read(
    gap: &Gap<'_>,
    header: &str,
    text: &str,
    truncated: bool,
) -> Result<Read, String> {
    let mut problems = Vec::new();
    let text = drop_cut_token(text, truncated, &mut problems);
    // Set-aside lines stay as blank lines so diagnostics keep the reply's numbering.
    let mut doc = header.to_owned();
    let header_lines = header.lines().count();
    for line in text.lines() {
        if !is_header(line) {
            doc.push_str(line);
        }
        doc.push('\n');
    }
    let parsed = grammar::parse(&doc, &ParseOptions::named("reply").lenient()).map_err(|e| {
        e.diagnostics
            .first()
            .map_or_else(|| e.to_string(), |d| describe(d, header_lines))
    })?;
    for d in parsed.warnings.iter().take(MAX_PROBLEMS) {
        problems.push(describe(d, header_lines));
    }
    let (start, end) = (gap.start(), gap.end());
    let zero = Time::from_integer(0);
    let mut events = Vec::new();
    let (mut outside, mut foreign, mut unusable) = (0usize, 0usize, 0usize);
    for voice in &parsed.score.voices {
        let Some(vi) = gap
            .score
            .voices
            .iter()
            .position(|v| v.name.eq_ignore_ascii_case(voice.name.trim()))
        else {
            foreign += voice.events.len();
            continue;
        };
        for e in &voice.events {
            if e.onset < start || e.onset >= end {
                outside += 1;
                continue;
            }
            let pitches: Vec<_> = e
                .pitches
                .iter()
                .copied()
                .filter(|p| p.midi <= 127)
                .collect();
            if pitches.is_empty() || e.duration <= zero {
                unusable += 1;
                continue;
            }
            // onset < end, so the clipped length stays positive.
            let duration = if e.duration > end - e.onset {
                end - e.onset
            } else {
                e.duration
            };
            let mut event = Event::new(e.onset, duration, pitches);
            event.tag = e.tag.clone();
            events.push((vi, event));
        }
    }
    let (first, last) = (gap.first_bar, gap.last_bar);
    if outside > 0 {
        problems.push(format!(
            "{outside} note(s) outside bars {first}-{last} were ignored: write only bars {first}-{last}"
        ));
    }
    if foreign > 0 {
        problems.push(format!(
            "{foreign} note(s) in voices the piece does not have were ignored"
        ));
    }
    if unusable > 0 {
        problems.push(format!(
            "{unusable} note(s) without a usable pitch or length were ignored"
        ));
    }
    if events.is_empty() {
        let why = if problems.is_empty() {
            format!("no note for bars {first}-{last}")
        } else {
            format!("no note for bars {first}-{last}; {}", problems.join("; "))
        };
        return Err(why);
    }
    Ok(Read { events, problems })
}
