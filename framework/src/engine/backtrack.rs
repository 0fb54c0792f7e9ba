//! Stepping back: a section that cannot be filled sends the loop back into the one
//! before it ([`Budget::backtracks`](crate::Budget)), instead of ending the run.
//!
//! Why: the rules of some domains judge a choice only sections later — a chorale's
//! cadence is judged at its last beat, and a voicing two beats earlier can leave no
//! dominant to reach it. Replanning the failing section cannot help there; the
//! choice to undo is behind it. The loop then rolls the state back to the start of
//! the section before, withdraws what that section and the failed one had accepted
//! (their certificates say `withdrawn`, their section records
//! [`SectionOutcome::Withdrawn`]), lets the domain record the withdrawn events as a
//! dead end behind that prefix ([`Domain::dead_end`]), and asks the section again
//! with the reason ([`Feedback::DeadEnd`]). Done again from there, this is a
//! depth-first search whose order is the proposer's, bounded by the budget; each
//! step back costs at least one request.

use super::Diagnostic;
use super::run::Run;
use crate::domain::Domain;
use crate::proposer::Feedback;
use crate::trace::{Entry, SectionOutcome};

/// The most characters of a dead end's reason a proposer is told.
const REASON_CHARS: usize = 240;

/// What the loop keeps to step back: the state at the start of each section, the
/// dead ends each section was told of, the attempts made at each.
pub(crate) struct Trail<D: Domain> {
    left: u32,
    starts: Vec<Option<D::State>>,
    told: Vec<Vec<Feedback<D::Location>>>,
    tries: Vec<u32>,
}

impl<D: Domain> Trail<D> {
    /// A trail for `sections` sections that may step back `backtracks` times (with
    /// none it keeps nothing).
    pub(crate) fn new(sections: usize, backtracks: u32) -> Self {
        let keep = if backtracks > 0 { sections } else { 0 };
        Trail {
            left: backtracks,
            starts: (0..keep).map(|_| None).collect(),
            told: vec![Vec::new(); keep],
            tries: vec![0; keep],
        }
    }

    fn active(&self) -> bool {
        !self.starts.is_empty()
    }

    /// The loop is about to fill section `index` from `state`.
    pub(crate) fn enter(&mut self, index: usize, state: &D::State) {
        if self.active() {
            self.starts[index] = Some(state.clone());
        }
    }

    /// The dead ends section `index` is told of.
    pub(crate) fn feedback(&self, index: usize) -> &[Feedback<D::Location>] {
        self.told.get(index).map_or(&[], Vec::as_slice)
    }

    /// The number of section `index`'s next attempt.
    pub(crate) fn first_attempt(&self, index: usize) -> u32 {
        self.tries.get(index).copied().unwrap_or(0)
    }

    /// Section `index` was filled or failed: its attempts so far, from the trace.
    pub(crate) fn tried(&mut self, index: usize, run: &Run<'_, D>) {
        if self.active() {
            self.tries[index] = run.attempts_of(index);
        }
    }
}

impl<D: Domain> Run<'_, D> {
    /// How many attempts at section `index` the trace records: its latest section
    /// record's number and one (records are appended in attempt order, so the search
    /// from the end stops at the section just filled).
    pub(crate) fn attempts_of(&self, index: usize) -> u32 {
        self.entries
            .iter()
            .rev()
            .find_map(|e| match e {
                Entry::Section(s) if s.section == index => Some(s.replan + 1),
                _ => None,
            })
            .unwrap_or(0)
    }

    /// Steps back from section `failed`, which `diag` ended, into the section before
    /// it, if the budget allows (not from the first section, nor once the run's call
    /// budget or deadline is spent): withdraws what that section and the ones after
    /// it accepted, and returns its index and the state at its start with the
    /// domain's note of the dead end.
    pub(crate) fn step_back(
        &mut self,
        failed: usize,
        diag: &Diagnostic<D::Location>,
        trail: &mut Trail<D>,
    ) -> Option<(usize, D::State)> {
        let into = failed.checked_sub(1)?;
        if trail.left == 0 || self.call_refusal().is_some() {
            return None;
        }
        let mut state = trail.starts.get(into).cloned().flatten()?;
        trail.left -= 1;
        self.totals.backtracks += 1;
        // The attempts that stood (kept, not replanned) at `into` and after it.
        let mut stood = std::collections::BTreeSet::new();
        for entry in &mut self.entries {
            if let Entry::Section(s) = entry
                && s.section >= into
                && s.outcome == SectionOutcome::Kept
            {
                s.outcome = SectionOutcome::Withdrawn;
                stood.insert((s.section, s.replan));
            }
        }
        let mut dead = Vec::new();
        for entry in &mut self.entries {
            if let Entry::Event(c) = entry
                && stood.contains(&(c.section, c.replan))
                && !c.withdrawn
                && let Some(event) = &c.accepted
            {
                if c.section == into {
                    dead.push(event.clone());
                }
                c.withdrawn = true;
                self.totals.withdrawn += 1;
            }
        }
        self.engine
            .domain
            .dead_end(&mut state, &self.plan[into], &dead);
        let mut reason: String = diag.reason.chars().take(REASON_CHARS).collect();
        if reason.len() < diag.reason.len() {
            reason.push('…');
        }
        trail.told[into].push(Feedback::DeadEnd {
            section: failed,
            reason,
        });
        for later in trail.told.iter_mut().skip(into + 1) {
            later.clear();
        }
        Some((into, state))
    }
}
