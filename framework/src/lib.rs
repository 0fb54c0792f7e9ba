//! `cantus-framework`: the generic propose–verify–repair–trace engine.
//!
//! Cantus generates symbols under hard rules. A [`Proposer`] suggests events; a
//! [`Verifier`] of [`Predicate`]s checks each against the online state; a [`Ladder`]
//! of [`RepairRung`]s fixes what it can; every candidate gets a [`Certificate`] in
//! the [`Trace`]; and a [`ReleaseGate`] judges the finished artefact on its own,
//! giving an [`Outcome::Released`] or an explicit [`Outcome::Failure`].
//!
//! Nothing here knows about music, files or networks: a domain implements
//! [`Domain`] and supplies its predicates, rungs and gate; proposers (symbolic or
//! LLM-backed) implement [`Proposer`]. The same pieces also drive the
//! generate–measure–revise loop ([`Engine::revise_harness`], [`Engine::revise_whole`]).
//!
//! ```text
//! plan ─▶ for each section: propose ─▶ verify each event ─▶ ladder (rungs in order,
//!        re-verified) ─▶ accept │ drop + Domain::skip ─▶ replan if too many drops
//!      ─▶ Domain::finish ─▶ ReleaseGate::judge ─▶ Released { artefact, trace }
//!                                                  │ Failure { diagnostics, trace }
//! ```
//!
//! # Writing a domain
//!
//! A complete, if tiny, domain: strictly rising numbers. One predicate, one rung,
//! a gate, a proposer that slips once; the engine repairs the slip and releases.
//! `examples/cycles` is the same in full, with drops, replans and budgets.
//!
//! ```
//! use cantus_framework::*;
//!
//! /// Rising sequences of `len` numbers.
//! struct Rising;
//!
//! impl Domain for Rising {
//!     type Spec = usize;                 // how many numbers
//!     type Section = usize;              // one section
//!     type Event = u32;
//!     type State = Vec<u32>;             // accepted so far
//!     type Artefact = Vec<u32>;
//!     type Location = usize;             // position in the sequence
//!     type Amendment = NoAmendment;
//!     fn name(&self) -> &str { "rising" }
//!     fn plan(&self, _: &usize) -> Result<Vec<usize>, PlanError> { Ok(vec![0]) }
//!     fn initial_state(&self, _: &usize) -> Vec<u32> { Vec::new() }
//!     fn accept(&self, s: &mut Vec<u32>, _: &usize, e: &u32) { s.push(*e) }
//!     fn skip(&self, _: &mut Vec<u32>, _: &usize, _: &u32) {}
//!     fn locate(&self, _: &usize, _: &u32) -> usize { 0 }
//!     fn finish(&self, _: &usize, s: Vec<u32>) -> Vec<u32> { s }
//! }
//!
//! /// `RISE`: each number exceeds the one before.
//! struct Rises;
//! const RISE: RuleId = RuleId::new("RISE");
//! impl Predicate<Rising> for Rises {
//!     fn id(&self) -> RuleId { RISE }
//!     fn description(&self) -> &'static str { "each number exceeds the one before" }
//!     fn check(&self, ctx: CheckContext<'_, Rising>, e: &u32, out: &mut Vec<Violation<usize>>) {
//!         if let Some(&last) = ctx.state.last() && *e <= last {
//!             out.push(Violation::hard(RISE, ctx.state.len(), format!("{e} after {last}")));
//!         }
//!     }
//! }
//!
//! /// `bump`: replace a number that does not rise by the one after the last.
//! struct Bump;
//! impl RepairRung<Rising> for Bump {
//!     fn id(&self) -> RungId { RungId::new("bump") }
//!     fn repair(&self, ctx: CheckContext<'_, Rising>, _: &u32, _: &[Violation<usize>]) -> RungAction<Rising> {
//!         match ctx.state.last() {
//!             Some(&last) => RungAction::candidate(last + 1),
//!             None => RungAction::give_up("nothing to rise from"),
//!         }
//!     }
//! }
//!
//! /// The gate sees only the artefact.
//! struct RisingGate;
//! impl ReleaseGate<Rising> for RisingGate {
//!     fn name(&self) -> String { "rising".into() }
//!     fn judge(&self, _: &usize, a: &Vec<u32>) -> GateReport<usize> {
//!         let v = a.windows(2).enumerate().filter(|(_, w)| w[1] <= w[0])
//!             .map(|(i, w)| Violation::hard(RISE, i + 1, format!("{} after {}", w[1], w[0])))
//!             .collect();
//!         GateReport::from_violations(self.name(), v)
//!     }
//! }
//!
//! /// Proposes 1, 2, 2, 4: the second 2 is a slip.
//! struct Slippy;
//! #[async_trait]
//! impl Proposer<Rising> for Slippy {
//!     fn name(&self) -> &str { "slippy" }
//!     async fn propose(&self, _: ProposalRequest<'_, Rising>) -> Result<Proposal<u32>, ProposerError> {
//!         Ok(Proposal::new(vec![1, 2, 2, 4]))
//!     }
//! }
//!
//! let engine = Engine::new(Rising, Verifier::new().with(Rises), Ladder::new().then(Bump), RisingGate);
//! let outcome = tokio::runtime::Builder::new_current_thread().build().unwrap()
//!     .block_on(engine.run(&4, &Slippy, 0));
//! let Outcome::Released { artefact, trace } = outcome else { panic!("released") };
//! assert_eq!(artefact, vec![1, 2, 3, 4]);
//! assert_eq!(trace.totals.repairs_by_rung["bump"], 1);
//! ```
#![forbid(unsafe_code)]

mod domain;
mod engine;
mod gate;
pub mod model;
mod predicate;
mod proposer;
mod repair;
mod revise;
mod trace;

pub use domain::{Amend, Assemble, Domain, NoAmendment, PlanError, Reopened};
pub use engine::{Budget, BudgetOverrides, Diagnostic, Engine, Outcome, Progress};
pub use gate::{
    GateMode, GateModeParseError, GateReport, LISTED_VIOLATIONS, ReleaseGate, Unlisted,
};
pub use model::{
    AskOptions, Asking, Choice, Constraint, ConstraintUse, Freedom, Message, ModelBackend,
    ModelError, ModelExchange, ModelReply, ModelRequest, RetryAfter, Role, Sampling, Tally, Usage,
};
pub use predicate::{
    CheckContext, FlatViolation, Predicate, RuleId, Severity, Verdict, Verifier, Violation,
};
pub use proposer::{
    Feedback, Owed, Proposal, ProposalRequest, Proposer, ProposerError, RequestKind, RequestType,
    SplitMix, mix_seed,
};
pub use repair::{AskProposer, Ladder, PatchScope, RepairRung, RungAction, RungId};
pub use revise::{
    Assessment, Judged, Kept, Measure, Revise, Revised, Revising, RoundAsk, round_seed,
};
pub use trace::{
    CallRecord, Certificate, CertificateOf, Entry, RoundRecord, RunHeader, RunMode, SectionOutcome,
    SectionRecord, Status, Step, StepAction, Totals, Trace, TraceOf,
};

/// The async-trait attribute proposers implement [`Proposer`] with.
pub use async_trait::async_trait;
