//! Filling one section: ask the proposer, settle every candidate, ask for what the
//! section still owes (continue requests), and replan while too many were dropped or
//! something is still owed and the replan budget lasts. A section still short after
//! that ends the run: the loop never moves on from a section the gate must refuse.

use super::Diagnostic;
use super::run::{Ask, Run};
use super::settle::{CONTINUES_PER_SECTION, SectionFill};
use crate::domain::Domain;
use crate::proposer::{Feedback, RequestKind};

impl<D: Domain> Run<'_, D> {
    /// Fills section `index`, replanning while too many events are dropped and the
    /// replan budget lasts. `outer` is feedback from outside the section (a revise
    /// round's musical feedback, a dead end the loop stepped back from): every
    /// request of the section carries it first. Its attempts are numbered from
    /// `first` (0, unless the loop stepped back into a section it had tried before).
    pub(crate) async fn fill_section(
        &mut self,
        index: usize,
        state: &mut D::State,
        outer: &[Feedback<D::Location>],
        first: u32,
    ) -> Result<(), Diagnostic<D::Location>> {
        let domain = &self.engine.domain;
        let budget = self.budget();
        let snapshot = state.clone();
        let mut feedback: Vec<Feedback<D::Location>> = outer.to_vec();
        let mut replan = 0;
        loop {
            domain.begin_section(state, &self.plan[index]);
            let called = self
                .call(Ask {
                    kind: RequestKind::Section,
                    section: Some(index),
                    state,
                    feedback: &feedback,
                    attempt: first + replan,
                })
                .await;
            let called = match called {
                Ok(called) => called,
                // A proposer that failed (a crashed plugin, a server outage, an
                // unreadable reply) gets the section's replans, as a bad section
                // would; a spent budget, or a proposer showing there is no way on
                // from here, ends the section at once.
                Err(diag)
                    if !self.no_way_on
                        && self.call_refusal().is_none()
                        && replan < budget.replans_per_section =>
                {
                    self.totals.replans += 1;
                    *state = snapshot.clone();
                    feedback = outer
                        .iter()
                        .cloned()
                        .chain([Feedback::RequestFailed {
                            reason: diag.reason,
                        }])
                        .collect();
                    replan += 1;
                    continue;
                }
                Err(diag) => return Err(diag),
            };
            let mut fill = SectionFill::new(self, index, first + replan);
            fill.settle_all(state, called.events, called.call).await;
            let owed = fill.settle_owed(state, outer).await;
            let short = !owed.is_empty();
            let (proposed, dropped) = (fill.proposed, fill.dropped);
            // A drop the domain reopened was asked for again, not lost: only the
            // holes left behind count against the threshold.
            let lost = dropped.saturating_sub(fill.reopened);
            let too_many = proposed > 0 && lost as f64 / proposed as f64 > budget.drop_threshold;
            let replanning = (too_many || short) && replan < budget.replans_per_section;
            let mut next_feedback = if dropped > 0 {
                fill.feedback()
            } else {
                Vec::new()
            };
            if short {
                next_feedback.push(Feedback::Owed {
                    section: index,
                    owed: owed.clone(),
                });
            }
            // Kept with drops: say why, so a failing gate's report is read with its cause.
            let drop_note = (!replanning && dropped > 0 && !short).then(|| {
                let why = if too_many {
                    format!(
                        "after {replan} replan{} (budget exhausted)",
                        if replan == 1 { "" } else { "s" }
                    )
                } else if lost == 0 {
                    "each placed again by a continue request".to_owned()
                } else {
                    "below the replan threshold".to_owned()
                };
                format!(
                    "section {} kept with dropped events {why}: {}",
                    index + 1,
                    next_feedback
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("; ")
                )
            });
            fill.record(called.call, &feedback, replanning, drop_note, owed);
            if short && !replanning {
                // A short section is never accepted: the run ends here, explicitly.
                let why = next_feedback
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ");
                return Err(Diagnostic::engine_msg(format!(
                    "{why} (after {replan} replan{} and {CONTINUES_PER_SECTION} continue requests per attempt)",
                    if replan == 1 { "" } else { "s" }
                )));
            }
            if !replanning {
                return Ok(());
            }
            self.totals.replans += 1;
            *state = snapshot.clone();
            feedback = outer.iter().cloned().chain(next_feedback).collect();
            replan += 1;
        }
    }
}
