//! Canons decide what pitch alone cannot.
//!
//! Two statements sounding together may both want a pitch class that two notes
//! close together sound; pitch and time order do not say which note is whose, and the
//! search gives the earlier note to the statement taken first. When the two are in
//! canon — most of their positions sound at one fixed delay — the canon says it: the
//! follower's note is the one a delay after the leader's. So for each pair of
//! statements whose positions mostly keep one delay, every position that does not is
//! given the tone at the canonic time, when one of the right pitch class is there and
//! fits between its neighbours, and its holder can take the tone it gives up (a swap),
//! or the tone is free and the position was missing.

use super::repair::{free_up, put, slot};
use super::search::NONE;
use super::select::{Forms, Selection};
use super::texture::Texture;

/// Positions that must keep the delay for a pair to count as a canon being aligned.
const AGREEING: usize = 6;

/// Aligns every near-canon of the selection (see the module docs).
pub(crate) fn align(tex: &Texture, forms: &Forms, sel: &mut Selection, window: u32) {
    let onset = |t: u32| tex.tones[t as usize].onset;
    let mut spans: Vec<(i64, i64, usize)> = sel
        .statements
        .iter()
        .enumerate()
        .filter_map(|(s, c)| {
            let found = c.tones.iter().filter(|&&t| t != NONE).map(|&t| onset(t));
            Some((found.clone().min()?, found.max()?, s))
        })
        .collect();
    spans.sort();
    for i in 0..spans.len() {
        let (first, last, a) = spans[i];
        for &(b_first, _, b) in &spans[i + 1..] {
            if b_first > last {
                break;
            }
            if b_first == first {
                continue;
            }
            if let Some(delay) = delay(tex, sel, a, b) {
                for k in 0..12 {
                    settle(tex, forms, sel, a, b, k, delay, window);
                }
            }
        }
    }
}

/// The delay most positions of `b` keep after `a`'s, if at least [`AGREEING`] do.
fn delay(tex: &Texture, sel: &Selection, a: usize, b: usize) -> Option<i64> {
    let onset = |t: u32| tex.tones[t as usize].onset;
    let (ca, cb) = (&sel.statements[a], &sel.statements[b]);
    let delays: Vec<i64> = (0..12)
        .filter(|&k| ca.tones[k] != NONE && cb.tones[k] != NONE)
        .map(|k| onset(cb.tones[k]) - onset(ca.tones[k]))
        .collect();
    let (d, n) = delays
        .iter()
        .map(|&d| (d, delays.iter().filter(|&&e| e == d).count()))
        .max_by_key(|&(d, n)| (n, -d))?;
    (d > 0 && (AGREEING..12).contains(&n)).then_some(d)
}

/// Makes position `k` of `a` and `b` keep `delay`, if a swap or a free tone can.
#[allow(clippy::too_many_arguments)]
fn settle(
    tex: &Texture,
    forms: &Forms,
    sel: &mut Selection,
    a: usize,
    b: usize,
    k: usize,
    delay: i64,
    window: u32,
) {
    let onset = |t: u32| tex.tones[t as usize].onset;
    let (ta, tb) = (sel.statements[a].tones[k], sel.statements[b].tones[k]);
    if ta == NONE && tb == NONE {
        return;
    }
    if ta == NONE {
        place(tex, forms, sel, a, k, onset(tb) - delay, window);
    } else if tb == NONE {
        place(tex, forms, sel, b, k, onset(ta) + delay, window);
    } else if onset(tb) - onset(ta) != delay
        && !place(tex, forms, sel, b, k, onset(ta) + delay, window)
    {
        place(tex, forms, sel, a, k, onset(tb) - delay, window);
    }
}

/// Gives position `k` of statement `s` the tone of its pitch class sounding at
/// `at` (ticks), if it fits and its holder can move; whether it did.
fn place(
    tex: &Texture,
    forms: &Forms,
    sel: &mut Selection,
    s: usize,
    k: usize,
    at: i64,
    window: u32,
) -> bool {
    let pc = forms.pcs[usize::from(sel.statements[s].form)][k];
    let Some(y) = slot(tex, sel, s, k, pc, window)
        .into_iter()
        .find(|&t| tex.tones[t as usize].onset == at)
    else {
        return false;
    };
    let x = sel.statements[s].tones[k];
    let claim = sel.claims[y as usize];
    if claim.stmt == NONE {
        if x != NONE {
            return false;
        }
        put(sel, s, k, y);
        return true;
    }
    if claim.shared() || claim.stmt as usize == s {
        return false;
    }
    let (holder, j) = (claim.stmt as usize, usize::from(claim.pos));
    if x == NONE {
        if free_up(tex, sel, y, pc, window) {
            put(sel, s, k, y);
            return true;
        }
        return false;
    }
    // A swap: the holder takes `x`, if `x` fits between its neighbours.
    if sel.claims[x as usize].shared() || !slot(tex, sel, holder, j, pc, window).contains(&x) {
        return false;
    }
    put(sel, holder, j, x);
    put(sel, s, k, y);
    true
}
