//! What belongs to a package and what never does. The manifest lists every file of
//! the package with its SHA-256 (`sha256sum -c` format), [`check`] holds a package to
//! exactly those files — a file added after it was built, hidden or not, is refused
//! — and the key, which says which side is which condition, is never inside the
//! package however its path is spelled (`--out .`, `pkg/../pkg/key.json`, a symbolic
//! link to the package).

use crate::error::{RenderError, Result};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

/// The manifest's file name, at the top of the package.
pub const MANIFEST: &str = "MANIFEST.sha256";

fn blind_error(path: &Path, message: String) -> RenderError {
    RenderError::Blind {
        path: path.to_path_buf(),
        message,
    }
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Every file under `dir` but the manifest, as `/`-separated paths relative to it,
/// by name; anything that is not a plain file or directory (a symbolic link, a
/// device) is an error, as it could point outside the package.
fn files(dir: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut todo = vec![(dir.to_path_buf(), String::new())];
    while let Some((at, prefix)) = todo.pop() {
        for entry in std::fs::read_dir(&at).map_err(|e| RenderError::io(&at, e))? {
            let entry = entry.map_err(|e| RenderError::io(&at, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = format!("{prefix}{name}");
            let kind = entry.file_type().map_err(|e| RenderError::io(&at, e))?;
            if kind.is_dir() {
                todo.push((entry.path(), format!("{relative}/")));
            } else if kind.is_file() {
                if relative != MANIFEST {
                    out.push(relative);
                }
            } else {
                return Err(blind_error(
                    &entry.path(),
                    "not a plain file: a package holds only files and folders".into(),
                ));
            }
        }
    }
    out.sort();
    Ok(out)
}

fn sha256_of(path: &Path) -> Result<String> {
    let mut file = std::fs::File::open(path).map_err(|e| RenderError::io(path, e))?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).map_err(|e| RenderError::io(path, e))?;
    Ok(hex(&hasher.finalize()))
}

/// Writes `MANIFEST.sha256`: `<sha256>  <file>` for every file of the package, in
/// every folder, hidden ones too, by name.
pub(super) fn write(dir: &Path) -> Result<PathBuf> {
    let mut text = String::new();
    for name in files(dir)? {
        if name.contains(['\n', '\\']) {
            return Err(blind_error(
                &dir.join(&name),
                "a file name sha256sum cannot list".into(),
            ));
        }
        let _ = writeln!(text, "{}  {name}", sha256_of(&dir.join(&name))?);
    }
    let manifest = dir.join(MANIFEST);
    std::fs::write(&manifest, text).map_err(|e| RenderError::io(&manifest, e))?;
    Ok(manifest)
}

/// What [`check`] found: a package exactly as its manifest lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// Files listed and present with their hashes.
    pub files: usize,
}

/// Checks the package at `dir` against its manifest: every file listed is there with
/// its hash, and no file is there that is not listed (the key, or anything else
/// added later, hidden or not).
pub fn check(dir: &Path) -> Result<Checked> {
    let manifest = dir.join(MANIFEST);
    let text = cantus_bounded::read_text(&manifest, cantus_bounded::TEXT_FILE_CAP, "manifest")
        .map_err(|e| RenderError::io(&manifest, e))?;
    let mut listed = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let Some((hash, name)) = line.split_once("  ").or_else(|| line.split_once(" *")) else {
            return Err(blind_error(
                &manifest,
                format!("line {}: not `<sha256>  <file>`", i + 1),
            ));
        };
        listed.insert(name.to_owned(), hash.to_owned());
    }
    let present = files(dir)?;
    if let Some(extra) = present.iter().find(|f| !listed.contains_key(*f)) {
        return Err(blind_error(
            &dir.join(extra),
            format!(
                "in the package but not in {MANIFEST}: a package holds only what it was built with"
            ),
        ));
    }
    for (name, hash) in &listed {
        let path = dir.join(name);
        if !present.contains(name) {
            return Err(blind_error(
                &path,
                format!("listed in {MANIFEST} but missing"),
            ));
        }
        if sha256_of(&path)? != *hash {
            return Err(blind_error(
                &path,
                format!(
                    "changed since the package was built (its SHA-256 is not the one in {MANIFEST})"
                ),
            ));
        }
    }
    Ok(Checked {
        files: listed.len(),
    })
}

/// Where `path` is, whether or not it exists yet: the real path of its longest
/// existing ancestor (symbolic links and `..` resolved by the system), then the rest
/// of it with `.` and `..` taken lexically.
pub(super) fn resolved(path: &Path) -> std::io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    let parts: Vec<Component> = absolute.components().collect();
    let mut split = parts.len();
    while split > 1 && !parts[..split].iter().collect::<PathBuf>().exists() {
        split -= 1;
    }
    let mut out = parts[..split].iter().collect::<PathBuf>().canonicalize()?;
    for part in &parts[split..] {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            _ => {}
        }
    }
    Ok(out)
}

/// Where the key of the package `out` goes: `key` if given, else `PKG.key.json`
/// beside the package; refused when that is inside the package, however spelled.
/// (Checked again by [`build`](super::build); a command calls it first to refuse
/// before anything is rendered.)
pub fn key_place(out: &Path, key: Option<&Path>) -> Result<PathBuf> {
    let place = match key {
        Some(k) => k.to_path_buf(),
        None => default_key(out)?,
    };
    key_outside(out, &place)?;
    Ok(place)
}

/// The key's default place: `PKG.key.json` beside the package `out` (by its real
/// name, so `--out .` puts it beside the current folder, not in it).
fn default_key(out: &Path) -> Result<PathBuf> {
    let real = resolved(out).map_err(|e| RenderError::io(out, e))?;
    match (real.parent(), real.file_name()) {
        (Some(parent), Some(name)) => {
            let mut file = name.to_os_string();
            file.push(".key.json");
            Ok(parent.join(file))
        }
        _ => Err(blind_error(
            out,
            "the package has no folder beside it for the key; give --key FILE outside it".into(),
        )),
    }
}

/// Refuses a key inside the package `out` (or the package itself).
fn key_outside(out: &Path, key: &Path) -> Result<()> {
    let package = resolved(out).map_err(|e| RenderError::io(out, e))?;
    let place = resolved(key).map_err(|e| RenderError::io(key, e))?;
    if place.starts_with(&package) {
        return Err(blind_error(
            key,
            format!(
                "the key would be inside the package {} (it is {}): raters would hold the \
                 answers; give --key a place outside the package",
                out.display(),
                place.display()
            ),
        ));
    }
    Ok(())
}
