//! Choosing the statements: the readings that together explain the texture.
//!
//! Every tone seeds a search for every distinct form that has the tone's pitch class
//! among its first [`MAX_START`] + 1 positions (a statement may lack its opening). The
//! readings are then taken best first, lazily: the best one is searched again against
//! the tones taken so far; if its score has not dropped it is taken (nothing left can
//! beat it, since taking tones only ever lowers a score), otherwise it goes back with
//! its new score. A reading that took another statement's tones is thus searched again
//! without them, and finds its own.
//!
//! Cost: `12 · T` searches of at most `12 · (max_skip + 1) · candidates²` steps for
//! `T` tones, then one search per re-queued reading — linear in the number of notes
//! for a given row. The heap holds one entry per viable seed.

use super::search::{Chain, Claim, NONE, SearchParams, Searcher};
use super::texture::Texture;
use crate::row::{FormTable, PitchClass, RowForm};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Latest order position a statement may begin on (0-based).
pub(crate) const MAX_START: u8 = 2;

/// The distinct forms of a row (one per pitch-class sequence: a symmetric row has 24).
#[derive(Clone, Debug)]
pub(crate) struct Forms {
    /// Index in [`RowForm::all`] order of each distinct form's first label.
    pub index: Vec<u8>,
    pub pcs: Vec<[PitchClass; 12]>,
    /// `position[f][pc]`: order position of `pc` in distinct form `f`.
    pub position: Vec<[u8; 12]>,
}

impl Forms {
    /// The distinct forms in `table` (its convention does not matter here).
    pub fn new(table: &FormTable) -> Forms {
        let mut forms = Forms {
            index: Vec::new(),
            pcs: Vec::new(),
            position: Vec::new(),
        };
        for form in RowForm::all() {
            let pcs = *table.pcs(form);
            if forms.pcs.contains(&pcs) {
                continue;
            }
            let mut position = [0u8; 12];
            for (k, &pc) in pcs.iter().enumerate() {
                position[usize::from(pc)] = k as u8;
            }
            forms.index.push(form.index() as u8);
            forms.pcs.push(pcs);
            forms.position.push(position);
        }
        forms
    }
}

/// The statements chosen, in the order they were taken, and who holds each tone.
#[derive(Clone, Debug)]
pub(crate) struct Selection {
    /// Each chain's `form` is an index into [`Forms`] (not a label index).
    pub statements: Vec<Chain>,
    pub claims: Vec<Claim>,
}

/// One queued reading: score, then seed order (earlier wins ties).
type Entry = (i32, Reverse<u64>, u32, u16, u8);

/// Chooses statements of `forms` in `tex`: first exact canons, both strands read
/// together (`strands.rs`: the strands may share notes), then the tight statements
/// (every position within `tight` tones of the previous, none missing), then, among
/// the tones left, any the full parameters `p` allow. Readings that are certain are
/// taken before loose ones can borrow their notes.
pub(crate) fn select(
    tex: &Texture,
    forms: &Forms,
    p: &SearchParams,
    tight: &SearchParams,
) -> Selection {
    let mut sel = Selection {
        statements: Vec::new(),
        claims: vec![Claim::FREE; tex.tones.len()],
    };
    let mut searcher = Searcher::default();
    super::strands::canons(tex, forms, p, &mut sel);
    for params in [tight, p] {
        pass(tex, forms, params, &mut sel, &mut searcher);
    }
    sel
}

/// One lazy best-first pass with `p`, adding to `sel`.
fn pass(
    tex: &Texture,
    forms: &Forms,
    p: &SearchParams,
    sel: &mut Selection,
    searcher: &mut Searcher,
) {
    let mut heap: BinaryHeap<Entry> = BinaryHeap::new();
    for (t, tone) in tex.tones.iter().enumerate() {
        let t = t as u32;
        for f in 0..forms.pcs.len() {
            let start = forms.position[f][usize::from(tone.pc)];
            // A statement may lack at most 12 - min_found positions, its first ones
            // among them.
            if start > MAX_START || start > 12 - p.min_found.min(12) {
                continue;
            }
            let order = u64::from(t) * 64 + f as u64;
            if let Some(chain) =
                searcher.best(tex, &sel.claims, &forms.pcs[f], f as u8, t, start, p)
            {
                heap.push((chain.score, Reverse(order), t, f as u16, start));
            }
        }
    }
    while let Some((score, order, seed, f, start)) = heap.pop() {
        let f = usize::from(f);
        let Some(chain) = searcher.best(tex, &sel.claims, &forms.pcs[f], f as u8, seed, start, p)
        else {
            continue;
        };
        if chain.score < score {
            heap.push((chain.score, order, seed, f as u16, start));
            continue;
        }
        take(&mut sel.claims, &chain, sel.statements.len() as u32);
        sel.statements.push(chain);
    }
}

/// Marks the tones of `chain` as statement `id`'s (or as shared, for an elision).
pub(crate) fn take(claims: &mut [Claim], chain: &Chain, id: u32) {
    for (pos, &t) in chain.tones.iter().enumerate() {
        if t == NONE {
            continue;
        }
        let c = &mut claims[t as usize];
        if c.stmt == NONE {
            *c = Claim {
                stmt: id,
                pos: pos as u8,
                sharer: NONE,
            };
        } else {
            c.sharer = id;
        }
    }
}
