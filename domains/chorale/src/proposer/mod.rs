//! The proposers: an embedded search ([`EmbeddedProposer`]) and a language model
//! held to the voicings from which the phrase can still be finished
//! ([`ModelProposer`]). Both answer one beat at a time — the engine's sections are
//! beats — and both think in phrases: the embedded search plans to the phrase's
//! cadence, the model's grammar offers only voicings that can reach it.

mod grammar;
pub mod model;
mod search;
mod vocabulary;

use crate::domain::{ChoraleDomain, Harmonisation, Voicing};
use crate::rules::Profile;
use cantus_framework::{
    Proposal, ProposalRequest, Proposer, ProposerError, RequestKind, async_trait,
};
pub(crate) use grammar::Proofs;
pub use model::ModelProposer;
use search::{Task, complete};
use std::sync::Arc as Rc;

/// The last beat of the phrase holding beat `b`.
pub(crate) fn phrase_end(cadences: &[usize], b: usize) -> usize {
    cadences.iter().copied().find(|&c| c >= b).unwrap_or(b)
}

/// How far a search from beat `b` looks: to its phrase's cadence and one beat
/// beyond (the next phrase's first melody note may leave a tendency tone of the
/// cadence unresolvable, e.g. a soprano that holds a chord's seventh and then
/// leaps).
pub(crate) fn horizon(cadences: &[usize], b: usize) -> usize {
    let last = cadences.last().copied().unwrap_or(b);
    (phrase_end(cadences, b) + 1).min(last)
}

/// The beat a request asks for and the voicing it must not repeat; `None` when the
/// beat is written already.
pub(crate) fn asked(
    req: &ProposalRequest<'_, ChoraleDomain>,
) -> Result<Option<(usize, Option<Voicing>)>, ProposerError> {
    let next = req.state.analysis.beats.len();
    let (beat, refused) = match &req.kind {
        RequestKind::Section | RequestKind::Continue { .. } => {
            let section = req
                .section()
                .ok_or_else(|| ProposerError::BadOutput("the request names no section".into()))?;
            (section.beat, None)
        }
        RequestKind::Patch { candidate, .. } | RequestKind::Rewrite { candidate, .. } => {
            (candidate.beat, Some(**candidate))
        }
        RequestKind::Whole => (next, None),
    };
    Ok((beat == next).then_some((beat, refused)))
}

/// The embedded proposer (name `"embedded"`): a seeded depth-first search to each
/// phrase's cadence under the profile's rules.
#[derive(Clone, Copy, Debug, Default)]
pub struct EmbeddedProposer {
    pub profile: Profile,
}

impl EmbeddedProposer {
    /// Voicings for every beat of `spec` from the start, phrase by phrase.
    pub fn harmonise(&self, spec: &Harmonisation, seed: u64) -> Vec<Voicing> {
        let cadences = Rc::new(spec.cadence_beats());
        let mut a = spec.open();
        let mut out = Vec::new();
        while a.beats.len() < a.total() {
            let next = a.beats.len();
            let task = Task {
                base: &a,
                end: horizon(&cadences, next),
                cadences: Rc::clone(&cadences),
                profile: self.profile,
            };
            let planned = complete(&task, seed, 0, &[]);
            let phrase: Vec<Voicing> = planned
                .into_iter()
                .take(phrase_end(&cadences, next) + 1 - next)
                .collect();
            if phrase.is_empty() {
                break;
            }
            for v in &phrase {
                crate::domain::push_voicing(&mut a, v);
            }
            out.extend(phrase);
        }
        out
    }
}

#[async_trait]
impl Proposer<ChoraleDomain> for EmbeddedProposer {
    fn name(&self) -> &str {
        "embedded"
    }

    async fn propose(
        &self,
        req: ProposalRequest<'_, ChoraleDomain>,
    ) -> Result<Proposal<Voicing>, ProposerError> {
        if matches!(req.kind, RequestKind::Whole) {
            return Ok(Proposal::new(self.harmonise(req.spec, req.seed)));
        }
        let Some((beat, refused)) = asked(&req)? else {
            return Ok(Proposal::new(Vec::new()));
        };
        let cadences = Rc::new(req.spec.cadence_beats());
        let task = Task {
            base: &req.state.analysis,
            end: horizon(&cadences, beat),
            cadences,
            profile: self.profile,
        };
        let mut forbid = req.state.dead_at(beat);
        forbid.extend(refused);
        let line = complete(&task, req.seed, u64::from(req.attempt), &forbid);
        if line.is_empty() {
            return Err(model::no_way_on(&req.state.analysis, beat));
        }
        Ok(Proposal::new(line.into_iter().take(1).collect()))
    }
}
