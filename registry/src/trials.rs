//! `cantus experiment`: what a domain offers the experiment runner — its task sets
//! and one trial of a task — so that an experiment file naming it (`[tasks] domain =
//! "<id>"`) runs through the same grid, records, resume, shards, merge and report as
//! every other domain, with no code of the domain in the program.
//!
//! The split follows who knows what. The runner owns everything that is the same for
//! every domain: the grid of (task, model, condition, run), the conditions as data,
//! seeds, the models and their wrapping, the records and their files, resuming and
//! the report. The domain owns what a task is (read from the experiment file's
//! `[tasks]` table, [`Trials::tasks`]) and how one trial of it goes and is judged
//! ([`Trial::run`]), and hands back a [`Tried`]: released or not and why, its strict
//! gate's violations by rule, the loop's [`Totals`] (counts, cost and the choice the
//! constraints offered), the artefact written through its [`Artefact`], the trace,
//! and any measures of its own. A domain whose runs are the framework's engine gets
//! all but its measures from [`Tried::of`].

use crate::artefact::{Artefact, View};
use crate::compose::Model;
use crate::form::{Form, Forms};
use crate::id::DomainId;
use crate::report::{Analyser, LenientGate, Reference};
use cantus_framework::{
    Budget, Domain, Entry, GateReport, Ladder, Outcome, RuleId, RungId, Severity, Totals,
};
use cantus_music::Score;
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How a domain's task sets are read for an experiment.
pub trait Trials: Send + Sync {
    /// The task set the experiment file's `[tasks]` table describes (its `domain` and
    /// `limit` keys taken out). Every key must be read through `table`: the runner
    /// refuses one that was not ([`TaskTable::unread`]).
    fn tasks(&self, table: &mut TaskTable) -> Result<Vec<TrialTask>, TaskTableError>;

    /// Every rung the domain's trials can climb, in ladder order: what an experiment
    /// condition's `rungs` may name for this domain. The runner records a condition
    /// naming another as not applicable, so [`Attempt::ladder`] finds every rung it
    /// is given. None (the default) for a domain without a ladder.
    fn rungs(&self) -> Vec<RungId> {
        Vec::new()
    }

    /// The condition forms its trials run: the runner records a condition asking for
    /// another as not applicable ([`Forms::refuses`]) and never hands it to a trial.
    /// Sections without the revise loop (the default) is every domain's.
    fn forms(&self) -> Forms {
        Forms::default()
    }

    /// A name under `[tasks]` that also selects this task set, its keys in a table
    /// of that name (`[tasks.fux]` for `[tasks] domain = "counterpoint"`): how a
    /// domain keeps the experiment files written before it was registered working.
    /// None (the default) for a domain read only by `domain = "<id>"`.
    fn table_name(&self) -> Option<&'static str> {
        None
    }

    /// The conditions the domain ships beside the runner's own, as the TOML of an
    /// experiment file's `[[custom_conditions]]` under `[[conditions]]` (twelve-tone
    /// ships its prompt-style baselines, `soft-rules` and `self-refine`): an
    /// experiment file names them as it names the runner's. None (the default) for a
    /// domain that ships none.
    fn conditions(&self) -> Option<&'static str> {
        None
    }

    /// The lenient gate its trials judge by beside the strict one ([`Tried::lenient`]),
    /// described for the report: the report then gives relaxed delivery, the gap
    /// between the two and the releases that relied on trust, for every run of the
    /// cell (a run that made nothing counting as not delivered). None (the default)
    /// for a domain with one gate.
    fn lenient_gate(&self) -> Option<LenientGate> {
        None
    }

    /// A rule the report gives alone, as the share of runs whose pieces broke no
    /// other, beside the rate at which overlapping notes of different voices share a
    /// pitch class (twelve-tone's `TT-COLLISION`). None (the default) for a domain
    /// without such a rule.
    fn collision_rule(&self) -> Option<RuleId> {
        None
    }

    /// The pieces an experiment of this domain's tasks is measured against when its
    /// file names none (`[metrics] reference`): the report's corpus distance and the
    /// analyser's share on music people wrote. Empty (the default): none.
    fn reference(&self) -> Vec<Reference> {
        Vec::new()
    }

    /// The share of `score`'s notes the domain's own analyser explains (twelve-tone:
    /// by row statements, the row inferred), for the report beside the reference's;
    /// `None` when it cannot say (no notes, no timing). None (the default) for a
    /// domain without an analyser.
    fn explained_share(&self, _score: &Score) -> Option<f64> {
        None
    }

    /// How the report words its section on [`Trials::explained_share`]
    /// ([`Analyser::UNNAMED`], the default, for a domain that names none).
    fn analyser(&self) -> Analyser {
        Analyser::UNNAMED
    }
}

/// One task of a domain's set: [`TrialTask::new`], with [`TrialTask::voices`] and
/// [`TrialTask::origin`] where they are known (its fields may grow, so it is built
/// by its constructor).
#[non_exhaustive]
pub struct TrialTask {
    /// Unique in the set (`a5-c8`, `bwv269`).
    pub id: String,
    /// The template or source the task was made from: the report's bootstrap
    /// resamples families, so tasks sharing one are not counted as independent.
    pub family: String,
    /// One line saying what the task asks for.
    pub brief: String,
    /// Where it was written (`bank.txt:12`), for messages; `None`: the runner names
    /// it by domain and id.
    pub origin: Option<String>,
    /// How many voices its artefact has, when the task fixes it (`None`: the
    /// artefact says, when it is a score; the record keeps it for runs that made
    /// none).
    pub voices: Option<usize>,
    /// Its trials.
    pub trial: Arc<dyn Trial>,
}

impl TrialTask {
    /// The task `id` of `family`, asking for `brief`, run by `trial`.
    pub fn new(
        id: impl Into<String>,
        family: impl Into<String>,
        brief: impl Into<String>,
        trial: Arc<dyn Trial>,
    ) -> TrialTask {
        TrialTask {
            id: id.into(),
            family: family.into(),
            brief: brief.into(),
            origin: None,
            voices: None,
            trial,
        }
    }

    /// The task with the number of voices its artefact has.
    pub fn voices(self, voices: usize) -> TrialTask {
        TrialTask {
            voices: Some(voices),
            ..self
        }
    }

    /// The task with the place it was written (`bank.txt:12`).
    pub fn origin(self, origin: impl Into<String>) -> TrialTask {
        TrialTask {
            origin: Some(origin.into()),
            ..self
        }
    }
}

/// Trials of one task.
#[async_trait::async_trait(?Send)]
pub trait Trial: Send + Sync {
    /// Why a trial as `attempt` asks cannot be run (a model, for a domain without a
    /// model proposer); the runner records it as not applicable and runs nothing.
    fn not_applicable(&self, _attempt: &Attempt<'_>) -> Option<String> {
        None
    }

    /// Runs one trial. Every failure of it (a model unreachable, a plan impossible)
    /// is its outcome, never an error.
    async fn run(&self, attempt: Attempt<'_>) -> Tried;
}

/// What the runner asks of one trial: the experiment's condition, already applied.
#[derive(Clone, Copy)]
pub struct Attempt<'a> {
    /// Seeds the trial: the same seed gives the same outcome.
    pub seed: u64,
    /// The model, when the experiment's model is one (its backend wrapped with the
    /// condition's instruction, its ask options holding the condition's constrained
    /// decoding and freedom); `None`: the domain's embedded proposer.
    pub model: Option<&'a Model>,
    /// The rungs the condition names, in its order: `None` runs the domain's whole
    /// ladder, an empty list none (propose, verify, drop). Read through
    /// [`Attempt::ladder`].
    pub rungs: Option<&'a [RungId]>,
    /// Replans per section, when the condition sets them.
    pub replans: Option<u32>,
    /// How the artefact is asked for: always one of the domain's
    /// [`Trials::forms`].
    pub form: Form<'a>,
    /// Where the experiment wants the run's folder (`run_folders = true`), for a
    /// domain that writes its own ([`Tried::folder`]); `None`: no folder is asked
    /// for, or the runner writes it.
    pub folder: Option<Folder<'a>>,
}

/// A run folder the experiment asks a trial for.
#[derive(Clone, Copy, Debug)]
pub struct Folder<'a> {
    /// The folder to write, whole ([`RunDir::create`](crate::RunDir::create) with
    /// `replace`, then commit).
    pub path: &'a Path,
    /// The run's cell, which the folder's `report.json` names as `"study"`.
    pub study: &'a Study,
}

/// Which cell of an experiment a run is: what `cantus blind` pairs run folders by
/// (runs of one task and model under two conditions). Every run folder an experiment
/// writes names it in its `report.json` as `"study"`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Study {
    pub task: String,
    pub model: String,
    pub condition: String,
    /// From 0; also the run's seed.
    pub run: u32,
}

impl Attempt<'_> {
    /// The ladder this trial climbs, from the domain's `ladder` (every rung it has,
    /// [`Trials::rungs`]): all of it when the condition names no rungs, else the rungs
    /// it names, in its order; `Err` with the first it names that `ladder` lacks.
    pub fn ladder<D: Domain>(&self, ladder: Ladder<D>) -> Result<Ladder<D>, RungId> {
        match self.rungs {
            None => Ok(ladder),
            Some(ids) => ladder.select(ids),
        }
    }

    /// A domain's default budget with what the model's configuration and the
    /// condition change.
    pub fn budget(&self, base: Budget) -> Budget {
        let budget = match self.model {
            Some(m) => m.budget(base),
            None => base,
        };
        Budget {
            replans_per_section: self.replans.unwrap_or(budget.replans_per_section),
            ..budget
        }
    }
}

/// The strict gate's verdict on a trial's artefact: every hard rule of the gate
/// listed, with its violations (0 where it held).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Judgement {
    pub passed: bool,
    pub violations: BTreeMap<RuleId, u64>,
}

impl Judgement {
    /// The hard violations of `report` by rule, every one of `rules` listed.
    pub fn of<L>(report: &GateReport<L>, rules: impl IntoIterator<Item = RuleId>) -> Judgement {
        let mut violations: BTreeMap<RuleId, u64> = rules.into_iter().map(|r| (r, 0)).collect();
        for v in report.violations.iter().filter(|v| v.is_hard()) {
            *violations.entry(v.predicate).or_insert(0) += 1;
        }
        for u in report
            .unlisted
            .iter()
            .filter(|u| u.severity == Severity::Hard)
        {
            *violations.entry(u.predicate).or_insert(0) += u.count;
        }
        Judgement {
            passed: report.passed,
            violations,
        }
    }
}

/// A trial's artefact, written through its domain's [`Artefact`].
#[derive(Clone, Debug, PartialEq)]
pub struct Made {
    /// Each of its formats: (extension, bytes), in [`Artefact::EXTENSIONS`] order
    /// (the first is what the experiment's record keeps).
    pub files: Vec<(&'static str, Vec<u8>)>,
    /// What a reader sees of it: a score is measured (texture, degeneracy, the null
    /// model's agreement), text is kept as it is.
    pub view: View,
}

impl Made {
    /// `artefact` in every format it is written in (a format that cannot be written
    /// is left out).
    pub fn of<A: Artefact>(artefact: &A) -> Made {
        Made {
            files: A::EXTENSIONS
                .iter()
                .filter_map(|ext| artefact.to_bytes(ext).ok().map(|b| (*ext, b)))
                .collect(),
            view: artefact.view(),
        }
    }
}

/// What one trial came to.
#[derive(Clone, Debug, Default)]
pub struct Tried {
    /// Whether the strict gate released it.
    pub released: bool,
    /// Why it was not (empty when released).
    pub reason: String,
    /// The artefact, released or not, when one was made.
    pub artefact: Option<Made>,
    /// The strict gate's verdict on it.
    pub judgement: Option<Judgement>,
    /// The loop's counts, cost and choice (`None` when the trial ran no loop).
    pub totals: Option<Totals>,
    /// Sections the trial worked on, each counted once.
    pub sections: u64,
    /// The trace, as JSON lines without timing.
    pub trace: Option<Vec<u8>>,
    /// The domain's own measures of the artefact, by name (`bass = Bach`, a share of
    /// beats): the report gives each per cell as a mean over the runs that have it,
    /// with its interval. Empty when the domain measures nothing.
    pub measures: BTreeMap<String, f64>,
    /// A second, lenient gate's verdict on the artefact, for a domain that has one
    /// (twelve-tone's relaxed gate, which takes the generator's tags on trust): the
    /// report sets its delivery beside the strict gate's.
    pub lenient: Option<Lenient>,
    /// Whether the artefact passed a degeneracy gate, for a domain that judges one
    /// (Libretto's, against the domain's reference).
    pub degeneracy_passed: Option<bool>,
    /// Who wrote the run's folder, when the attempt asked for one
    /// ([`Attempt::folder`]).
    pub folder: RunFolder,
}

/// Who writes a trial's run folder, when the experiment asks for run folders.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum RunFolder {
    /// The runner, in the generic layout: the artefact in each format, the trace
    /// and a `report.json` naming the study cell.
    #[default]
    Runner,
    /// The trial, at [`Folder::path`], as its domain's own runs are written: `Ok`
    /// once committed, `Err` with why not.
    Trial(Result<(), String>),
    /// Nobody: the run is no piece anyone asked for (twelve-tone's embedded
    /// one-reply baseline, a check of the gate).
    Skipped,
}

/// A lenient gate's verdict, and what it took on trust.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lenient {
    pub judgement: Judgement,
    /// The artefact's events the lenient gate accepted only on the generator's word
    /// (the strict gate re-derives them), when the gate counts them.
    pub trusted: Option<u64>,
}

impl Tried {
    /// A trial that failed before it made anything.
    pub fn failed(reason: impl Into<String>) -> Tried {
        Tried {
            reason: reason.into(),
            ..Tried::default()
        }
    }

    /// What an engine run came to, with the strict gate's `judgement` of its
    /// artefact (if one was made).
    pub fn of<D>(outcome: &Outcome<D>, judgement: Option<Judgement>) -> Tried
    where
        D: Domain,
        D::Artefact: Artefact,
    {
        let trace = outcome.trace();
        let mut bytes = Vec::new();
        let trace_bytes = trace.write_jsonl(&mut bytes, false).ok().map(|()| bytes);
        let sections: BTreeSet<usize> = trace
            .entries
            .iter()
            .filter_map(|e| match e {
                Entry::Section(s) => Some(s.section),
                _ => None,
            })
            .collect();
        let reason = match outcome {
            Outcome::Released { .. } => String::new(),
            Outcome::Failure { diagnostics, .. } => diagnostics
                .iter()
                .take(3)
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        };
        Tried {
            released: outcome.is_released(),
            reason,
            artefact: outcome.artefact().map(Made::of),
            judgement,
            totals: Some(trace.totals.clone()),
            sections: sections.len() as u64,
            trace: trace_bytes,
            measures: BTreeMap::new(),
            lenient: None,
            degeneracy_passed: None,
            folder: RunFolder::Runner,
        }
    }
}

/// The experiment file's `[tasks]` table, as a domain reads it: each getter takes a
/// key out, checked, and names it in its error.
#[derive(Clone, Debug)]
pub struct TaskTable {
    domain: DomainId,
    values: Map<String, Value>,
    /// Keys asked for, read or not, for the message about one that was not.
    asked: BTreeSet<&'static str>,
    dir: PathBuf,
}

/// A `[tasks]` key the domain refuses, with why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", key.as_ref().map(|k| format!("`{k}` ")).unwrap_or_default())]
pub struct TaskTableError {
    /// The key, when the problem is one key's (`None`: the table as a whole).
    pub key: Option<String>,
    pub message: String,
}

impl TaskTableError {
    /// The problem `message` with the key `key`.
    pub fn at(key: &str, message: impl Into<String>) -> TaskTableError {
        TaskTableError {
            key: Some(key.to_owned()),
            message: message.into(),
        }
    }

    /// The problem `message` with the table as a whole.
    pub fn table(message: impl Into<String>) -> TaskTableError {
        TaskTableError {
            key: None,
            message: message.into(),
        }
    }
}

impl TaskTable {
    /// The table `values` of `domain`'s tasks, read from an experiment file in `dir`
    /// (relative paths are relative to it).
    pub fn new(domain: DomainId, values: Map<String, Value>, dir: &Path) -> TaskTable {
        TaskTable {
            domain,
            values,
            asked: BTreeSet::new(),
            dir: dir.to_owned(),
        }
    }

    fn take(&mut self, key: &'static str) -> Option<Value> {
        self.asked.insert(key);
        self.values.remove(key)
    }

    /// A whole number from `min` to `max`.
    pub fn number(
        &mut self,
        key: &'static str,
        min: u64,
        max: u64,
    ) -> Result<Option<u64>, TaskTableError> {
        self.take(key).map(|v| whole(key, &v, min, max)).transpose()
    }

    /// A whole number or a list of them, each from `min` to `max` (a list is not empty).
    pub fn numbers(
        &mut self,
        key: &'static str,
        min: u64,
        max: u64,
    ) -> Result<Option<Vec<u64>>, TaskTableError> {
        let Some(value) = self.take(key) else {
            return Ok(None);
        };
        match value {
            Value::Array(items) if items.is_empty() => {
                Err(TaskTableError::at(key, "must list at least one number"))
            }
            Value::Array(items) => items.iter().map(|v| whole(key, v, min, max)).collect(),
            v => whole(key, &v, min, max).map(|n| vec![n]),
        }
        .map(Some)
    }

    /// A number from `min` to `max`.
    pub fn real(
        &mut self,
        key: &'static str,
        min: f64,
        max: f64,
    ) -> Result<Option<f64>, TaskTableError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(x) if x.is_finite() && (min..=max).contains(&x) => Ok(Some(x)),
                _ => Err(TaskTableError::at(
                    key,
                    format!("must be a number from {min} to {max}, not {v}"),
                )),
            },
        }
    }

    /// Text.
    pub fn text(&mut self, key: &'static str) -> Result<Option<String>, TaskTableError> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(TaskTableError::at(key, format!("must be text, not {v}"))),
        }
    }

    /// A value of any shape `T` reads (a table of settings, say), checked by its
    /// `Deserialize`.
    pub fn value<T: DeserializeOwned>(
        &mut self,
        key: &'static str,
    ) -> Result<Option<T>, TaskTableError> {
        self.take(key)
            .map(|v| serde_json::from_value(v).map_err(|e| TaskTableError::at(key, e.to_string())))
            .transpose()
    }

    /// A file or directory, relative to the experiment file.
    pub fn path(&mut self, key: &'static str) -> Result<Option<PathBuf>, TaskTableError> {
        Ok(self.text(key)?.map(|p| self.dir.join(p)))
    }

    /// The first key a domain did not read, as the error the runner gives for it.
    pub fn unread(&self) -> Option<TaskTableError> {
        let key = self.values.keys().next()?;
        let known: Vec<&str> = self.asked.iter().copied().collect();
        Some(TaskTableError::at(
            key,
            format!(
                "is not a key of the {} domain's tasks (it reads {}; and `domain`, `limit`)",
                self.domain,
                if known.is_empty() {
                    "no other key".to_owned()
                } else {
                    known
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
        ))
    }
}

fn whole(key: &str, value: &Value, min: u64, max: u64) -> Result<u64, TaskTableError> {
    match value.as_u64() {
        Some(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(TaskTableError::at(
            key,
            format!("must be a whole number from {min} to {max}, not {value}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(json: serde_json::Value) -> TaskTable {
        let Value::Object(values) = json else {
            panic!("an object")
        };
        TaskTable::new(DomainId::new("beads"), values, Path::new("exp"))
    }

    #[test]
    fn keys_are_read_checked_and_the_unread_named() {
        let mut t = table(serde_json::json!({
            "alphabet": 5, "lengths": [2, 4], "mistakes": 0.25, "melodies": "m", "windw": 3
        }));
        assert_eq!(t.number("alphabet", 2, 26), Ok(Some(5)));
        assert_eq!(t.numbers("lengths", 1, 100), Ok(Some(vec![2, 4])));
        assert_eq!(t.real("mistakes", 0.0, 1.0), Ok(Some(0.25)));
        assert_eq!(t.path("melodies"), Ok(Some(PathBuf::from("exp/m"))));
        assert_eq!(t.number("window", 1, 26), Ok(None));
        let unread = t.unread().expect("windw was not read");
        assert_eq!(
            unread.to_string(),
            "`windw` is not a key of the beads domain's tasks (it reads `alphabet`, \
             `lengths`, `melodies`, `mistakes`, `window`; and `domain`, `limit`)"
        );
        let mut t = table(serde_json::json!({ "alphabet": 40, "lengths": [], "mistakes": "x" }));
        assert_eq!(
            t.number("alphabet", 2, 26).unwrap_err().to_string(),
            "`alphabet` must be a whole number from 2 to 26, not 40"
        );
        assert!(t.numbers("lengths", 1, 9).is_err());
        assert!(t.real("mistakes", 0.0, 1.0).is_err());
        assert!(t.unread().is_none());
    }
}
