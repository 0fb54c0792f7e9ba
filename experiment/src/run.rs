//! `cantus experiment run`: every (task, model, condition, run) of an experiment,
//! one record each, appended to `DIR/results.jsonl` as it finishes.
//!
//! Resumable: a rerun reads the file line by line (each line held to
//! [`RESULTS_LINE_CAP`]), keeps every whole record of this experiment whose trace is
//! still there with its recorded size and hash, moves every line that is not a
//! record — a half-written last line (a kill mid-write), a damaged or oversized
//! one — byte for byte to `results.quarantine`, and runs only what is missing, so a
//! damaged line costs its own run and no other. Records of another experiment file
//! (another hash) are refused, never mixed.
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
use cantus_bounded::{self as bounded, LineText};
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
    /// The conditions shipped with the program do not read ([`super::conditions::shipped`]).
    #[error("{0}")]
    Conditions(String),
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
    /// Lines of the results file that were not records, moved aside; their runs
    /// ran again.
    pub quarantined: Option<Quarantined>,
}

/// Lines of a results file moved aside by a resumed run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quarantined {
    /// Where they went (`results.quarantine`, appended to).
    pub file: PathBuf,
    pub lines: Vec<BadLine>,
}

/// Every cell of the grid, in the fixed order: task, model, condition, run.
pub fn grid(exp: &Experiment) -> Vec<(Key, usize, usize, usize)> {
    let mut out = Vec::new();
    for (t, task) in exp.tasks.iter().enumerate() {
        for (m, model) in exp.models.iter().enumerate() {
            for (c, condition) in exp.conditions.iter().enumerate() {
                if !model.runs_under(&condition.name) {
                    continue;
                }
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
    let domains = || exp.tasks.iter().map(|t| &t.domain);
    let reference = match &exp.metrics.reference {
        Some(paths) => {
            let domain = super::registered::trials_of_only(domains());
            super::reference::read(paths, |p| tidy(p).display().to_string(), domain)?
        }
        None => super::reference::shipped(domains()),
    };
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

/// The most one line of `results.jsonl` may hold. A record carries its piece in the
/// text grammar, so a long piece makes a long line; the longest piece a spec allows
/// makes a line of well under 1 MiB.
pub const RESULTS_LINE_CAP: usize = 16 << 20;

/// What a results file holds: its header, its records, and every line that is
/// neither (with where it lies in the file, so it can be moved aside whole).
#[derive(Debug, Default)]
pub struct Results {
    pub header: Option<Header>,
    pub records: Vec<Record>,
    pub bad: Vec<BadLine>,
}

/// A line of a results file that is not a record of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadLine {
    /// From 1.
    pub line: usize,
    /// Where it lies in the file, its newline included.
    pub offset: u64,
    pub length: u64,
    /// Why it is not a record.
    pub why: String,
}

impl Results {
    /// The header and records, or an error naming the file and the first line that
    /// is not a record (for readers that must not go on without it: the report,
    /// merge).
    pub fn whole(self, path: &Path) -> Result<(Option<Header>, Vec<Record>), RunError> {
        match self.bad.into_iter().next() {
            Some(bad) => Err(RunError::Results {
                path: path.to_owned(),
                line: bad.line,
                message: format!(
                    "{}; nothing was read past it (`cantus experiment run` over this \
                     directory keeps every whole record and moves such lines aside)",
                    bad.why
                ),
            }),
            None => Ok((self.header, self.records)),
        }
    }
}

/// Reads a results file line by line, each line held to [`RESULTS_LINE_CAP`]: the
/// header (which must be the first line: a file whose first line is not one is an
/// error), the records, and every other line as a [`BadLine`] — malformed, too
/// long, not ended by a newline (a writer killed mid-line), a second header, or a
/// record naming a file outside its own run folder. A missing file is empty.
pub fn read_results(path: &Path) -> Result<Results, RunError> {
    let opened = bounded::open_regular(path).map_err(|source| RunError::Io {
        path: path.to_owned(),
        source,
    })?;
    match opened {
        Some(reader) => parse_results(reader, path),
        None => Ok(Results::default()),
    }
}

/// [`read_results`] of what `reader` holds (`path` names it in errors).
pub fn parse_results(reader: impl std::io::BufRead, path: &Path) -> Result<Results, RunError> {
    let io = |source: std::io::Error| RunError::Io {
        path: path.to_owned(),
        source,
    };
    let mut results = Results::default();
    for line in bounded::Lines::new(reader, RESULTS_LINE_CAP) {
        let line = line.map_err(io)?;
        let read = match &line.text {
            LineText::Whole(bytes) => parse_line(bytes),
            LineText::Unfinished(_) => Err(
                "is not finished (no newline at its end: a run still writing, or one \
                 killed mid-write)"
                    .to_owned(),
            ),
            LineText::TooLong => Err(format!(
                "is longer than {}, the most a line of results.jsonl may hold",
                bounded::size_text(RESULTS_LINE_CAP as u64)
            )),
        };
        let read = match (read, line.number) {
            (Ok(Line::Experiment(h)), 1) => {
                results.header = Some(h);
                continue;
            }
            (Ok(_) | Err(_), 1) => {
                return Err(RunError::Results {
                    path: path.to_owned(),
                    line: 1,
                    message: "the first line is not an experiment header; is this the \
                              output of `cantus experiment run`? (nothing was changed)"
                        .into(),
                });
            }
            (Ok(Line::Experiment(_)), _) => {
                Err("is a second experiment header (only the first line is one)".to_owned())
            }
            (Ok(Line::Run(r)), _) => r.check_files().map(|()| r),
            (Err(why), _) => Err(why),
        };
        match read {
            Ok(record) => results.records.push(*record),
            Err(why) => results.bad.push(BadLine {
                line: line.number,
                offset: line.offset,
                length: line.length,
                why: format!("line {} {why}", line.number),
            }),
        }
    }
    Ok(results)
}

/// The header and records of the results file at `path`, or an error naming the
/// first line that is neither ([`read_results`], then [`Results::whole`]): what a
/// reader that must see every record (the report, merge) reads.
pub fn read_whole_results(path: &Path) -> Result<(Option<Header>, Vec<Record>), RunError> {
    read_results(path)?.whole(path)
}

/// One whole line as a header or a record, or why it is neither (its column, not
/// its content).
fn parse_line(bytes: &[u8]) -> Result<Line, String> {
    serde_json::from_slice::<Line>(bytes).map_err(|e| {
        let text = e.to_string();
        let what = text
            .rsplit_once(" at line ")
            .map_or(text.as_str(), |(what, _)| what);
        format!("is not a record (column {}: {what})", e.column())
    })
}

/// Appends the `bad` lines of the results file at `path`, byte for byte (each
/// ended by a newline), to `results.quarantine` beside it, and returns that file.
pub fn quarantine(path: &Path, bad: &[BadLine]) -> std::io::Result<PathBuf> {
    use std::io::{Read as _, Seek as _, SeekFrom};
    let aside = path.with_file_name(QUARANTINE);
    let mut from = std::fs::File::open(path)?;
    let mut to = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&aside)?;
    for b in bad {
        from.seek(SeekFrom::Start(b.offset))?;
        let copied = std::io::copy(&mut (&mut from).take(b.length), &mut to)?;
        if copied == 0 || b.length == 0 {
            continue;
        }
        from.seek(SeekFrom::Start(b.offset + b.length - 1))?;
        let mut last = [0u8];
        from.read_exact(&mut last)?;
        if last[0] != b'\n' {
            to.write_all(b"\n")?;
        }
    }
    to.sync_all()?;
    Ok(aside)
}

/// Where `cantus experiment run` moves the lines of `results.jsonl` that are not
/// records, before it rewrites the file.
pub const QUARANTINE: &str = "results.quarantine";

/// How [`run`] goes through the grid: how many pieces at once, and which slice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub jobs: Jobs,
    pub shard: Shard,
}

/// Runs every record of `plan`'s shard of `exp` not already in `out`, `plan.jobs` at
/// a time, their model calls and timers on `runtime` (a multi-threaded runtime's handle;
/// [`jobs::io_runtime`] builds one; call from outside its worker threads), calling
/// `progress(done, total)` after each (kept records count as done from the start;
/// `total` is the shard's).
pub fn run(
    exp: &Experiment,
    out: &Path,
    plan: Plan,
    runtime: &tokio::runtime::Handle,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Ran, RunError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source: std::io::Error| RunError::Io { path, source }
    };
    std::fs::create_dir_all(out).map_err(io(out))?;
    let path = results_path(out);
    let header = header(exp, plan.shard)?;
    let Results {
        header: earlier,
        records,
        bad,
    } = read_results(&path)?;
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
    // Lines that are not records are moved aside before the file is rewritten
    // without them: nothing already produced is lost, and their runs run again.
    let quarantined = if bad.is_empty() {
        None
    } else {
        Some(quarantine(&path, &bad).map_err(io(&path.with_file_name(QUARANTINE)))?)
    };
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
        quarantined: quarantined.map(|file| Quarantined { file, lines: bad }),
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
        runtime,
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
