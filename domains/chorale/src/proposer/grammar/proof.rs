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
//! - of the beats the next cadence looks back over ([`CADENCE_LOOK_BACK`] beats
//!   before its last beat), the chords and the pitch classes of the lower parts of
//!   at most two: the beats of the last chord written and of the last on another
//!   root than it ([`cadence_reads`]). The cadence takes as the chord before its
//!   last the last chord on another root, and whether it sounds its root and
//!   third; whatever its last chord, that is one of these two or a chord still to
//!   be written, never one between or before them.
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
//! What a search learns — this state is dead, that one live — is the rules'
//! verdict on the state, so it is kept for the run ([`Knowledge`], [`Proofs`]):
//! the next offer, and the offer after a step back, start from it.
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
use std::sync::{Arc, Mutex};

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

/// A state's fingerprint: 128 bits of its hash (two SipHash sums of fixed keys),
/// what the memo keeps instead of the state itself — a few bytes for some
/// hundreds, so a run can keep what its proofs learnt. Two states sharing a
/// fingerprint by chance (some 10⁻²⁶ for a million states) is the one way a
/// verdict could be wrong; nothing else rests on it.
type Print = u128;

fn print(state: &State) -> Print {
    use std::hash::{Hash, Hasher};
    let half = |salt: u8| {
        let mut h = std::hash::DefaultHasher::new();
        salt.hash(&mut h);
        state.hash(&mut h);
        h.finish()
    };
    (u128::from(half(0)) << 64) | u128::from(half(1))
}

/// What the proofs toward one horizon (a phrase's cadence and a beat beyond, or
/// the last beat: [`super::super::horizon`]) have learnt of the states they
/// searched: those from which the horizon cannot be reached breaking no hard rule
/// (dead) and those from which it can (live). A verdict is the rules' of the state,
/// so it holds wherever the state is met again — in the next offer, after the loop
/// steps back — and a run keeps it ([`Proofs`]): what one offer proved, the next
/// does not prove again. That is what lets the offers of a phrase's last beats be
/// exact where each alone would run out of budget.
#[derive(Debug)]
pub(crate) struct Knowledge {
    horizon: usize,
    /// The profile whose hard rules the verdicts are of.
    profile: Profile,
    dead: HashSet<Print>,
    live: HashSet<Print>,
    /// The voicings to try at a beat, by what they depend on ([`Moves`]): many
    /// states share their last beat, and so their next beat's voicings.
    moves: HashMap<Moves, Arc<[Voicing]>>,
}

impl Knowledge {
    /// Nothing known yet of the states on the way to beat `horizon` under
    /// `profile`.
    pub fn new(horizon: usize, profile: Profile) -> Self {
        Knowledge {
            horizon,
            profile,
            dead: HashSet::new(),
            live: HashSet::new(),
            moves: HashMap::new(),
        }
    }

    /// How many states it holds a verdict on.
    pub fn len(&self) -> usize {
        self.dead.len() + self.live.len()
    }

    /// The beat its proofs are toward.
    pub fn horizon(&self) -> usize {
        self.horizon
    }

    /// What it knows of the state `a` leaves: `Some(true)` if the horizon can be
    /// reached from it, `Some(false)` if not.
    pub fn verdict(&self, a: &Analysis, cadences: &[usize]) -> Option<bool> {
        self.lookup(print(&state(a, cadences)))
    }

    /// What it knows of the state printed `p`.
    fn lookup(&self, p: Print) -> Option<bool> {
        if self.dead.contains(&p) {
            Some(false)
        } else if self.live.contains(&p) {
            Some(true)
        } else {
            None
        }
    }

    /// Records that the horizon can be reached from the state `a` leaves (a way
    /// there was found).
    pub fn learn_live(&mut self, a: &Analysis, cadences: &[usize]) {
        self.live.insert(print(&state(a, cadences)));
    }
}

/// The states a run's [`Knowledge`] may hold in all (some 20 bytes each); past it,
/// what was learnt toward other horizons than the one asked for is forgotten, then
/// that one's too. Forgetting costs time, never a wrong verdict.
const KNOWLEDGE_CAP: usize = 2_000_000;

/// What the proofs of one run have learnt, by horizon: shared by the clones of a
/// run's state ([`crate::domain::ChState`]), so an offer after a step back knows
/// what the offers before it proved. One run's only: two runs never share it, so
/// a run's offers depend on its own history alone (the same seed, the same run).
#[derive(Clone, Debug, Default)]
pub struct Proofs(Arc<Mutex<Vec<Knowledge>>>);

impl Proofs {
    /// Runs `f` with what is known toward `horizon` under `profile`.
    pub(crate) fn with<T>(
        &self,
        horizon: usize,
        profile: Profile,
        f: impl FnOnce(&mut Knowledge) -> T,
    ) -> T {
        let mut all = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let this = |k: &Knowledge| k.horizon == horizon && k.profile == profile;
        if all.iter().map(Knowledge::len).sum::<usize>() > KNOWLEDGE_CAP {
            all.retain(|k| this(k) && k.len() <= KNOWLEDGE_CAP);
        }
        let i = match all.iter().position(this) {
            Some(i) => i,
            None => {
                all.push(Knowledge::new(horizon, profile));
                all.len() - 1
            }
        };
        f(&mut all[i])
    }
}

/// An exhaustive search for a way from a prefix to beat `goal` (written and
/// judged), at most the horizon of the [`Knowledge`] it draws on and adds to.
///
/// A state it finds dead toward its goal is dead toward the horizon too, and so
/// is one whose every way on meets a state known dead toward the horizon: it
/// records both as dead and prunes at known dead states — which makes its
/// `Some(false)` a proof that the horizon cannot be reached (not the goal, if the
/// goal is nearer). A state known live toward the horizon reaches the goal.
pub(crate) struct Prover<'c, 'k> {
    profile: Profile,
    /// The last beat of every phrase.
    cadences: &'c [usize],
    goal: usize,
    /// The voicings it may still push and judge.
    pub budget: usize,
    known: &'k mut Knowledge,
    /// States from which the goal (nearer than the horizon) can be reached.
    reached: HashSet<Print>,
}

/// What [`nearest_first`] reads of a prefix at its next beat `b`: `b` (the
/// soprano, the phrase), the tones of the last slice before it and the lower
/// parts' notes ending where it begins (what the motion rules judge), and the
/// lower parts of the beat before (what the voicings are sorted by).
type Moves = (usize, [Option<Tone>; 4], [Option<Tone>; 3], Option<Voicing>);

/// Voicing lists a prover keeps at most; it forgets them all when it has more.
const MOVES_CAP: usize = 1 << 12;

impl<'c, 'k> Prover<'c, 'k> {
    /// A prover of ways to beat `goal` (or the horizon of `known`, or the last
    /// beat, if sooner), judging at most `budget` voicings in all.
    pub fn new(
        profile: Profile,
        cadences: &'c [usize],
        goal: usize,
        budget: usize,
        known: &'k mut Knowledge,
    ) -> Self {
        debug_assert!(known.profile == profile, "knowledge of another profile");
        Prover {
            profile,
            cadences,
            goal: goal.min(known.horizon),
            budget,
            known,
            reached: HashSet::new(),
        }
    }

    /// Whether the goal is the horizon (a way found is a way to it).
    pub(crate) fn settles(&self) -> bool {
        self.goal == self.known.horizon
    }

    /// Whether `a` can be written on to the goal breaking no hard rule:
    /// `Some(false)` is a proof that it cannot (nor to the horizon), `None` says
    /// the budget ran out.
    pub fn reaches(&mut self, a: &mut Analysis) -> Option<bool> {
        let b = a.beats.len();
        if b > self.goal || b >= a.total() {
            return Some(true);
        }
        let state = print(&state(a, self.cadences));
        if let Some(known) = self.known.lookup(state) {
            return Some(known);
        }
        if self.reached.contains(&state) {
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
                    if self.settles() {
                        self.known.live.insert(state);
                    } else {
                        self.reached.insert(state);
                    }
                    return Some(true);
                }
                None => return None,
                Some(false) => {}
            }
        }
        self.known.dead.insert(state);
        Some(false)
    }

    /// [`nearest_first`] at beat `b` of `a`, made once for each [`Moves`].
    fn moves_at(&mut self, a: &Analysis, b: usize) -> Arc<[Voicing]> {
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
        let moves = &mut self.known.moves;
        if let Some(known) = moves.get(&key) {
            return Arc::clone(known);
        }
        if moves.len() >= MOVES_CAP {
            moves.clear();
        }
        let made: Arc<[Voicing]> = nearest_first(a, b, self.profile).into();
        moves.insert(key, Arc::clone(&made));
        made
    }
}

/// The state `a` leaves for the rules still to judge (see the module), the next
/// cadence among `cadences`.
pub(super) fn state(a: &Analysis, cadences: &[usize]) -> State {
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
    let cadence = cadences
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
    let cadence_reads = cadence_reads(a, looked_back, b);
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
            let read_by_cadence = cadence_reads.contains(&Some(j));
            let chords = (j + 1 == b || j >= held || read_by_cadence)
                .then(|| beat.map(|x| (x.chord, x.closing)))
                .flatten();
            let classes = read_by_cadence
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

/// The beats before `b`, from `looked_back` on, whose chords the next cadence may
/// still take as the chord before its last (at most two): the last chord written
/// and the last on another root than it. A cadence takes the last chord on
/// another root than its own (within its look-back, [`crate::rules::cadence`]'s
/// `ending`); if the beats still to come hold only its root, that is the first
/// of these on another root — the last chord written if its root differs, the
/// other if not — and every chord between or before them is never read. So a
/// prefix's other chords in the look-back are not part of its state: this is what
/// lets a proof merge the prefixes of a phrase that differ only in how it began.
fn cadence_reads(a: &Analysis, looked_back: usize, b: usize) -> [Option<usize>; 2] {
    let mut chords = (looked_back..b).rev().flat_map(|i| {
        let beat = a.beats.get(i);
        [
            beat.and_then(|x| x.closing.map(|(_, c)| c)),
            beat.and_then(|x| x.chord),
        ]
        .into_iter()
        .flatten()
        .map(move |c| (i, c))
    });
    let Some((last, chord)) = chords.next() else {
        return [None, None];
    };
    let other = chords.find(|(_, c)| c.root != chord.root).map(|(i, _)| i);
    [Some(last), other]
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
