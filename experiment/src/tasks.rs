//! Task sets: what an experiment makes. A task is one thing to make, with an id, a
//! **family** — the template or source it was made from — by which the report's
//! bootstrap resamples, so tasks that share a template are not counted as independent
//! evidence, and the trials its domain runs.
//!
//! Every task set is a registered domain's own (`[tasks] domain = "<id>"`, a table
//! the domain names, as counterpoint's `[tasks.fux]`, or, naming neither, the default
//! domain's: twelve-tone's `bank` and `single_factor`): the domain reads the table
//! and runs each task itself (`registered.rs`, [`cantus_registry::Trials`]).

use cantus_registry::{DomainId, Trial};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// A task's id, unique in its set (`L12` for line 12 of a bank, `sf-0007` generated).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TaskId(pub String);

/// The family a task belongs to, for clustered resampling.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FamilyId(pub String);

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for FamilyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One task: what to make, with an id, a family, a line saying what it is, and its
/// domain's trials.
#[derive(Clone)]
pub struct Task {
    pub id: TaskId,
    pub family: FamilyId,
    /// The brief, or a one-line description of an exercise.
    pub brief: String,
    /// Where it came from (`file:line`), for messages.
    pub origin: String,
    /// The registered domain whose task it is.
    pub domain: DomainId,
    /// How many voices the result has, when the task fixes it (`None`: the domain's
    /// artefact says, if it is a score).
    pub voices: Option<usize>,
    /// Its trials.
    pub trial: Arc<dyn Trial>,
}

impl fmt::Debug for Task {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Task({} {}: {})", self.domain, self.id, self.brief)
    }
}
