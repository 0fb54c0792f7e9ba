//! Engraving by the real engraver: the annotated LilyPond source, compiled by
//! `lilypond` to SVG, PNG or PDF.
//!
//! SVG and PNG are laid out on one page as tall as the music needs (for pages and
//! READMEs); PDF on A4 pages for printing. SVG note heads carry the writer's
//! event attributes (`class="cantus-event"`, `data-voice`, `data-onset`), so the
//! HTML report can point at the note of a violation or a trace event. LilyPond's
//! warnings are returned, not hidden: a clean engraving has none.

use crate::error::{RenderError, Result};
use cantus_music::Score;
use cantus_music::annotation::Annotations;
use cantus_music::lilypond::{self, Options};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What to engrave to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    Svg,
    Png,
    Pdf,
}

impl Target {
    /// The file extension LilyPond writes.
    pub fn extension(self) -> &'static str {
        match self {
            Target::Svg => "svg",
            Target::Png => "png",
            Target::Pdf => "pdf",
        }
    }

    /// `svg`, `png` or `pdf` (any case).
    pub fn parse(text: &str) -> Option<Target> {
        match text.to_ascii_lowercase().as_str() {
            "svg" => Some(Target::Svg),
            "png" => Some(Target::Png),
            "pdf" => Some(Target::Pdf),
            _ => None,
        }
    }
}

/// How long one LilyPond run may take before it is stopped (seconds), unless
/// `CANTUS_LILYPOND_TIMEOUT` says otherwise.
pub const DEFAULT_TIMEOUT_S: u64 = 600;

/// Resolution of PNG engravings, in dots per inch.
pub const PNG_DPI: u32 = 120;

/// An engraving on disk.
#[derive(Clone, Debug)]
pub struct Engraved {
    /// The LilyPond source written beside it.
    pub source: PathBuf,
    /// The engraving.
    pub file: PathBuf,
    /// LilyPond's warnings (empty for a clean engraving).
    pub warnings: Vec<String>,
}

/// The LilyPond source of an annotated score, laid out for `target`.
pub fn source(score: &Score, annotations: &Annotations, target: Target) -> Result<String> {
    let options = Options {
        event_ids: target == Target::Svg,
    };
    let mut ly = lilypond::write_annotated(score, annotations, &options)?;
    if target != Target::Pdf {
        ly.push_str("\n\\paper {\n  page-breaking = #ly:one-page-breaking\n  top-margin = 4\\mm\n  bottom-margin = 4\\mm\n}\n");
    }
    Ok(ly)
}

/// Writes `source` to `dir/stem.ly` and engraves it to `dir/stem.<target>`.
pub fn engrave(source: &str, dir: &Path, stem: &str, target: Target) -> Result<Engraved> {
    crate::error::output_dir(dir)?;
    let ly = dir.join(format!("{stem}.ly"));
    std::fs::write(&ly, source).map_err(|e| RenderError::io(&ly, e))?;
    let mut done = engrave_files(std::slice::from_ref(&ly), dir, target)?;
    Ok(done.remove(0))
}

/// Engraves several `.ly` files, each to `dir/<stem>.<target>`: in as many
/// LilyPond runs as the machine has cores (at most 4), each run taking a share
/// of the files (LilyPond's start-up dominates small scores; large ones keep a
/// core busy each). Warnings are attributed to the file LilyPond names in them.
pub fn engrave_files(files: &[PathBuf], dir: &Path, target: Target) -> Result<Vec<Engraved>> {
    let program = crate::tools::lilypond()?;
    let runs = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, 4)
        .min(files.len().max(1));
    if runs <= 1 {
        return engrave_batch(&program, files, dir, target);
    }
    // Deal the files round-robin so long and short pieces spread over the runs.
    let shares: Vec<Vec<(usize, PathBuf)>> = (0..runs)
        .map(|r| {
            files
                .iter()
                .cloned()
                .enumerate()
                .skip(r)
                .step_by(runs)
                .collect()
        })
        .collect();
    let results: Vec<Result<Vec<(usize, Engraved)>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = shares
            .iter()
            .map(|share| {
                let program = &program;
                scope.spawn(move || {
                    let paths: Vec<PathBuf> = share.iter().map(|(_, p)| p.clone()).collect();
                    engrave_batch(program, &paths, dir, target)
                        .map(|done| share.iter().map(|(i, _)| *i).zip(done).collect())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(RenderError::Engraver {
                        source_file: dir.to_path_buf(),
                        stderr: "a LilyPond run's thread panicked".into(),
                    })
                })
            })
            .collect()
    });
    let mut all = Vec::with_capacity(files.len());
    for r in results {
        all.extend(r?);
    }
    all.sort_by_key(|(i, _)| *i);
    Ok(all.into_iter().map(|(_, e)| e).collect())
}

/// One LilyPond run over `files`. LilyPond cannot read every path (it takes a `:`
/// in a file name for a separator, and fails), so each file is copied under a plain
/// name (`score-N.ly`) into a staging folder inside `dir`, engraved there, and its
/// engraving moved to `dir/<stem>.<target>`; messages name the original files.
fn engrave_batch(
    program: &Path,
    files: &[PathBuf],
    dir: &Path,
    target: Target,
) -> Result<Vec<Engraved>> {
    let staging = Staging::new(dir)?;
    let staged: Vec<String> = (0..files.len()).map(|i| format!("score-{i}.ly")).collect();
    for (file, name) in files.iter().zip(&staged) {
        let to = staging.0.join(name);
        std::fs::copy(file, &to).map_err(|e| RenderError::io(file, e))?;
    }
    let mut command = Command::new(program);
    command
        .current_dir(&staging.0)
        .arg("--loglevel=WARNING")
        .arg("-dno-point-and-click")
        .arg(format!("--{}", target.extension()));
    if target == Target::Png {
        command.arg(format!("-dresolution={PNG_DPI}"));
    }
    command.args(&staged);
    // Messages name the files as the user knows them.
    let named = |text: &str| {
        staged
            .iter()
            .zip(files)
            .fold(text.to_owned(), |t, (name, file)| {
                t.replace(name, &file.display().to_string())
            })
    };
    let stderr =
        run_bounded(command, files.first().cloned().unwrap_or_default()).map_err(|e| match e {
            RenderError::Engraver {
                source_file,
                stderr,
            } => RenderError::Engraver {
                source_file,
                stderr: named(&stderr),
            },
            other => other,
        })?;
    let lines: Vec<&str> = stderr.lines().collect();
    let mut out = Vec::with_capacity(files.len());
    for (file, name) in files.iter().zip(&staged) {
        let stem = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let made = staging.0.join(name).with_extension(target.extension());
        let warnings: Vec<String> = lines
            .iter()
            .filter(|l| {
                let lower = l.to_lowercase();
                (lower.contains("warning") || lower.contains("error") || lower.contains("barcheck"))
                    && (files.len() == 1 || l.contains(name.as_str()))
            })
            .map(|l| named(l))
            .collect();
        if !made.is_file() {
            return Err(RenderError::Engraver {
                source_file: file.clone(),
                stderr: named(&stderr),
            });
        }
        let produced = dir.join(format!("{stem}.{}", target.extension()));
        std::fs::rename(&made, &produced).map_err(|e| RenderError::io(&produced, e))?;
        out.push(Engraved {
            source: file.clone(),
            file: produced,
            warnings,
        });
    }
    Ok(out)
}

/// A folder inside the output directory for one LilyPond run, removed when dropped.
struct Staging(PathBuf);

impl Staging {
    fn new(dir: &Path) -> Result<Staging> {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = dir.join(format!(".cantus-lilypond-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).map_err(|e| RenderError::io(&path, e))?;
        Ok(Staging(path))
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs LilyPond, stopping it after the timeout; returns what it printed on stderr.
fn run_bounded(mut command: Command, first: PathBuf) -> Result<String> {
    let timeout = std::env::var("CANTUS_LILYPOND_TIMEOUT")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(DEFAULT_TIMEOUT_S);
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| RenderError::io(&first, e))?;
    let mut stderr_pipe = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(pipe) = stderr_pipe.as_mut() {
            let _ = std::io::Read::read_to_string(pipe, &mut text);
        }
        text
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait().map_err(|e| RenderError::io(&first, e))? {
            Some(status) => break Some(status),
            None if start.elapsed() > Duration::from_secs(timeout) => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let stderr = reader.join().unwrap_or_default();
    match status {
        Some(s) if s.success() => Ok(stderr),
        Some(_) => Err(RenderError::Engraver {
            source_file: first,
            stderr,
        }),
        None => Err(RenderError::Engraver {
            source_file: first,
            stderr: format!(
                "stopped after {timeout} s (set CANTUS_LILYPOND_TIMEOUT to allow longer)\n{stderr}"
            ),
        }),
    }
}
