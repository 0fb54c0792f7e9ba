//! The trace: how every accepted (or dropped) event got there.
//!
//! Each candidate event gets a [`Certificate`]: the proposer call it came from, the
//! original proposal, the first verdict, every rung tried with its before/after and
//! verdict, and the final status. Sections, proposer calls and revise rounds get
//! their own records, and the run ends with totals and the gate's report.
//!
//! A trace is written as JSON lines, one record per line, tagged by `kind`. Every line
//! except the last (`timing`) depends only on the inputs and the seed: no clock value
//! is mixed into the deterministic part, so two runs with one seed give identical
//! traces up to that line.

use crate::domain::Domain;
use crate::engine::Budget;
use crate::gate::GateReport;
use crate::model::Usage;
use crate::predicate::{RuleId, Violation};
use crate::proposer::{Owed, RequestType};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::time::Duration;

/// Which loop a run was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunMode {
    /// Propose–verify–repair over the plan (`ladder`).
    Ladder,
    /// Generate–measure–revise with whole-artefact rounds (`revise`).
    Revise,
    /// Generate–measure–revise with a full harness run per round (`revise-harness`).
    ReviseHarness,
}

/// What the run was: written first.
#[derive(Clone, Debug, Serialize)]
pub struct RunHeader {
    pub domain: String,
    pub proposer: String,
    pub seed: u64,
    pub mode: RunMode,
    pub predicates: Vec<RuleId>,
    pub ladder: Vec<String>,
    pub gate: String,
    pub budget: Budget,
}

/// One proposer call.
#[derive(Clone, Debug, Serialize)]
pub struct CallRecord {
    /// Call number, from 1, in order of calls.
    pub call: u64,
    pub request: RequestType,
    pub section: Option<usize>,
    pub attempt: u32,
    /// Number of events returned (0 when the call failed).
    pub events: usize,
    pub cost: Usage,
    /// The error, when the call failed.
    pub error: Option<String>,
    /// The model exchange, for model-backed proposers: usage, stop reason, latency,
    /// retries and what became of a decoding constraint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<crate::model::ModelExchange>,
    /// For a continue request: why it was made — what each part still owed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub owed: Vec<Owed>,
}

/// Final status of one candidate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Status {
    /// Accepted as proposed.
    Accepted,
    /// Accepted after the named rung's candidate passed verification.
    Repaired { rung: String },
    /// Dropped after the ladder was exhausted; the domain's cursors still advanced.
    Dropped,
}

/// What a rung did with a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepAction {
    /// It offered a new candidate.
    Candidate,
    /// It asked the proposer for a patch or a rewrite.
    AskProposer,
    /// It could not help.
    GiveUp,
}

/// One rung applied to one candidate.
#[derive(Clone, Debug, Serialize)]
pub struct Step<E, L, A> {
    /// Ladder pass, from 1.
    pub pass: u32,
    pub rung: String,
    pub action: StepAction,
    /// The proposer call this step made, if any.
    pub call: Option<u64>,
    pub before: E,
    pub after: Option<E>,
    pub amendments: Vec<A>,
    /// The verdict on `after` (empty when there is no `after`).
    pub verdict: Vec<Violation<L>>,
    /// Whether `after` became the current candidate (clean, or fewer hard violations).
    pub kept: bool,
    /// Why the rung gave up, when it did.
    pub reason: Option<String>,
}

/// The certificate of one candidate event.
#[derive(Clone, Debug, Serialize)]
pub struct Certificate<E, L, A> {
    /// Index into the plan, from 0.
    pub section: usize,
    /// Which attempt at the section (0 = first plan, 1.. = replans).
    pub replan: u32,
    /// Position among the section attempt's candidates, from 0.
    pub index: usize,
    /// The proposer call that produced the original proposal.
    pub call: u64,
    pub location: L,
    pub proposed: E,
    /// The verdict on the original proposal.
    pub verdict: Vec<Violation<L>>,
    pub steps: Vec<Step<E, L, A>>,
    #[serde(flatten)]
    pub status: Status,
    /// The event as accepted (absent when dropped).
    pub accepted: Option<E>,
    /// Accepted, then taken out again — with a drop before it in its part
    /// ([`Domain::reopen`](crate::Domain::reopen)), or with its section when the
    /// loop stepped back past it ([`SectionOutcome::Withdrawn`]): not in the
    /// artefact; its positions were asked for again.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub withdrawn: bool,
}

/// How an attempt at a section ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SectionOutcome {
    /// Its events stand (with any drops).
    Kept,
    /// It was rolled back and the section proposed again.
    Replanned,
    /// Kept, then rolled back when a later section could not be filled (the loop
    /// stepped back, [`Budget::backtracks`](crate::Budget)); its certificates say
    /// `withdrawn`.
    Withdrawn,
}

/// One attempt at one section.
#[derive(Clone, Debug, Serialize)]
pub struct SectionRecord {
    /// Index into the plan, from 0 (messages for people count from 1).
    pub section: usize,
    pub replan: u32,
    pub call: u64,
    pub proposed: usize,
    pub accepted: usize,
    pub repaired: usize,
    pub dropped: usize,
    /// Dropped events the domain took back ([`Domain::reopen`](crate::Domain::reopen)):
    /// owed again and asked for by a continue request instead of lost.
    #[serde(skip_serializing_if = "is_zero")]
    pub reopened: usize,
    /// Accepted events taken back with reopened drops that came before them in
    /// their part (their certificates say `withdrawn`).
    #[serde(skip_serializing_if = "is_zero")]
    pub withdrawn: usize,
    pub outcome: SectionOutcome,
    /// Continue requests made in this attempt (for what a reply left owing).
    #[serde(skip_serializing_if = "is_zero")]
    pub continues: u32,
    /// What the attempt still owed when it ended (empty: complete).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub owed: Vec<Owed>,
    /// The feedback given to the proposer for this attempt.
    pub feedback: Vec<String>,
    /// For an attempt kept with dropped events: why, as a failing gate's report
    /// quotes it. (Derivable from the certificates, so not written to the trace.)
    #[serde(skip)]
    pub drop_note: Option<String>,
}

/// One round of the generate–measure–revise loop.
#[derive(Clone, Debug, Serialize)]
pub struct RoundRecord {
    pub round: u32,
    pub call: u64,
    pub events: usize,
    pub gate_passed: bool,
    pub hard_violations: usize,
    pub score: f64,
    pub converged: bool,
    /// Whether this round became the best so far.
    pub best: bool,
    /// The feedback this round produced (given to the next round).
    pub feedback: Vec<String>,
    /// The measure's facts about this round's artefact ([`crate::Assessment::facts`]).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub measure: BTreeMap<String, serde_json::Value>,
}

/// Run totals. Deterministic for a seed: no clock values. Event counts run over
/// every section attempt, including attempts a replan rolled back.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Totals {
    pub proposer_calls: u64,
    /// The tokens of every call, written inline (`tokens_in`, `tokens_out`, and
    /// `tokens_cached` when a server said): each a sum over the calls that reported
    /// it, `None` if none did ([`Usage::plus`]).
    #[serde(flatten)]
    pub usage: Usage,
    pub events_proposed: u64,
    pub accepted: u64,
    pub repaired: u64,
    pub dropped: u64,
    pub replans: u64,
    /// Successful repairs per rung name.
    pub repairs_by_rung: BTreeMap<String, u64>,
    /// Revise rounds run (0 in ladder mode).
    pub rounds: u64,
    /// Continue requests: calls asking for what a section still owed.
    #[serde(skip_serializing_if = "is_zero")]
    pub continues: u64,
    /// Accepted events taken back with a reopened drop before them in their part
    /// ([`Certificate::withdrawn`]); counted in `accepted` or `repaired` too.
    #[serde(skip_serializing_if = "is_zero")]
    pub withdrawn: u64,
    /// Steps back into an earlier section ([`Budget::backtracks`](crate::Budget)).
    #[serde(skip_serializing_if = "is_zero")]
    pub backtracks: u64,
    /// Section attempts that ended short (owing positions) after their continues.
    #[serde(skip_serializing_if = "is_zero")]
    pub short_sections: u64,
    /// Rungs retired for the rest of the run when their proposer answers repaired
    /// too few ([`crate::RepairRung::retires_after`]), in the order retired.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rungs_retired: Vec<String>,
    /// The choice the constraints of the run's model calls offered, summed over the
    /// calls that counted it (absent when none did: no constraint, or no model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub choice: Option<crate::model::Choice>,
}

fn is_zero<N: Default + PartialEq>(n: &N) -> bool {
    *n == N::default()
}

impl Totals {
    pub(crate) fn add_cost(&mut self, cost: Usage) {
        self.proposer_calls += 1;
        self.usage += cost;
    }
}

/// One record of a trace, in order of occurrence.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Entry<E, L, A> {
    Call(CallRecord),
    Event(Certificate<E, L, A>),
    Section(SectionRecord),
    Round(RoundRecord),
}

/// Everything that happened in one run.
#[derive(Clone, Debug)]
pub struct Trace<E, L, A> {
    pub header: RunHeader,
    pub entries: Vec<Entry<E, L, A>>,
    pub totals: Totals,
    /// The gate's report, when the run reached the gate.
    pub gate: Option<GateReport<L>>,
    /// Wall time of the run (kept out of the deterministic part).
    pub wall: Duration,
}

/// The trace type of a domain.
pub type TraceOf<D> =
    Trace<<D as Domain>::Event, <D as Domain>::Location, <D as Domain>::Amendment>;

/// The certificate type of a domain.
pub type CertificateOf<D> =
    Certificate<<D as Domain>::Event, <D as Domain>::Location, <D as Domain>::Amendment>;

/// A record that is not an [`Entry`], tagged with its `kind` like the entries are.
#[derive(Serialize)]
struct Tagged<'a, T> {
    kind: &'static str,
    #[serde(flatten)]
    body: &'a T,
}

#[derive(Serialize)]
struct Timing {
    wall_ms: u64,
}

fn emit<W: Write, T: Serialize>(out: &mut W, value: &T) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value).map_err(io::Error::other)?;
    out.write_all(b"\n")
}

impl<E: Serialize, L: Serialize, A: Serialize> Trace<E, L, A> {
    /// The certificates, in order.
    pub fn certificates(&self) -> impl Iterator<Item = &Certificate<E, L, A>> {
        self.entries.iter().filter_map(|e| match e {
            Entry::Event(c) => Some(c),
            _ => None,
        })
    }

    /// Writes the trace as JSON lines. With `timing`, a last `timing` line holds the
    /// wall time; without it the output depends only on inputs and seed.
    pub fn write_jsonl<W: Write>(&self, mut out: W, timing: bool) -> io::Result<()> {
        emit(
            &mut out,
            &Tagged {
                kind: "run",
                body: &self.header,
            },
        )?;
        for e in &self.entries {
            emit(&mut out, e)?;
        }
        if let Some(g) = &self.gate {
            emit(
                &mut out,
                &Tagged {
                    kind: "gate",
                    body: g,
                },
            )?;
        }
        emit(
            &mut out,
            &Tagged {
                kind: "totals",
                body: &self.totals,
            },
        )?;
        if timing {
            let wall_ms = u64::try_from(self.wall.as_millis()).unwrap_or(u64::MAX);
            emit(
                &mut out,
                &Tagged {
                    kind: "timing",
                    body: &Timing { wall_ms },
                },
            )?;
        }
        Ok(())
    }

    /// The deterministic part as a string (no timing line).
    pub fn to_jsonl_string(&self) -> String {
        let mut buf = Vec::new();
        // Writing to a Vec cannot fail, and every value is plain data.
        self.write_jsonl(&mut buf, false)
            .expect("serializing a trace to memory");
        String::from_utf8(buf).expect("serde_json writes UTF-8")
    }
}
