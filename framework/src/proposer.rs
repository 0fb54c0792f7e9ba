//! Proposers: whatever suggests events — a seeded symbolic generator, a local model,
//! a hosted LLM.
//!
//! The trait is async (models answer over the network) and object-safe (a config
//! file chooses one at run time, so the engine holds a `&dyn Proposer<D>`). A request
//! says what is wanted — a section, a patch of one event, a rewrite of a segment, or
//! a whole artefact — with the state it must fit and what went wrong last time.

use crate::domain::Domain;
use crate::model::{ModelExchange, Usage};
use crate::predicate::{RuleId, Violation};
use async_trait::async_trait;
use serde::Serialize;
use std::fmt;

/// What a request asks for.
pub enum RequestKind<'a, D: Domain> {
    /// The events of `ProposalRequest::section_index`.
    Section,
    /// One event replacing `candidate`, which broke `violations`.
    Patch {
        candidate: &'a D::Event,
        violations: &'a [Violation<D::Location>],
    },
    /// Events replacing `candidate` and the events still `pending` after it in
    /// this section.
    Rewrite {
        candidate: &'a D::Event,
        pending: &'a [D::Event],
        violations: &'a [Violation<D::Location>],
    },
    /// A whole artefact (the generate–measure–revise loop).
    Whole,
    /// Exactly what section `ProposalRequest::section_index` still owes after its
    /// events were settled (a reply cut off, a voice left out): the state already
    /// holds what was accepted, `owed` says per part which positions are missing.
    Continue { owed: &'a [Owed] },
}

/// What one part (a voice) of a section still owes once the section's events are
/// settled: the domain's [`Domain::owed`] answer, and what a
/// [`RequestKind::Continue`] asks for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Owed {
    /// The part, by the domain's index (a voice number from 0).
    pub part: usize,
    /// The part's name, for people ("Bass").
    pub name: String,
    /// What the positions count, for people ("row position", "beat").
    pub unit: &'static str,
    /// The positions still owed, in order, from 0 (row order positions 0–11, slots …).
    pub positions: Vec<u32>,
}

impl fmt::Display for Owed {
    /// `Bass owes row positions 10–12` (positions shown from 1).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} owes {}", self.name, self.unit)?;
        if self.positions.len() != 1 {
            f.write_str("s")?;
        }
        let mut runs: Vec<(u32, u32)> = Vec::new();
        for &p in &self.positions {
            match runs.last_mut() {
                Some((_, hi)) if *hi + 1 == p => *hi = p,
                _ => runs.push((p, p)),
            }
        }
        for (i, (lo, hi)) in runs.iter().enumerate() {
            f.write_str(if i == 0 { " " } else { ", " })?;
            if lo == hi {
                write!(f, "{}", lo + 1)?;
            } else {
                write!(f, "{}–{}", lo + 1, hi + 1)?;
            }
        }
        Ok(())
    }
}

/// The kind of a request without its data, as traces name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RequestType {
    Section,
    Patch,
    Rewrite,
    Whole,
    Continue,
}

impl RequestType {
    /// `section`, `patch`, `rewrite`, `whole` or `continue`.
    pub fn as_str(self) -> &'static str {
        match self {
            RequestType::Section => "section",
            RequestType::Patch => "patch",
            RequestType::Rewrite => "rewrite",
            RequestType::Whole => "whole",
            RequestType::Continue => "continue",
        }
    }
}

impl std::fmt::Display for RequestType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<D: Domain> RequestKind<'_, D> {
    /// What kind of request this is, for traces.
    pub fn label(&self) -> RequestType {
        match self {
            RequestKind::Section => RequestType::Section,
            RequestKind::Patch { .. } => RequestType::Patch,
            RequestKind::Rewrite { .. } => RequestType::Rewrite,
            RequestKind::Whole => RequestType::Whole,
            RequestKind::Continue { .. } => RequestType::Continue,
        }
    }
}

/// What went wrong before a request, as data: which rule, where, what. Proposers
/// that steer by it match on the variants; text-reading proposers (LLMs) and traces
/// use its `Display`, the English the engine writes.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Feedback<L> {
    /// The last request for this section failed (an outage, an unreadable reply).
    RequestFailed { reason: String },
    /// `dropped` of `proposed` events were dropped in section `section` (from 0).
    Dropped {
        section: usize,
        dropped: usize,
        proposed: usize,
    },
    /// One dropped event: where, and each hard rule it broke with the reason.
    DroppedEvent {
        location: L,
        broke: Vec<(RuleId, String)>,
    },
    /// A hard violation the gate found in the last revise round.
    Violation {
        rule: RuleId,
        location: L,
        reason: String,
    },
    /// More gate violations than were listed.
    MoreViolations { count: usize },
    /// A soft measure's feedback, in its own words (e.g. Libretto's musical feedback).
    Measure { text: String },
    /// Section `section` (from 0) was left short even after continue requests: what
    /// each part still owed.
    Owed { section: usize, owed: Vec<Owed> },
    /// What this section wrote last time led to a dead end: section `section` (from
    /// 0) after it could not be filled, for `reason` (shortened); the loop stepped
    /// back ([`Budget::backtracks`](crate::Budget)) and asks this section again.
    DeadEnd { section: usize, reason: String },
}

impl<L> Feedback<L> {
    /// The rules this feedback names.
    pub fn rules(&self) -> Vec<RuleId> {
        match self {
            Feedback::DroppedEvent { broke, .. } => broke.iter().map(|(r, _)| *r).collect(),
            Feedback::Violation { rule, .. } => vec![*rule],
            _ => Vec::new(),
        }
    }
}

impl<L: fmt::Display> fmt::Display for Feedback<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Feedback::RequestFailed { reason } => write!(f, "the last request failed: {reason}"),
            Feedback::Dropped {
                section,
                dropped,
                proposed,
            } => write!(
                f,
                "{dropped} of {proposed} proposed events were dropped in section {}",
                section + 1
            ),
            Feedback::DroppedEvent { location, broke } => {
                write!(f, "dropped at {location}: ")?;
                for (i, (rule, reason)) in broke.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "[{rule}] {reason}")?;
                }
                Ok(())
            }
            Feedback::Violation {
                rule,
                location,
                reason,
            } => write!(f, "fix [{rule}] at {location}: {reason}"),
            Feedback::MoreViolations { count } => write!(f, "… and {count} more rule violations"),
            Feedback::Measure { text } => f.write_str(text),
            Feedback::Owed { section, owed } => {
                write!(f, "section {} was left short: ", section + 1)?;
                for (i, o) in owed.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{o}")?;
                }
                Ok(())
            }
            Feedback::DeadEnd { section, reason } => write!(
                f,
                "what was written here last time left section {} no way on: {reason}",
                section + 1
            ),
        }
    }
}

/// One request to a proposer.
pub struct ProposalRequest<'a, D: Domain> {
    pub kind: RequestKind<'a, D>,
    pub spec: &'a D::Spec,
    /// The whole plan.
    pub plan: &'a [D::Section],
    /// The section concerned (`None` for [`RequestKind::Whole`]).
    pub section_index: Option<usize>,
    /// The online state the answer must fit.
    pub state: &'a D::State,
    /// What went wrong last time (replan reasons, revise feedback); empty at first.
    pub feedback: &'a [Feedback<D::Location>],
    /// 0 for the first try; counts replans, ladder passes or revise rounds.
    pub attempt: u32,
    /// The run's seed; a deterministic proposer derives all randomness from it,
    /// the section index and the attempt.
    pub seed: u64,
}

impl<D: Domain> ProposalRequest<'_, D> {
    /// The section concerned, if any.
    pub fn section(&self) -> Option<&D::Section> {
        self.section_index.and_then(|i| self.plan.get(i))
    }
}

/// A proposer's answer.
#[derive(Clone, Debug)]
pub struct Proposal<E> {
    pub events: Vec<E>,
    /// The tokens it cost, where the proposer knows (the server's [`Usage`]).
    pub cost: Usage,
    /// The model exchange behind this answer, for model-backed proposers.
    pub exchange: Option<ModelExchange>,
}

impl<E> Proposal<E> {
    /// An answer with no cost information.
    pub fn new(events: Vec<E>) -> Self {
        Proposal {
            events,
            cost: Usage::default(),
            exchange: None,
        }
    }
}

/// Why a proposer could not answer. Messages must never contain secrets.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProposerError {
    /// The backend could not be reached or refused the call.
    #[error("proposer unavailable: {0}")]
    Unavailable(String),
    /// The backend answered with something that could not be read.
    #[error("proposer output unreadable: {0}")]
    BadOutput(String),
    /// The proposer does not support this kind of request.
    #[error("proposer does not support {0} requests")]
    Unsupported(&'static str),
    /// The run's deadline passed while the call was under way (it was abandoned:
    /// its retries, backoff and re-asks count against the deadline too).
    #[error("the run's deadline of {} ms passed during the call, which was abandoned", .0.as_millis())]
    Deadline(std::time::Duration),
    /// Nothing the proposer may give here can be finished: every choice its
    /// constraint would offer is shown to be a dead end. The section fails at once,
    /// without its replans (another attempt could only choose among the same), and a
    /// loop that may step back ([`Budget::backtracks`](crate::Budget)) does.
    #[error("no way on from here: {0}")]
    NoWayOn(String),
}

impl ProposerError {
    /// The proposer error for a failed model call to `backend`: an unreadable reply is
    /// [`ProposerError::BadOutput`]; everything else (connection, timeout, HTTP status,
    /// configuration, plugin) is [`ProposerError::Unavailable`].
    pub fn from_model(backend: &str, error: crate::model::ModelError) -> Self {
        match error {
            crate::model::ModelError::BadReply(_) => {
                ProposerError::BadOutput(format!("{backend}: {error}"))
            }
            other => ProposerError::Unavailable(format!("{backend}: {other}")),
        }
    }
}

/// A seed derived from `seed` and the parts of a request that should change the
/// answer (section, attempt, candidate …), by SplitMix64 steps, so neighbouring inputs
/// give unrelated streams. Deterministic proposers seed their generators with it.
pub fn mix_seed(seed: u64, parts: &[u64]) -> u64 {
    let mut x = seed;
    for &p in parts {
        x = x.wrapping_add(p).wrapping_add(0x9E37_79B9_7F4A_7C15);
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^= x >> 31;
    }
    x
}

/// A small seeded generator: the `n`th draw is [`mix_seed`] of the seed and `n`
/// (SplitMix64 steps), so the same seed gives the same draws on every machine. For
/// draws that must repeat (a generated task set, a bootstrap), not for secrets.
#[derive(Clone, Debug)]
pub struct SplitMix {
    seed: u64,
    drawn: u64,
}

impl SplitMix {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix { seed, drawn: 0 }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.drawn += 1;
        mix_seed(self.seed, &[self.drawn])
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Anything that suggests events for a domain.
#[async_trait]
pub trait Proposer<D: Domain>: Send + Sync {
    /// Short name for traces, e.g. `"embedded"` or `"openai:qwen2.5"`.
    fn name(&self) -> &str;
    /// Answers one request.
    async fn propose(
        &self,
        request: ProposalRequest<'_, D>,
    ) -> Result<Proposal<D::Event>, ProposerError>;
}
