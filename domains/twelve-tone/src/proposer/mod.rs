//! The embedded proposer: the default, offline, seeded source of twelve-tone events.
//!
//! `cantus compose` needs a proposer that works with no network and no model, gives
//! the same piece for the same seed, and still writes music worth listening to: a
//! rhythm palette suited to the meter with rests between phrases (`rhythm`),
//! singable lines in each voice's register (`register`), occasional dyads and
//! chords, canons derived from their leaders (`canon`). Voices are planned
//! independently (`section`), so they do collide and the repair ladder has real
//! work; when the ladder asks for a patch or a segment rewrite, the answer is chosen
//! against the accepted material (`patch`, scored by `fit`).
//!
//! All randomness comes from the request's seed mixed with the section, the attempt,
//! the kind of request and the voice; nothing depends on the clock or on hashing
//! order. All time is exact (integer ticks of 1/48 quarter, `grid`).

mod canon;
mod fit;
mod grid;
pub mod llm;
mod patch;
mod register;
mod rhythm;
mod section;

use crate::domain::TwelveTone;
use crate::event::{Location, ToneEvent};
use crate::gate::Rule;
use cantus_framework::{
    Feedback, Proposal, ProposalRequest, Proposer, ProposerError, RequestKind, async_trait,
};
use rhythm::Style;
use section::{SectionJob, VoiceStart};

/// The embedded symbolic proposer (name `"embedded"`). Deterministic: the same
/// request gives the same events.
#[derive(Clone, Copy, Debug, Default)]
pub struct EmbeddedProposer;

impl EmbeddedProposer {
    /// The proposer.
    pub fn new() -> Self {
        EmbeddedProposer
    }
}

/// A generator seeded from the run's seed and the parts of the request that should
/// change the answer (SplitMix64 mixing, so neighbouring inputs give unrelated streams).
pub(crate) fn rng_for(seed: u64, parts: &[u64]) -> fastrand::Rng {
    fastrand::Rng::with_seed(cantus_framework::mix_seed(
        seed ^ 0xC0FF_EE00_CA7D_u64,
        parts,
    ))
}

/// The style for an attempt: after drops or a vertical rule broken (collision,
/// crossing, texture), fewer chords and more air, so a replanned section or a revised
/// piece clashes less.
fn style_for(feedback: &[Feedback<Location>], attempt: u32) -> Style {
    let troubled = feedback.iter().any(|f| {
        matches!(f, Feedback::Dropped { .. } | Feedback::DroppedEvent { .. })
            || f.rules()
                .into_iter()
                .any(|r| Rule::try_from(r).is_ok_and(Rule::is_vertical))
    });
    let base = Style::default();
    if !troubled && attempt == 0 {
        return base;
    }
    let calm = f64::from(attempt.min(4)) + if troubled { 1.0 } else { 0.0 };
    Style {
        chord_rate: base.chord_rate / (1.0 + calm),
        rest_weight: base.rest_weight * (1.0 + 0.3 * calm),
        late_entry: (base.late_entry + 0.1 * calm).min(0.7),
    }
}

fn missing_section() -> ProposerError {
    ProposerError::BadOutput("the request names no section of the plan".into())
}

/// The embedded proposer's events for the section `req` names, from where each
/// voice's cursor stands (the LLM proposer's rhythm and register plan too, asked
/// with `chords` off: one note per row position, as its prompts and replies are).
pub(crate) fn section_events(
    req: &ProposalRequest<'_, TwelveTone>,
    chords: bool,
) -> Result<Vec<ToneEvent>, ProposerError> {
    let section = req.section().ok_or_else(missing_section)?;
    let style = style_for(req.feedback, req.attempt);
    let starts: Vec<VoiceStart> = req
        .state
        .voices
        .iter()
        .map(|line| VoiceStart {
            active: line.cursor.statement <= section.index,
            position: if line.cursor.statement == section.index {
                line.cursor.position
            } else {
                0
            },
            not_before: line.last_end(),
            prev: line.last().and_then(|e| e.pitches.first().copied()),
        })
        .collect();
    let job = SectionJob {
        plan: req.spec,
        section,
        seed: req.seed,
        salt: u64::from(req.attempt),
        style: Style {
            chord_rate: if chords { style.chord_rate } else { 0.0 },
            ..style
        },
    };
    job.compose(&starts)
}

impl EmbeddedProposer {
    fn repairer<'a>(
        &self,
        req: &'a ProposalRequest<'_, TwelveTone>,
        kind: u64,
        candidate: &ToneEvent,
    ) -> Result<patch::Repairer<'a>, ProposerError> {
        let section = req.section().ok_or_else(missing_section)?;
        Ok(patch::Repairer {
            plan: req.spec,
            section,
            state: req.state,
            clock: grid::Clock::new(req.spec, section, req.seed)?,
            rng: rng_for(
                req.seed,
                &[
                    kind,
                    section.index as u64,
                    u64::from(req.attempt),
                    candidate.voice as u64,
                    u64::from(candidate.tag.start),
                ],
            ),
            attempt: req.attempt,
        })
    }
}

#[async_trait]
impl Proposer<TwelveTone> for EmbeddedProposer {
    fn name(&self) -> &str {
        "embedded"
    }

    async fn propose(
        &self,
        req: ProposalRequest<'_, TwelveTone>,
    ) -> Result<Proposal<ToneEvent>, ProposerError> {
        let events = match req.kind {
            // The section's events from where each voice's cursor stands: exactly
            // what a continue request says is owed.
            RequestKind::Section | RequestKind::Continue { .. } => section_events(&req, true)?,
            RequestKind::Patch { candidate, .. } => {
                self.repairer(&req, 0x9A7C, candidate)?.patch(candidate)?
            }
            RequestKind::Rewrite {
                candidate, pending, ..
            } => self
                .repairer(&req, 0x5E67, candidate)?
                .rewrite(candidate, pending)?,
            RequestKind::Whole => {
                let style = style_for(req.feedback, req.attempt);
                section::compose_whole(
                    req.spec,
                    req.seed,
                    0x3407_0000 + u64::from(req.attempt),
                    style,
                )?
            }
        };
        Ok(Proposal::new(events))
    }
}
