//! Proofs of dead ends: an exhaustive search, memoised, for a way from what is
//! written to a goal beat that breaks no hard rule.
//!
//! Exhaustive means every voicing of the textbook's shape ([`shaped`]) at every
//! beat, so a search that ends without a way is a proof — within the budget of
//! judgements it is given; one cut short proves nothing. What makes it affordable
//! is the memo: two prefixes whose futures the rules judge alike are searched once.
//! The rules read only so far back (audited rule by rule, issue 27), so the state a
//! prefix leaves is its beat and, for the beats it could still be judged by, their
//! voicings and chord labels:
//!
//! - the last two beats (non-chord tones are judged against the note before them,
//!   a chordal seventh against where it came from; motion, chord and resolution
//!   rules read one beat back);
//! - every beat under the soprano note held into the next beat (that note is
//!   judged against each chord under it);
//! - every beat the next cadence looks back over ([`CADENCE_LOOK_BACK`] beats
//!   before its last beat: the chord before the cadence's last is searched there).
//!
//! Chord labels are part of the state, not derived from the voicings: a beat's
//! label depends on the label before it (a repeated harmony is preferred), so two
//! prefixes with equal voicings may be labelled apart. This holds for prefixes
//! written a beat at a time by [`push_voicing`] (one note a lower part a beat, on
//! the beat), the only way the grammar writes.
//!
//! [`CADENCE_LOOK_BACK`]: crate::rules::CADENCE_LOOK_BACK

use super::{shaped, written};
use crate::analysis::Analysis;
use crate::domain::{Voicing, pop_voicing, push_voicing};
use crate::harmony::Chord;
use crate::pitch::Part;
use crate::rules::{self, CADENCE_LOOK_BACK, Profile};
use std::collections::HashSet;

/// What of a prefix the rules can still read: its next beat and the voicings and
/// chords of the beats they may look back to.
type State = (usize, Vec<(Option<Voicing>, Option<Chord>)>);

/// An exhaustive search for a way from a prefix to beat `goal` (written and
/// judged), with what it learnt kept for the next prefix of the same offer.
pub(crate) struct Prover<'c> {
    profile: Profile,
    /// The last beat of every phrase.
    cadences: &'c [usize],
    goal: usize,
    /// The voicings it may still push and judge.
    pub budget: usize,
    dead: HashSet<State>,
    live: HashSet<State>,
}

impl<'c> Prover<'c> {
    /// A prover of ways to beat `goal` (or the last beat, if sooner), judging at
    /// most `budget` voicings in all.
    pub fn new(profile: Profile, cadences: &'c [usize], goal: usize, budget: usize) -> Self {
        Prover {
            profile,
            cadences,
            goal,
            budget,
            dead: HashSet::new(),
            live: HashSet::new(),
        }
    }

    /// Whether `a` can be written on to the goal breaking no hard rule:
    /// `Some(false)` is a proof that it cannot, `None` says the budget ran out.
    pub fn reaches(&mut self, a: &mut Analysis) -> Option<bool> {
        let b = a.beats.len();
        if b > self.goal || b >= a.total() {
            return Some(true);
        }
        let state = self.state(a);
        if self.dead.contains(&state) {
            return Some(false);
        }
        if self.live.contains(&state) {
            return Some(true);
        }
        for v in nearest_first(a, b) {
            self.budget = self.budget.checked_sub(1)?;
            if !push_voicing(a, &v) {
                continue;
            }
            let on = if rules::breaks_hard(a, b, self.profile) {
                Some(false)
            } else {
                self.reaches(a)
            };
            pop_voicing(a);
            match on {
                Some(true) => {
                    self.live.insert(state);
                    return Some(true);
                }
                None => return None,
                Some(false) => {}
            }
        }
        self.dead.insert(state);
        Some(false)
    }

    /// The state `a` leaves for the rules still to judge (see the module).
    fn state(&self, a: &Analysis) -> State {
        let b = a.beats.len();
        let mut from = b.saturating_sub(2);
        let c = &a.chorale;
        let start = c.beat_start(a.number_of(b));
        if let Some(n) = c.note_at(Part::Soprano, start) {
            let onset = c.parts[0][n].onset;
            if onset < start
                && let Some(j) = a.beat_index(onset)
            {
                from = from.min(j);
            }
        }
        let last = a.total().saturating_sub(1);
        let cadence = self
            .cadences
            .iter()
            .copied()
            .find(|&t| t >= b)
            .unwrap_or(last)
            .min(last);
        from = from.min(cadence.saturating_sub(CADENCE_LOOK_BACK));
        let beats = (from..b)
            .map(|j| (written(a, j), a.beats.get(j).and_then(|x| x.chord)))
            .collect();
        (b, beats)
    }
}

/// Every voicing of the shape at beat `b`, the nearest to the last beat's first (a
/// clean one is usually near; only a dead end costs them all).
pub(crate) fn nearest_first(a: &Analysis, b: usize) -> Vec<Voicing> {
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
    next
}
