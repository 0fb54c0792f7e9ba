//! Depth-first search for the rest of a phrase, under the rule catalogue.
//!
//! From the chorale written so far, the search voices beat after beat to the end
//! of the phrase (its cadence), trying at each beat the vocabulary's voicings in
//! order of taste — the chord's usualness, the progression from the chord before,
//! smooth inner parts, a held chord under a held melody note, a cadence at the
//! phrase end — and keeping a voicing only if the beat it makes breaks no rule of
//! the level searched. The order at a beat depends only on the seed, the attempt,
//! the restart, the beat and the voicing before it, so asking again from an
//! accepted prefix of a planned phrase finds the same phrase.

use super::vocabulary::{Choice, choices};
use crate::analysis::Analysis;
use crate::domain::{Voicing, pop_voicing, push_voicing, with_voicing};
use crate::harmony::Chord;
use crate::pitch::Part;
use crate::rules::{self, Profile};
use std::collections::HashMap;
use std::sync::Arc as Rc;

/// How much of the catalogue the search obeys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Every rule, soft ones included.
    Textbook,
    /// The profile's hard rules only.
    Hard,
}

/// Each level's restarts and the nodes each restart may visit.
const LEVELS: [(Level, u64, usize); 2] = [(Level::Textbook, 4, 300), (Level::Hard, 8, 600)];

/// How many voicings are tried at a beat, best first.
const BREADTH: usize = 24;

/// The cost of moving from `prev` to `now` (root motion, function).
fn progression(prev: Option<Chord>, now: Chord, tonic: u8, held: bool) -> f64 {
    let Some(prev) = prev else {
        // A phrase opens on its tonic best.
        return if now.root == tonic { 0.0 } else { 0.6 };
    };
    if prev.same_harmony(now) {
        return if held { 0.0 } else { 0.6 };
    }
    if held {
        // A new chord under a held melody note is fine, but no better than holding.
        return 0.4 + progression(Some(prev), now, tonic, false);
    }
    let dominant = (tonic + 7) % 12;
    let subdominant = (tonic + 5) % 12;
    if prev.root == dominant && now.root == subdominant {
        return 1.2;
    }
    match (now.root + 12 - prev.root) % 12 {
        5 => 0.0,
        2 | 9 | 8 => 0.25,
        7 => 0.35,
        3 | 4 => 0.6,
        10 => 0.7,
        0 => 0.3,
        1 | 11 => 0.8,
        _ => 1.5,
    }
}

/// The cost of the motion of the lower parts from `prev` to `now`.
fn motion(prev: Option<&Voicing>, now: &Voicing) -> f64 {
    let Some(prev) = prev else { return 0.0 };
    let step = |a: u8, b: u8| (i32::from(a) - i32::from(b)).abs();
    let inner = 0.08
        * f64::from(step(prev.alto.midi, now.alto.midi) + step(prev.tenor.midi, now.tenor.midi));
    let bass = match step(prev.bass.midi, now.bass.midi) {
        0 => 0.1,
        1 | 2 => 0.0,
        3..=5 => 0.1,
        7 => 0.15,
        8..=12 => 0.5,
        _ => 2.0,
    };
    inner + bass
}

/// A generator for one search node (SplitMix64 mixing of the parts).
fn rng_for(seed: u64, parts: &[u64]) -> fastrand::Rng {
    fastrand::Rng::with_seed(cantus_framework::mix_seed(
        seed ^ 0x0C40_2A1E_5EA2_C4C4,
        parts,
    ))
}

pub(crate) struct Search {
    pub a: Analysis,
    /// The last beat to voice.
    end: usize,
    seed: u64,
    attempt: u64,
    restart: u64,
    /// Voicings not to give at the first beat (a refused candidate, dead ends).
    forbid: Vec<Voicing>,
    first: usize,
    level: Level,
    profile: Profile,
    nodes: usize,
    limit: usize,
    /// Whether the order at each beat is shuffled (an embedded proposer's taste)
    /// or plain (a completion check).
    noise: bool,
    /// The last beat of every phrase.
    cadences: Rc<Vec<usize>>,
    cache: HashMap<usize, Rc<Vec<Choice>>>,
}

impl Search {
    /// A search voicing the beats from the next one of `a` to `end`.
    pub fn new(a: &Analysis, end: usize, cadences: Rc<Vec<usize>>, profile: Profile) -> Search {
        Search {
            first: a.beats.len(),
            a: a.clone(),
            end,
            seed: 0,
            attempt: 0,
            restart: 0,
            forbid: Vec::new(),
            level: Level::Hard,
            profile,
            nodes: 0,
            limit: 0,
            noise: false,
            cadences,
            cache: HashMap::new(),
        }
    }

    /// The voicing of beat `b` written so far.
    fn voicing_at(&self, b: usize) -> Option<Voicing> {
        let c = &self.a.chorale;
        let at = c.beat_start(self.a.number_of(b));
        let tone = |p: Part| c.note_at(p, at).map(|n| c.parts[p.index()][n].tone);
        Some(Voicing {
            beat: b,
            alto: tone(Part::Alto)?,
            tenor: tone(Part::Tenor)?,
            bass: tone(Part::Bass)?,
        })
    }

    /// The voicings to try at beat `b` (the next of the analysis), best first.
    fn ordered(&mut self, b: usize) -> Vec<Voicing> {
        let all = match self.cache.get(&b) {
            Some(c) => Rc::clone(c),
            None => {
                let c = Rc::new(choices(&self.a, b));
                self.cache.insert(b, Rc::clone(&c));
                c
            }
        };
        let prev = b.checked_sub(1).and_then(|p| self.voicing_at(p));
        let prev_chord = b
            .checked_sub(1)
            .and_then(|p| self.a.beats.get(p))
            .and_then(|beat| beat.last_chord());
        let c = &self.a.chorale;
        let start = c.beat_start(self.a.number_of(b));
        let held = c
            .note_at(Part::Soprano, start)
            .is_some_and(|n| c.parts[0][n].onset < start);
        let tonic = c.key.tonic_pc();
        let related: Vec<u8> = c
            .key
            .closely_related()
            .iter()
            .map(|k| k.tonic_pc())
            .collect();
        let cadence = self.cadences.contains(&b);
        let before_cadence = self.cadences.contains(&(b + 1));
        let last = self.cadences.last() == Some(&b);
        let mut rng = rng_for(
            self.seed,
            &[
                self.attempt,
                self.restart,
                b as u64,
                prev.map_or(0, |p| {
                    u64::from(p.bass.midi) << 16
                        | u64::from(p.tenor.midi) << 8
                        | u64::from(p.alto.midi)
                }),
            ],
        );
        let mut scored: Vec<(f64, Voicing)> = all
            .iter()
            .filter(|ch| !(b == self.first && self.forbid.contains(&ch.voicing)))
            .map(|ch| {
                let mut cost = ch.cost
                    + progression(prev_chord, ch.chord, tonic, held)
                    + motion(prev.as_ref(), &ch.voicing);
                if held && prev.is_some_and(|p| p.tones() == ch.voicing.tones()) {
                    cost -= 0.3;
                }
                let root_position = ch.chord.inversion() == Some(0);
                if cadence {
                    let home = !last || ch.chord.root == tonic;
                    cost += if root_position
                        && ch.chord.quality.is_consonant_triad()
                        && related.contains(&ch.chord.root)
                        && home
                    {
                        -0.6
                    } else {
                        1.0
                    };
                }
                if before_cadence
                    && ch.chord.quality.is_dominant()
                    && related.contains(&((ch.chord.root + 5) % 12))
                {
                    cost -= 0.3;
                }
                if self.noise {
                    cost += rng.f64() * (0.8 + 0.4 * self.restart as f64);
                }
                (cost, ch.voicing)
            })
            .collect();
        scored.sort_by(|x, y| x.0.total_cmp(&y.0));
        scored.into_iter().take(BREADTH).map(|(_, v)| v).collect()
    }

    /// Whether the beat just pushed keeps the rules of the level.
    fn keeps(&self, b: usize) -> bool {
        match self.level {
            Level::Hard => !rules::breaks_hard(&self.a, b, self.profile),
            Level::Textbook => rules::judge_beat(&self.a, b).is_empty(),
        }
    }

    fn run(&mut self, b: usize) -> bool {
        if b > self.end {
            return true;
        }
        self.nodes += 1;
        if self.nodes > self.limit {
            return false;
        }
        for v in self.ordered(b) {
            if !push_voicing(&mut self.a, &v) {
                return false;
            }
            if self.keeps(b) && self.run(b + 1) {
                return true;
            }
            pop_voicing(&mut self.a);
            if self.nodes > self.limit {
                return false;
            }
        }
        false
    }

    /// The voicings from the first beat on, once a run succeeded.
    fn found(&self) -> Vec<Voicing> {
        (self.first..self.a.beats.len())
            .filter_map(|b| self.voicing_at(b))
            .collect()
    }
}

/// What to search: from the next beat of `base` to `end`, with `cadences` (the
/// last beat of every phrase) and the profile the rules are judged by.
pub(crate) struct Task<'a> {
    pub base: &'a Analysis,
    pub end: usize,
    pub cadences: Rc<Vec<usize>>,
    pub profile: Profile,
}

/// Voicings for the beats of `task`: the strictest level that finds them within
/// its budget; failing both, each beat greedily (the first voicing that breaks no
/// hard rule, else the first tried), which the engine will then repair or drop.
/// `forbid` are voicings not to give at the first beat.
pub(crate) fn complete(
    task: &Task<'_>,
    seed: u64,
    attempt: u64,
    forbid: &[Voicing],
) -> Vec<Voicing> {
    let mut search = Search::new(task.base, task.end, Rc::clone(&task.cadences), task.profile);
    search.seed = seed;
    search.attempt = attempt;
    search.forbid = forbid.to_vec();
    search.noise = true;
    for (level, restarts, limit) in LEVELS {
        for restart in 0..restarts {
            search.a = task.base.clone();
            search.level = level;
            search.restart = restart;
            search.nodes = 0;
            search.limit = limit;
            if search.run(search.first) {
                return search.found();
            }
        }
    }
    search.a = task.base.clone();
    search.restart = 0;
    let mut out = Vec::new();
    for b in search.first..=search.end {
        let tried = search.ordered(b);
        let profile = search.profile;
        let pick = tried
            .iter()
            .copied()
            .find(|v| with_voicing(&mut search.a, v, |a| !rules::breaks_hard(a, b, profile)));
        let Some(pick) = pick.or(tried.first().copied()) else {
            break;
        };
        push_voicing(&mut search.a, &pick);
        out.push(pick);
    }
    out
}

/// Answers, for many chorales that differ only in their last beat, whether each
/// can still be voiced to `end` keeping every hard rule (the vocabulary of each
/// beat is computed once for all of them).
pub(crate) struct Completer {
    search: Search,
}

impl Completer {
    /// A completer for chorales like `task.base` (with one beat more) to `task.end`.
    pub fn new(task: &Task<'_>) -> Completer {
        Completer {
            search: Search::new(task.base, task.end, Rc::clone(&task.cadences), task.profile),
        }
    }

    /// Whether `base` can still be voiced to the end, visiting at most `limit`
    /// beats: `None` when the budget ran out first. `Some(true)` is a witness the
    /// model's grammar takes as proof a voicing leads on; `Some(false)` proves
    /// nothing (only the vocabulary's best voicings were tried).
    pub fn completable(&mut self, base: &Analysis, limit: usize) -> Option<bool> {
        let s = &mut self.search;
        s.a = base.clone();
        s.first = base.beats.len();
        s.nodes = 0;
        s.limit = limit;
        if s.run(s.first) {
            return Some(true);
        }
        (s.nodes <= limit).then_some(false)
    }
}
