//! `run_folders = true` (what `cantus bank` asks for): every twelve-tone run of the
//! harness, or a model's whole-piece reply (and every trial of a registered domain,
//! written in `registered.rs`), also writes its folder, `DIR/runs/<run>/`,
//! exactly as `cantus compose` (or `compose --raw`) writes one — the piece in every
//! format, `report.json` (naming the run's study cell — task, model, condition,
//! run — so `cantus blind DIR` pairs the folders directly), and `spec.toml` and the
//! trace or the reply as it came — committed whole or not at all. (The embedded proposer's one-reply baseline writes
//! none: it is a check of the gate, not a piece anyone asked for.) The record lists each file with its size and hash, so a resumed experiment
//! keeps a run only while its folder is as it was written, and a merge copies it.

use super::record::{FileCheck, Key};
use super::tasks::Task;
use cantus_framework::Outcome;
use cantus_registry::RunDir;
use cantus_twelve_tone::compose::Composition;
use cantus_twelve_tone::plugin::job::{Piece, degeneracy, write_composition, write_raw};
use cantus_twelve_tone::raw::RawOutcome;
use cantus_twelve_tone::report::Study;
use cantus_twelve_tone::spec::{Spec, compile_brief};
use std::path::Path;

/// A run's folder, relative to the output directory.
pub fn folder_path(key: &Key) -> String {
    format!("runs/{}", key.file_stem())
}

/// Writes the folder of `key`'s `composition` of `task` (to `spec`, at `seed`) under
/// `out`; `measured`: a model's released piece also gets Libretto's degeneracy
/// verdict, as `cantus compose` gives it. The check of every file written, or why
/// the folder could not be written.
pub(super) fn write(
    out: &Path,
    key: &Key,
    task: &Task,
    spec: &Spec,
    composition: &Composition,
    seed: u64,
    measured: bool,
) -> Result<Vec<FileCheck>, String> {
    let relative = folder_path(key);
    let piece = Piece {
        spec: spec.clone(),
        brief: compile_brief(&task.brief)
            .ok()
            .map(|c| (task.brief.clone(), c)),
    };
    let degeneracy = match &composition.outcome {
        Outcome::Released { artefact, .. } if measured => Some(degeneracy(artefact)),
        _ => None,
    };
    let dir = RunDir::create(&out.join(&relative), true).map_err(|e| e.to_string())?;
    let written = write_composition(dir, composition, &piece, seed, degeneracy, Some(study(key)));
    checks(out, &relative, &written.write_errors)
}

/// Writes the folder of `key`'s whole-piece reply `raw` (to `spec`, at `seed`) under
/// `out`, as `cantus compose --raw` does; the check of every file, or why not.
pub(super) fn write_reply(
    out: &Path,
    key: &Key,
    spec: &Spec,
    raw: &RawOutcome,
    seed: u64,
) -> Result<Vec<FileCheck>, String> {
    let relative = folder_path(key);
    let dir = RunDir::create(&out.join(&relative), true).map_err(|e| e.to_string())?;
    let written = write_raw(dir, raw, spec, seed, Some(study(key)));
    checks(out, &relative, &written.write_errors)
}

/// The study cell of `key`, which its folder's `report.json` names so `cantus blind`
/// can pair the folder with others.
fn study(key: &Key) -> Study {
    Study {
        task: key.task.0.clone(),
        model: key.model.clone(),
        condition: key.condition.0.clone(),
        run: key.run,
    }
}

/// The check of every file of the folder `relative` under `out`, committed with
/// `write_errors`; or the first of them.
pub(super) fn checks(
    out: &Path,
    relative: &str,
    write_errors: &[String],
) -> Result<Vec<FileCheck>, String> {
    if let Some(e) = write_errors.first() {
        return Err(e.clone());
    }
    let dir = out.join(relative);
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .and_then(|entries| entries.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    names.sort_by_key(std::fs::DirEntry::file_name);
    let mut files = Vec::new();
    for entry in names {
        let name = entry.file_name().to_string_lossy().into_owned();
        let bytes = std::fs::read(entry.path()).map_err(|e| format!("{relative}/{name}: {e}"))?;
        files.push(FileCheck::of(format!("{relative}/{name}"), &bytes));
    }
    Ok(files)
}
