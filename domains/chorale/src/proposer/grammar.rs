//! The model's constraint: the voicings of one beat that the rules admit, less
//! those shown to be dead ends — the rules, never the answer.
//!
//! Every alto, tenor and bass the textbook's shape allows under the soprano (each
//! part in its range, the parts in order, soprano–alto and alto–tenor within an
//! octave: under the strict profile those three rules are hard, so this is every
//! voicing they admit) is pushed as the next beat and judged by every hard moment
//! rule of the profile. A voicing that passes is offered unless it is *shown* that
//! the chorale cannot be finished from it; nothing is dropped on a guess:
//!
//! 1. a bounded search ([`Completer`], [`COMPLETION_NODES`] beats per voicing,
//!    trying the vocabulary's best voicings at each beat) looks for a way to the
//!    phrase's cadence: a way found is a witness, and the voicing is offered;
//! 2. for a voicing without a witness, every voicing of the shape at the next beat
//!    is judged ([`Prover`], one beat on): if each breaks a hard rule, it is a dead
//!    end, proven;
//! 3. what is still undecided is searched exhaustively two beats on, then a beat
//!    deeper at a time to the phrase's horizon (its cadence and a beat beyond) —
//!    every voicing of the shape at every beat, prefixes the rules would judge
//!    alike searched once ([`proof`]) — within budgets of [`TWO_BEAT_JUDGEMENTS`]
//!    and [`FAR_JUDGEMENTS`] (larger at a beat the loop has stepped back to and
//!    withdrawn voicings from, [`two_beat_budget`], [`far_budget`]), shared out
//!    evenly among the undecided voicings, and in the last phrase what the
//!    two-beat proofs leave goes to those further on ([`in_last_phrase`]); a
//!    search that ends with no way on is a proof, one cut short by the budget
//!    proves nothing and the voicing stays offered (counted in
//!    [`Offer::undecided`]: where the offer may be wider than exact).
//!
//! Every verdict the proofs reach is kept for the run ([`Proofs`]): a voicing
//! an earlier offer's proofs settled is settled without a search, and a search
//! stops at a state already known — so the offers after a step back, where the
//! budgets grow, build on the ones before instead of proving again.
//!
//! Only voicings no motion rule rules out part by part ([`moving`]) are pushed
//! and judged whole, in the offer and in the proofs; that check is the rules'
//! own, as is what the final cadence asks of the last beat (the tonic in the
//! bass, the tonic triad in the lower parts).
//!
//! Why: the search of step 1 tries a few dozen voicings a beat among thousands,
//! so its failing to finish is no proof; the grammar once dropped what it could
//! not complete, and so could narrow the model's choice beyond the rules (the
//! brief: a constraint admits every choice from which the work can still be
//! finished, and nothing narrower). Now every voicing dropped carries a proof a
//! test re-checks (`nothing_is_dropped_without_a_proof`).
//!
//! A dead end deeper than the proofs reach stays offered. Where every voicing the
//! rules admit at a beat is proven a dead end, or none passes at all, there is no
//! way on from what is written: the proposer says so ([`ProposerError::NoWayOn`])
//! and the engine steps back a beat ([`Budget::backtracks`]); the voicing it
//! withdraws there is a proven dead end the offer never names again
//! ([`ChState::dead`]). A refused voicing (a patch) is not offered again while
//! another remains.
//!
//! The cost per beat, at most: one push and judgement per voicing of the shape
//! the motion rules leave (about a third of some 3,000), [`COMPLETION_NODES`]
//! search beats per voicing the rules admit, one judgement per voicing of the next
//! beat for each without a witness (nearest first, stopping at the first that
//! passes), and the two budgets of the deeper proofs (about twenty seconds and one
//! in a release build, at some 5 µs a judgement; spent only where voicings have no
//! witness, mostly in the beats before a cadence).
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
pub(crate) use proof::{Knowledge, Proofs, Prover};

/// The beats the completion search may visit for one offered voicing.
pub(crate) const COMPLETION_NODES: usize = 60;

/// The voicings the proofs of one offer two beats on may push and judge together
/// (about twenty seconds in a release build; spent only where voicings have no
/// witness and are hard to decide, typically in the beats before a cadence, where
/// dead ends two beats deep are common — proving them is cheaper than the model
/// walking into them and the loop stepping back, which repeats the offer) — at a
/// beat the loop has not stepped back to ([`two_beat_budget`]).
pub(crate) const TWO_BEAT_JUDGEMENTS: usize = 4_000_000;

/// The voicings the proofs of one offer further on, to the phrase's horizon, may
/// push and judge together (about a second) — at a beat the loop has not stepped
/// back to ([`far_budget`]).
pub(crate) const FAR_JUDGEMENTS: usize = 150_000;

/// The budget of the proofs two beats on at a beat where the loop has withdrawn
/// `withdrawn` voicings: [`TWO_BEAT_JUDGEMENTS`], four times more once it has
/// withdrawn any (about eighty seconds at worst).
///
/// Why: a withdrawal says a voicing offered there was a dead end the proofs did
/// not show — the offer was wider than exact, and the model (or chance) will keep
/// picking such voicings, one step back each, until the loop's steps back are
/// spent (what the traces of every refused chorale showed, most of them in the
/// beats before a final cadence, where the two-beat proofs run out). Proving more
/// where the loop found trouble makes the offer exact there, or shows there is no
/// way on, so the loop steps back further instead of guessing again.
pub(crate) fn two_beat_budget(withdrawn: usize) -> usize {
    TWO_BEAT_JUDGEMENTS << (2 * withdrawn.min(1))
}

/// The budget of the proofs further on at a beat where the loop has withdrawn
/// `withdrawn` voicings: [`FAR_JUDGEMENTS`], four times more for each withdrawal,
/// up to 64 times (about a minute); why, as [`two_beat_budget`].
pub(crate) fn far_budget(withdrawn: usize) -> usize {
    FAR_JUDGEMENTS << (2 * withdrawn.min(3))
}

/// Whether the proofs toward `horizon` are the last phrase's: there, the proofs
/// to the end may spend what the proofs two beats on leave of their budget (some
/// twenty seconds an offer at most, where voicings stay undecided).
///
/// Why: before the final cadence (V–I in root position, complete chords) reaching
/// the beat after next is easy and the end is what is hard, so the two-beat proofs
/// settle little and leave most of their budget; and a dead end the offer does
/// not show cannot be left in a phrase after it. The 40-chorale run on the proving
/// grammar showed it: all 23 refusals at a dead end were one or two beats before
/// the last, where the loop's eight steps back ran out among voicings no proof had
/// reached. Spending more only there keeps the other phrases' offers as fast as
/// they were; what a run's proofs learn ([`Proofs`]) carries each offer's work into
/// the next, so after a step back the offer there is exact, or nearer to it.
fn in_last_phrase(horizon: usize, a: &Analysis) -> bool {
    horizon + 1 >= a.total()
}

/// A tenor offered and the basses that may go with it.
type Tenor = (String, Vec<String>);

/// The voicings offered at a beat, as a tree: each alto with the tenors that may
/// go with it, each tenor with its basses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Offer {
    pub tree: Vec<(String, Vec<Tenor>)>,
    /// Of the voicings offered, those neither shown to lead on (a way to the
    /// phrase's horizon found) nor shown dead within the budgets: where the offer
    /// may be wider than exact (0 where it is exact).
    pub undecided: usize,
}

impl Offer {
    /// How many voicings it offers.
    pub fn len(&self) -> usize {
        self.tree
            .iter()
            .flat_map(|(_, ts)| ts.iter().map(|(_, bs)| bs.len()))
            .sum()
    }

    /// How much choice it leaves the model: log₂ of the voicings it offers, over
    /// the three notes a beat asks for (alto, tenor, bass) — the figure the
    /// experiment's "what the model decided" section sets beside the null model's.
    pub fn choice(&self) -> cantus_framework::Choice {
        cantus_framework::Choice {
            notes: 3,
            bits: (self.len().max(1) as f64).log2(),
            // The chorale has no plan: every voicing is the proposer's.
            as_planned: None,
        }
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
        Offer { tree, undecided: 0 }
    }
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
    shaped_where(a, b, |_, _| true)
}

/// The voicings of [`shaped`] whose parts, taken two at a time (and each alone),
/// break no motion rule hard under `profile` against the beat before, whose
/// bass is the tonic where the last phrase ends (what the final cadence asks,
/// [`rules::final_bass_fits`]) and, where that is the chorale's last beat, whose
/// lower parts sound the tonic triad ([`rules::final_tones_fit`]) — found part by
/// part, so an alto ruled out takes
/// every tenor and bass under it along. The rules' own tests
/// ([`rules::HardMotion`]) rule them out, so every voicing
/// of the shape the hard rules admit is among them (a test holds them to it); only
/// these are pushed and judged whole.
pub(crate) fn moving(a: &Analysis, b: usize, profile: Profile) -> Vec<Voicing> {
    let c = &a.chorale;
    let start = c.beat_start(a.number_of(b));
    // The last slice of the beat before, and what each lower part sounded last
    // when its note ends where this beat begins (else no motion is judged).
    let Some(before) = b.checked_sub(1).and_then(|_| a.slices.last()) else {
        return shaped(a, b);
    };
    let before = before.tones;
    let last = |p: Part| {
        c.parts[p.index()]
            .last()
            .filter(|n| n.end() == start)
            .map(|n| n.tone)
    };
    let prev = [None, last(Part::Alto), last(Part::Tenor), last(Part::Bass)];
    // At the last phrase's end, the final cadence asks for the tonic in the bass.
    let hard = |id| {
        rules::rule_by_id(id)
            .is_some_and(|r| profile.severity(r) == cantus_framework::Severity::Hard)
    };
    let final_cadence = a
        .phrase_end_at(b)
        .is_some_and(|k| k + 1 == c.phrase_ends.len())
        && hard(rules::CH_FINAL_CADENCE);
    // At the chorale's last beat, where the last phrase ends there, the lower
    // parts' tones are the tonic triad's.
    let final_chord = final_cadence && b + 1 == a.total() && hard(rules::CH_NON_CHORD_TONE);
    let motion = rules::HardMotion::of(profile);
    shaped_where(a, b, |part, after| {
        let k = part.index();
        if part == Part::Bass
            && final_cadence
            && after[k].is_some_and(|t| !rules::final_bass_fits(c.key, t.pc()))
        {
            return false;
        }
        if final_chord
            && !rules::final_tones_fit(c.key, after[1..=k].iter().flatten().map(|t| t.pc()))
        {
            return false;
        }
        let leaps = match (prev[k], after[k]) {
            (Some(p), Some(t)) => motion.leap_breaks(p, t),
            _ => false,
        };
        !leaps
            && Part::ALL[..k]
                .iter()
                .all(|&u| !motion.pair_breaks(&before, after, u, part))
    })
}

/// The voicings of [`shaped`] built part by part (alto, tenor, bass), each part's
/// tone kept only where `keep` says so of the tones so far (soprano first).
fn shaped_where(
    a: &Analysis,
    b: usize,
    mut keep: impl FnMut(Part, &rules::Tones) -> bool,
) -> Vec<Voicing> {
    let c = &a.chorale;
    let key = c.key;
    let start = c.beat_start(a.number_of(b));
    let soprano = c.note_at(Part::Soprano, start).map(|n| c.parts[0][n].tone);
    let (alo, ahi) = Part::Alto.range();
    let (tlo, thi) = Part::Tenor.range();
    let (blo, bhi) = Part::Bass.range();
    let (alo, ahi) = match soprano {
        Some(s) => (alo.max(s.midi.saturating_sub(12)), ahi.min(s.midi)),
        None => (alo, ahi),
    };
    let tone = |m: u8| -> Tone { key.tone(m) };
    let mut out = Vec::new();
    let mut now: rules::Tones = [soprano, None, None, None];
    for alto in alo..=ahi {
        now[1] = Some(tone(alto));
        if !keep(Part::Alto, &now) {
            continue;
        }
        for tenor in tlo.max(alto.saturating_sub(12))..=thi.min(alto) {
            now[2] = Some(tone(tenor));
            if !keep(Part::Tenor, &now) {
                continue;
            }
            for bass in blo..=bhi.min(tenor) {
                now[3] = Some(tone(bass));
                if keep(Part::Bass, &now) {
                    out.push(Voicing {
                        beat: b,
                        alto: tone(alto),
                        tenor: tone(tenor),
                        bass: tone(bass),
                    });
                }
            }
        }
        now[2] = None;
        now[3] = None;
    }
    out
}

/// What the grammar offers at the next beat of `task.base`: every voicing the
/// rules admit there but those of `dead` (the loop stepped back from them) and
/// those proven dead ends; `None` where that leaves nothing — there is no way on.
/// What the run's proofs learnt before (`proofs`) is drawn on and added to.
pub(crate) fn offer(
    task: &Task<'_>,
    refused: Option<Voicing>,
    dead: &[Voicing],
    profile: Profile,
    proofs: &Proofs,
) -> Option<Offer> {
    let b = task.base.beats.len();
    if b >= task.base.total() {
        return Some(Offer::default());
    }
    let horizon = super::horizon(&task.cadences, b);
    proofs.with(horizon, profile, |known| {
        offer_knowing(task, refused, dead, profile, known)
    })
}

fn offer_knowing(
    task: &Task<'_>,
    refused: Option<Voicing>,
    dead: &[Voicing],
    profile: Profile,
    known: &mut Knowledge,
) -> Option<Offer> {
    let mut a = task.base.clone();
    let b = a.beats.len();
    let cadences = &task.cadences;
    let mut admitted = moving(&a, b, profile);
    admitted.retain(|v| {
        !dead.contains(v) && with_voicing(&mut a, v, |a| !rules::breaks_hard(a, b, profile))
    });
    // What earlier offers proved; then step 1: a witness, a way to the cadence
    // the completion search finds (a way to the horizon, learnt as such).
    let horizon = known.horizon();
    let witnesses = task.end == horizon && task.profile == profile;
    let mut completer = Completer::new(task);
    let mut verdicts: Vec<Option<bool>> = admitted
        .iter()
        .map(|v| {
            let mut verdict = None;
            with_voicing(&mut a, v, |a| {
                verdict = known.verdict(a, cadences);
                if verdict.is_none()
                    && witnesses
                    && completer.completable(a, COMPLETION_NODES) == Some(true)
                {
                    known.learn_live(a, cadences);
                    verdict = Some(true);
                }
                true
            });
            verdict
        })
        .collect();
    // Steps 2 and 3: proofs for the rest — that the next beat can be written,
    // without a budget; then, a beat deeper at a time to the phrase's horizon,
    // that the goal can be reached, within the offer's budget.
    let mut next = Prover::new(profile, cadences, b + 1, usize::MAX, known);
    prove(&mut a, &admitted, &mut verdicts, &mut next);
    // In the last phrase, what the proofs two beats on leave of their budget
    // goes to the proofs further on ([`in_last_phrase`]).
    let mut left = 0;
    if b + 2 <= horizon {
        let mut two = Prover::new(profile, cadences, b + 2, two_beat_budget(dead.len()), known);
        prove(&mut a, &admitted, &mut verdicts, &mut two);
        if in_last_phrase(horizon, &a) {
            left = two.budget;
        }
    }
    let mut budget = far_budget(dead.len()) + left;
    for goal in b + 3..=horizon {
        if budget == 0 || verdicts.iter().all(Option::is_some) {
            break;
        }
        let mut deeper = Prover::new(profile, cadences, goal, budget, known);
        prove(&mut a, &admitted, &mut verdicts, &mut deeper);
        budget = deeper.budget;
    }
    let mut open: Vec<(Voicing, Option<bool>)> = admitted
        .into_iter()
        .zip(verdicts)
        .filter(|(_, verdict)| *verdict != Some(false))
        .collect();
    if open.is_empty() {
        return None;
    }
    if open.iter().any(|(v, _)| Some(*v) != refused) {
        open.retain(|(v, _)| Some(*v) != refused);
    }
    let voicings: Vec<Voicing> = open.iter().map(|(v, _)| *v).collect();
    Some(Offer {
        undecided: open.iter().filter(|(_, verdict)| verdict.is_none()).count(),
        ..Offer::from_voicings(&voicings)
    })
}

/// Rounds in which [`prove`] shares out its budget.
const ROUNDS: usize = 4;

/// Runs `prover` on each of `voicings` (pushed after `a`) whose verdict is still
/// open, recording the dead ends it proves (and, if its goal is the phrase's
/// horizon, the ways on it finds). Its budget is shared out in rounds: in each,
/// every voicing not yet settled (proven dead, or a way to the goal found) has an
/// equal share of a part of what is left — half, then the rest in the last round
/// — so the easy ones settle early and one deep search does not starve the rest;
/// what the prover learns, shared by all, keeps what each search completed for the
/// next. What is left of the budget stays in `prover.budget`.
fn prove(
    a: &mut Analysis,
    voicings: &[Voicing],
    verdicts: &mut [Option<bool>],
    prover: &mut Prover<'_, '_>,
) {
    let mut budget = prover.budget;
    let settles = prover.settles();
    let mut open: Vec<usize> = (0..voicings.len())
        .filter(|&k| verdicts[k].is_none())
        .collect();
    for round in 0..ROUNDS {
        if open.is_empty() || budget == 0 {
            break;
        }
        let spend = if round + 1 == ROUNDS {
            budget
        } else {
            budget / 2
        };
        let share = spend / open.len();
        let mut unsettled = Vec::new();
        for k in open {
            if !push_voicing(a, &voicings[k]) {
                continue;
            }
            prover.budget = share;
            match prover.reaches(a) {
                Some(false) => verdicts[k] = Some(false),
                Some(true) => verdicts[k] = settles.then_some(true),
                None => unsettled.push(k),
            }
            budget -= share - prover.budget;
            pop_voicing(a);
        }
        open = unsettled;
    }
    prover.budget = budget;
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

mod proof;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod timing;
