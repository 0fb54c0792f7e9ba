//! `cantus experiment run`: every (task, model, condition, run) of an experiment,
//! one record each, appended to `DIR/results.jsonl` as it finishes.
//!
//! Resumable: a rerun reads the file, keeps every whole record of this experiment
//! whose trace is still there with its recorded size and hash, drops a half-written
//! last line (a kill mid-write) and anything after it, and runs only what is missing.
//! Records of another experiment file (another hash) are refused, never mixed.
//!
//! The grid is enumerated in one fixed order and each record depends only on its key
//! (the run number is the seed), so the same records come out however a run is cut
//! into pieces — interrupted and resumed here, run `--jobs N` at a time (records are
//! appended as they finish, so the file's order is not the grid's), or sharded over
//! processes with `--shard i/N` (a shard's header names it, and a rerun into the
//! same directory must be the same shard).

use super::cell::{self, write_atomically};
use super::file::Experiment;
use super::jobs::{self, Jobs};
use super::record::{Header, Key, Line, Record, RunOutcome};
use super::shard::Shard;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The results file of an output directory.
pub fn results_path(out: &Path) -> PathBuf {
    out.join("results.jsonl")
}

/// Why an experiment could not run (nothing about one run: those are records).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{}: these results are of another experiment file (hash {theirs}, this file's is {ours}); \
         give another --out, or remove the directory to start again",
        path.display()
    )]
    OtherExperiment {
        path: PathBuf,
        theirs: String,
        ours: String,
    },
    #[error(
        "{}: these results are shard {theirs} of the grid, this run is shard {ours}; \
         give each shard its own --out (merge them with `cantus experiment merge`)",
        path.display()
    )]
    OtherShard {
        path: PathBuf,
        theirs: Shard,
        ours: Shard,
    },
    #[error("{}: {message}", path.display())]
    Reference { path: PathBuf, message: String },
    #[error("{}:{line}: {message}", path.display())]
    Results {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

/// What a call to [`run`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ran {
    /// Records in the grid.
    pub total: usize,
    /// Kept from an earlier run.
    pub kept: usize,
    /// Records per outcome, over the whole grid.
    pub outcomes: BTreeMap<RunOutcome, usize>,
    /// The keys run this time (the rest were kept).
    pub fresh: BTreeSet<Key>,
}

/// Every cell of the grid, in the fixed order: task, model, condition, run.
pub fn grid(exp: &Experiment) -> Vec<(Key, usize, usize, usize)> {
    let mut out = Vec::new();
    for (t, task) in exp.tasks.iter().enumerate() {
        for (m, model) in exp.models.iter().enumerate() {
            for (c, condition) in exp.conditions.iter().enumerate() {
                for run in 0..exp.runs {
                    let key = Key {
                        task: task.id.clone(),
                        model: model.name.clone(),
                        condition: condition.name.clone(),
                        run,
                    };
                    out.push((key, t, m, c));
                }
            }
        }
    }
    out
}

/// The header of `shard`'s results of `exp`: the file, the reference set's
/// distributions and the shard.
pub fn header(exp: &Experiment, shard: Shard) -> Result<Header, RunError> {
    let reference =
        super::reference::read(&exp.metrics.reference, |p| tidy(p).display().to_string())?;
    Ok(Header {
        name: exp.name.clone(),
        hash: exp.hash.clone(),
        text: exp.text.clone(),
        reference,
        shard: (!shard.is_whole()).then_some(shard),
    })
}

/// `path` with each `dir/..` taken out, for display (a reference named
/// `../x.txt` beside `exp/file.toml` is `x.txt`, not `exp/../x.txt`); nothing is read.
pub(crate) fn tidy(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match (c, out.last()) {
            (Component::CurDir, _) => {}
            (Component::ParentDir, Some(Component::Normal(_))) => {
                out.pop();
            }
            _ => out.push(c),
        }
    }
    out.iter().collect()
}

/// The whole lines of a results file: the header, then the records. A line that is
/// not whole (no newline at its end) or not a record ends the reading there; `Ok`
/// also says how many bytes were whole.
pub fn read_results(path: &Path) -> Result<(Option<Header>, Vec<Record>, usize), RunError> {
    let text = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((None, Vec::new(), 0)),
        Err(source) => {
            return Err(RunError::Io {
                path: path.to_owned(),
                source,
            });
        }
    };
    let (mut header, mut records, mut good) = (None, Vec::new(), 0);
    for (i, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
        if !line.ends_with(b"\n") {
            break;
        }
        match serde_json::from_slice::<Line>(line) {
            Ok(Line::Experiment(h)) if i == 0 => header = Some(h),
            Ok(Line::Run(r)) if header.is_some() => records.push(*r),
            Ok(_) => {
                return Err(RunError::Results {
                    path: path.to_owned(),
                    line: i + 1,
                    message: "the experiment header must be the first line, and only the first"
                        .into(),
                });
            }
            Err(_) => break,
        }
        good += line.len();
    }
    Ok((header, records, good))
}

/// How [`run`] goes through the grid: how many pieces at once, and which slice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub jobs: Jobs,
    pub shard: Shard,
}

/// Runs every record of `plan`'s shard of `exp` not already in `out`, `plan.jobs` at
/// a time, calling `progress(done, total)` after each (kept records count as done
/// from the start; `total` is the shard's).
pub fn run(
    exp: &Experiment,
    out: &Path,
    plan: Plan,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Ran, RunError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source: std::io::Error| RunError::Io { path, source }
    };
    std::fs::create_dir_all(out).map_err(io(out))?;
    let path = results_path(out);
    let header = header(exp, plan.shard)?;
    let (earlier, records, _) = read_results(&path)?;
    if let Some(h) = &earlier {
        if h.hash != exp.hash {
            return Err(RunError::OtherExperiment {
                path,
                theirs: h.hash.clone(),
                ours: exp.hash.clone(),
            });
        }
        let theirs = h.shard.unwrap_or_default();
        if theirs != plan.shard {
            return Err(RunError::OtherShard {
                path,
                theirs,
                ours: plan.shard,
            });
        }
    }
    let cells: Vec<_> = grid(exp)
        .into_iter()
        .enumerate()
        .filter(|(position, _)| plan.shard.holds(*position))
        .map(|(_, cell)| cell)
        .collect();
    let wanted: std::collections::HashSet<&Key> = cells.iter().map(|c| &c.0).collect();
    let mut kept: BTreeMap<Key, Record> = BTreeMap::new();
    for r in records {
        let whole = r.experiment == exp.hash && wanted.contains(&r.key) && r.whole_in(out);
        if whole {
            kept.insert(r.key.clone(), r);
        }
    }
    // Rewrite the file with what is kept (whole or not at all), then append.
    let mut text = serde_json::to_string(&Line::Experiment(header)).unwrap_or_default() + "\n";
    for r in kept.values() {
        text += &record_line(r.clone());
    }
    write_atomically(&path, text.as_bytes()).map_err(io(&path))?;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .map_err(io(&path))?;

    let mut ran = Ran {
        total: cells.len(),
        kept: kept.len(),
        outcomes: BTreeMap::new(),
        fresh: BTreeSet::new(),
    };
    for r in kept.values() {
        *ran.outcomes.entry(r.outcome).or_default() += 1;
    }
    let mut done = kept.len();
    progress(done, cells.len());
    let todo: Vec<_> = cells
        .into_iter()
        .filter(|(key, ..)| !kept.contains_key(key))
        .collect();
    // One writer (this thread) appends each record whole as it finishes, in
    // completion order; nothing that reads the file depends on the order.
    jobs::in_flight(
        plan.jobs,
        todo,
        |(key, t, m, c)| {
            cell::run(
                key,
                &exp.tasks[t],
                &exp.models[m],
                &exp.conditions[c],
                exp,
                out,
            )
        },
        |_, record| {
            *ran.outcomes.entry(record.outcome).or_default() += 1;
            ran.fresh.insert(record.key.clone());
            file.write_all(record_line(record).as_bytes())
                .and_then(|()| file.flush())
                .map_err(io(&path))?;
            done += 1;
            progress(done, ran.total);
            Ok(())
        },
    )?;
    Ok(ran)
}

/// A record as one line of the results file.
pub(super) fn record_line(record: Record) -> String {
    serde_json::to_string(&Line::Run(Box::new(record))).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::tidy;
    use std::path::Path;

    #[test]
    fn reference_names_lose_the_detours_of_relative_paths() {
        let cases = [
            ("exp/../../domains/a.txt", "../domains/a.txt"),
            ("./exp/./b.txt", "exp/b.txt"),
            ("/data/exp/../c.txt", "/data/c.txt"),
            ("../x/../y.txt", "../y.txt"),
        ];
        for (path, want) in cases {
            assert_eq!(tidy(Path::new(path)), Path::new(want), "{path}");
        }
    }
}
