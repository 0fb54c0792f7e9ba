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
//! generate–measure–revise loop over whole artefacts ([`Engine::revise`]).
//!
//! ```text
//! plan ─▶ for each section: propose ─▶ verify each event ─▶ ladder (rungs in order,
//!        re-verified) ─▶ accept │ drop + Domain::skip ─▶ replan if too many drops
//!      ─▶ Domain::finish ─▶ ReleaseGate::judge ─▶ Released { artefact, trace }
//!                                                  │ Failure { diagnostics, trace }
//! ```
#![forbid(unsafe_code)]

mod domain;
mod engine;
mod gate;
mod predicate;
mod proposer;
mod repair;
mod revise;
mod trace;

pub use domain::{Domain, NoAmendment, PlanError};
pub use engine::{Budget, Diagnostic, Engine, Outcome, Progress};
pub use gate::{GateReport, ReleaseGate};
pub use predicate::{CheckContext, Predicate, Severity, Verdict, Verifier, Violation};
pub use proposer::{Cost, Proposal, ProposalRequest, Proposer, ProposerError, RequestKind};
pub use repair::{AskProposer, Ladder, PatchScope, RepairRung, RungAction};
pub use revise::{Assessment, Measure};
pub use trace::{
    CallRecord, Certificate, CertificateOf, Entry, RoundRecord, RunHeader, SectionRecord, Status,
    Step, Totals, Trace, TraceOf,
};

/// The async-trait attribute proposers implement [`Proposer`] with.
pub use async_trait::async_trait;
