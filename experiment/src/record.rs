//! One line of `results.jsonl`: everything a run came to, enough to recompute every
//! metric without running it again — the piece in the text grammar, the strict and
//! the relaxed gate's verdicts per predicate, what the relaxed gate let through only
//! because of tags, the loop's counts, the cost and the trace file (with its size and
//! hash, so a resumed experiment can tell a trace that is still whole).
//!
//! A record is identified by its [`Key`] — (task, model, condition, run) — and carries
//! the experiment file's hash, so records can be written by several processes (shards)
//! and merged later: nothing in a record depends on which process ran it or in which
//! order. The first line of the file is a [`Header`] holding the experiment file
//! itself and the reference set's distributions, so the report reads nothing else.

use super::conditions::ConditionId;
use super::shard::Shard;
use super::tasks::{FamilyId, TaskId};
use cantus_framework::{Choice, Usage};
use cantus_registry::DomainId;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// What identifies a record.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Key {
    pub task: TaskId,
    pub model: String,
    pub condition: ConditionId,
    /// From 0; also the run's seed.
    pub run: u32,
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{}/{}",
            self.task, self.model, self.condition, self.run
        )
    }
}

impl Key {
    /// A file name for this key's trace and run folder: each name made a
    /// [`file_name_part`], so the stem stays well under any file system's limit.
    pub fn file_stem(&self) -> String {
        format!(
            "{}+{}+{}+r{}",
            file_name_part(&self.task.0),
            file_name_part(&self.model),
            file_name_part(&self.condition.0),
            self.run
        )
    }
}

/// Longest [`file_name_part`] (bytes).
pub const FILE_NAME_PART_MAX: usize = 64;

/// A name (a task, model or condition) as part of a file name: characters outside
/// `[A-Za-z0-9._-]` become `_`; a name longer than [`FILE_NAME_PART_MAX`] keeps its
/// first 47 characters and ends in `~` and 16 hex digits of its SHA-256, so two long
/// names stay apart and a file name made of three parts is never too long to write.
pub fn file_name_part(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.len() <= FILE_NAME_PART_MAX {
        return clean;
    }
    let hash = format!("{:x}", Sha256::digest(name.as_bytes()));
    format!("{}~{}", &clean[..47], &hash[..16])
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunOutcome {
    /// Released by the strict gate.
    Released,
    /// A piece was made and refused (by the gate, or by the revise loop's measure).
    Refused,
    /// No piece reached the gate: the model failed or its reply could not be read, the
    /// plan could not be made, a budget ran out.
    Failed,
    /// The condition means nothing for this model; not run.
    NotApplicable,
}

/// One gate's verdict: passed, and violations per predicate id (every rule of the
/// gate is listed, 0 where it holds).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub passed: bool,
    pub violations: BTreeMap<String, u64>,
}

impl Verdict {
    /// Whether predicate `id` held.
    pub fn holds(&self, id: &str) -> bool {
        self.violations.get(id).copied().unwrap_or(0) == 0
    }
}

/// What the loop did (sections mode; `None` for whole-piece runs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    pub proposed: u64,
    pub accepted_as_proposed: u64,
    pub repaired: u64,
    pub repairs_by_rung: BTreeMap<String, u64>,
    pub dropped: u64,
    pub replans: u64,
    pub rounds: u64,
    /// Sections the run worked on (each counted once however often it was replanned
    /// or revised); absent in records written before it was kept.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub sections: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What a run cost. `seconds` is the only field that differs between two runs of the
/// same record.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    pub calls: u64,
    /// The framework's [`Usage`], its fields written inline (`tokens_in`,
    /// `tokens_out`, and `tokens_cached` when the server says): a count no server
    /// gave stays unknown.
    #[serde(flatten)]
    pub tokens: Usage,
    pub seconds: f64,
}

/// A file a record names, with what it held when it was written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileCheck {
    /// Relative to the output directory.
    pub path: String,
    pub bytes: u64,
    pub sha256: String,
}

impl FileCheck {
    /// The check of `bytes`, to be written at `path` (relative to the output directory).
    pub fn of(path: String, bytes: &[u8]) -> FileCheck {
        FileCheck {
            path,
            bytes: bytes.len() as u64,
            sha256: format!("{:x}", Sha256::digest(bytes)),
        }
    }

    /// Whether the file under `dir` still has this size and hash: a regular file
    /// reached through no symbolic link (its path is the record's own, see
    /// [`Record::check_files`]), hashed as it streams.
    pub fn holds(&self, dir: &Path) -> bool {
        let Some(file) = regular_file_under(dir, &self.path) else {
            return false;
        };
        let mut hasher = Sha256::new();
        std::fs::File::open(&file)
            .and_then(|f| {
                use std::io::Read as _;
                std::io::copy(&mut f.take(self.bytes.saturating_add(1)), &mut hasher)
            })
            .is_ok_and(|n| n == self.bytes && format!("{:x}", hasher.finalize()) == self.sha256)
    }
}

/// `dir/relative` when every step of it below `dir` is a plain directory and the
/// last a regular file (no symbolic link anywhere below `dir`).
fn regular_file_under(dir: &Path, relative: &str) -> Option<std::path::PathBuf> {
    let mut at = dir.to_path_buf();
    let parts: Vec<&str> = relative.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        at.push(part);
        let meta = std::fs::symlink_metadata(&at).ok()?;
        let last = i + 1 == parts.len();
        if (last && !meta.is_file()) || (!last && !meta.is_dir()) {
            return None;
        }
    }
    Some(at)
}

/// The domain of a record that names none: the first domain records were written
/// for (twelve-tone), before records named their domain. A part of the file format,
/// not a dependency: whichever domains a program links, such a record is read as
/// one of this id's.
pub const UNNAMED_DOMAIN: DomainId = DomainId::new("twelve-tone");

fn is_unnamed(domain: &DomainId) -> bool {
    *domain == UNNAMED_DOMAIN
}

fn unnamed() -> DomainId {
    UNNAMED_DOMAIN
}

/// One run's record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    #[serde(flatten)]
    pub key: Key,
    /// The domain of the task: what the record's piece and verdicts mean. Absent
    /// for [`UNNAMED_DOMAIN`] (the first task set; older records have no field).
    #[serde(default = "unnamed", skip_serializing_if = "is_unnamed")]
    pub domain: DomainId,
    pub family: FamilyId,
    /// SHA-256 of the experiment file.
    pub experiment: String,
    pub seed: u64,
    pub outcome: RunOutcome,
    /// Why it failed, was refused or does not apply (empty when released).
    pub reason: String,
    /// The piece in the text grammar, released or not, when one was made.
    pub piece: Option<String>,
    pub voices: usize,
    pub strict: Option<Verdict>,
    pub relaxed: Option<Verdict>,
    /// Whether the relaxed gate would have released it (the run's other checks, like
    /// the revise loop's measure, still apply).
    pub released_relaxed: bool,
    /// Events whose row label the relaxed gate took from their tags.
    pub events_relying_on_tags: Option<u64>,
    /// Libretto's degeneracy gate on the piece (serial reference table).
    pub libretto_degeneracy_passed: Option<bool>,
    pub counts: Option<Counts>,
    pub cost: Cost,
    /// The trace (or, for a whole-piece run, the exchange and the reply).
    pub trace: Option<FileCheck>,
    /// The run's folder under `runs/`, file by file, when the experiment asks for
    /// run folders (`run_folders = true`) and the run wrote one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileCheck>,
    /// Which control the run's model is, if it is one: the embedded planner, or the
    /// null model (chance under the same constraint). Absent for a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control: Option<Control>,
    /// The choice the run's constraints offered its model and how much of it the
    /// answers took as the plan has it (summed over its calls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<Choice>,
    /// A registered domain's own measures of the piece, by name (absent when it
    /// measures nothing, and for the built-in task sets).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub measures: BTreeMap<String, f64>,
}

/// A control every model is reported beside.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Control {
    /// The embedded planner (the proposer a plan stands for).
    Plan,
    /// The null model: uniform draws from each request's constraint.
    Null,
}

impl Record {
    /// Whether the strict gate released it.
    pub fn released(&self) -> bool {
        self.outcome == RunOutcome::Released
    }

    /// Whether it counts in rates: every outcome but not-applicable.
    pub fn applies(&self) -> bool {
        self.outcome != RunOutcome::NotApplicable
    }

    /// Released by the relaxed gate but not by the strict one: a release that depends
    /// on trusting tags.
    pub fn depends_on_tags(&self) -> bool {
        self.released_relaxed && !self.released()
    }

    /// The record with its timing zeroed, for comparing two runs of it. A run
    /// folder's files keep their names only: its trace holds timings, and its report
    /// the folder's path.
    pub fn without_timing(&self) -> Record {
        let mut r = self.clone();
        r.cost.seconds = 0.0;
        for f in &mut r.files {
            f.bytes = 0;
            f.sha256.clear();
        }
        r
    }

    /// Every file the record names (its trace, its run folder), relative to the
    /// output directory.
    pub fn written(&self) -> impl Iterator<Item = &FileCheck> {
        self.trace.iter().chain(&self.files)
    }

    /// Whether every file the record names is still under `out` as it was written.
    pub fn whole_in(&self, out: &Path) -> bool {
        self.written().all(|f| f.holds(out))
    }

    /// Whether every file the record names is its own: its trace at
    /// `traces/<stem>.jsonl`, its run folder's files directly in `runs/<stem>/`
    /// (`<stem>` its key's [`Key::file_stem`]). Nothing else is ever read, hashed or
    /// copied for a record — not `../` of the output directory, not an absolute path.
    pub fn check_files(&self) -> Result<(), String> {
        let trace = super::cell::trace_path(&self.key);
        if let Some(t) = &self.trace
            && t.path != trace
        {
            return Err(format!(
                "names the trace {:?}; a record's trace is {trace:?}",
                t.path
            ));
        }
        let folder = super::folder::folder_path(&self.key);
        for f in &self.files {
            let inside = f.path == folder
                || f.path.strip_prefix(&folder).is_some_and(|rest| {
                    rest.strip_prefix('/').is_some_and(|name| {
                        !name.is_empty()
                            && name != "."
                            && name != ".."
                            && !name.contains(['/', '\\', '\0'])
                    })
                });
            if !inside {
                return Err(format!(
                    "names the file {:?}, outside its run folder {folder:?}",
                    f.path
                ));
            }
        }
        Ok(())
    }
}

/// A reference score's numbers: [`cantus_registry::Reference`], the type a domain
/// ships its reference set in.
pub use cantus_registry::Reference;

/// The first line: which experiment the records belong to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub name: String,
    /// SHA-256 of `text`.
    pub hash: String,
    /// The experiment file as it was.
    pub text: String,
    pub reference: Vec<Reference>,
    /// The slice of the grid these records are (`--shard i/N`); absent for the whole
    /// grid, and after `cantus experiment merge`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

/// A line of `results.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Line {
    Experiment(Header),
    Run(Box<Record>),
}
