//! The LLM proposer: twelve-tone events from a language model, through the framework's
//! [`ModelBackend`] contract only (no HTTP here; backends live in `plugins/`).
//!
//! Each request becomes a `job` (which notes each voice owes and where they may
//! sit: for a section or continue request, where the embedded proposer's plan for
//! the section puts them — its rhythm and register, so a small model's piece has the
//! texture the plan intends; a canon follower is not asked for but derived from its
//! leader's answer, since its notes follow from the leader's), a `prompt` in the onset-slot grammar, optionally a GBNF `constraint` so
//! the model can only write the pitch classes the row cursor allows next, and a
//! `reply` read with the lenient grammar reader. A reply that cannot be read, or
//! that leaves notes out, is asked again (within [`AskOptions::reasks`]) with what was
//! wrong; a reply that is still unreadable ends in [`ProposerError::BadOutput`], one
//! still short is returned as it is (the verifier and the gate judge it).
//!
//! Replies are sized to the job: each request asks for the tokens its notes need
//! (`Job::tokens_needed` in `job.rs`, measured per note for the grammar) within the
//! options' `max_tokens`, which is a ceiling; a job that does not fit is cut by voice,
//! then by notes (`Job::fit`). A reply cut off at the token limit anyway keeps
//! its readable part at once: what it left owed is the engine's next continue request
//! ([`RequestKind::Continue`]), not a re-ask of the whole section. Held to the rules
//! only, a section request asks at most three voices (`Job::first_voices`): the
//! others follow in continue requests whose grammar knows the voices fixed first. Section,
//! patch and rewrite requests (ladder rungs 4 and 5) and whole pieces (the revise
//! loop) are answered. Every answer carries its tokens in [`Proposal::cost`] and a
//! [`ModelExchange`](cantus_framework::ModelExchange) for the trace.

pub(crate) mod constraint;
pub(crate) mod job;
pub(crate) mod line;
pub(crate) mod prompt;
pub(crate) mod reply;
pub(crate) mod schema;
pub(crate) mod whole;

use crate::domain::TwelveTone;
use crate::event::{Location, ToneEvent};
use cantus_framework::{
    AskOptions, Asking, Choice, Constraint, Freedom, ModelBackend, ModelReply, ModelRequest,
    Proposal, ProposalRequest, Proposer, ProposerError, RequestKind, Sampling, Violation,
    async_trait,
};
use job::Job;
use std::sync::Arc;

/// The most reply tokens asked for when the options set no ceiling.
pub(crate) const DEFAULT_MAX_TOKENS: u32 = 1024;

/// The twelve-tone LLM proposer (name `llm:<backend>`, then `+gbnf` or `+json` when
/// constrained).
pub struct LlmProposer {
    backend: Arc<dyn ModelBackend>,
    options: AskOptions,
    name: String,
}

impl LlmProposer {
    /// A proposer asking `backend` with `options`.
    pub fn new(backend: Arc<dyn ModelBackend>, options: AskOptions) -> Self {
        let suffix = match (options.constrained, options.json_schema) {
            (false, _) => "",
            (true, false) => "+gbnf",
            (true, true) => "+json",
        };
        let name = format!("llm:{}{suffix}", backend.name());
        LlmProposer {
            backend,
            options,
            name,
        }
    }

    /// The options it asks with.
    pub fn options(&self) -> &AskOptions {
        &self.options
    }
}

/// What one request's problems were, for the prompt.
struct Context<'a> {
    violations: &'a [Violation<Location>],
    refused: Option<&'a ToneEvent>,
    kind_code: u64,
}

impl LlmProposer {
    /// The most tokens a reply may be asked for: the options' `max_tokens`.
    fn ceiling(&self) -> u32 {
        self.options.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)
    }

    fn sampling(
        &self,
        req: &ProposalRequest<'_, TwelveTone>,
        parts: &[u64],
        max_tokens: u32,
    ) -> Sampling {
        let base = self.options.seed.unwrap_or(req.seed);
        let mut all = vec![
            req.section_index.unwrap_or(usize::MAX) as u64,
            u64::from(req.attempt),
        ];
        all.extend_from_slice(parts);
        Sampling {
            temperature: self.options.temperature,
            seed: Some(super::rng_for(base, &all).u64(..) >> 1),
            max_tokens: Some(max_tokens.min(self.ceiling()).max(1)),
        }
    }

    /// How many voices one section or continue request asks for: held to the rules
    /// only, [`job::VOICES_PER_REQUEST`] (the rest follow in continue requests whose
    /// grammar knows them); held to the plan, every voice (the plan keeps them apart).
    fn voices_per_request(&self) -> usize {
        match self.options.freedom {
            Freedom::Rules => job::VOICES_PER_REQUEST,
            Freedom::Plan => usize::MAX,
        }
    }

    /// Asks for `job` until a reply is complete or the re-asks run out.
    async fn ask(
        &self,
        job: Job,
        req: &ProposalRequest<'_, TwelveTone>,
        ctx: Context<'_>,
    ) -> Result<Proposal<ToneEvent>, ProposerError> {
        let json = self.options.constrained && self.options.json_schema;
        let constraint = self.options.constrained.then(|| {
            if json {
                Constraint::JsonSchema(schema::json_schema(&job))
            } else {
                Constraint::Gbnf(constraint::gbnf(&job))
            }
        });
        let mut asking = Asking::new(self.backend.as_ref(), self.options.reasks);
        let mut best: Option<(reply::Read, ModelReply, Option<bool>)> = None;
        let max_tokens = job.tokens_needed();
        // How much the grammar leaves the model: recorded with each answer.
        let choice = matches!(constraint, Some(Constraint::Gbnf(_))).then(|| Choice {
            notes: job
                .voices
                .iter()
                .map(|v| v.notes.iter().map(|n| u32::from(n.tag.len)).sum::<u32>())
                .sum(),
            bits: constraint::bits(&job),
            as_planned: None,
        });
        // The record of an answer: with how much of it is the planner's line.
        let exchange = |asking: &Asking<'_>,
                        reply: &ModelReply,
                        honoured: Option<bool>,
                        answer: &[ToneEvent]| {
            let mut exchange = asking.exchange(constraint.as_ref(), reply, honoured);
            exchange.choice = choice.map(|c| Choice {
                as_planned: Some(job.as_planned(answer).min(c.notes)),
                ..c
            });
            exchange
        };
        // A section's (or continue's) readable prefix is kept: the engine asks for the rest.
        let continuable = job.kind == job::JobKind::Section;
        while asking.more() {
            let retry = prompt::Retry {
                feedback: req.feedback,
                violations: ctx.violations,
                refused: ctx.refused,
                unreadable: asking.why(),
            };
            let request = ModelRequest {
                messages: prompt::messages(&job, req.spec, req.state, &retry, json),
                constraint: constraint.clone(),
                sampling: self.sampling(
                    req,
                    &[ctx.kind_code, u64::from(asking.attempt())],
                    max_tokens,
                ),
                context: context_json(&job, req.state, req.attempt),
            };
            let reply = asking
                .call(&request)
                .await
                .map_err(|e| ProposerError::from_model(&self.backend.name(), e))?;
            let honoured = match &constraint {
                None => None,
                Some(Constraint::JsonSchema(_)) => Some(schema::honoured(&job, &reply.text)),
                Some(Constraint::Gbnf(_)) => Some(constraint::admits(&job, &reply.text)),
            };
            // A JSON answer becomes voice lines again; anything else is read as it is.
            let text = json
                .then(|| schema::lines_from_json(&job, &reply.text))
                .flatten()
                .unwrap_or_else(|| reply.text.clone());
            let cut = if reply.truncated() {
                "the answer was cut off at the token limit: write less\n"
            } else {
                ""
            };
            match reply::read(&job, &text, reply.truncated()) {
                Ok(mut read) if read.complete() || (continuable && cut_off(&reply, &read)) => {
                    let exchange = exchange(&asking, &reply, honoured, &read.events);
                    let followers = job.followers_of(req.spec, req.state, &read.events);
                    read.events.extend(followers);
                    return Ok(Proposal {
                        events: read.events,
                        cost: asking.tally.usage,
                        exchange: Some(exchange),
                    });
                }
                Ok(read) => {
                    asking.refuse(format!("{cut}{}", read.shortfall()));
                    let missing = |r: &reply::Read| r.missing.iter().map(|(_, n)| n).sum::<usize>();
                    if best
                        .as_ref()
                        .is_none_or(|(b, ..)| missing(&read) < missing(b))
                    {
                        best = Some((read, reply, honoured));
                    }
                }
                Err(e) => asking.refuse(format!("{cut}{e}")),
            }
        }
        match best {
            Some((mut read, reply, honoured)) => {
                let exchange = exchange(&asking, &reply, honoured, &read.events);
                let followers = job.followers_of(req.spec, req.state, &read.events);
                read.events.extend(followers);
                Ok(Proposal {
                    events: read.events,
                    cost: asking.tally.usage,
                    exchange: Some(exchange),
                })
            }
            None => Err(ProposerError::BadOutput(format!(
                "{} repl{} from {} could not be read; last: {}",
                asking.tally.calls,
                if asking.tally.calls == 1 { "y" } else { "ies" },
                self.backend.name(),
                asking.why().unwrap_or_default().replace('\n', "; ")
            ))),
        }
    }

    /// A whole piece (the revise loop), read and tagged from the schedule.
    async fn whole(
        &self,
        req: &ProposalRequest<'_, TwelveTone>,
    ) -> Result<Proposal<ToneEvent>, ProposerError> {
        let plan = req.spec;
        let mut asking = Asking::new(self.backend.as_ref(), self.options.reasks);
        let mut feedback: Vec<String> = req.feedback.iter().map(ToString::to_string).collect();
        let mut last_error = String::new();
        while asking.more() {
            let request = ModelRequest {
                messages: whole::messages(plan, &feedback),
                constraint: None,
                sampling: self.sampling(req, &[0x3407, u64::from(asking.attempt())], u32::MAX),
                context: serde_json::json!({"domain": "twelve-tone", "request": "whole", "bars": plan.bars}),
            };
            let reply = asking
                .call(&request)
                .await
                .map_err(|e| ProposerError::from_model(&self.backend.name(), e))?;
            match whole::read(plan, &reply.text) {
                Ok(piece) => {
                    let exchange = asking.exchange(None, &reply, None);
                    return Ok(Proposal {
                        events: whole::tagged(plan, &piece.score),
                        cost: asking.tally.usage,
                        exchange: Some(exchange),
                    });
                }
                Err(e) => {
                    let first_line = e.lines().next().unwrap_or("").to_owned();
                    feedback.push(format!("your last answer could not be read: {first_line}"));
                    asking.refuse(first_line);
                    last_error = e;
                }
            }
        }
        Err(ProposerError::BadOutput(format!(
            "no whole piece could be read from {}: {last_error}",
            self.backend.name()
        )))
    }
}

/// The job as structured data, for symbolic plugins that would rather not parse the
/// prompt (HTTP backends do not send it).
fn context_json(job: &Job, state: &crate::state::ToneState, attempt: u32) -> serde_json::Value {
    let voices: Vec<serde_json::Value> = job
        .voices
        .iter()
        .map(|v| {
            // The lowest pitch of the voice's last accepted note, so a plugin can lead
            // the line on from it across sections (null before the first note).
            let previous = state
                .voices
                .get(v.voice)
                .and_then(|line| line.last())
                .and_then(|e| e.pitches.iter().min().copied());
            serde_json::json!({
                "voice": v.voice,
                "name": v.name,
                "form": v.form.to_string(),
                "register": [v.low, v.high],
                // Held to the rules only (`freedom = "rules"`): every note's window is
                // the voice's whole room, and the notes' order and lengths are the
                // plugin's to choose (not overlapping, no pitch class another voice
                // already sounds); `plan` is the planner's advice.
                "rules": v.line.is_some(),
                "previous_pitch": previous,
                "notes": v.notes.iter().map(|n| {
                    let (low, high) = v.range_of(n);
                    serde_json::json!({
                        "tag": n.tag.to_string(),
                        "pcs": n.pcs,
                        "register": [low, high],
                        "onset_slots": [n.window.onset_lo + 1, n.window.onset_hi + 1],
                        "min_length": n.window.min_len,
                        "max_length": n.window.max_len,
                    })
                }).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::json!({
        "domain": "twelve-tone",
        "request": job.kind.label(),
        "section": job.section,
        "attempt": attempt,
        "slots": job.span.slots,
        "bar_slots": job.span.bar_slots,
        "grid": job.span.grid,
        "voices": voices,
        "plan": job.plan.iter().map(|e| serde_json::json!({
            "voice": e.voice,
            "tag": e.tag.to_string(),
            "pitches": e.pitches,
            "onset_slot": job.span.floor_slot(e.onset) + 1,
            "length": job.span.ceil_slot(e.end()).saturating_sub(job.span.floor_slot(e.onset)).max(1),
        })).collect::<Vec<_>>(),
    })
}

/// Whether `reply` was cut off at the token limit with something readable before the
/// cut: kept as it is, since what it left owed is asked for by a continue request.
fn cut_off(reply: &ModelReply, read: &reply::Read) -> bool {
    reply.truncated() && !read.events.is_empty()
}

/// The embedded proposer's events for the section `req` asks about, without chords:
/// the rhythm and register plan a section or continue job is laid out by (none when it
/// has no answer; the job then spreads the notes evenly).
fn planned(req: &ProposalRequest<'_, TwelveTone>) -> Vec<ToneEvent> {
    super::section_events(req, false).unwrap_or_default()
}

/// What tells two repairs in one section apart, for their seeds.
fn salt(candidate: &ToneEvent) -> u64 {
    ((candidate.voice as u64) << 24) ^ (u64::from(candidate.tag.start) << 16)
}

fn missing_section() -> ProposerError {
    ProposerError::BadOutput("the request names no section of the plan".into())
}

#[async_trait]
impl Proposer<TwelveTone> for LlmProposer {
    fn name(&self) -> &str {
        &self.name
    }

    async fn propose(
        &self,
        req: ProposalRequest<'_, TwelveTone>,
    ) -> Result<Proposal<ToneEvent>, ProposerError> {
        if matches!(req.kind, RequestKind::Whole) {
            return self.whole(&req).await;
        }
        let section = req.section().ok_or_else(missing_section)?;
        let (job, ctx) = match req.kind {
            RequestKind::Patch {
                candidate,
                violations,
            } => (
                job::patch_job(
                    req.spec,
                    section,
                    req.state,
                    candidate,
                    self.options.freedom,
                )?,
                Context {
                    violations,
                    refused: Some(candidate),
                    kind_code: 0x9A7C ^ salt(candidate),
                },
            ),
            RequestKind::Rewrite {
                candidate,
                pending,
                violations,
            } => (
                job::rewrite_job(
                    req.spec,
                    section,
                    req.state,
                    candidate,
                    pending,
                    self.options.freedom,
                )?,
                Context {
                    violations,
                    refused: Some(candidate),
                    kind_code: 0x5E67 ^ salt(candidate),
                },
            ),
            RequestKind::Continue { owed } => (
                job::continue_job(
                    req.spec,
                    section,
                    req.state,
                    owed,
                    &planned(&req),
                    self.options.freedom,
                )?
                .first_voices(self.voices_per_request())
                .fit(self.ceiling()),
                Context {
                    violations: &[],
                    refused: None,
                    kind_code: 0xC047,
                },
            ),
            RequestKind::Section | RequestKind::Whole => (
                job::section_job(
                    req.spec,
                    section,
                    req.state,
                    &planned(&req),
                    self.options.freedom,
                )?
                .first_voices(match req.kind {
                    RequestKind::Section => self.voices_per_request(),
                    _ => usize::MAX,
                })
                .fit(self.ceiling()),
                Context {
                    violations: &[],
                    refused: None,
                    kind_code: 0x5EC7,
                },
            ),
        };
        self.ask(job, &req, ctx).await
    }
}
