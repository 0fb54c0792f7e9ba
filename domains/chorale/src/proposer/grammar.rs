//! The model's constraint: the voicings of one beat that the rules admit and from
//! which the phrase can still be finished — the rules, never the answer.
//!
//! Every alto, tenor and bass the textbook's shape allows under the soprano (each
//! part in its range, the parts in order, soprano–alto and alto–tenor within an
//! octave: under the strict profile those three rules are hard, so this is every
//! voicing they admit) is pushed as the next beat and judged by every hard moment
//! rule of the profile. Of those that pass, the ones from which the phrase can
//! provably no longer reach its cadence (and one beat beyond) are dropped, in
//! three steps, each only for what the one before left undecided:
//!
//! 1. a bounded search ([`Completer`], [`COMPLETION_NODES`] beats per voicing)
//!    finds a way to the cadence, or shows that none of the ways it tries (the
//!    vocabulary's best voicings at each beat) gets there;
//! 2. a voicing it could not decide is tried against every voicing of the shape
//!    at the next beat ([`continues`]): if each breaks a hard rule, it is a dead
//!    end one beat on, proven whatever the budget;
//! 3. what is still undecided gets a deeper search ([`DEEP_NODES`] beats), while
//!    the offer's budget for those lasts ([`DEEP_TOTAL`] beats).
//!
//! Why: a voicing the first search cannot decide in its budget stays offered,
//! and a dead end a few beats away hides behind the many ways on that each fail
//! later. The null model walked into one on BWV 269 (alto and tenor G♯4 under
//! the soprano's held A4, three beats before the end) and was refused two beats
//! later; the deeper search finds within 600 beats that none of the ways it
//! tries from there reaches the end. Step 2 is the guarantee that no voicing is
//! offered whose next beat has no clean voicing at all; it is cheap, because the
//! first search already shows most such dead ends in one beat (on the null
//! model's runs over eight chorales it found none the first had missed). A
//! voicing still undecided stays: the grammar never narrows the model's choice
//! beyond what is shown. Steps 1 and 3 show a dead end among the voicings the
//! search tries, step 2 among every voicing of the shape. Dead ends three or
//! more beats deep — typically a final cadence under a held last melody note,
//! judged only at the last beat — are mostly beyond these budgets.
//!
//! The cost per beat, at most: one push and judgement per voicing of the shape
//! (up to about 3,000), [`COMPLETION_NODES`] search beats per voicing the rules
//! admit, one push and judgement per voicing of the next beat's shape for each
//! undecided one (nearest first, stopping at the first that passes), and
//! [`DEEP_TOTAL`] search beats (about a second in a release build). Measured on
//! a loaded 2-core VM, release build: the offers along Bach's lower parts of four
//! chorales took 1.11 times as long as with the first search alone, along the
//! null model's path on BWV 269 1.21 times.
//!
//! Where every voicing is shown a dead end by the searches, those that can still
//! go one beat further are offered (finding them costs a check of step 2 per
//! voicing the rules admit — seconds at worst, and only at a dead end). Where none
//! can, or none passes at this beat at all, there is no way on from what is
//! written: the proposer says so ([`ProposerError::NoWayOn`]) and the engine steps
//! back a beat ([`Budget::backtracks`]), the voicing it withdraws there a dead end
//! the offer never names again ([`ChState::dead`]). So a dead end deeper than these
//! searches see costs steps back, never a refusal the rules could have avoided. A
//! refused voicing (a patch) is not offered again while another remains.
//!
//! [`ProposerError::NoWayOn`]: cantus_framework::ProposerError::NoWayOn
//! [`Budget::backtracks`]: cantus_framework::Budget::backtracks
//! [`ChState::dead`]: crate::domain::ChState::dead
//!
//! What the model chooses among them — chord, inversion, doubling, spacing — is
//! its own; the prompt advises, the grammar only rules out.

use super::search::{Completer, Task};
use crate::analysis::Analysis;
use crate::domain::{Voicing, pop_voicing, push_voicing, with_voicing};
use crate::pitch::{Part, Tone};
use crate::rules::{self, Profile};
use cantus_framework::model::gbnf_literal;

/// The beats the completion search may visit for one offered voicing.
pub(crate) const COMPLETION_NODES: usize = 60;

/// The beats a second, deeper search may visit for one voicing the first left
/// undecided.
pub(crate) const DEEP_NODES: usize = 600;

/// The beats all the deeper searches of one offer may visit together.
pub(crate) const DEEP_TOTAL: usize = 3_000;

/// A tenor offered and the basses that may go with it.
type Tenor = (String, Vec<String>);

/// The voicings offered at a beat, as a tree: each alto with the tenors that may
/// go with it, each tenor with its basses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Offer {
    pub tree: Vec<(String, Vec<Tenor>)>,
}

impl Offer {
    /// How many voicings it offers.
    pub fn len(&self) -> usize {
        self.tree
            .iter()
            .flat_map(|(_, ts)| ts.iter().map(|(_, bs)| bs.len()))
            .sum()
    }

    /// Whether it offers nothing (then the model is asked without a constraint).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn from_voicings(voicings: &[Voicing]) -> Offer {
        let mut tree: Vec<(String, Vec<Tenor>)> = Vec::new();
        for v in voicings {
            let (a, t, b) = (v.alto.to_string(), v.tenor.to_string(), v.bass.to_string());
            let altos = match tree.iter().position(|(x, _)| *x == a) {
                Some(i) => i,
                None => {
                    tree.push((a, Vec::new()));
                    tree.len() - 1
                }
            };
            let tenors = &mut tree[altos].1;
            let k = match tenors.iter().position(|(x, _)| *x == t) {
                Some(k) => k,
                None => {
                    tenors.push((t, Vec::new()));
                    tenors.len() - 1
                }
            };
            tenors[k].1.push(b);
        }
        Offer { tree }
    }
}

/// Whether the next beat of `a` has a voicing of the textbook's shape that breaks
/// no hard rule of `profile` (true at the last beat): at most one push and one
/// judgement per voicing of [`shaped`], stopping at the first that passes. The
/// voicings nearest the last beat's are tried first (a clean one is usually
/// near); only a dead end costs them all.
pub(crate) fn continues(a: &mut Analysis, profile: Profile) -> bool {
    let mut unbounded = usize::MAX;
    continues_within(a, profile, &mut unbounded) != Some(false)
}

/// The voicings an offer made where the loop came back from a dead end may push and
/// judge to show that what it offers leads on ([`leads_on`]): a few seconds in a
/// release build. What the budget leaves unshown stays offered.
const LEADS_ON_JUDGEMENTS: usize = 60_000;

/// Whether the next beat of `a` has a voicing the rules admit from which the beat
/// after it [`continues`] — that the offer there would not be a dead end — judging
/// at most `budget` voicings (spent from it): `None` when it ran out first. Asked
/// only where the loop came back from a dead end.
fn leads_on(a: &mut Analysis, profile: Profile, budget: &mut usize) -> Option<bool> {
    let b = a.beats.len();
    if b >= a.total() {
        return Some(true);
    }
    for v in shaped(a, b) {
        *budget = budget.checked_sub(1)?;
        if !push_voicing(a, &v) {
            continue;
        }
        let on = if rules::breaks_hard(a, b, profile) {
            Some(false)
        } else {
            continues_within(a, profile, budget)
        };
        pop_voicing(a);
        match on {
            Some(true) => return Some(true),
            None => return None,
            Some(false) => {}
        }
    }
    Some(false)
}

/// [`continues`], judging at most `budget` voicings (spent from it), the nearest to
/// the last beat written first: `None` when it ran out first.
fn continues_within(a: &mut Analysis, profile: Profile, budget: &mut usize) -> Option<bool> {
    let b = a.beats.len();
    if b >= a.total() {
        return Some(true);
    }
    let mut next = shaped(a, b);
    if let Some(last) = b.checked_sub(1).and_then(|p| written(a, p)) {
        let away = |v: &Voicing| {
            v.tones()
                .iter()
                .zip(last.tones().iter())
                .map(|((_, x), (_, y))| u32::from(x.midi.abs_diff(y.midi)))
                .sum::<u32>()
        };
        next.sort_by_key(away);
    }
    for v in &next {
        *budget = budget.checked_sub(1)?;
        if with_voicing(a, v, |a| !rules::breaks_hard(a, b, profile)) {
            return Some(true);
        }
    }
    Some(false)
}

/// The lower parts of `a` at beat `b`, if written.
fn written(a: &Analysis, b: usize) -> Option<Voicing> {
    let c = &a.chorale;
    let at = c.beat_start(a.number_of(b));
    let tone = |p: Part| c.note_at(p, at).map(|n| c.parts[p.index()][n].tone);
    Some(Voicing {
        beat: b,
        alto: tone(Part::Alto)?,
        tenor: tone(Part::Tenor)?,
        bass: tone(Part::Bass)?,
    })
}

/// Every voicing of the textbook's shape under the soprano of beat `b` (the next
/// beat of `a`), spelled in the key.
pub(crate) fn shaped(a: &Analysis, b: usize) -> Vec<Voicing> {
    let c = &a.chorale;
    let key = c.key;
    let start = c.beat_start(a.number_of(b));
    let soprano = c
        .note_at(Part::Soprano, start)
        .map(|n| c.parts[0][n].tone.midi);
    let (alo, ahi) = Part::Alto.range();
    let (tlo, thi) = Part::Tenor.range();
    let (blo, bhi) = Part::Bass.range();
    let (alo, ahi) = match soprano {
        Some(s) => (alo.max(s.saturating_sub(12)), ahi.min(s)),
        None => (alo, ahi),
    };
    let tone = |m: u8| -> Tone { key.tone(m) };
    let mut out = Vec::new();
    for alto in alo..=ahi {
        for tenor in tlo.max(alto.saturating_sub(12))..=thi.min(alto) {
            for bass in blo..=bhi.min(tenor) {
                out.push(Voicing {
                    beat: b,
                    alto: tone(alto),
                    tenor: tone(tenor),
                    bass: tone(bass),
                });
            }
        }
    }
    out
}

/// What the grammar offers at the next beat of `task.base`, never one of `dead`
/// (shown dead ends there: the loop stepped back from them); `None` where there is
/// no way on — every voicing the rules admit at this beat is one of `dead` or leaves
/// the next beat none they admit.
pub(crate) fn offer(
    task: &Task<'_>,
    refused: Option<Voicing>,
    dead: &[Voicing],
    profile: Profile,
) -> Option<Offer> {
    let mut a = task.base.clone();
    let b = a.beats.len();
    if b >= a.total() {
        return Some(Offer::default());
    }
    let mut admitted = shaped(&a, b);
    admitted.retain(|v| {
        !dead.contains(v) && with_voicing(&mut a, v, |a| !rules::breaks_hard(a, b, profile))
    });
    // Every voicing not known to be a dead end (a search that ran out of budget
    // rules nothing out); where every one is, those that can still go one beat
    // further, else what the rules admit at this beat; else, at a dead end, every
    // voicing of the shape (the grammar then keeps the answer's form, the ladder
    // the rules).
    let mut completer = Completer::new(task);
    let mut verdicts: Vec<Option<bool>> = Vec::with_capacity(admitted.len());
    for v in &admitted {
        let mut verdict = Some(false);
        if push_voicing(&mut a, v) {
            verdict = completer.completable(&a, COMPLETION_NODES);
            pop_voicing(&mut a);
        }
        verdicts.push(verdict);
    }
    // The undecided: a dead end at the very next beat is proven by trying every
    // voicing of its shape; the rest get a deeper search while the offer's budget
    // for them lasts.
    let mut deep = DEEP_TOTAL;
    for (v, verdict) in admitted.iter().zip(verdicts.iter_mut()) {
        if verdict.is_some() || !push_voicing(&mut a, v) {
            continue;
        }
        if !continues(&mut a, profile) {
            *verdict = Some(false);
        } else if deep >= DEEP_NODES {
            *verdict = completer.completable(&a, DEEP_NODES);
            deep -= completer.visited();
        }
        pop_voicing(&mut a);
    }
    let mut open: Vec<Voicing> = admitted
        .iter()
        .zip(&verdicts)
        .filter(|(_, verdict)| **verdict != Some(false))
        .map(|(v, _)| *v)
        .collect();
    if open.is_empty() {
        open = admitted
            .iter()
            .copied()
            .filter(|v| with_voicing(&mut a, v, |a| continues(a, profile)))
            .collect();
    }
    // Back here from a dead end: what is offered must leave the next beat a way on
    // (a voicing the rules admit that itself goes one beat further), or the loop
    // would step back here once for every voicing the dead end lies behind.
    if !dead.is_empty() {
        let mut budget = LEADS_ON_JUDGEMENTS;
        open.retain(|v| {
            with_voicing(&mut a, v, |a| {
                leads_on(a, profile, &mut budget) != Some(false)
            })
        });
    }
    if open.is_empty() {
        return None;
    }
    if open.iter().any(|v| Some(*v) != refused) {
        open.retain(|v| Some(*v) != refused);
    }
    Some(Offer::from_voicings(&open))
}

/// The GBNF grammar of an answer naming an offered alto, tenor and bass.
pub(crate) fn grammar(offer: &Offer) -> String {
    let mut g = String::from("root ::= ");
    let altos: Vec<String> = (0..offer.tree.len()).map(|i| format!("a{i}")).collect();
    g.push_str(&altos.join(" | "));
    g.push('\n');
    for (i, (alto, tenors)) in offer.tree.iter().enumerate() {
        let heads: Vec<String> = (0..tenors.len()).map(|k| format!("t{i}x{k}")).collect();
        g.push_str(&format!(
            "a{i} ::= {} \" \" ({})\n",
            gbnf_literal(alto),
            heads.join(" | ")
        ));
        for (k, (tenor, basses)) in tenors.iter().enumerate() {
            let bs: Vec<String> = basses.iter().map(|b| gbnf_literal(b)).collect();
            g.push_str(&format!(
                "t{i}x{k} ::= {} \" \" ({})\n",
                gbnf_literal(tenor),
                bs.join(" | ")
            ));
        }
    }
    g
}

/// Whether `text` is what [`grammar`] admits (cut off at the token limit: a prefix
/// of it), so that a server ignoring the grammar is recorded as not honouring it.
pub(crate) fn admits(offer: &Offer, text: &str, truncated: bool) -> bool {
    let tokens: Vec<&str> = text.split(' ').collect();
    if tokens.len() > 3 || (!truncated && tokens.len() != 3) {
        return false;
    }
    let last = tokens.len() - 1;
    let fits = |k: usize, t: &str, name: &str| {
        name == t || (truncated && k == last && name.starts_with(t))
    };
    let Some((_, tenors)) = offer.tree.iter().find(|(a, _)| fits(0, tokens[0], a)) else {
        return false;
    };
    let Some(tenor) = tokens.get(1) else {
        return true;
    };
    if !tenors.iter().any(|(t, _)| fits(1, tenor, t)) {
        return false;
    }
    let Some(bass) = tokens.get(2) else {
        return true;
    };
    tenors
        .iter()
        .filter(|(t, _)| t == tenor)
        .any(|(_, basses)| basses.iter().any(|b| fits(2, bass, b)))
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod timing;
