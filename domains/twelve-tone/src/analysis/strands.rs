//! Parallel statements: the two strands of a canon, read together.
//!
//! Two statements in flight at once, one sounding each order position a fixed time
//! after the other (a canon, by transposition, inversion, retrograde or retrograde
//! inversion) and interleaved with it note by note, defeat a search that reads one
//! statement at a time: where the strands meet on a pitch class the two readings
//! can trade notes (a reading takes its partner's note a slot early, as a chord), and
//! where they meet on a note — a mirror canon's axis — whichever is read first takes
//! it and leaves the other short. Read together, the strands decide each other: the
//! follower's position `k` must sound exactly `d` after the leader's.
//!
//! So before statements are read one at a time, pairs are read strand by strand. A
//! pair begins on a leader tone `t` (position 1 of a form `f`) and a follower tone
//! `u` among the [`SEEDS`] tones after it (position 1 of a form `g`, `d` = their
//! distance in time); then for each order position the leader takes the earliest
//! of the next [`TRIES`] tones of its pitch class (at later onsets, within
//! [`super::WINDOW`] tones of its last) for which the follower has a tone of its own
//! pitch class exactly `d` later, lasting as long (a canon imitates rhythm as well as
//! pitch). The strands must interleave: each follower note sounds before the
//! leader's note after next. Canons whose follower enters later (Webern's, two bars
//! on) need no help — their strands do not trade notes — and are left to the usual
//! reading, which `canon.rs` reports. A tone may be both strands' (then the two share it). A pair is kept only
//! if both strands sound all twelve positions so, on tones no statement holds yet.
//! By chance that is all but impossible — twenty-four pitch classes, twelve onsets
//! and twelve durations must agree. Leader tones are taken in onset order; where
//! one canon's strands can also be read as another pair from the same tone (each
//! strand taking every other note of both, in a texture of even rhythm), the tighter
//! reading — the canon moving at every onset — is the one taken. Inexact canons (a free note or two, a chord in a strand,
//! a note repeated or shortened) are left to the usual reading, which `canon.rs` then
//! reports as canons too.
//!
//! Cost: each tone starts at most four leader forms (eight for a symmetric row); for
//! each, the leader's second tone and each of the [`SEEDS`] follower seeds, one
//! binary search over the blocks and a pitch-class mask test per follower form
//! decide whether a pair can begin — `O(T · SEEDS · log B)` for `T` tones and `B`
//! onsets; a pair that passes is read in at most twelve steps of a binary search
//! and a hash lookup. Linear in the number of notes (up to the logarithm).

use super::search::{Chain, Claim, NONE, SearchParams};
use super::select::{Forms, Selection};
use super::texture::Texture;

/// One strand: its form (index into the distinct forms) and its tone at each
/// order position.
type Strand = (u8, [u32; 12]);

/// Tones after a leader tone where its follower may begin.
pub(crate) const SEEDS: u32 = 32;

/// Reads every exact canon pair of `tex` (see the module docs) into `sel`; returns
/// how many statements were added.
pub(crate) fn canons(tex: &Texture, forms: &Forms, p: &SearchParams, sel: &mut Selection) -> usize {
    let mut starts: [Vec<u8>; 12] = Default::default();
    for (f, pcs) in forms.pcs.iter().enumerate() {
        starts[usize::from(pcs[0])].push(f as u8);
    }
    let masks: Vec<u16> = tex
        .blocks
        .iter()
        .enumerate()
        .map(|(b, &first)| {
            let end = tex
                .blocks
                .get(b + 1)
                .copied()
                .unwrap_or(tex.tones.len() as u32);
            (first..end).fold(0u16, |m, t| m | 1 << tex.tones[t as usize].pc)
        })
        .collect();
    let before = sel.statements.len();
    let count = tex.tones.len() as u32;
    // Leader tones in onset order; from each, every exact pair, the tightest taken:
    // where the strands of one canon can also be read as another (each strand
    // skipping every other note of both), the canon moving at every onset is the
    // one written.
    for t in 0..count {
        if sel.claims[t as usize].stmt != NONE {
            continue;
        }
        let mut best: Option<(i64, Strand, Strand)> = None;
        for &f in &starts[usize::from(tex.tones[t as usize].pc)] {
            let fp = &forms.pcs[usize::from(f)];
            let seconds: Vec<u32> = next_tones(tex, sel, fp[1], t, p.window, &[])
                .take(TRIES)
                .collect();
            if seconds.is_empty() {
                continue;
            }
            for u in t + 1..count.min(t + 1 + SEEDS) {
                let d = tex.tones[u as usize].onset - tex.tones[t as usize].onset;
                if d <= 0 || sel.claims[u as usize].stmt != NONE {
                    continue;
                }
                for &g in &starts[usize::from(tex.tones[u as usize].pc)] {
                    let gp = &forms.pcs[usize::from(g)];
                    // The follower's second position must sound d after a leader's second.
                    let possible = seconds.iter().any(|&x| {
                        let at = &tex.tones[x as usize];
                        if at.grace < 0 {
                            return partner_tone(tex, at.onset + d, at.grace, gp[1]).is_some();
                        }
                        block_at(tex, at.onset + d, 0).is_some_and(|b| masks[b] & 1 << gp[1] != 0)
                    });
                    if !possible {
                        continue;
                    }
                    if let Some((lead, follow)) = read_pair(tex, sel, fp, gp, t, u, d, p.window) {
                        let span = tex.tones[lead[11] as usize].onset - tex.tones[t as usize].onset;
                        if best.is_none_or(|b| span < b.0) {
                            best = Some((span, (f, lead), (g, follow)));
                        }
                    }
                }
            }
        }
        if let Some((_, lead, follow)) = best {
            take_pair(p, sel, lead, follow);
        }
    }
    sel.statements.len() - before
}

/// The tone of pitch class `pc` a partner strand sounds at `onset`: a note that takes
/// time if the strand's own (`grace` 0) does, else a grace note there, whatever its
/// place (the strands may be written in different hands, after different numbers of
/// other grace notes).
fn partner_tone(tex: &Texture, onset: i64, grace: i8, pc: u8) -> Option<u32> {
    if grace == 0 {
        return tex.at.get(&(onset, 0, pc)).copied();
    }
    (1..=MAX_GRACES).find_map(|k| tex.at.get(&(onset, -k, pc)).copied())
}

/// Grace notes before one note looked through for a partner's.
const MAX_GRACES: i8 = 8;

/// The block of tones at `onset` (grace place `grace`), if any.
fn block_at(tex: &Texture, onset: i64, grace: i8) -> Option<usize> {
    let key = |b: &u32| {
        let t = &tex.tones[*b as usize];
        (t.onset, t.grace)
    };
    let i = tex.blocks.partition_point(|b| key(b) < (onset, grace));
    tex.blocks
        .get(i)
        .filter(|b| key(b) == (onset, grace))
        .map(|_| i)
}

/// The tones of pitch class `pc` at later onsets than tone `after` (within `window`
/// tones) that are free or one of `also` (the partner strand's, to share), earliest
/// first.
fn next_tones<'a>(
    tex: &'a Texture,
    sel: &'a Selection,
    pc: u8,
    after: u32,
    window: u32,
    also: &'a [u32],
) -> impl Iterator<Item = u32> + 'a {
    let list = &tex.by_pc[usize::from(pc)];
    let block = tex.tones[after as usize].block;
    let from = list.partition_point(|&x| tex.tones[x as usize].block <= block);
    list[from..]
        .iter()
        .copied()
        .take_while(move |&x| x <= after.saturating_add(window))
        .filter(move |&x| sel.claims[x as usize].stmt == NONE || also.contains(&x))
}

/// Leader tones tried per position (the first of its pitch class may be another
/// voice's, in another rhythm).
const TRIES: usize = 3;

/// Both strands of a canon beginning on leader tone `t` (form `fp`) and follower
/// tone `u` (form `gp`), `d` ticks apart, if both sound all twelve positions.
#[allow(clippy::too_many_arguments)]
fn read_pair(
    tex: &Texture,
    sel: &Selection,
    fp: &[u8; 12],
    gp: &[u8; 12],
    t: u32,
    u: u32,
    d: i64,
    window: u32,
) -> Option<([u32; 12], [u32; 12])> {
    let mut lead = [NONE; 12];
    let mut follow = [NONE; 12];
    lead[0] = t;
    follow[0] = u;
    if tex.tones[t as usize].duration != tex.tones[u as usize].duration {
        return None;
    }
    for k in 1..12 {
        // A leader tone is free, or the follower's already (a shared note).
        let (x, y) = next_tones(tex, sel, fp[k], lead[k - 1], window, &follow[..k])
            .take(TRIES)
            .find_map(|x| {
                let at = &tex.tones[x as usize];
                let y = partner_tone(tex, at.onset + d, at.grace, gp[k])?;
                let shared = lead[..k].contains(&y);
                let usable = sel.claims[y as usize].stmt == NONE || shared;
                let same = tex.tones[y as usize].duration == at.duration;
                (usable && same && !follow[..k].contains(&y)).then_some((x, y))
            })?;
        lead[k] = x;
        follow[k] = y;
    }
    // Interleaved note by note: each follower note before the leader's after next.
    let on = |x: u32| tex.tones[x as usize].onset;
    (0..10)
        .all(|k| on(follow[k]) <= on(lead[k + 2]))
        .then_some((lead, follow))
}

/// Adds a canon's two strands to the selection: the leader's tones its own, the
/// follower's too except those the leader sounds (shared).
fn take_pair(p: &SearchParams, sel: &mut Selection, lead: Strand, follow: Strand) {
    let (a, b) = (sel.statements.len() as u32, sel.statements.len() as u32 + 1);
    for (k, &t) in lead.1.iter().enumerate() {
        sel.claims[t as usize] = Claim {
            stmt: a,
            pos: k as u8,
            sharer: NONE,
        };
    }
    for (k, &t) in follow.1.iter().enumerate() {
        let c = &mut sel.claims[t as usize];
        if c.stmt == a {
            c.sharer = b;
        } else {
            *c = Claim {
                stmt: b,
                pos: k as u8,
                sharer: NONE,
            };
        }
    }
    for (form, tones) in [lead, follow] {
        let span = i64::from(tones.iter().max().copied().unwrap_or(0))
            - i64::from(tones.iter().min().copied().unwrap_or(0));
        let w = p.weights;
        let score = i64::from(w.found) * 12 - i64::from(w.per_tone) * span;
        sel.statements.push(Chain {
            form,
            tones,
            score: i32::try_from(score).unwrap_or(i32::MIN / 2),
            found: 12,
            elided_head: None,
            elided_tail: None,
        });
    }
}
