//! Depth-first search for a continuation of an exercise, under the rule catalogue.

use crate::domain::CpEvent;
use crate::exercise::{Beat, Exercise, Moment, Position};
use crate::rules::{self, Finding};
use crate::rungs::usable;
use cantus_framework::RuleId;

/// How much of the catalogue the search obeys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Every rule, soft ones included, and a line within a tenth.
    Textbook,
    /// As textbook, but a leap may go unrecovered: some cadences force it (e.g.
    /// Dorian, second species below: the fifth below the penultimate cantus note is
    /// reached from beneath and left upward to the leading tone).
    Cadence,
    /// Hard rules and the soft moment rules but the two leap rules (no line rules).
    Moment,
    /// Hard rules only.
    Hard,
}

/// The soft rules [`Level::Cadence`] and [`Level::Moment`] let go.
const LEAP_RULES: [RuleId; 2] = [rules::FS_M_LEAP_RECOVERY, rules::FS_M_DOUBLE_LEAP];

impl Level {
    /// Whether a finding blocks a candidate at this level.
    fn blocks(self, f: &Finding) -> bool {
        f.is_hard()
            || match self {
                Level::Textbook => true,
                Level::Cadence | Level::Moment => !LEAP_RULES.contains(&f.predicate),
                Level::Hard => false,
            }
    }

    /// Whether the line rules and the textbook shape (range, repetitions) hold.
    fn whole_line(self) -> bool {
        matches!(self, Level::Textbook | Level::Cadence)
    }
}

/// Each level's restarts and the nodes each restart may visit before the next
/// restart (or the next, laxer level) is tried. Short restarts with fresh orders
/// beat one long search: a prefix that dooms the cadence is abandoned early.
const LEVELS: [(Level, u64, usize); 4] = [
    (Level::Textbook, 8, 1_500),
    (Level::Cadence, 8, 1_500),
    (Level::Moment, 8, 1_500),
    (Level::Hard, 24, 3_000),
];

/// A generator for one search node, from the seed and what the node depends on
/// (SplitMix64 mixing, so neighbouring inputs give unrelated streams).
fn rng_for(seed: u64, parts: &[u64]) -> fastrand::Rng {
    fastrand::Rng::with_seed(cantus_framework::mix_seed(
        seed ^ 0x5EC1_E5C0_0000_F0C5_u64,
        parts,
    ))
}

/// The pitches the counterpoint may use: above, from the cantus's lowest note to a
/// tenth over its highest; below, the mirror image.
pub(crate) fn range(ex: &Exercise) -> (u8, u8) {
    let lo = ex.cantus.iter().map(|n| n.midi).min().unwrap_or(60);
    let hi = ex.cantus.iter().map(|n| n.midi).max().unwrap_or(60);
    match ex.position {
        Position::Above => (lo, hi.saturating_add(16).min(127)),
        Position::Below => (lo.saturating_sub(16), hi),
    }
}

/// How much a melodic move costs the search's taste: steps first, then thirds,
/// then larger leaps.
fn taste(semitones: i32) -> f64 {
    match semitones.abs() {
        1 | 2 => 0.0,
        3 | 4 => 1.0,
        5 => 2.0,
        7 => 2.5,
        8 | 12 => 3.0,
        0 => 2.0,
        _ => 6.0,
    }
}

struct Search<'a> {
    ex: Exercise,
    slots: &'a [(usize, Beat)],
    seed: u64,
    attempt: u64,
    restart: u64,
    forbid: Option<u8>,
    range: (u8, u8),
    level: Level,
    nodes: usize,
    limit: usize,
    /// Whether a whole line must pass the gate (no hard finding, line rules too)
    /// even at a level that does not judge the line.
    release: bool,
}

impl<'a> Search<'a> {
    /// A search from `base` over `slots` at `level`, with no node budget yet.
    fn new(
        base: &Exercise,
        slots: &'a [(usize, Beat)],
        (seed, attempt): (u64, u64),
        forbid: Option<u8>,
        level: Level,
    ) -> Self {
        Search {
            ex: base.clone(),
            slots,
            seed,
            attempt,
            restart: 0,
            forbid,
            range: range(base),
            level,
            nodes: 0,
            limit: 0,
            release: false,
        }
    }

    /// The pitches to try at slot `k`, best first.
    fn candidates(&self, k: usize) -> Vec<u8> {
        let (bar, beat) = self.slots[k];
        let prev = self.ex.moments.last().map(|m| m.counterpoint.midi);
        let mut rng = rng_for(
            self.seed,
            &[
                self.attempt,
                self.restart,
                bar as u64,
                beat as u64,
                u64::from(prev.unwrap_or(0)),
            ],
        );
        let cf_move = match (self.ex.moments.last(), self.ex.cantus.get(bar)) {
            (Some(m), Some(now)) => i32::from(now.midi) - i32::from(m.cantus.midi),
            _ => 0,
        };
        let mut scored: Vec<(f64, u8)> = (self.range.0..=self.range.1)
            .filter(|&p| usable(&self.ex, bar, p % 12))
            .filter(|&p| !(k == 0 && self.forbid == Some(p)))
            .map(|p| {
                let mv = prev.map_or(0, |q| i32::from(p) - i32::from(q));
                let contrary = cf_move != 0 && mv != 0 && mv.signum() != cf_move.signum();
                let cost = prev.map_or(0.0, |_| taste(mv)) - if contrary { 0.5 } else { 0.0 };
                (cost + rng.f64() * (2.0 + self.restart as f64), p)
            })
            .collect();
        scored.sort_by(|a, b| a.0.total_cmp(&b.0));
        scored.into_iter().map(|(_, p)| p).collect()
    }

    fn acceptable(&self, found: &[Finding]) -> bool {
        !found.iter().any(|f| self.level.blocks(f))
    }

    /// Early pruning for a textbook line: within a tenth, at most one repetition.
    fn shape_ok(&self) -> bool {
        if !self.level.whole_line() {
            return true;
        }
        let pitches = self.ex.moments.iter().map(|m| m.counterpoint.midi);
        let (lo, hi) = pitches
            .clone()
            .fold((u8::MAX, 0), |(l, h), p| (l.min(p), h.max(p)));
        let repeats = self
            .ex
            .moments
            .windows(2)
            .filter(|w| w[0].counterpoint.midi == w[1].counterpoint.midi)
            .count();
        hi.saturating_sub(lo) <= 16 && repeats <= 1
    }

    fn run(&mut self, k: usize) -> bool {
        if k == self.slots.len() {
            return !(self.level.whole_line() || self.release)
                || !rules::judge(&self.ex).iter().any(|f| self.level.blocks(f));
        }
        self.nodes += 1;
        if self.nodes > self.limit {
            return false;
        }
        let (bar, beat) = self.slots[k];
        let Some(&cantus) = self.ex.cantus.get(bar) else {
            return false;
        };
        for p in self.candidates(k) {
            self.ex.moments.push(Moment {
                bar,
                beat,
                onset: Exercise::onset(bar, beat),
                cantus,
                counterpoint: self.ex.modality.note(p),
            });
            let i = self.ex.moments.len() - 1;
            let ok = self.shape_ok() && self.acceptable(&rules::judge_moment(&self.ex, i));
            if ok && self.run(k + 1) {
                return true;
            }
            self.ex.moments.pop();
            if self.nodes > self.limit {
                return false;
            }
        }
        false
    }
}

/// A continuation of `base` over `slots`: the strictest level that finds one within
/// its budget; failing all, a greedy line (each note the first that breaks no hard
/// local rule, else the first tried), which the engine will then repair or drop.
/// `forbid` excludes one pitch at the first slot (a patch must not repeat the
/// rejected candidate).
pub fn complete(
    base: &Exercise,
    slots: &[(usize, Beat)],
    seed: u64,
    attempt: u64,
    forbid: Option<u8>,
) -> Vec<CpEvent> {
    match solve(base, slots, seed, attempt, forbid) {
        Some((_, line)) => line,
        None => {
            let mut search = Search::new(base, slots, (seed, attempt), forbid, Level::Hard);
            greedy(&mut search, base)
        }
    }
}

/// Whether `base` can still be carried over `slots` to a counterpoint the gate
/// releases (no hard finding, moment or line), searching at most `limit` nodes:
/// `None` when the budget ran out before an answer. The model proposer's grammar
/// offers a note only where this is not `Some(false)`, so a small model cannot
/// write itself into a cadence with no way out.
pub(crate) fn completable(base: &Exercise, slots: &[(usize, Beat)], limit: usize) -> Option<bool> {
    let mut search = Search {
        limit,
        release: true,
        ..Search::new(base, slots, (0, 0), None, Level::Hard)
    };
    if search.run(0) {
        return Some(true);
    }
    (search.nodes <= limit).then_some(false)
}

/// The strictest level that finds a continuation within its budget, and the continuation.
fn solve(
    base: &Exercise,
    slots: &[(usize, Beat)],
    seed: u64,
    attempt: u64,
    forbid: Option<u8>,
) -> Option<(Level, Vec<CpEvent>)> {
    let mut search = Search::new(base, slots, (seed, attempt), forbid, Level::Textbook);
    for (level, restarts, limit) in LEVELS {
        for restart in 0..restarts {
            search.ex = base.clone();
            search.level = level;
            search.restart = restart;
            search.nodes = 0;
            search.limit = limit;
            if search.run(0) {
                let line = search.ex.moments[base.moments.len()..]
                    .iter()
                    .map(CpEvent::of)
                    .collect();
                return Some((level, line));
            }
        }
    }
    None
}

fn greedy(search: &mut Search<'_>, base: &Exercise) -> Vec<CpEvent> {
    search.ex = base.clone();
    search.restart = 0;
    search.level = Level::Hard;
    for k in 0..search.slots.len() {
        let (bar, beat) = search.slots[k];
        let Some(&cantus) = search.ex.cantus.get(bar) else {
            break;
        };
        let tried = search.candidates(k);
        let Some(&first) = tried.first() else { break };
        let moment = |p: u8| Moment {
            bar,
            beat,
            onset: Exercise::onset(bar, beat),
            cantus,
            counterpoint: search.ex.modality.note(p),
        };
        let pick = tried
            .iter()
            .copied()
            .find(|&p| {
                let mut trial = search.ex.clone();
                trial.moments.push(moment(p));
                let i = trial.moments.len() - 1;
                rules::judge_moment(&trial, i).iter().all(|f| !f.is_hard())
            })
            .unwrap_or(first);
        search.ex.moments.push(moment(pick));
    }
    search.ex.moments[base.moments.len()..]
        .iter()
        .map(CpEvent::of)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Assignment, Cantus, ModeName, Species};

    /// Fux's canti admit a line that keeps every rule but, at worst, the two leap
    /// rules some cadences force: the search finds one at the first two levels.
    #[test]
    fn every_shipped_cantus_gets_a_textbook_or_cadence_line() {
        for mode in ModeName::ALL {
            for position in [Position::Above, Position::Below] {
                for species in [Species::First, Species::Second] {
                    let a = Assignment::new(Cantus::fux(mode), species, position);
                    let base = a.empty_exercise();
                    let slots = a.slots();
                    let (level, line) = solve(&base, &slots, 7, 0, None).expect("a line");
                    assert!(
                        matches!(level, Level::Textbook | Level::Cadence),
                        "{mode} {position} {species:?}: only {level:?}"
                    );
                    assert_eq!(line.len(), slots.len());
                    let mut ex = base.clone();
                    ex.moments
                        .extend(line.iter().filter_map(|e| e.moment(&ex.cantus)));
                    let found = rules::judge(&ex);
                    assert!(found.iter().all(|f| !f.is_hard()), "{found:#?}");
                    assert!(
                        found.iter().all(|f| LEAP_RULES.contains(&f.predicate)),
                        "{mode} {position} {species:?}: {found:#?}"
                    );
                }
            }
        }
    }
}
