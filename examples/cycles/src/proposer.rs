//! A seeded proposer that makes mistakes on purpose, so the ladder has work.

use crate::domain::{CycleSpec, Cycles, Symbol};
use cantus_framework::{
    Domain, Proposal, ProposalRequest, Proposer, ProposerError, RequestKind, async_trait,
};

/// Proposes shuffled cycles and, with probability `mistakes` per symbol, gets a
/// symbol or its position tag wrong. All randomness comes from the request's seed,
/// section, attempt and kind, so a run is reproducible.
#[derive(Clone, Copy, Debug)]
pub struct SloppyProposer {
    /// Probability of a mistake per proposed symbol (0.0..=1.0).
    pub mistakes: f64,
}

fn rng_for(req: &ProposalRequest<'_, Cycles>) -> fastrand::Rng {
    let kind = match req.kind {
        RequestKind::Section => 1,
        RequestKind::Patch { .. } => 2,
        RequestKind::Rewrite { .. } => 3,
        RequestKind::Whole => 4,
        RequestKind::Continue { .. } => 5,
    };
    let section = req.section_index.map_or(0, |s| s as u64 + 1);
    let cursor = req.state.cursor() as u64;
    let mix = req
        .seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(section << 40)
        .wrapping_add(cursor << 20)
        .wrapping_add(u64::from(req.attempt) << 8)
        .wrapping_add(kind);
    fastrand::Rng::with_seed(mix)
}

impl SloppyProposer {
    /// Symbols `from..from+len` with some of them spoiled, rate `p`.
    fn spoil(&self, rng: &mut fastrand::Rng, alphabet: usize, p: f64, out: &mut [Symbol]) {
        for i in 0..out.len() {
            if rng.f64() >= p {
                continue;
            }
            match rng.u8(0..3) {
                // A symbol from a slightly larger alphabet: may be foreign.
                0 => out[i].symbol = char::from(b'A' + rng.u8(0..alphabet as u8 + 2)),
                // A wrong position tag.
                1 => out[i].position += 1,
                // A repeat of the previous symbol.
                _ if i > 0 => out[i].symbol = out[i - 1].symbol,
                _ => {}
            }
        }
    }

    fn fill(
        &self,
        rng: &mut fastrand::Rng,
        spec: &CycleSpec,
        start: usize,
        mut free: Vec<char>,
        p: f64,
    ) -> Vec<Symbol> {
        rng.shuffle(&mut free);
        let mut events: Vec<Symbol> = free
            .into_iter()
            .enumerate()
            .map(|(i, symbol)| Symbol {
                position: start + i,
                symbol,
            })
            .collect();
        self.spoil(rng, spec.alphabet, p, &mut events);
        events
    }
}

#[async_trait]
impl Proposer<Cycles> for SloppyProposer {
    fn name(&self) -> &str {
        "sloppy"
    }

    async fn propose(
        &self,
        req: ProposalRequest<'_, Cycles>,
    ) -> Result<Proposal<<Cycles as Domain>::Event>, ProposerError> {
        let mut rng = rng_for(&req);
        let state = req.state;
        let all: Vec<char> = req.spec.symbols().collect();
        let unused: Vec<char> = all
            .iter()
            .copied()
            .filter(|s| !state.used_in_cycle(req.spec).any(|u| u == *s))
            .collect();
        let events = match req.kind {
            RequestKind::Section => {
                let section = req.section().ok_or(ProposerError::BadOutput(
                    "section request without a section".into(),
                ))?;
                self.fill(&mut rng, req.spec, section.start, all, self.mistakes)
            }
            RequestKind::Patch { .. } => {
                let mut e = self.fill(
                    &mut rng,
                    req.spec,
                    state.cursor(),
                    unused,
                    self.mistakes / 2.0,
                );
                e.truncate(1);
                e
            }
            RequestKind::Rewrite { .. } => self.fill(
                &mut rng,
                req.spec,
                state.cursor(),
                unused,
                self.mistakes / 2.0,
            ),
            // The cycles domain owes nothing past its events (no `Domain::owed`), so
            // the engine never asks to continue.
            RequestKind::Continue { .. } => return Err(ProposerError::Unsupported("continue")),
            RequestKind::Whole => {
                // Learns from feedback: fewer mistakes each round.
                let p = self.mistakes / f64::from(1 + req.attempt);
                let mut events = Vec::new();
                for section in req.plan {
                    events.extend(self.fill(&mut rng, req.spec, section.start, all.clone(), p));
                }
                events
            }
        };
        Ok(Proposal::new(events))
    }
}
