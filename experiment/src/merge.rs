//! `cantus experiment merge OUT DIR…`: the shards of one sweep (`--shard i/N`, run
//! anywhere) back into one output directory that `cantus experiment report` reads as
//! if the grid had been run in one process.
//!
//! Records are identified by their key, so merging is a union: every shard must be of
//! the same experiment file (hash), a key found in two directories must be the same
//! record there (timing aside — a shard run twice is fine, two different answers for
//! one key are not), and every file a record names (its trace, its run folder under
//! `runs/`) must still be whole where it was written. Nothing is written until all
//! of that holds; then those files are copied
//! and `results.jsonl` is written last, each file whole or not at all, so an `OUT`
//! with a results file is a finished merge. The merged header names no shard: a
//! later `cantus experiment run FILE --out OUT` keeps every merged record and runs
//! only what no shard ran (a shard that never finished, say).

use super::cell::write_atomically;
use super::record::{Header, Key, Line, Record};
use super::run::{RunError, read_whole_results, record_line, results_path};
use super::shard::Shard;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Why shards could not be merged; bad input (nothing was written).
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error(transparent)]
    Read(#[from] RunError),
    #[error("{}: no experiment results here (no results.jsonl with a header)", dir.display())]
    NoResults { dir: PathBuf },
    #[error(
        "{}: results of another experiment file (hash {theirs}) than {} (hash {ours}); \
         only shards of one experiment file merge",
        dir.display(),
        first.display()
    )]
    OtherExperiment {
        dir: PathBuf,
        theirs: String,
        first: PathBuf,
        ours: String,
    },
    #[error(
        "{}: shard {theirs} of another split than {} (shard {ours}); shards of one split \
         have the same N",
        dir.display(),
        first.display()
    )]
    OtherSplit {
        dir: PathBuf,
        theirs: Shard,
        first: PathBuf,
        ours: Shard,
    },
    #[error(
        "record {key} differs between {} and {} (timing aside); which one is right is \
         not for merge to guess — remove one, or run that shard again",
        first.display(),
        second.display()
    )]
    Disagree {
        key: Box<Key>,
        first: PathBuf,
        second: PathBuf,
    },
    #[error(
        "{}: {path}, a file of record {key}, is missing or changed since it was \
         written; run that shard again (it reruns only such records)",
        dir.display()
    )]
    Trace {
        dir: PathBuf,
        key: Box<Key>,
        path: String,
    },
    #[error("{}: holds results already; merge into a new directory", out.display())]
    Occupied { out: PathBuf },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What a merge did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Merged {
    /// Distinct records written.
    pub records: usize,
    /// Records found in more than one directory (the same each time).
    pub duplicates: usize,
    /// Of a split into N shards, the shard numbers none of the directories held
    /// (empty when the directories were not shards, or all were there).
    pub missing: Vec<Shard>,
}

/// Merges the results of `dirs` into `out` (see the module docs).
pub fn merge(out: &Path, dirs: &[PathBuf]) -> Result<Merged, MergeError> {
    let mut first: Option<(PathBuf, Header)> = None;
    let mut records: BTreeMap<Key, (Record, PathBuf)> = BTreeMap::new();
    let mut shards = BTreeSet::new();
    let mut duplicates = 0;
    for dir in dirs {
        let path = results_path(dir);
        let (header, found) = read_whole_results(&path)?;
        let Some(header) = header else {
            return Err(MergeError::NoResults { dir: dir.clone() });
        };
        let shard = header.shard.unwrap_or_default();
        if let Some((first_dir, h)) = &first {
            if h.hash != header.hash {
                return Err(MergeError::OtherExperiment {
                    dir: dir.clone(),
                    theirs: header.hash,
                    first: first_dir.clone(),
                    ours: h.hash.clone(),
                });
            }
            let ours = h.shard.unwrap_or_default();
            if ours.count() != shard.count() {
                return Err(MergeError::OtherSplit {
                    dir: dir.clone(),
                    theirs: shard,
                    first: first_dir.clone(),
                    ours,
                });
            }
        }
        shards.insert(shard);
        for r in found.into_iter().filter(|r| r.experiment == header.hash) {
            let broken = r.written().find(|f| !f.holds(dir)).map(|f| f.path.clone());
            if let Some(path) = broken {
                return Err(MergeError::Trace {
                    dir: dir.clone(),
                    key: Box::new(r.key),
                    path,
                });
            }
            match records.get(&r.key) {
                Some((seen, seen_dir)) => {
                    if seen.without_timing() != r.without_timing() {
                        return Err(MergeError::Disagree {
                            key: Box::new(r.key),
                            first: seen_dir.clone(),
                            second: dir.clone(),
                        });
                    }
                    duplicates += 1;
                }
                None => {
                    records.insert(r.key.clone(), (r, dir.clone()));
                }
            }
        }
        if first.is_none() {
            first = Some((dir.clone(), header));
        }
    }
    let Some((_, mut header)) = first else {
        return Ok(Merged {
            records: 0,
            duplicates: 0,
            missing: Vec::new(),
        });
    };
    let count = header.shard.unwrap_or_default().count();
    let missing = (0..count)
        .filter_map(|i| Shard::new(i, count).ok())
        .filter(|s| count > 1 && !shards.contains(s))
        .collect();

    let results = results_path(out);
    if results.exists() {
        return Err(MergeError::Occupied {
            out: out.to_owned(),
        });
    }
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source: std::io::Error| MergeError::Io { path, source }
    };
    for (record, dir) in records.values() {
        for t in record.written() {
            let from = dir.join(&t.path);
            let bytes = std::fs::read(&from).map_err(io(&from))?;
            let to = out.join(&t.path);
            write_atomically(&to, &bytes).map_err(io(&to))?;
        }
    }
    header.shard = None;
    let mut text = serde_json::to_string(&Line::Experiment(header)).unwrap_or_default() + "\n";
    for (record, _) in records.values() {
        text += &record_line(record.clone());
    }
    write_atomically(&results, text.as_bytes()).map_err(io(&results))?;
    Ok(Merged {
        records: records.len(),
        duplicates,
        missing,
    })
}
