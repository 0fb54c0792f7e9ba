//! API keys: read from the environment, never printed, never echoed back.
//!
//! A config file names the *variable* (`api_key_env`), never the key. The key is read
//! once, when a backend is built, into an [`ApiKey`] whose `Debug` and `Display` print
//! `[redacted]`, and every text that came from a server passes through [`scrub`] before
//! it can reach a [`ModelError`], in case the server
//! echoes the key (some do, in "invalid key sk-…" messages). [`leaks`] is the audit
//! helper tests use to prove that no file written and no output printed holds a key.

use cantus_framework::ModelError;
use std::fmt;
use std::path::{Path, PathBuf};

/// What a key is replaced with wherever it would otherwise appear.
pub const REDACTED: &str = "[redacted]";

/// A secret read from an environment variable. Its `Debug` and `Display` never show it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps `key`. Used by tests and by backends that get a key some other way.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    /// Reads the variable named `var`; `Ok(None)` when it is unset or empty. An error
    /// names the variable, never a value.
    pub fn from_env(var: &str) -> Result<Option<ApiKey>, ModelError> {
        match std::env::var(var) {
            Ok(value) if value.trim().is_empty() => Ok(None),
            Ok(value) => Ok(Some(ApiKey(value.trim().to_string()))),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(ModelError::Config(format!(
                "environment variable `{var}` (api_key_env) is not valid UTF-8"
            ))),
        }
    }

    /// The key itself, for the one place that needs it: an HTTP header.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey({REDACTED})")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

/// `text` with every occurrence of the key replaced by [`REDACTED`].
pub fn scrub(text: &str, key: Option<&ApiKey>) -> String {
    match key {
        Some(key) if !key.0.is_empty() => text.replace(&key.0, REDACTED),
        _ => text.to_string(),
    }
}

/// Where `secret` appears: every file under `paths` (files or directories, walked
/// recursively) whose bytes contain it, and every entry of `outputs` (captured stdout,
/// stderr, error messages) that contains it, as `output #i`. Empty means no leak.
///
/// An audit helper for tests: run a command with a key in its environment, then check
/// everything it wrote and printed.
pub fn leaks(secret: &str, paths: &[&Path], outputs: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    if secret.is_empty() {
        return found;
    }
    let mut files = Vec::new();
    for path in paths {
        collect_files(path, &mut files);
    }
    for file in files {
        if let Ok(bytes) = std::fs::read(&file)
            && contains(&bytes, secret.as_bytes())
        {
            found.push(file.display().to_string());
        }
    }
    for (i, output) in outputs.iter().enumerate() {
        if output.contains(secret) {
            found.push(format!("output #{i}"));
        }
    }
    found
}

fn collect_files(path: &Path, into: &mut Vec<PathBuf>) {
    if path.is_dir() {
        if let Ok(entries) = std::fs::read_dir(path) {
            for entry in entries.flatten() {
                collect_files(&entry.path(), into);
            }
        }
    } else if path.is_file() {
        into.push(path.to_path_buf());
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_display_redact_the_key() {
        let key = ApiKey::new("sk-very-secret");
        assert_eq!(format!("{key}"), REDACTED);
        assert!(!format!("{key:?}").contains("sk-very-secret"));
    }

    #[test]
    fn scrub_replaces_every_occurrence() {
        let key = ApiKey::new("sk-abc");
        assert_eq!(
            scrub("bad key sk-abc (sk-abc)", Some(&key)),
            "bad key [redacted] ([redacted])"
        );
        assert_eq!(scrub("nothing here", None), "nothing here");
    }

    #[test]
    fn leaks_finds_files_and_outputs() {
        let dir = std::env::temp_dir().join(format!("cantus-leaks-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("clean.txt"), "nothing").unwrap();
        std::fs::write(dir.join("sub/leaky.json"), "{\"k\":\"sk-xyz\"}").unwrap();
        let found = leaks("sk-xyz", &[&dir], &["fine", "printed sk-xyz"]);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].ends_with("leaky.json"));
        assert_eq!(found[1], "output #1");
    }
}
