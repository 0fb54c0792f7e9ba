//! Filling one section: ask the proposer, settle every candidate, and replan while too
//! many were dropped and the replan budget lasts.

use super::Diagnostic;
use super::run::{Ask, Run};
use super::settle::SectionFill;
use crate::domain::Domain;
use crate::proposer::{Feedback, RequestKind};

impl<D: Domain> Run<'_, D> {
    /// Fills section `index`, replanning while too many events are dropped and the
    /// replan budget lasts. `outer` is feedback from outside the section (a revise
    /// round's musical feedback): every request of the section carries it first.
    pub(crate) async fn fill_section(
        &mut self,
        index: usize,
        state: &mut D::State,
        outer: &[Feedback<D::Location>],
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
                    attempt: replan,
                })
                .await;
            let called = match called {
                Ok(called) => called,
                // A proposer that failed (a crashed plugin, a server outage, an
                // unreadable reply) gets the section's replans, as a bad section
                // would; a spent budget ends the run at once.
                Err(diag)
                    if self.call_refusal().is_none() && replan < budget.replans_per_section =>
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
            let mut fill = SectionFill::new(self, index, replan);
            fill.settle_all(state, called.events, called.call).await;
            let (proposed, dropped) = (fill.proposed, fill.dropped);
            let too_many = proposed > 0 && dropped as f64 / proposed as f64 > budget.drop_threshold;
            let replanning = too_many && replan < budget.replans_per_section;
            let next_feedback = fill.feedback();
            // Kept with drops: say why, so a failing gate's report is read with its cause.
            let drop_note = (!replanning && dropped > 0).then(|| {
                let why = if too_many {
                    format!(
                        "after {replan} replan{} (budget exhausted)",
                        if replan == 1 { "" } else { "s" }
                    )
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
            fill.record(called.call, &feedback, replanning, drop_note);
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
