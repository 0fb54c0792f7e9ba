//! Retrieval of reference pieces: from any directory of scores a user names,
//! the pieces nearest a target — a style's centre or a given piece — by
//! Libretto's proximity (mean absolute percentile difference over the 29 axes),
//! shown to a proposer as short excerpts to study, not to copy. A directory is
//! read as `cantus calibrate` reads it: one file per piece (the text of a piece
//! written in several formats), unreleased pieces left out.
//!
//! Measuring a piece is the expensive step, so a directory's fingerprints are
//! kept in an index file beside the scores ([`INDEX_FILE`]): each entry holds a
//! file's size and content hash with its 29 raw axes, and is reused while both
//! match. The index holds raw values only, so one index serves any calibration
//! table; percentiles are placed when a set is used. An index that cannot be
//! read is rebuilt, one that cannot be written is reported, never fatal.
//!
//! Libretto's rules kept here: the k nearest by `D`, optionally drawn at random
//! (seeded) among the nearest `max(6, 3k)`; an excerpt is 8 bars from the 9th
//! sounding bar, renumbered from 1 ([`excerpt`]).

use crate::axes::{AXIS_COUNT, Axis, RawAxes};
use crate::calibration::Calibration;
use crate::copy::NoteGrid;
use crate::fingerprint::{Fingerprint, Profile, raw_axes};
use crate::load::{Loaded, load, load_with_score, piece_files};
use cantus_music::{Score, Time};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The index file written in a reference directory.
pub const INDEX_FILE: &str = ".cantus-index.json";
const INDEX_VERSION: u64 = 2;
/// Bars in an excerpt, and the sounding bar it starts from (1-based).
pub const EXCERPT_BARS: u32 = 8;
const EXCERPT_FROM_SOUNDING_BAR: usize = 9;

/// Why a reference directory cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RetrievalError {
    /// The directory cannot be listed.
    #[error("{}: {source}", dir.display())]
    Dir {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// No file in it could be measured.
    #[error("{}: no score file (.txt, .mid, .musicxml) in it could be measured ({skipped} skipped)", dir.display())]
    Empty {
        /// The directory.
        dir: PathBuf,
        /// Files that were found but could not be measured.
        skipped: usize,
    },
}

/// One reference piece.
#[derive(Clone, Debug, PartialEq)]
pub struct ReferencePiece {
    /// The file, relative to the directory.
    pub path: PathBuf,
    /// Its 29 raw axes.
    pub raw: RawAxes,
}

/// A file that was left out of the set, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The file.
    pub path: PathBuf,
    /// Why it could not be measured.
    pub why: String,
}

/// How the index was used when the set was opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexUse {
    /// The index file.
    pub path: PathBuf,
    /// Pieces whose fingerprint came from the index.
    pub reused: usize,
    /// Pieces measured now (new or changed files).
    pub measured: usize,
    /// Why the index could not be read or written, if it could not.
    pub problem: Option<String>,
}

/// A directory's pieces, measured.
#[derive(Clone, Debug)]
pub struct ReferenceSet {
    /// The directory.
    pub dir: PathBuf,
    /// The pieces, in file order.
    pub pieces: Vec<ReferencePiece>,
    /// Files found but not measurable.
    pub skipped: Vec<Skipped>,
    /// What the index did.
    pub index: IndexUse,
}

/// A reference piece near a target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbour {
    /// Index into [`ReferenceSet::pieces`].
    pub piece: usize,
    /// Its distance `D` to the target.
    pub distance: f64,
}

/// An excerpt shown to a proposer.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    /// Where it comes from (the file, relative to the set's directory).
    pub name: String,
    /// Its first bar in the piece.
    pub from_bar: u32,
    /// The excerpt, renumbered from bar 1.
    pub score: Score,
    /// The excerpt in the text grammar.
    pub text: String,
}

/// FNV-1a, 64 bits: enough to notice a changed file (the size is checked too).
fn fnv64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// (size, hash, raw axes) per relative path, from an index file.
fn read_index(path: &Path) -> Result<HashMap<String, (u64, u64, RawAxes)>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashMap::new()),
        Err(e) => return Err(e.to_string()),
    };
    let doc: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    if doc.get("version").and_then(Value::as_u64) != Some(INDEX_VERSION) {
        return Err("another index version".into());
    }
    let order: Vec<&str> = doc["axes_order"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if order != Axis::ALL.map(Axis::id) {
        return Err("the axes differ from this version's".into());
    }
    let mut out = HashMap::new();
    for entry in doc["pieces"].as_array().into_iter().flatten() {
        let (Some(file), Some(bytes), Some(hash), Some(axes)) = (
            entry["file"].as_str(),
            entry["bytes"].as_u64(),
            entry["fnv64"]
                .as_str()
                .and_then(|h| u64::from_str_radix(h, 16).ok()),
            entry["raw"].as_array(),
        ) else {
            return Err("an entry lacks file, bytes, fnv64 or raw".into());
        };
        // Stored as text: Rust's float text reads back bit for bit.
        let values: Vec<f64> = axes
            .iter()
            .filter_map(|v| v.as_str()?.parse().ok())
            .collect();
        let raw: RawAxes = values
            .try_into()
            .map_err(|_| format!("{file}: not {AXIS_COUNT} raw values"))?;
        out.insert(file.to_owned(), (bytes, hash, raw));
    }
    Ok(out)
}

/// Writes the index through a temporary file and a rename, so a reader sees the
/// old index or the new one, never half of one.
fn write_index(path: &Path, entries: &[(String, u64, u64, RawAxes)]) -> Result<(), String> {
    let doc = json!({
        "version": INDEX_VERSION,
        "what": "Cantus reference index: each file's size, FNV-1a hash and 29 raw Libretto axes (as text, exact)",
        "axes_order": Axis::ALL.map(Axis::id),
        "pieces": entries.iter().map(|(file, bytes, hash, raw)| json!({
            "file": file, "bytes": bytes, "fnv64": format!("{hash:016x}"),
            "raw": raw.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    let text = serde_json::to_string(&doc).map_err(|e| e.to_string())?;
    let temp = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&temp, text).map_err(|e| format!("{}: {e}", temp.display()))?;
    std::fs::rename(&temp, path).map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        format!("{}: {e}", path.display())
    })
}

fn relative(dir: &Path, file: &Path) -> String {
    file.strip_prefix(dir)
        .unwrap_or(file)
        .to_string_lossy()
        .replace('\\', "/")
}

impl ReferenceSet {
    /// Measures every score file under `dir` (recursively), reusing and
    /// refreshing the directory's index (see the module docs). Files that cannot
    /// be read or measured are skipped with the reason.
    pub fn open(dir: &Path) -> Result<ReferenceSet, RetrievalError> {
        let (files, _) = piece_files(dir).map_err(|source| RetrievalError::Dir {
            dir: dir.to_owned(),
            source,
        })?;
        let index_path = dir.join(INDEX_FILE);
        let (known, mut problem) = match read_index(&index_path) {
            Ok(k) => (k, None),
            Err(why) => (HashMap::new(), Some(format!("rebuilt ({why})"))),
        };
        let (mut pieces, mut skipped, mut entries) = (Vec::new(), Vec::new(), Vec::new());
        let (mut reused, mut measured) = (0, 0);
        for file in files {
            let name = relative(dir, &file);
            let bytes = match std::fs::read(&file) {
                Ok(b) => b,
                Err(e) => {
                    skipped.push(Skipped {
                        path: file.clone(),
                        why: e.to_string(),
                    });
                    continue;
                }
            };
            let (size, hash) = (bytes.len() as u64, fnv64(&bytes));
            drop(bytes);
            let raw = match known.get(&name) {
                Some(&(s, h, raw)) if s == size && h == hash => {
                    reused += 1;
                    raw
                }
                _ => {
                    let measuredraw = load(&file, true)
                        .map_err(|e| e.to_string())
                        .and_then(|l| raw_axes(&l.layout).map_err(|e| e.to_string()));
                    match measuredraw {
                        Ok(raw) => {
                            measured += 1;
                            raw
                        }
                        Err(why) => {
                            skipped.push(Skipped { path: file, why });
                            continue;
                        }
                    }
                }
            };
            entries.push((name.clone(), size, hash, raw));
            pieces.push(ReferencePiece {
                path: PathBuf::from(name),
                raw,
            });
        }
        if pieces.is_empty() {
            return Err(RetrievalError::Empty {
                dir: dir.to_owned(),
                skipped: skipped.len(),
            });
        }
        if (measured > 0 || problem.is_some() || known.len() != entries.len())
            && let Err(why) = write_index(&index_path, &entries)
        {
            problem = Some(format!("not saved: {why}"));
        }
        Ok(ReferenceSet {
            dir: dir.to_owned(),
            pieces,
            skipped,
            index: IndexUse {
                path: index_path,
                reused,
                measured,
                problem,
            },
        })
    }

    /// A set of pieces already measured (`dir` is where their paths are relative to).
    pub fn from_pieces(dir: &Path, pieces: Vec<ReferencePiece>) -> ReferenceSet {
        ReferenceSet {
            dir: dir.to_owned(),
            index: IndexUse {
                path: dir.join(INDEX_FILE),
                reused: 0,
                measured: pieces.len(),
                problem: None,
            },
            pieces,
            skipped: Vec::new(),
        }
    }

    /// A calibration table of the set's own pieces (their style as the reference).
    pub fn table(&self) -> Calibration {
        let raws: Vec<RawAxes> = self.pieces.iter().map(|p| p.raw).collect();
        Calibration::from_pieces(&self.dir.display().to_string(), &raws)
    }

    /// Each piece's percentile profile against `table`.
    pub fn profiles(&self, table: &Calibration) -> Vec<Profile> {
        self.pieces
            .iter()
            .map(|p| Fingerprint::place(&p.raw, table).profile())
            .collect()
    }

    /// The set's centre against `table`: the mean of its pieces' profiles.
    pub fn centroid(&self, table: &Calibration) -> Profile {
        Profile::centroid(&self.profiles(table)).unwrap_or(Profile([50.0; AXIS_COUNT]))
    }

    /// The `k` pieces nearest `target` (distance, then file name, ascending).
    /// With `sample`, `k` are drawn with that seed among the nearest
    /// `max(6, 3k)` instead, and returned nearest first.
    pub fn nearest(
        &self,
        target: &Profile,
        table: &Calibration,
        k: usize,
        sample: Option<u64>,
    ) -> Vec<Neighbour> {
        let mut all: Vec<Neighbour> = self
            .profiles(table)
            .iter()
            .enumerate()
            .map(|(piece, p)| Neighbour {
                piece,
                distance: p.distance(target),
            })
            .collect();
        all.sort_by(|a, b| {
            a.distance
                .total_cmp(&b.distance)
                .then_with(|| self.pieces[a.piece].path.cmp(&self.pieces[b.piece].path))
        });
        let Some(seed) = sample else {
            all.truncate(k);
            return all;
        };
        all.truncate(k.saturating_mul(3).max(6));
        let mut rng = fastrand::Rng::with_seed(seed);
        // A partial Fisher–Yates draw, then back in order of distance.
        let take = k.min(all.len());
        for i in 0..take {
            let j = rng.usize(i..all.len());
            all.swap(i, j);
        }
        all.truncate(take);
        all.sort_by(|a, b| a.distance.total_cmp(&b.distance));
        all
    }

    /// Reads piece `i` again (for its notes): its layout and its score; `None` when
    /// the file no longer reads (callers leave such a piece out).
    pub fn read(&self, i: usize) -> Option<(Loaded, Score)> {
        let piece = self.pieces.get(i)?;
        load_with_score(&self.dir.join(&piece.path), true).ok()
    }

    /// Every readable piece's notes, for the copy gate (a piece that no longer
    /// reads is left out).
    pub fn grids(&self) -> Vec<NoteGrid> {
        (0..self.pieces.len())
            .filter_map(|i| self.read(i))
            .map(|(l, _)| NoteGrid::of(&l.layout.song()))
            .collect()
    }

    /// The excerpts of `neighbours` (pieces too short or unwritable are left out).
    pub fn show(&self, neighbours: &[Neighbour]) -> Vec<Shown> {
        neighbours
            .iter()
            .filter_map(|n| {
                let (_, piece) = self.read(n.piece)?;
                let (from_bar, score) = excerpt(&piece)?;
                let text = cantus_music::grammar::write(&score).ok()?;
                Some(Shown {
                    name: relative(&self.dir, &self.dir.join(&self.pieces[n.piece].path)),
                    from_bar,
                    score,
                    text,
                })
            })
            .collect()
    }
}

/// Libretto's excerpt of a piece: [`EXCERPT_BARS`] bars from its 9th sounding
/// bar (its first, in a piece with fewer), renumbered from 1 — notes starting in
/// those bars, cut at the excerpt's end. Also returns the bar it starts at.
/// `None` for a silent piece.
pub fn excerpt(score: &Score) -> Option<(u32, Score)> {
    let mut sounding: Vec<u32> = score
        .voices
        .iter()
        .flat_map(|v| v.events.iter().map(|e| score.bar_of(e.onset)))
        .collect();
    sounding.sort_unstable();
    sounding.dedup();
    let first = *sounding
        .get(EXCERPT_FROM_SOUNDING_BAR - 1)
        .or(sounding.first())?;
    Some((first, cut(score, first, EXCERPT_BARS)))
}

/// Bars `first..first + bars` of `score`, renumbered from 1: the notes starting
/// in them, cut at the last bar's end.
pub fn cut(score: &Score, first: u32, bars: u32) -> Score {
    let start = score.bar_start(first);
    let end = score.bar_start(first.saturating_add(bars));
    let mut out = score.clone();
    out.bars = Some(bars);
    for v in &mut out.voices {
        v.events.retain(|e| e.onset >= start && e.onset < end);
        for e in &mut v.events {
            e.onset -= start;
            if e.onset + e.duration > end - start {
                e.duration = end - start - e.onset;
            }
        }
        v.events.retain(|e| e.duration > Time::from_integer(0));
    }
    out
}
