//! The model author of the workflows: every model call of `generate`, `morph`
//! and `teach` is made here (`extend` asks through the gap filler's own model
//! proposer, [`fill_with_model`](crate::fill::fill_with_model)).
//!
//! A workflow writes its task once ([`Task`]: what to write, the excerpts to
//! study, the gates in words); each round sends it with the previous round's
//! feedback (what the failing gates measure, where the piece sits, which way
//! to move) and asks for the whole piece in the onset-slot grammar. The reply
//! is read leniently (prose and bad tokens are set aside with a note, which
//! goes into the next round's feedback); a reply without its own header is
//! read under the task's. A failed call or an unreadable reply is a round
//! without a candidate; a configuration error stops the run. The calls,
//! tokens and stop reasons of each round are kept. The author is asked with the
//! framework's [`AskOptions`], as every model-backed proposer is: it reads their
//! `temperature`, `max_tokens` and `constrained` (the workflow's round gives the
//! seed; a round is asked once). With constrained decoding the reply is held to the
//! bars of the task's header ([`constraint`]) and read under that header.

use super::{Ask, Author, AuthorError, Draft, Workflow};
use crate::fill::ModelUsage;
use cantus_framework::{
    AskOptions, Constraint, Message, ModelBackend, ModelError, ModelRequest, Sampling, async_trait,
};
use cantus_music::Score;
use cantus_music::grammar::{self, Diagnostic, ParseOptions};
use serde_json::Value;
use std::fmt::Write as _;

/// At most this many feedback lines go into a request, each cut to this many
/// characters (SmolLM2-135M reads 4096 tokens).
const MAX_FEEDBACK: usize = 6;
const MAX_LINE: usize = 240;
/// At most this many reader warnings are kept per reply.
const MAX_NOTES: usize = 4;

const SYSTEM: &str = "You write music in a compact text notation. Answer with the piece only: \
the header line, the VOICES line, then the bars; no prose, no code fences.";

/// The notation, explained once in every request.
pub const NOTATION: &str = "Notation: a header line `KEY: C major | METER: 4/4 | TEMPO: 90 | GRID: 16th | BARS: N`, \
a line `VOICES: Name, Name`, then for each bar a bar line `@N [-]` followed by one indented line per voice, \
`  Name: NOTE NOTE ...`. NOTE = PITCH@SLOT>LENGTH, e.g. C#4@1>4 (C4 = middle C; a chord joins pitches \
with +, e.g. C4+E4@1>2; SLOT counts from 1 at the start of the bar; LENGTH in slots; GRID 16th = 16 \
slots in a 4/4 bar).";

/// What a workflow asks the model, written once per run.
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    /// Which workflow asks.
    pub workflow: Workflow,
    /// The request's body: what to write, excerpts to study, the gates in words.
    pub text: String,
    /// Header and `VOICES:` lines (two lines) that a reply without its own
    /// header is read under.
    pub header: String,
    /// Context for backends and plugins (JSON).
    pub context: Value,
}

/// The grammar a constrained reply is held to: bars 1 to `BARS:` of `header`,
/// each with a line per voice of its `VOICES:` line (`None` when the header
/// does not read, or declares no bars or no voices).
pub fn constraint(header: &str) -> Option<String> {
    let read = grammar::parse(header, &ParseOptions::named("the task's header")).ok()?;
    let score = read.score;
    let voices: Vec<String> = score.voices.iter().map(|v| v.name.clone()).collect();
    let bars = score.bars.filter(|&b| b > 0)?;
    if voices.is_empty() {
        return None;
    }
    let slots = crate::fill::prompt::slots_per_bar(header, score.meter);
    Some(crate::fill::constraint::bars(1, bars, &voices, slots))
}

/// A model as a workflow's author.
pub struct ModelAuthor<'a> {
    backend: &'a dyn ModelBackend,
    task: Task,
    options: AskOptions,
}

impl<'a> ModelAuthor<'a> {
    /// An author asking `backend` to do `task`.
    pub fn new(backend: &'a dyn ModelBackend, task: Task, options: AskOptions) -> Self {
        ModelAuthor {
            backend,
            task,
            options,
        }
    }

    /// The messages of one round.
    pub fn messages(&self, feedback: &[String]) -> Vec<Message> {
        let mut p = String::new();
        p.push_str(NOTATION);
        p.push('\n');
        p.push_str(&self.task.text);
        if !feedback.is_empty() {
            p.push_str("\nYour last answer had these problems:\n");
            for line in feedback.iter().take(MAX_FEEDBACK) {
                let _ = writeln!(p, "- {}", cut(line));
            }
        }
        if self.options.constrained {
            // The grammar starts at the first bar line: the header is the task's.
            p.push_str("\nThe piece's header is:\n");
            p.push_str(&self.task.header);
            p.push_str(
                "Answer with every bar under it, from @1 [-], each with one line per voice.",
            );
        } else {
            p.push_str(
                "\nAnswer with the whole piece: the header line, the VOICES line, then every bar.",
            );
        }
        vec![Message::system(SYSTEM), Message::user(p)]
    }
}

fn cut(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

#[async_trait]
impl Author for ModelAuthor<'_> {
    fn name(&self) -> String {
        format!("model:{}", self.backend.name())
    }

    async fn write(&self, ask: &Ask<'_>) -> Result<Draft, AuthorError> {
        let mut context = self.task.context.clone();
        if let Some(map) = context.as_object_mut() {
            map.insert("domain".into(), "libretto".into());
            map.insert("task".into(), self.task.workflow.name().into());
            map.insert("round".into(), ask.round.into());
        }
        let request = ModelRequest {
            messages: self.messages(ask.feedback),
            constraint: self
                .options
                .constrained
                .then(|| constraint(&self.task.header))
                .flatten()
                .map(Constraint::Gbnf),
            sampling: Sampling {
                temperature: self.options.temperature,
                seed: Some(ask.seed),
                max_tokens: self.options.max_tokens,
            },
            context,
        };
        let mut usage = ModelUsage {
            backend: self.backend.name(),
            calls: 1,
            ..ModelUsage::default()
        };
        let reply = match self.backend.complete(&request).await {
            Ok(r) => r,
            Err(ModelError::Config(why)) => return Err(AuthorError::Unavailable(why)),
            Err(e) => {
                return Err(AuthorError::Round {
                    why: format!("the call failed: {e}"),
                    usage: Some(Box::new(usage)),
                });
            }
        };
        usage.tokens = reply.usage;
        usage.latency_ms = reply.latency_ms;
        usage
            .stop_reasons
            .push(reply.stop_reason.clone().unwrap_or_else(|| "?".into()));
        match read_piece(&self.task.header, &reply.text, reply.truncated()) {
            Ok((score, notes)) => Ok(Draft {
                score,
                notes,
                usage: Some(usage),
            }),
            Err(why) => Err(AuthorError::Round {
                why: format!("unreadable reply: {why}"),
                usage: Some(Box::new(usage)),
            }),
        }
    }
}

fn describe(d: &Diagnostic, shift: usize) -> String {
    format!(
        "line {}, column {}: {} [{}]",
        d.line.saturating_sub(shift),
        d.column,
        d.message,
        d.rule
    )
}

fn is_header(line: &str) -> bool {
    let t = line.trim_start();
    t.contains('|')
        && ["KEY:", "METER:", "GRID:", "TEMPO:"]
            .iter()
            .any(|k| t.contains(k))
}

/// Reads a reply as a whole piece (see the module docs): the score and what
/// was set aside, or why nothing could be read.
pub fn read_piece(
    header: &str,
    text: &str,
    truncated: bool,
) -> Result<(Score, Vec<String>), String> {
    let mut notes = Vec::new();
    let text = crate::fill::reply::drop_cut_token(text, truncated, &mut notes);
    // Lines before the reply's own header (prose, fences) are blanked so the
    // reader's line numbers stay the reply's; without a header, the task's.
    let lines: Vec<&str> = text.lines().collect();
    let (mut doc, shift) = match lines.iter().position(|l| is_header(l)) {
        Some(at) => ("\n".repeat(at), 0),
        None => (header.to_owned(), header.lines().count()),
    };
    let start = lines.iter().position(|l| is_header(l)).unwrap_or(0);
    for line in &lines[start..] {
        if !line.trim_start().starts_with("```") {
            doc.push_str(line);
        }
        doc.push('\n');
    }
    let parsed = grammar::parse(&doc, &ParseOptions::named("reply").lenient()).map_err(|e| {
        e.diagnostics
            .first()
            .map_or_else(|| e.to_string(), |d| describe(d, shift))
    })?;
    notes.extend(
        parsed
            .warnings
            .iter()
            .take(MAX_NOTES)
            .map(|d| describe(d, shift)),
    );
    if parsed.score.event_count() == 0 {
        return Err(if notes.is_empty() {
            "no notes".to_owned()
        } else {
            format!("no notes; {}", notes.join("; "))
        });
    }
    Ok((parsed.score, notes))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "KEY: ? | METER: 4/4 | TEMPO: 90 | GRID: 16th | BARS: 2\nVOICES: A\n";

    #[test]
    fn a_reply_with_prose_and_its_own_header_is_read_from_the_header() {
        let reply = "Here is the piece:\n```\nKEY: ? | METER: 3/4 | GRID: 16th | BARS: 1\nVOICES: X\n@1 [-]\n  X: C4@1>4\n```";
        let (score, _) = read_piece(HEAD, reply, false).unwrap();
        assert_eq!(score.meter.num, 3);
        assert_eq!(score.voices[0].name, "X");
        assert_eq!(score.event_count(), 1);
    }

    #[test]
    fn a_reply_without_a_header_is_read_under_the_tasks() {
        let (score, _) = read_piece(HEAD, "@1 [-]\n  A: C4@1>4 D4@5>4\n", false).unwrap();
        assert_eq!(score.voices[0].name, "A");
        assert_eq!(score.event_count(), 2);
        let err = read_piece(HEAD, "I cannot write music.", false).unwrap_err();
        assert!(err.starts_with("no notes"), "{err}");
    }

    #[test]
    fn a_cut_off_token_is_dropped_and_said() {
        let (score, notes) = read_piece(HEAD, "@1 [-]\n  A: C4@1>4 D4@5", true).unwrap();
        assert_eq!(score.event_count(), 1);
        assert!(notes[0].contains("`D4@5` was set aside"), "{notes:?}");
    }
}
