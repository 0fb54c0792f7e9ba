//! `run_folders = true` (what `cantus bank` asks for): every run also writes its
//! folder, `DIR/runs/<run>/` — written by the trial's domain as its own command
//! writes one (twelve-tone's as `cantus compose` or `compose --raw` does), or by the
//! runner in the generic layout (`registered.rs`) — committed whole or not at all,
//! its `report.json` naming the run's study cell (task, model, condition, run) so
//! `cantus blind DIR` pairs the folders directly. The record lists each file with
//! its size and hash, so a resumed experiment keeps a run only while its folder is as
//! it was written, and a merge copies it.

use super::record::{FileCheck, Key};
use std::path::Path;

/// A run's folder, relative to the output directory.
pub fn folder_path(key: &Key) -> String {
    format!("runs/{}", key.file_stem())
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
