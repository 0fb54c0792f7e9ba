//! The generate–measure–revise loop over whole artefacts (Libretto's loop), defined
//! once: [`Revising`] holds its rules, and every loop of this kind drives it — the
//! engine's two ([`Engine::revise_whole`](crate::Engine::revise_whole),
//! [`Engine::revise_harness`](crate::Engine::revise_harness)) and Libretto's
//! workflows, whose authors write whole scores outside any [`Domain`](crate::Domain).
//!
//! Each round produces a whole artefact, judges it by a gate (hard: passed or not,
//! how many violations) and a [`Measure`] (soft: a score, whether it is satisfied),
//! and turns both into feedback for the next round — saying what is off and which way
//! to move, not how. The best round is kept: gate passed first, then fewer hard
//! violations, then a satisfied measure, then the lower score; ties keep the earlier
//! round. The loop stops at the first round that passes the gate with the measure
//! satisfied, or when its rounds are spent. Round `r` is seeded with
//! [`round_seed`]`(seed, r)`, the run's own seed for the first, so a deterministic
//! proposer that cannot read feedback still offers a different artefact each round.
//! Every judged round leaves a [`RoundRecord`] for the trace.
//!
//! [`Revising`] does no I/O and awaits nothing: the caller asks it for the next
//! round ([`Revising::next`]), produces and judges the artefact however it does
//! (a model call, the whole harness, an embedded author), and tells it the result
//! ([`Revising::judged`], [`Revising::unusable`], [`Revising::stop`]). So one
//! definition serves loops with different errors, feedback types and futures.

mod engine;

pub use engine::{Assessment, Measure, Revise};

use crate::trace::RoundRecord;
use std::fmt::Display;

/// The seed of round `round` (1-based): the run's seed for the first round.
pub fn round_seed(seed: u64, round: u32) -> u64 {
    seed ^ u64::from(round.saturating_sub(1)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// What a round is asked: its number, its seed, and the previous round's feedback.
#[derive(Clone, Copy, Debug)]
pub struct RoundAsk<'a, F> {
    /// 1-based.
    pub round: u32,
    /// [`round_seed`] of the run's seed.
    pub seed: u64,
    /// What was wrong with the previous round (replaced each round, never
    /// accumulated; empty for the first).
    pub feedback: &'a [F],
}

/// A round's artefact and how it was judged.
#[derive(Clone, Debug)]
pub struct Judged<A, F> {
    /// The whole artefact (with whatever the caller keeps beside it).
    pub artefact: A,
    /// Whether the gate passed it.
    pub gate_passed: bool,
    /// Hard violations the gate found.
    pub hard_violations: usize,
    /// The measure's view.
    pub assessment: Assessment,
    /// Feedback for the next round (the gate's findings, then the measure's).
    pub feedback: Vec<F>,
    /// Events the round proposed (for the trace).
    pub events: usize,
    /// Proposer calls the round made.
    pub calls: u64,
}

/// The best round so far.
#[derive(Clone, Debug)]
pub struct Kept<A> {
    /// Which round (1-based).
    pub round: u32,
    /// Its artefact.
    pub artefact: A,
    /// Whether the gate passed it.
    pub gate_passed: bool,
    /// The measure's view of it.
    pub assessment: Assessment,
    rank: Rank,
}

impl<A> Kept<A> {
    /// Whether it may be released under `require_measure`: gate passed and, if the
    /// measure is required, the measure satisfied.
    pub fn releasable(&self, require_measure: bool) -> bool {
        self.gate_passed && (!require_measure || self.assessment.converged)
    }
}

/// How rounds compare: smaller is better.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
struct Rank {
    gate_failed: bool,
    hard: usize,
    unsatisfied: bool,
    score: f64,
}

/// The loop's rules and state: which round is next, what it is told, which round is
/// best, when to stop (see the module doc).
#[derive(Debug)]
pub struct Revising<A, F> {
    seed: u64,
    rounds: u32,
    next_round: u32,
    feedback: Vec<F>,
    best: Option<Kept<A>>,
    calls: u64,
    judged: u32,
    done: bool,
}

/// How the loop ended.
#[derive(Debug)]
pub struct Revised<A> {
    /// The best judged round (`None` when no round could be judged).
    pub best: Option<Kept<A>>,
    /// Rounds judged.
    pub judged: u32,
    /// Rounds asked, judged or not.
    pub asked: u32,
}

impl<A, F: Display> Revising<A, F> {
    /// At most `options.rounds` rounds from `seed`.
    pub fn new(seed: u64, options: Revise) -> Self {
        Revising {
            seed,
            rounds: options.rounds,
            next_round: 1,
            feedback: Vec::new(),
            best: None,
            calls: 0,
            judged: 0,
            done: false,
        }
    }

    /// The next round to run, or `None` when the loop is over (rounds spent, a round
    /// satisfied both judges, or [`Revising::stop`]).
    pub fn next(&self) -> Option<RoundAsk<'_, F>> {
        (!self.done && self.next_round <= self.rounds).then(|| RoundAsk {
            round: self.next_round,
            seed: round_seed(self.seed, self.next_round),
            feedback: &self.feedback,
        })
    }

    /// The round asked last produced `judged`: it is ranked against the best so far,
    /// its feedback goes to the next round, and the loop ends if it passed the gate
    /// with the measure satisfied. Returns the round's record for the trace.
    pub fn judged(&mut self, judged: Judged<A, F>) -> RoundRecord {
        let round = self.take_round();
        let first_call = self.calls + 1;
        self.calls += judged.calls;
        self.judged += 1;
        let converged = judged.gate_passed && judged.assessment.converged;
        let rank = Rank {
            gate_failed: !judged.gate_passed,
            hard: judged.hard_violations,
            unsatisfied: !judged.assessment.converged,
            score: judged.assessment.score,
        };
        let is_best = self.best.as_ref().is_none_or(|b| rank < b.rank);
        let record = RoundRecord {
            round,
            call: first_call,
            events: judged.events,
            gate_passed: judged.gate_passed,
            hard_violations: judged.hard_violations,
            score: judged.assessment.score,
            converged,
            best: is_best,
            feedback: judged.feedback.iter().map(ToString::to_string).collect(),
            measure: judged.assessment.facts.clone(),
        };
        if is_best {
            self.best = Some(Kept {
                round,
                artefact: judged.artefact,
                gate_passed: judged.gate_passed,
                assessment: judged.assessment,
                rank,
            });
        }
        self.feedback = judged.feedback;
        self.done |= converged;
        record
    }

    /// The round asked last produced nothing that could be judged (an unreadable
    /// reply); the loop goes on, telling the next round `feedback`.
    pub fn unusable(&mut self, feedback: Vec<F>, calls: u64) {
        self.take_round();
        self.calls += calls;
        self.feedback = feedback;
    }

    /// The round asked last could not be finished and the loop cannot go on (a
    /// budget spent, a proposer that cannot work).
    pub fn stop(&mut self) {
        self.take_round();
        self.done = true;
    }

    /// The best round so far.
    pub fn best(&self) -> Option<&Kept<A>> {
        self.best.as_ref()
    }

    /// How the loop ended.
    pub fn finish(self) -> Revised<A> {
        Revised {
            best: self.best,
            judged: self.judged,
            asked: self.next_round - 1,
        }
    }

    fn take_round(&mut self) -> u32 {
        let round = self.next_round;
        self.next_round += 1;
        round
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(gate_passed: bool, hard: usize, converged: bool, score: f64) -> Judged<u32, String> {
        Judged {
            artefact: 0,
            gate_passed,
            hard_violations: hard,
            assessment: Assessment {
                score,
                converged,
                ..Assessment::default()
            },
            feedback: vec![format!("score {score}")],
            events: 1,
            calls: 1,
        }
    }

    /// Runs `rounds` through a loop of `max` rounds; returns the best round, the
    /// rounds judged, and the feedback each round was given.
    fn drive(max: u32, rounds: Vec<Judged<u32, String>>) -> (Option<u32>, u32, Vec<Vec<String>>) {
        let mut revising = Revising::new(5, Revise::measured(max));
        let mut given = Vec::new();
        let mut rounds = rounds.into_iter();
        while let Some(ask) = revising.next() {
            given.push(ask.feedback.to_vec());
            let Some(mut j) = rounds.next() else { break };
            j.artefact = ask.round;
            revising.judged(j);
        }
        let revised = revising.finish();
        (revised.best.map(|b| b.artefact), revised.judged, given)
    }

    #[test]
    fn a_round_satisfying_both_judges_is_kept_over_a_lower_score_and_ends_the_loop() {
        // Round 1 passes the gate with a better score but the measure unsatisfied;
        // round 2 satisfies both: it is the best (releasable under require_measure),
        // and round 3 is never asked.
        let (best, judged, given) = drive(
            3,
            vec![
                judged(true, 0, false, 1.0),
                judged(true, 0, true, 4.0),
                judged(true, 0, true, 0.0),
            ],
        );
        assert_eq!((best, judged), (Some(2), 2));
        assert_eq!(given, [vec![], vec!["score 1".to_string()]]);
    }

    #[test]
    fn the_gate_then_hard_violations_then_the_score_rank_rounds_and_ties_keep_the_first() {
        let rounds = || {
            vec![
                judged(false, 2, false, 0.0),
                judged(false, 1, false, 9.0),
                judged(false, 1, false, 3.0),
                judged(false, 1, false, 3.0),
            ]
        };
        assert_eq!(drive(4, rounds()).0, Some(3));
        let mut passed = rounds();
        passed.push(judged(true, 0, false, 99.0));
        assert_eq!(drive(5, passed).0, Some(5));
    }

    #[test]
    fn an_unusable_round_passes_its_feedback_on_and_its_calls_count() {
        let mut revising: Revising<u32, String> = Revising::new(5, Revise::gate_only(4));
        assert_eq!(revising.next().map(|a| (a.round, a.seed)), Some((1, 5)));
        revising.unusable(vec!["unreadable".into()], 2);
        let ask = revising.next().unwrap();
        assert_eq!(
            (ask.round, ask.feedback),
            (2, &["unreadable".to_string()][..])
        );
        assert_eq!(ask.seed, round_seed(5, 2));
        let record = revising.judged(judged(false, 1, false, 0.0));
        assert_eq!((record.round, record.call, record.best), (2, 3, true));
        revising.stop();
        assert!(revising.next().is_none());
        let revised = revising.finish();
        assert_eq!((revised.judged, revised.asked), (1, 3));
        assert_eq!(revised.best.map(|b| b.round), Some(2));
    }

    #[test]
    fn each_round_has_its_own_seed_and_the_first_is_the_runs() {
        let seeds: std::collections::BTreeSet<u64> = (1..=64).map(|r| round_seed(11, r)).collect();
        assert_eq!(seeds.len(), 64);
        assert_eq!(round_seed(11, 1), 11);
    }
}
