//! Proofs of dead ends: an exhaustive search, memoised, for a way from what is
//! written to a goal beat that breaks no hard rule.
//!
//! Exhaustive means every voicing of the textbook's shape at every beat (those a
//! motion rule rules out part by part, [`moving`], never pushed), so a search
//! that ends without a way is a proof — within the budget of
//! judgements it is given; one cut short proves nothing. What makes it affordable
//! is the memo: two prefixes whose futures the rules judge alike are searched once.
//! The rules read only so far back (audited rule by rule, issue 27), so the state a
//! prefix leaves is its next beat and, of the beats before it, only what a hard
//! rule judging that beat or a later one can still read:
//!
//! - of the last beat, its lower parts and its chords (motion, chord, resolution
//!   and non-chord-tone rules read one beat back; its chord is the one a leading
//!   tone or seventh resolves from, and the next beat's label depends on it);
//! - of the beat before that, only the tones of the parts whose note in the last
//!   beat is outside its chord or is its seventh: a non-chord tone is judged by how
//!   it was reached, a seventh by where it came from (`CH-non-chord-tone`,
//!   `CH-seventh`); nothing else reads two beats back;
//! - of every beat under the soprano note held into the next beat (and under the
//!   one ending where it begins, which no rule reads any more since a melody note
//!   is judged at the first chord it is outside — kept, as more than enough), its
//!   chords: whether the held note is outside a chord first at the next beat or
//!   later depends on every chord under it;
//! - of every beat the next cadence looks back over ([`CADENCE_LOOK_BACK`] beats
//!   before its last beat), its chords and the pitch classes of its lower parts
//!   (the chord before the cadence's last is searched there, and whether it sounds
//!   its root and third).
//!
//! Chord labels are part of the state, not derived from the voicings: a beat's
//! label depends on the label before it (a repeated harmony is preferred), so two
//! prefixes with equal voicings may be labelled apart. This holds for prefixes
//! written a beat at a time by [`push_voicing`] (one note a lower part a beat, on
//! the beat), the only way the grammar writes. Two prefixes that differ only in
//! what no rule reads any more — the lower parts two beats back that were chord
//! tones, say — share a state, and the second is not searched again: this is what
//! lets a proof reach two or three beats on within its budget.
//!
//! [`CADENCE_LOOK_BACK`]: crate::rules::CADENCE_LOOK_BACK

use super::{moving, written};
use crate::analysis::Analysis;
use crate::domain::{Voicing, pop_voicing, push_voicing};
use crate::harmony::{Chord, Role};
use crate::pitch::{Part, Tone};
use crate::rules::{self, CADENCE_LOOK_BACK, Profile};
use cantus_music::Time;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// A beat's chord and closing chord (see [`crate::analysis::Beat`]).
type Chords = (Option<Chord>, Option<(Time, Chord)>);

/// What the rules can still read of one beat of a prefix (see the module).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Trace {
    /// The alto's, tenor's and bass's tones, where a rule still reads them.
    tones: [Option<Tone>; 3],
    /// The beat's chord and closing chord, where a rule still reads them.
    chords: Option<Chords>,
    /// The pitch classes of its lower parts (bits), where a cadence may read them.
    classes: Option<u16>,
}

/// What of a prefix the rules can still read: its next beat and a trace of each
/// beat from the first they may look back to.
pub(super) type State = (usize, Vec<Trace>);

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
    /// The voicings to try at a beat, by what they depend on ([`Moves`]): many
    /// states share their last beat, and so their next beat's voicings.
    moves: HashMap<Moves, Rc<[Voicing]>>,
}

/// What [`nearest_first`] reads of a prefix at its next beat `b`: `b` (the
/// soprano, the phrase), the tones of the last slice before it and the lower
/// parts' notes ending where it begins (what the motion rules judge), and the
/// lower parts of the beat before (what the voicings are sorted by).
type Moves = (usize, [Option<Tone>; 4], [Option<Tone>; 3], Option<Voicing>);

/// Voicing lists a prover keeps at most; it forgets them all when it has more.
const MOVES_CAP: usize = 1 << 12;

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
            moves: HashMap::new(),
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
        for &v in self.moves_at(a, b).iter() {
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

    /// [`nearest_first`] at beat `b` of `a`, made once for each [`Moves`].
    fn moves_at(&mut self, a: &Analysis, b: usize) -> Rc<[Voicing]> {
        let c = &a.chorale;
        let start = c.beat_start(a.number_of(b));
        let ending = |p: Part| {
            c.parts[p.index()]
                .last()
                .filter(|n| n.end() == start)
                .map(|n| n.tone)
        };
        let before = match b {
            0 => [None; 4],
            _ => a.slices.last().map_or([None; 4], |s| s.tones),
        };
        let key: Moves = (
            b,
            before,
            [Part::Alto, Part::Tenor, Part::Bass].map(ending),
            b.checked_sub(1).and_then(|p| written(a, p)),
        );
        if let Some(known) = self.moves.get(&key) {
            return Rc::clone(known);
        }
        if self.moves.len() >= MOVES_CAP {
            self.moves.clear();
        }
        let made: Rc<[Voicing]> = nearest_first(a, b, self.profile).into();
        self.moves.insert(key, Rc::clone(&made));
        made
    }

    /// The state `a` leaves for the rules still to judge (see the module).
    pub(super) fn state(&self, a: &Analysis) -> State {
        let b = a.beats.len();
        let c = &a.chorale;
        let start = c.beat_start(a.number_of(b));
        // The first beat under a soprano note begun before beat `b` and judged
        // there or later: the one held into it, and the one ending where it
        // begins (a non-chord tone is judged where the note after it begins).
        let soprano = &c.parts[Part::Soprano.index()];
        let held = soprano[soprano.partition_point(|n| n.end() < start)..]
            .iter()
            .take_while(|n| n.onset < start)
            .filter_map(|n| a.beat_index(n.onset))
            .min()
            .unwrap_or(b);
        let last = a.total().saturating_sub(1);
        let cadence = self
            .cadences
            .iter()
            .copied()
            .find(|&t| t >= b)
            .unwrap_or(last)
            .min(last);
        let looked_back = cadence.saturating_sub(CADENCE_LOOK_BACK);
        // Of the beat before the last, the parts whose note in the last beat is
        // outside its chord or its seventh.
        let reached = b.checked_sub(1).and_then(|j| {
            let beat = a.beats.get(j)?;
            let v = written(a, j)?;
            let seventh = beat.last_chord().and_then(|ch| ch.pc_of(Role::Seventh));
            Some(v.tones().map(|(_, t)| {
                beat.chord.is_some_and(|ch| !ch.contains(t.pc())) || seventh == Some(t.pc())
            }))
        });
        let from = b.saturating_sub(2).min(held).min(looked_back);
        let traces = (from..b)
            .map(|j| {
                let beat = a.beats.get(j);
                let v = written(a, j);
                let lower = v.map(|v| v.tones().map(|(_, t)| t));
                let tones: [Option<Tone>; 3] = if j + 1 == b {
                    lower.map_or([None; 3], |l| l.map(Some))
                } else if j + 2 == b {
                    match (lower, reached) {
                        (Some(l), Some(r)) => std::array::from_fn(|k| r[k].then_some(l[k])),
                        _ => [None; 3],
                    }
                } else {
                    [None; 3]
                };
                let chords = (j + 1 == b || j >= held || j >= looked_back)
                    .then(|| beat.map(|x| (x.chord, x.closing)))
                    .flatten();
                let classes = (j >= looked_back)
                    .then(|| lower.map(|l| l.iter().fold(0u16, |m, t| m | 1 << t.pc())))
                    .flatten();
                Trace {
                    tones,
                    chords,
                    classes,
                }
            })
            .collect();
        (b, traces)
    }
}

/// Every voicing of the shape at beat `b` no motion rule rules out part by part
/// ([`moving`]), the nearest to the last beat's first (a clean one is usually
/// near; only a dead end costs them all).
pub(crate) fn nearest_first(a: &Analysis, b: usize, profile: Profile) -> Vec<Voicing> {
    by_distance(a, b, moving(a, b, profile))
}

/// `voicings` of beat `b`, the nearest to the last beat's first.
pub(crate) fn by_distance(a: &Analysis, b: usize, mut voicings: Vec<Voicing>) -> Vec<Voicing> {
    if let Some(last) = b.checked_sub(1).and_then(|p| written(a, p)) {
        let away = |v: &Voicing| {
            v.tones()
                .iter()
                .zip(last.tones().iter())
                .map(|((_, x), (_, y))| u32::from(x.midi.abs_diff(y.midi)))
                .sum::<u32>()
        };
        voicings.sort_by_key(away);
    }
    voicings
}
