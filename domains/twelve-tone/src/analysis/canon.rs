//! Canons: two statements whose order positions sound at the same distances, the
//! follower a fixed delay after the leader (all but at most two positions), the follower's form a transposition,
//! inversion, retrograde or retrograde inversion of the leader's.
//!
//! Statements are taken in onset order and each is compared with those that begin
//! while it still sounds, so the cost is the number of statements times the number
//! sounding together.

use super::report::CanonRelation;
use super::search::NONE;
use super::select::{Forms, Selection};
use super::texture::Texture;
use crate::row::theory::{add12, sub12};
use crate::row::{FormKind, FormTable, PitchClass, RowForm};

/// A canon between two selection statements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    pub leader: usize,
    pub follower: usize,
    pub relation: CanonRelation,
    pub interval: PitchClass,
    /// Ticks.
    pub delay: i64,
    pub positions: u8,
    /// Positions (1-based) found in both that do not keep the delay.
    pub free_positions: Vec<u8>,
}

/// Most aligned positions of a canon that may leave its delay (a canon with a free
/// note or two is still a canon).
const MAX_FREE: usize = 2;

/// The most common delay (the earliest position's, on ties) and how many have it.
fn commonest(delays: &[(u8, i64)]) -> Option<(i64, usize)> {
    let mut best: Option<(i64, usize)> = None;
    for &(_, d) in delays {
        let n = delays.iter().filter(|&&(_, e)| e == d).count();
        if best.is_none_or(|(_, m)| n > m) {
            best = Some((d, n));
        }
    }
    best
}

/// The relation taking form `a` to form `b` (zero-centred labels).
pub(crate) fn relation(a: RowForm, b: RowForm) -> (CanonRelation, PitchClass) {
    use FormKind::{I, P, R, RI};
    match (a.kind, b.kind) {
        (P, P) | (I, I) | (R, R) | (RI, RI) => (CanonRelation::Transposition, sub12(b.n, a.n)),
        (P, I) | (I, P) | (R, RI) | (RI, R) => (CanonRelation::Inversion, add12(a.n, b.n)),
        (P, R) | (R, P) | (I, RI) | (RI, I) => (CanonRelation::Retrograde, sub12(b.n, a.n)),
        (P, RI) | (RI, P) | (I, R) | (R, I) => {
            (CanonRelation::RetrogradeInversion, add12(a.n, b.n))
        }
    }
}

/// The simplest relation between any label of `a` and any label of `b`.
fn simplest(
    table: &FormTable,
    a: &[PitchClass; 12],
    b: &[PitchClass; 12],
) -> (CanonRelation, PitchClass) {
    let rank = |r: CanonRelation| match r {
        CanonRelation::Transposition => 0,
        CanonRelation::Inversion => 1,
        CanonRelation::Retrograde => 2,
        CanonRelation::RetrogradeInversion => 3,
    };
    let mut best: Option<(CanonRelation, PitchClass)> = None;
    for &la in &table.labels_of(a) {
        for &lb in &table.labels_of(b) {
            let r = relation(la, lb);
            if best.is_none_or(|(br, bi)| (rank(r.0), r.1) < (rank(br), bi)) {
                best = Some(r);
            }
        }
    }
    best.unwrap_or((CanonRelation::Transposition, 0))
}

/// Every canon among the selection's statements with at least `min_positions`
/// aligned positions.
pub(crate) fn canons(
    tex: &Texture,
    sel: &Selection,
    forms: &Forms,
    zero: &FormTable,
    min_positions: u8,
) -> Vec<Found> {
    let onset = |t: u32| tex.tones[t as usize].onset;
    let spans: Vec<(i64, i64, usize)> = sel
        .statements
        .iter()
        .enumerate()
        .filter_map(|(s, c)| {
            let found = c.tones.iter().filter(|&&t| t != NONE).map(|&t| onset(t));
            let first = found.clone().min()?;
            Some((first, found.max().unwrap_or(first), s))
        })
        .collect();
    let mut spans = spans;
    spans.sort();
    let mut out = Vec::new();
    for (i, &(first, last, a)) in spans.iter().enumerate() {
        for &(b_first, _, b) in &spans[i + 1..] {
            if b_first > last {
                break;
            }
            let (ca, cb) = (&sel.statements[a], &sel.statements[b]);
            let delays: Vec<(u8, i64)> = (0..12u8)
                .filter_map(|k| {
                    let (ta, tb) = (ca.tones[usize::from(k)], cb.tones[usize::from(k)]);
                    (ta != NONE && tb != NONE).then(|| (k, onset(tb) - onset(ta)))
                })
                .collect();
            let Some((delay, agreeing)) = commonest(&delays) else {
                continue;
            };
            let free = delays.len() - agreeing;
            if delay <= 0
                || agreeing < usize::from(min_positions)
                || free > MAX_FREE
                || first == b_first
            {
                continue;
            }
            let free_positions = delays
                .iter()
                .filter(|&&(_, d)| d != delay)
                .map(|&(k, _)| k + 1)
                .collect();
            let (relation, interval) = simplest(
                zero,
                &forms.pcs[usize::from(ca.form)],
                &forms.pcs[usize::from(cb.form)],
            );
            out.push(Found {
                leader: a,
                follower: b,
                relation,
                interval,
                delay,
                positions: agreeing as u8,
                free_positions,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relations_follow_the_label_arithmetic() {
        let f = |kind, n| RowForm::new(kind, n);
        assert_eq!(
            relation(f(FormKind::P, 2), f(FormKind::P, 9)),
            (CanonRelation::Transposition, 7)
        );
        assert_eq!(
            relation(f(FormKind::P, 9), f(FormKind::I, 9)),
            (CanonRelation::Inversion, 6)
        );
        assert_eq!(
            relation(f(FormKind::I, 4), f(FormKind::RI, 1)),
            (CanonRelation::Retrograde, 9)
        );
        assert_eq!(
            relation(f(FormKind::R, 3), f(FormKind::I, 5)),
            (CanonRelation::RetrogradeInversion, 8)
        );
    }
}
