//! Repair after selection: giving an incomplete statement the tone it lacks.
//!
//! Taking statements best first can leave one short: when two statements sounding
//! together both need a pitch class and two tones of it are there, the first one taken
//! may have used the tone the second needed, although the other tone would have done
//! for it as well. So for every missing position of every statement, a tone of the
//! right pitch class between its neighbouring positions is taken if it is free, or if
//! the statement holding it (both, for a tone two statements share in an elision) can
//! use another free tone between its own neighbours instead (a swap that loses nothing
//! and completes a position).
//!
//! When no single swap does, the incomplete statement and each statement holding a
//! tone it could use are read again together, in both orders (the one searched first
//! takes what it likes best, the other what is left), and the better pair is kept if
//! it has more positions than before. Each change adds a position, so this ends; it
//! runs a few passes over the statements.

use super::search::{Chain, Claim, NONE, SearchParams, Searcher};
use super::select::{Forms, Selection, take};
use super::texture::Texture;

/// Passes over all statements.
const PASSES: usize = 3;

/// Fills what missing positions it can (see the module docs).
pub(crate) fn repair(tex: &Texture, forms: &Forms, sel: &mut Selection, p: &SearchParams) {
    let mut searcher = Searcher::default();
    for _ in 0..PASSES {
        // Free tones first go to the statements that lack them; only then are
        // elisions and pairs read again (which may take free tones too).
        let mut changed = fill_all(tex, forms, sel, p.window);
        for s in 0..sel.statements.len() {
            changed |= unelide(tex, forms, sel, &mut searcher, p, s);
        }
        changed |= fill_all(tex, forms, sel, p.window);
        let spans = Spans::new(sel);
        for v in 0..sel.statements.len() {
            if sel.statements[v].found < 12 {
                for s in rivals(tex, forms, sel, &spans, v, p.window) {
                    if reroute(tex, forms, sel, &mut searcher, p, v, s) {
                        changed = true;
                        break;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
}

/// Fills missing positions until none can be; whether any was.
fn fill_all(tex: &Texture, forms: &Forms, sel: &mut Selection, window: u32) -> bool {
    let mut any = false;
    loop {
        let mut filled = false;
        for v in 0..sel.statements.len() {
            for k in 0..12 {
                if sel.statements[v].tones[k] == NONE && fill(tex, forms, sel, v, k, window) {
                    filled = true;
                }
            }
        }
        any |= filled;
        if !filled {
            return any;
        }
    }
}

/// Reads statement `s` again without sharing, if it shares another's notes, and
/// keeps that reading if it sounds more notes of its own: an elision is a reading
/// of last resort, and one found while the statement's own notes were still held
/// elsewhere may be a misreading. Whether it changed.
fn unelide(
    tex: &Texture,
    forms: &Forms,
    sel: &mut Selection,
    searcher: &mut Searcher,
    p: &SearchParams,
    s: usize,
) -> bool {
    let old = sel.statements[s];
    if old.elided_head.is_none() && old.elided_tail.is_none() {
        return false;
    }
    let before = old
        .tones
        .iter()
        .filter(|&&t| t != NONE && sel.claims[t as usize].stmt as usize == s)
        .count();
    let Some(first) = (0..12).find(|&k| {
        let t = old.tones[k];
        t != NONE && sel.claims[t as usize].stmt as usize == s
    }) else {
        return false;
    };
    for &t in &old.tones {
        if t == NONE {
            continue;
        }
        let c = &mut sel.claims[t as usize];
        if c.stmt as usize == s {
            *c = Claim::FREE;
        } else {
            c.sharer = NONE;
        }
    }
    let alone = SearchParams {
        elision: false,
        ..*p
    };
    let pcs = &forms.pcs[usize::from(old.form)];
    let anchor = old.tones[first];
    let mut seeds: Vec<(u32, u8)> = vec![(anchor, first as u8)];
    for k in 0..=super::select::MAX_START {
        let list = &tex.by_pc[usize::from(pcs[usize::from(k)])];
        let from = list.partition_point(|&t| t < anchor.saturating_sub(p.window));
        for &t in list[from..].iter().take_while(|&&t| t <= anchor) {
            if sel.claims[t as usize].stmt == NONE {
                seeds.push((t, k));
            }
        }
    }
    let best = seeds
        .into_iter()
        .filter_map(|(t, k)| searcher.best(tex, &sel.claims, pcs, old.form, t, k, &alone))
        .max_by_key(|c| c.score);
    // Read without sharing, every tone of the new reading is its own.
    if let Some(chain) = best.filter(|c| usize::from(c.found) > before) {
        take(&mut sel.claims, &chain, s as u32);
        sel.statements[s] = chain;
        return true;
    }
    take(&mut sel.claims, &old, s as u32);
    false
}

/// Where each statement begins and ends (its first and last tones), sorted by
/// beginning, to find the statements sounding together without scanning them all.
struct Spans {
    /// `(first, last, statement)`.
    spans: Vec<(u32, u32, usize)>,
    longest: u32,
}

impl Spans {
    fn new(sel: &Selection) -> Spans {
        let mut spans: Vec<(u32, u32, usize)> = sel
            .statements
            .iter()
            .enumerate()
            .filter_map(|(s, c)| {
                let found = c.tones.iter().filter(|&&t| t != NONE).copied();
                Some((found.clone().min()?, found.max()?, s))
            })
            .collect();
        spans.sort_unstable();
        let longest = spans.iter().map(|&(a, b, _)| b - a).max().unwrap_or(0);
        Spans { spans, longest }
    }

    /// Statements whose span (as indexed) meets `lo..=hi`, nearest beginning first.
    fn meeting(&self, lo: u32, hi: u32) -> Vec<(u32, usize)> {
        let from = self
            .spans
            .partition_point(|&(a, _, _)| a < lo.saturating_sub(self.longest));
        let mut out: Vec<(u32, usize)> = self.spans[from..]
            .iter()
            .take_while(|&&(a, _, _)| a <= hi)
            .filter(|&&(_, b, _)| b >= lo)
            .map(|&(a, _, s)| (a.abs_diff(lo), s))
            .collect();
        out.sort_unstable();
        out
    }
}

/// Statements holding a tone that could sound a missing position of `v`, then the
/// others sounding while `v` does (nearest first).
fn rivals(
    tex: &Texture,
    forms: &Forms,
    sel: &Selection,
    spans: &Spans,
    v: usize,
    window: u32,
) -> Vec<usize> {
    let pcs = &forms.pcs[usize::from(sel.statements[v].form)];
    let mut out: Vec<usize> = Vec::new();
    for (k, &pc) in pcs.iter().enumerate() {
        if sel.statements[v].tones[k] != NONE {
            continue;
        }
        for x in slot(tex, sel, v, k, pc, window) {
            let c = sel.claims[x as usize];
            if c.stmt != NONE && c.stmt as usize != v && !out.contains(&(c.stmt as usize)) {
                out.push(c.stmt as usize);
            }
        }
    }
    let found = sel.statements[v]
        .tones
        .iter()
        .filter(|&&t| t != NONE)
        .copied();
    let (Some(lo), Some(hi)) = (found.clone().min(), found.max()) else {
        return out;
    };
    let near = spans
        .meeting(lo, hi)
        .into_iter()
        .map(|(_, s)| s)
        .filter(|&s| s != v && !out.contains(&s))
        .take(MAX_RIVALS)
        .collect::<Vec<_>>();
    out.extend(near);
    out
}

/// Statements sounding at the same time tried as partners of an incomplete one.
const MAX_RIVALS: usize = 6;

/// Whether statement `s` shares tones with another (an elision): it is left alone.
fn elided(sel: &Selection, s: usize) -> bool {
    let c = &sel.statements[s];
    c.elided_head.is_some()
        || c.elided_tail.is_some()
        || c.tones
            .iter()
            .any(|&t| t != NONE && sel.claims[t as usize].shared())
}

/// Frees the tones of statement `s`.
fn release(sel: &mut Selection, s: usize) {
    for t in sel.statements[s].tones {
        if t != NONE && sel.claims[t as usize].stmt as usize == s {
            sel.claims[t as usize] = Claim::FREE;
        }
    }
}

/// Where statement `s` begins: its first tone and that tone's position.
fn seed(chain: &Chain) -> Option<(u32, u8)> {
    (0..12u8)
        .find(|&k| chain.tones[usize::from(k)] != NONE)
        .map(|k| (chain.tones[usize::from(k)], k))
}

/// Where a statement read again may begin: where it began (`anchor`, a tone and its
/// position), or on a free tone of one of its first three pitch classes near there.
fn seeds_near(
    tex: &Texture,
    sel: &Selection,
    pcs: &[u8; 12],
    anchor: (u32, u8),
    window: u32,
) -> Vec<(u32, u8)> {
    let mut out = vec![anchor];
    let (lo, hi) = (
        anchor.0.saturating_sub(window / 2),
        anchor.0.saturating_add(window / 2),
    );
    for k in 0..=super::select::MAX_START {
        let list = &tex.by_pc[usize::from(pcs[usize::from(k)])];
        let from = list.partition_point(|&t| t < lo);
        for &t in list[from..].iter().take_while(|&&t| t <= hi) {
            if sel.claims[t as usize].stmt == NONE && !out.contains(&(t, k)) {
                out.push((t, k));
            }
        }
    }
    out
}

/// Reads statements `v` and `s` again together (see the module docs); whether the
/// pair gained positions.
fn reroute(
    tex: &Texture,
    forms: &Forms,
    sel: &mut Selection,
    searcher: &mut Searcher,
    p: &SearchParams,
    v: usize,
    s: usize,
) -> bool {
    if elided(sel, v) || elided(sel, s) {
        return false;
    }
    let old = [sel.statements[v], sel.statements[s]];
    let (Some(seed_v), Some(seed_s)) = (seed(&old[0]), seed(&old[1])) else {
        return false;
    };
    let before = (
        u32::from(old[0].found) + u32::from(old[1].found),
        old[0].score + old[1].score,
    );
    release(sel, v);
    release(sel, s);
    let mut best: Option<((u32, i32), [Chain; 2])> = None;
    for order in [[(v, seed_v), (s, seed_s)], [(s, seed_s), (v, seed_v)]] {
        let mut got: Vec<(usize, Chain)> = Vec::with_capacity(2);
        for (x, anchor) in order {
            let form = sel.statements[x].form;
            let pcs = &forms.pcs[usize::from(form)];
            let found = seeds_near(tex, sel, pcs, anchor, p.window)
                .into_iter()
                .filter_map(|(t, k)| searcher.best(tex, &sel.claims, pcs, form, t, k, p))
                .max_by_key(|c| (c.found, c.score));
            if let Some(chain) = found {
                take(&mut sel.claims, &chain, x as u32);
                got.push((x, chain));
            }
        }
        for &(x, _) in &got {
            sel.statements[x] = got
                .iter()
                .find(|g| g.0 == x)
                .map_or(sel.statements[x], |g| g.1);
            release(sel, x);
        }
        if got.len() == 2 {
            let pair = if got[0].0 == v {
                [got[0].1, got[1].1]
            } else {
                [got[1].1, got[0].1]
            };
            let value = (
                u32::from(pair[0].found) + u32::from(pair[1].found),
                pair[0].score + pair[1].score,
            );
            if best.as_ref().is_none_or(|(b, _)| value > *b) {
                best = Some((value, pair));
            }
        }
    }
    let (chosen, gained) = match best {
        Some((value, pair)) if value.0 > before.0 => (pair, true),
        _ => (old, false),
    };
    sel.statements[v] = chosen[0];
    sel.statements[s] = chosen[1];
    take(&mut sel.claims, &chosen[0], v as u32);
    take(&mut sel.claims, &chosen[1], s as u32);
    gained
}

/// The tones between which position `k` of statement `s` must sound: the nearest
/// found positions before and after it (either may be absent).
pub(crate) fn neighbours(sel: &Selection, s: usize, k: usize) -> (Option<u32>, Option<u32>) {
    let tones = &sel.statements[s].tones;
    let before = tones[..k].iter().rev().copied().find(|&t| t != NONE);
    let after = tones[k + 1..].iter().copied().find(|&t| t != NONE);
    (before, after)
}

/// Tones of pitch class `pc` that may sound position `k` of statement `s`, nearest
/// to its neighbours first.
pub(crate) fn slot(
    tex: &Texture,
    sel: &Selection,
    s: usize,
    k: usize,
    pc: u8,
    window: u32,
) -> Vec<u32> {
    let (before, after) = neighbours(sel, s, k);
    let (lo, hi) = match (before, after) {
        (Some(b), Some(_)) => (tex.block_start(b), u32::MAX),
        (Some(b), None) => (tex.block_start(b), b.saturating_add(window)),
        (None, Some(a)) => (a.saturating_sub(window), a),
        (None, None) => return Vec::new(),
    };
    let block_of = |t: u32| tex.tones[t as usize].block;
    let list = &tex.by_pc[usize::from(pc)];
    let from = list.partition_point(|&t| t < lo);
    let mut out: Vec<u32> = list[from..]
        .iter()
        .copied()
        .take_while(|&t| after.is_none_or(|a| block_of(t) <= block_of(a)) && t <= hi)
        .filter(|&t| before.is_none_or(|b| block_of(t) >= block_of(b)))
        .collect();
    // Nearest the previous position first (a line goes on as soon as it can).
    out.sort_by_key(|&t| t.abs_diff(before.unwrap_or(t)));
    out
}

/// Tries to give position `k` of statement `v` a tone; whether it did.
fn fill(
    tex: &Texture,
    forms: &Forms,
    sel: &mut Selection,
    v: usize,
    k: usize,
    window: u32,
) -> bool {
    let pc = forms.pcs[usize::from(sel.statements[v].form)][k];
    for x in slot(tex, sel, v, k, pc, window) {
        let claim = sel.claims[x as usize];
        if claim.stmt == NONE {
            put(sel, v, k, x);
            return true;
        }
        if claim.stmt as usize == v || sel.statements[v].tones.contains(&x) {
            continue;
        }
        if free_up(tex, sel, x, pc, window) {
            put(sel, v, k, x);
            return true;
        }
    }
    false
}

/// Moves whoever holds tone `x` (of pitch class `pc`) to another tone that fits
/// them as well — both statements of an elision, if `x` is shared — a free one, or
/// one whose holder can in turn move (up to [`DEPTH`] holders in a chain); whether
/// it could.
pub(crate) fn free_up(tex: &Texture, sel: &mut Selection, x: u32, pc: u8, window: u32) -> bool {
    free_up_within(tex, sel, x, pc, window, DEPTH, &mut Vec::new())
}

/// Holders moved in a chain at most, to free one tone.
const DEPTH: usize = 3;

fn free_up_within(
    tex: &Texture,
    sel: &mut Selection,
    x: u32,
    pc: u8,
    window: u32,
    depth: usize,
    visiting: &mut Vec<u32>,
) -> bool {
    let claim = sel.claims[x as usize];
    if claim.stmt == NONE {
        return true;
    }
    if depth == 0 {
        return false;
    }
    let (s, j) = (claim.stmt as usize, usize::from(claim.pos));
    let partner = sharer(sel, claim, x);
    if claim.shared() && partner.is_none() {
        return false;
    }
    visiting.push(x);
    let options: Vec<u32> = slot(tex, sel, s, j, pc, window)
        .into_iter()
        .filter(|&y| {
            !visiting.contains(&y)
                && !sel.claims[y as usize].shared()
                && partner.is_none_or(|(t, i)| slot(tex, sel, t, i, pc, window).contains(&y))
        })
        .collect();
    // Free tones first, then tones whose holders can move on.
    let (free, held): (Vec<u32>, Vec<u32>) = options
        .into_iter()
        .partition(|&y| sel.claims[y as usize].stmt == NONE);
    let mut moved = None;
    for y in free.into_iter().chain(held) {
        if sel.claims[y as usize].stmt == NONE
            || (partner.is_none() && free_up_within(tex, sel, y, pc, window, depth - 1, visiting))
        {
            moved = Some(y);
            break;
        }
    }
    visiting.pop();
    let Some(y) = moved else {
        return partner.is_none() && elide_instead(tex, sel, x, s, j, pc, window);
    };
    sel.claims[x as usize] = Claim::FREE;
    put(sel, s, j, y);
    if let Some((t, i)) = partner {
        sel.statements[t].tones[i] = y;
        sel.claims[y as usize].sharer = t as u32;
    }
    true
}

/// Frees tone `x`, position `j` of statement `s`, by letting `s` share another
/// statement's last note instead when `x` is `s`'s first (or share its first when
/// `x` is `s`'s last): an elision of one note; whether it could.
fn elide_instead(
    tex: &Texture,
    sel: &mut Selection,
    x: u32,
    s: usize,
    j: usize,
    pc: u8,
    window: u32,
) -> bool {
    let (edge, other_edge) = match j {
        0 if sel.statements[s].elided_head.is_none() => (0usize, 11u8),
        11 if sel.statements[s].elided_tail.is_none() => (11, 0),
        _ => return false,
    };
    let shareable = slot(tex, sel, s, edge, pc, window).into_iter().find(|&y| {
        let c = sel.claims[y as usize];
        y != x && c.stmt != NONE && c.stmt as usize != s && !c.shared() && c.pos == other_edge
    });
    let Some(y) = shareable else {
        return false;
    };
    let partner = sel.claims[y as usize].stmt;
    sel.claims[x as usize] = Claim::FREE;
    sel.claims[y as usize].sharer = s as u32;
    let chain = &mut sel.statements[s];
    chain.tones[edge] = y;
    if edge == 0 {
        chain.elided_head = Some((partner, 1));
    } else {
        chain.elided_tail = Some((partner, 1));
    }
    true
}

/// The statement sharing tone `x` (held as `claim`), and at which position.
fn sharer(sel: &Selection, claim: Claim, x: u32) -> Option<(usize, usize)> {
    let t = claim.sharer;
    if t == NONE {
        return None;
    }
    let chain = sel.statements.get(t as usize)?;
    chain
        .tones
        .iter()
        .position(|&u| u == x)
        .map(|i| (t as usize, i))
}

/// Tone `t` becomes position `k` of statement `s`.
pub(crate) fn put(sel: &mut Selection, s: usize, k: usize, t: u32) {
    let chain = &mut sel.statements[s];
    if chain.tones[k] == NONE {
        chain.found += 1;
    }
    chain.tones[k] = t;
    sel.claims[t as usize] = Claim {
        stmt: s as u32,
        pos: k as u8,
        sharer: NONE,
    };
}
