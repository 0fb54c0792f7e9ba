//! Statement search: the best reading of one row form from one seed tone onwards.
//!
//! A statement is a path through the form's twelve order positions over tones that
//! never go back in time: position `k + 1` sounds at or after position `k` (at the
//! same onset when the two are a chord, in either order). The search is a small
//! dynamic programme over the positions: for each position it looks at the first few
//! free tones of the wanted pitch class after the previous position (at most
//! [`SearchParams::candidates`], within [`SearchParams::window`] tones), may skip up
//! to [`SearchParams::max_skip`] positions in a row (a statement left incomplete), and
//! keeps per tone the best-scoring way to reach it.
//!
//! The score rewards positions found and charges missing positions, the span of the
//! statement in tones (a statement interleaved with others is looser than one alone,
//! but a chance reading through other statements' notes is looser still) and more for
//! each gap far beyond what the texture's density leads one to expect, changes of
//! voice, and "chords" whose tones are not one event (positions sounding together in
//! different events, or different voices, are as likely other statements'). Because the span charge
//! telescopes, among readings with the same ends the choice falls to voice
//! continuity, then to the earliest tone.
//!
//! **Elision.** A statement may begin on the last one to three tones of a statement
//! already chosen, in that statement's order (or end on the first tones of one), each
//! such tone shared by both. The search admits a claimed tone only in that way: all of
//! the other statement's tail, contiguously, at the start (or its head at the end).

use super::texture::Texture;
use crate::row::PitchClass;

/// No tone, no statement.
pub(crate) const NONE: u32 = u32::MAX;

/// Most tones two statements share in an elision.
pub(crate) const MAX_ELISION: u8 = 3;

/// Who holds a tone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Claim {
    /// The statement using the tone as an order position, or [`NONE`].
    pub stmt: u32,
    /// Its order position there (0-based).
    pub pos: u8,
    /// The second statement sharing it (an elision), or [`NONE`].
    pub sharer: u32,
}

impl Claim {
    /// A tone no statement uses.
    pub const FREE: Claim = Claim {
        stmt: NONE,
        pos: 0,
        sharer: NONE,
    };

    /// Whether a second statement shares the tone.
    pub fn shared(self) -> bool {
        self.sharer != NONE
    }

    fn is_tail(self) -> bool {
        self.stmt != NONE && !self.shared() && self.pos >= 12 - MAX_ELISION
    }

    fn is_head(self) -> bool {
        self.stmt != NONE && !self.shared() && self.pos < MAX_ELISION
    }
}

/// The score's weights (integers, so the search is exact and deterministic).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Weights {
    pub found: i32,
    pub missing: i32,
    pub per_tone: i32,
    /// Per tone of a gap beyond [`SearchParams::far`] (on top of `per_tone`).
    pub far_tone: i32,
    /// For a position on an echo (a note its voice just sounded): the first of
    /// repeated notes is the one that belongs to the statement.
    pub echo: i32,

    pub voice_change: i32,
    pub split_chord: i32,
    pub shared: i32,
}

impl Weights {
    pub const DEFAULT: Weights = Weights {
        found: 100,
        missing: 70,
        per_tone: 2,
        far_tone: 10,
        echo: 15,
        voice_change: 25,
        split_chord: 100,
        shared: 10,
    };
}

/// How far the search looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SearchParams {
    /// Most tones between two consecutive positions found.
    pub window: u32,
    /// Gaps longer than this many tones cost [`Weights::far_tone`] more per tone: a
    /// position that far after the previous one is more likely another statement's.
    pub far: u32,
    /// Free tones of the wanted pitch class tried per position.
    pub candidates: usize,
    /// Most positions skipped in a row.
    pub max_skip: u8,
    /// Fewest positions a statement must have.
    pub min_found: u8,
    /// Whether a statement may share another's tones (an elision).
    pub elision: bool,
    pub weights: Weights,
}

/// One reading of a form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Chain {
    /// Index of the form in [`crate::row::RowForm::all`] order.
    pub form: u8,
    /// The tone at each order position, [`NONE`] where missing.
    pub tones: [u32; 12],
    pub score: i32,
    pub found: u8,
    /// The statement whose tail this one's first tones are, and how many.
    pub elided_head: Option<(u32, u8)>,
    /// The statement whose head this one's last tones are, and how many.
    pub elided_tail: Option<(u32, u8)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// On free tones.
    Free,
    /// Still on another statement's tail.
    Prefix,
    /// On another statement's head (to the end).
    Suffix,
}

#[derive(Clone, Copy, Debug)]
struct State {
    tone: u32,
    layer: u8,
    score: i32,
    prev: u32,
    phase: Phase,
    partner: u32,
    partner_pos: u8,
    found: u8,
    shared: u8,
}

/// Reusable buffers for [`Searcher::best`].
#[derive(Debug, Default)]
pub(crate) struct Searcher {
    states: Vec<State>,
    /// `layers[k]`: range of `states` at position `k`.
    layers: [(u32, u32); 12],
    candidates: Vec<u32>,
}

impl Searcher {
    /// The best reading of the form `pcs` (index `form`) that starts with tone `seed`
    /// at order position `start`, given who holds which tone; `None` if it has fewer
    /// than `min_found` positions.
    #[allow(clippy::too_many_arguments)]
    pub fn best(
        &mut self,
        tex: &Texture,
        claims: &[Claim],
        pcs: &[PitchClass; 12],
        form: u8,
        seed: u32,
        start: u8,
        p: &SearchParams,
    ) -> Option<Chain> {
        let w = p.weights;
        let claim = claims[seed as usize];
        let (phase, partner, partner_pos, shared) = if claim.stmt == NONE {
            (Phase::Free, NONE, 0, 0)
        } else if p.elision && claim.is_tail() && start == 0 {
            (Phase::Prefix, claim.stmt, claim.pos, 1)
        } else {
            return None;
        };
        self.states.clear();
        self.layers = [(0, 0); 12];
        self.states.push(State {
            tone: seed,
            layer: start,
            score: w.found - i32::from(start) * w.missing - i32::from(shared) * w.shared,
            prev: NONE,
            phase,
            partner,
            partner_pos,
            found: 1,
            shared,
        });
        self.layers[usize::from(start)] = (0, 1);
        for layer in start + 1..12 {
            self.extend(tex, claims, pcs, layer, start, p);
        }
        let (score, end) = self.finish(p)?;
        Some(self.chain(end, form, score))
    }

    /// Fills the states of position `layer` from the layers before it.
    fn extend(
        &mut self,
        tex: &Texture,
        claims: &[Claim],
        pcs: &[PitchClass; 12],
        layer: u8,
        start: u8,
        p: &SearchParams,
    ) {
        let w = p.weights;
        let first_layer = layer.saturating_sub(p.max_skip + 1).max(start);
        let (from, to) = (
            self.layers[usize::from(first_layer)].0,
            self.layers[usize::from(layer - 1)].1,
        );
        let (mut lowest, mut latest, mut highest) = (u32::MAX, 0u32, 0u32);
        for s in &self.states[from as usize..to as usize] {
            if s.layer < first_layer {
                continue;
            }
            let start = tex.block_start(s.tone);
            lowest = lowest.min(start);
            latest = latest.max(start);
            highest = highest.max(s.tone.saturating_add(p.window));
        }
        let here = u32::try_from(self.states.len()).unwrap_or(u32::MAX);
        self.layers[usize::from(layer)] = (here, here);
        if lowest == u32::MAX {
            return;
        }
        let list = &tex.by_pc[usize::from(pcs[usize::from(layer)])];
        let mut i = list.partition_point(|&t| t < lowest);
        // Free tones of the pitch class from the earliest predecessor on, until
        // `candidates` of them lie at or after the latest one (so every predecessor
        // has some to go to), at most four times that many.
        self.candidates.clear();
        let mut after_latest = 0;
        while let Some(&x) = list.get(i) {
            if x > highest
                || after_latest >= p.candidates
                || self.candidates.len() >= 4 * p.candidates
            {
                break;
            }
            i += 1;
            let c = claims[x as usize];
            let usable = c.stmt == NONE
                || (p.elision && c.is_tail() && layer < MAX_ELISION)
                || (p.elision && c.is_head() && layer >= 12 - MAX_ELISION);
            if usable {
                self.candidates.push(x);
                if x >= latest {
                    after_latest += 1;
                }
            }
        }
        for ci in 0..self.candidates.len() {
            let x = self.candidates[ci];
            let tx = &tex.tones[x as usize];
            let c = claims[x as usize];
            let mut best: Option<State> = None;
            for j in from..to {
                let s = self.states[j as usize];
                if s.layer < first_layer {
                    continue;
                }
                let ts = &tex.tones[s.tone as usize];
                if tx.block < ts.block || x > s.tone.saturating_add(p.window) {
                    continue;
                }
                let adjacent = s.layer + 1 == layer;
                let (phase, partner, partner_pos, shared) = if c.stmt == NONE {
                    let tail_done = s.phase != Phase::Prefix || s.partner_pos == 11;
                    if s.phase == Phase::Suffix || !tail_done {
                        continue;
                    }
                    (Phase::Free, NONE, 0, 0)
                } else if c.is_tail()
                    && s.phase == Phase::Prefix
                    && adjacent
                    && c.stmt == s.partner
                    && c.pos == s.partner_pos + 1
                {
                    (Phase::Prefix, c.stmt, c.pos, 1)
                } else if c.is_head() && adjacent && s.phase == Phase::Suffix {
                    if c.stmt != s.partner || c.pos != s.partner_pos + 1 {
                        continue;
                    }
                    (Phase::Suffix, c.stmt, c.pos, 1)
                } else if c.is_head() && s.phase == Phase::Free && c.pos == 0 {
                    (Phase::Suffix, c.stmt, 0, 1)
                } else {
                    continue;
                };
                let gap = i64::from(x.saturating_sub(s.tone));
                let far = (gap - i64::from(p.far)).max(0);
                let mut cost = i64::from(w.per_tone) * gap
                    + i64::from(w.far_tone) * far
                    + i64::from(w.missing) * i64::from(layer - s.layer - 1)
                    + i64::from(w.shared) * i64::from(shared);
                if tx.echo {
                    cost += i64::from(w.echo);
                }
                if tx.block == ts.block {
                    if tx.events & ts.events == 0 {
                        cost += i64::from(w.split_chord);
                    }
                } else if tx.voices & ts.voices == 0 {
                    cost += i64::from(w.voice_change);
                }
                let score = i64::from(s.score) + i64::from(w.found) - cost;
                let score = i32::try_from(score).unwrap_or(i32::MIN / 2);
                if best.is_none_or(|b| score > b.score) {
                    best = Some(State {
                        tone: x,
                        layer,
                        score,
                        prev: j,
                        phase,
                        partner,
                        partner_pos,
                        found: s.found + 1,
                        shared: s.shared + shared,
                    });
                }
            }
            if let Some(state) = best {
                self.states.push(state);
            }
        }
        self.layers[usize::from(layer)].1 = u32::try_from(self.states.len()).unwrap_or(u32::MAX);
    }

    /// The best complete-enough end state, with its final score.
    fn finish(&self, p: &SearchParams) -> Option<(i32, usize)> {
        let w = p.weights;
        let mut best: Option<(i32, usize)> = None;
        for (i, s) in self.states.iter().enumerate() {
            let ends_shared_early = s.phase == Phase::Suffix && s.layer != 11;
            if s.found < p.min_found || s.phase == Phase::Prefix || ends_shared_early {
                continue;
            }
            let score = s.score - i32::from(11 - s.layer) * w.missing;
            if best.is_none_or(|(b, _)| score > b) {
                best = Some((score, i));
            }
        }
        best
    }

    /// The chain ending at state `end`, scored `score`.
    fn chain(&self, end: usize, form: u8, score: i32) -> Chain {
        let last = self.states[end];
        let mut chain = Chain {
            form,
            tones: [NONE; 12],
            score,
            found: last.found,
            elided_head: None,
            elided_tail: None,
        };
        let mut head = (NONE, 0u8);
        let mut tail = (NONE, 0u8);
        let mut at = end as u32;
        while at != NONE {
            let s = self.states[at as usize];
            chain.tones[usize::from(s.layer)] = s.tone;
            match s.phase {
                Phase::Prefix => head = (s.partner, head.1 + 1),
                Phase::Suffix => tail = (s.partner, tail.1 + 1),
                Phase::Free => {}
            }
            at = s.prev;
        }
        chain.elided_head = (head.1 > 0).then_some(head);
        chain.elided_tail = (tail.1 > 0).then_some(tail);
        chain
    }
}
