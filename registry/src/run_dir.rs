//! A run's files on disk, written as one unit, in the layout of [`crate::layout`].
//!
//! A [`RunDir`] collects a run's files in a hidden temporary directory beside the
//! destination and renames it into place only when every file is written
//! ([`RunDir::commit`]). A reader therefore sees the earlier run whole or the new run
//! whole, never a mixture — not after a failed second run, not after a kill half-way
//! through writing. A destination that holds anything but a run's files is never
//! replaced; one that holds an earlier run is replaced only when asked (`--force`).
//! On Linux the replacement is one atomic exchange of the two directories
//! (`renameat2` with `RENAME_EXCHANGE`, through rustix), so the destination is never missing either;
//! elsewhere, or on a file system without it, the earlier run is moved aside first.
//!
//! Debug builds read `CANTUS_TEST_WRITE_DELAY_MS`: a pause before each file is
//! written, so a test can kill a run in the middle of writing (`tests/reliability_cli.rs`).

use crate::artefact::Artefact;
use crate::layout;
use cantus_framework::Trace;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Why a run's outputs could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The destination holds files that are not a run's: it is never replaced.
    #[error(
        "{}: not empty and not a Cantus run directory (it holds {found}); choose another --out",
        dir.display()
    )]
    Foreign { dir: PathBuf, found: String },
    /// The destination is a file, not a directory: it is never replaced.
    #[error(
        "{}: is a file, not a run directory; choose another --out",
        path.display()
    )]
    NotADirectory { path: PathBuf },
    /// The destination holds an earlier run and `--force` was not given.
    #[error(
        "{}: holds an earlier run; give --force to replace it, or choose another --out",
        dir.display()
    )]
    EarlierRun { dir: PathBuf },
    /// A file or directory operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
    move |source| OutputError::Io {
        path: path.to_owned(),
        source,
    }
}

/// A run directory being written.
#[derive(Debug)]
pub struct RunDir {
    /// Where the run ends up.
    dest: PathBuf,
    /// Where its files are written until [`RunDir::commit`].
    staging: PathBuf,
    committed: bool,
}

impl RunDir {
    /// Starts a run whose files will end up in `dest`. `dest` must not exist, be
    /// empty, or (with `replace`) hold an earlier run's files only.
    pub fn create(dest: &Path, replace: bool) -> Result<RunDir, OutputError> {
        check_destination(dest, replace)?;
        let parent = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(io(&parent))?;
        let name = dest
            .file_name()
            .map_or_else(|| "run".into(), |n| n.to_string_lossy().into_owned());
        remove_stale_staging(&parent, &name);
        let staging = parent.join(format!(".{name}.partial-{}", std::process::id()));
        if staging.exists() {
            std::fs::remove_dir_all(&staging).map_err(io(&staging))?;
        }
        std::fs::create_dir(&staging).map_err(io(&staging))?;
        Ok(RunDir {
            dest: dest.to_owned(),
            staging,
            committed: false,
        })
    }

    /// Where the run ends up.
    pub fn path(&self) -> &Path {
        &self.dest
    }

    /// Where `name` will be once the run is committed (what reports list).
    pub fn final_path(&self, name: &str) -> PathBuf {
        self.dest.join(name)
    }

    /// Writes `bytes` as `name`; the file's final path.
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, OutputError> {
        test_delay();
        let path = self.staging.join(name);
        std::fs::write(&path, bytes).map_err(io(&self.final_path(name)))?;
        Ok(self.final_path(name))
    }

    /// Writes `value` as pretty JSON (keys sorted, as every Cantus report is).
    pub fn write_json(&self, name: &str, value: &impl Serialize) -> Result<PathBuf, OutputError> {
        let value = serde_json::to_value(value).map_err(|e| OutputError::Io {
            path: self.final_path(name),
            source: std::io::Error::other(e),
        })?;
        let text = serde_json::to_string_pretty(&value).unwrap_or_default();
        self.write(name, text.as_bytes())
    }

    /// Writes with `f` into a new file `name` (e.g. a trace).
    pub fn write_with(
        &self,
        name: &str,
        f: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
    ) -> Result<PathBuf, OutputError> {
        test_delay();
        let path = self.staging.join(name);
        let file = std::fs::File::create(&path).map_err(io(&self.final_path(name)))?;
        let mut out = std::io::BufWriter::new(file);
        f(&mut out)
            .and_then(|()| std::io::Write::flush(&mut out))
            .map_err(io(&self.final_path(name)))?;
        Ok(self.final_path(name))
    }

    /// Writes a run's artefact in every format its kind has: `piece.*` when it was
    /// released, `unreleased-piece.*` otherwise. The files written, and for each one
    /// that could not be, why.
    pub fn write_artefact<A: Artefact>(
        &self,
        released: bool,
        artefact: &A,
    ) -> (Vec<PathBuf>, Vec<String>) {
        let mut written = Vec::new();
        let mut errors = Vec::new();
        for extension in A::EXTENSIONS {
            let name = layout::artefact_file(released, extension);
            match artefact
                .to_bytes(extension)
                .map_err(|e| format!("{}: {e}", self.final_path(&name).display()))
                .and_then(|bytes| self.write(&name, &bytes).map_err(|e| e.to_string()))
            {
                Ok(path) => written.push(path),
                Err(e) => errors.push(e),
            }
        }
        (written, errors)
    }

    /// Writes the run's trace as `trace.jsonl` (with its timing line).
    pub fn write_trace<E, L, A>(&self, trace: &Trace<E, L, A>) -> Result<PathBuf, OutputError>
    where
        E: Serialize,
        L: Serialize,
        A: Serialize,
    {
        self.write_with(layout::TRACE, |out| trace.write_jsonl(out, true))
    }

    /// Moves the finished run into place: an earlier run there is replaced as a
    /// whole (moved aside, then removed).
    pub fn commit(mut self) -> Result<PathBuf, OutputError> {
        if self.dest.exists() && exchange(&self.staging, &self.dest).is_ok() {
            // The staging path now holds the earlier run.
            self.committed = true;
            std::fs::remove_dir_all(&self.staging).map_err(io(&self.staging))?;
        } else if self.dest.exists() {
            let aside = self.staging.with_extension("old");
            std::fs::rename(&self.dest, &aside).map_err(io(&self.dest))?;
            std::fs::rename(&self.staging, &self.dest).map_err(io(&self.dest))?;
            std::fs::remove_dir_all(&aside).map_err(io(&aside))?;
        } else {
            std::fs::rename(&self.staging, &self.dest).map_err(io(&self.dest))?;
        }
        self.committed = true;
        Ok(self.dest.clone())
    }
}

/// Swaps the directories `a` and `b` in one step.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(std::io::Error::from)
}

/// No atomic exchange here: the caller moves the earlier run aside instead.
#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// Debug builds only: sleeps `CANTUS_TEST_WRITE_DELAY_MS` before a file is written.
fn test_delay() {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var("CANTUS_TEST_WRITE_DELAY_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms.min(10_000)));
    }
}

impl Drop for RunDir {
    /// A run that was not committed leaves nothing behind.
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

/// Removes what killed runs into `parent/name` left behind: staging directories
/// `.{name}.partial-<pid>` (and their `.old` asides) of processes no longer alive.
/// A live process's staging directory is never touched; where liveness cannot be
/// told (no `/proc`), nothing is removed.
fn remove_stale_staging(parent: &Path, name: &str) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let prefix = format!(".{name}.partial-");
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = file.strip_prefix(&prefix) else {
            continue;
        };
        let pid = rest.strip_suffix(".old").unwrap_or(rest);
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Whether `dest` may receive a run (see [`RunDir::create`]).
fn check_destination(dest: &Path, replace: bool) -> Result<(), OutputError> {
    if !dest.exists() {
        return Ok(());
    }
    if !dest.is_dir() {
        return Err(OutputError::NotADirectory {
            path: dest.to_owned(),
        });
    }
    let extensions = crate::artefact_extensions();
    let mut foreign = Vec::new();
    let mut empty = true;
    for entry in std::fs::read_dir(dest).map_err(io(dest))? {
        let entry = entry.map_err(io(dest))?;
        empty = false;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !layout::is_run_file(&name, &extensions) || entry.path().is_dir() {
            foreign.push(name);
        }
    }
    if empty {
        return Ok(());
    }
    if !foreign.is_empty() {
        foreign.sort();
        let shown: Vec<String> = foreign.iter().take(3).map(|n| format!("`{n}`")).collect();
        let more = if foreign.len() > 3 {
            format!(" and {} more", foreign.len() - 3)
        } else {
            String::new()
        };
        return Err(OutputError::Foreign {
            dir: dest.to_owned(),
            found: format!("{}{more}", shown.join(", ")),
        });
    }
    if replace {
        Ok(())
    } else {
        Err(OutputError::EarlierRun {
            dir: dest.to_owned(),
        })
    }
}
