//! Reading `cantus.toml` with errors that say where: [`TomlSource`] parses a file's
//! text into any serde type and turns a parse error or an unusable value into
//! `origin:line:column: problem`, with the line quoted and the key underlined (rustc
//! style); and the checks of `[backend]`'s values — a zero timeout, a base URL that is
//! not one, a number past its documented bound.
//!
//! Every duration and count has an upper bound, so no value can make a run wait for
//! ever, retry without end or overflow a `Duration`: see [`limits`].

use crate::config::{BackendConfig, ConfigError};
use serde::de::DeserializeOwned;
use std::path::Path;

/// The documented upper bounds of `[backend]`'s durations and counts.
pub mod limits {
    /// Longest `connect_timeout_s`: one hour.
    pub const CONNECT_TIMEOUT_S: f64 = 3_600.0;
    /// Longest `timeout_s` (one attempt): one day.
    pub const TIMEOUT_S: f64 = 86_400.0;
    /// Longest `backoff_s`: one hour.
    pub const BACKOFF_S: f64 = 3_600.0;
    /// Most `retries`.
    pub const RETRIES: u32 = 20;
    /// Most `concurrency`.
    pub const CONCURRENCY: u32 = 1_024;
    /// Most `max_tokens`.
    pub const MAX_TOKENS: u32 = 1_000_000;
    /// Largest `temperature`.
    pub const TEMPERATURE: f64 = 10.0;
    /// Longest `[harness] deadline_s` of one run: seven days.
    pub const DEADLINE_S: f64 = 604_800.0;
    /// Most `[harness] attempts_per_event`.
    pub const ATTEMPTS_PER_EVENT: u32 = 100;
    /// Most `[harness] replans_per_section`.
    pub const REPLANS_PER_SECTION: u32 = 100;
    /// Most `[harness] max_proposer_calls`.
    pub const MAX_PROPOSER_CALLS: u64 = 1_000_000;
    /// Most `[harness] reasks`.
    pub const REASKS: u32 = 20;
}

/// The text of a config file and its name (a path), for located errors.
#[derive(Clone, Copy, Debug)]
pub struct TomlSource<'a> {
    text: &'a str,
    origin: &'a str,
}

impl<'a> TomlSource<'a> {
    /// `text`, read from `origin`.
    pub fn new(text: &'a str, origin: &'a str) -> Self {
        TomlSource { text, origin }
    }

    /// The file at `path` as text; an error names the file (and, for bytes that are
    /// not UTF-8, the line and byte offset).
    pub fn read(path: &Path) -> Result<String, ConfigError> {
        let bytes =
            std::fs::read(path).map_err(|e| ConfigError(format!("{}: {e}", path.display())))?;
        String::from_utf8(bytes).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            ConfigError(format!(
                "{}:{line}: invalid UTF-8 at byte {at}: a config file must be UTF-8 text",
                path.display()
            ))
        })
    }

    /// The text parsed as `T`, or a located error.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, ConfigError> {
        toml::from_str::<T>(self.text).map_err(|e| parse_error(&e, self.text, self.origin))
    }

    /// The error "`path` problem" at the key `path` names (its line and column, when it
    /// is written in the file).
    pub fn error_at(&self, path: &[&str], problem: impl std::fmt::Display) -> ConfigError {
        let message = format!("`{}` {problem}", path.join("."));
        ConfigError(match key_span(self.text, path) {
            Some(span) => located(self.origin, self.text, span, &message),
            None => format!("{}: {message}", self.origin),
        })
    }

    /// The error `message` at byte range `span` of the file (a value inside an array,
    /// which a key path cannot name), with the line quoted and the span underlined.
    pub fn error_at_span(
        &self,
        span: std::ops::Range<usize>,
        message: impl std::fmt::Display,
    ) -> ConfigError {
        ConfigError(located(self.origin, self.text, span, &message.to_string()))
    }

    /// `Ok` if `value` is a finite number of seconds in `low..=high` (`low` itself
    /// allowed only when `zero_ok`), else the error at `path` saying so.
    pub fn seconds(
        &self,
        path: &[&str],
        value: f64,
        zero_ok: bool,
        high: f64,
    ) -> Result<(), ConfigError> {
        let low_ok = if zero_ok { value >= 0.0 } else { value > 0.0 };
        if value.is_finite() && low_ok && value <= high {
            return Ok(());
        }
        let kind = if zero_ok {
            "0 or more"
        } else {
            "a positive number of"
        };
        Err(self.error_at(
            path,
            format!("must be {kind} seconds, at most {high}, not {value}"),
        ))
    }

    /// `Ok` if `value` is in `low..=high`, else the error at `path` saying so.
    pub fn count(&self, path: &[&str], value: u64, low: u64, high: u64) -> Result<(), ConfigError> {
        if (low..=high).contains(&value) {
            return Ok(());
        }
        Err(self.error_at(path, format!("must be from {low} to {high}, not {value}")))
    }

    /// The name of the file.
    pub fn origin(&self) -> &'a str {
        self.origin
    }
}

/// Checks every value of `[backend]`; the first problem found.
pub(crate) fn check_backend(b: &BackendConfig, source: &TomlSource<'_>) -> Result<(), ConfigError> {
    fn at(key: &str) -> [&str; 2] {
        ["backend", key]
    }
    if b.kind.trim().is_empty() {
        return Err(source.error_at(&at("kind"), "must name a backend kind (e.g. `openai`)"));
    }
    if b.kind != "openai" && b.constraint != crate::ConstraintDialect::default() {
        return Err(source.error_at(
            &at("constraint"),
            format!(
                "names where an OpenAI-compatible server reads constraints; kind `{}` has its own",
                b.kind
            ),
        ));
    }
    if let Some(url) = &b.base_url
        && let Err(e) = crate::wire::parse_base_url(url)
    {
        return Err(source.error_at(&at("base_url"), problem_of(e)));
    }
    if let Some(var) = &b.api_key_env
        && !is_variable_name(var)
    {
        // Never quote the line: its value may be a key pasted by mistake.
        let place = key_span(source.text, &at("api_key_env"))
            .map(|span| line_column(source.text, span.start))
            .map(|(line, column)| format!(":{line}:{column}"))
            .unwrap_or_default();
        return Err(ConfigError(format!(
            "{}{place}: `backend.api_key_env` must be the *name* of an environment variable \
             (letters, digits, `_`), not a key; put the key in that variable",
            source.origin
        )));
    }
    if let Some(t) = b.temperature
        && !(t.is_finite() && (0.0..=limits::TEMPERATURE).contains(&t))
    {
        return Err(source.error_at(
            &at("temperature"),
            format!("must be from 0 to {}, not {t}", limits::TEMPERATURE),
        ));
    }
    if let Some(n) = b.max_tokens {
        source.count(&at("max_tokens"), n.into(), 1, limits::MAX_TOKENS.into())?;
    }
    source.seconds(
        &at("connect_timeout_s"),
        b.connect_timeout_s,
        false,
        limits::CONNECT_TIMEOUT_S,
    )?;
    source.seconds(&at("timeout_s"), b.timeout_s, false, limits::TIMEOUT_S)?;
    source.seconds(&at("backoff_s"), b.backoff_s, true, limits::BACKOFF_S)?;
    source.count(&at("retries"), b.retries.into(), 0, limits::RETRIES.into())?;
    source.count(
        &at("concurrency"),
        b.concurrency.into(),
        1,
        limits::CONCURRENCY.into(),
    )?;
    Ok(())
}

/// A TOML parse error as `origin:line:column: message`, then the line with the span
/// underlined (rustc style).
fn parse_error(e: &toml::de::Error, text: &str, origin: &str) -> ConfigError {
    let message = e.message().trim_end();
    match e.span() {
        // A line like `api_key = "sk-…"` is not quoted back: it may hold a secret.
        Some(span) if looks_secret(text.get(span.clone()).unwrap_or("")) => {
            let (line, column) = line_column(text, span.start);
            ConfigError(format!(
                "{origin}:{line}:{column}: {message} (the line is not shown: it may hold a \
                 secret; keys belong in the environment variable `api_key_env` names)"
            ))
        }
        Some(span) => ConfigError(located(origin, text, span, message)),
        None => ConfigError(format!("{origin}: {message}")),
    }
}

/// Whether a key's name suggests it holds a secret.
fn looks_secret(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    ["key", "token", "secret", "password"]
        .iter()
        .any(|w| key.contains(w))
}

/// `origin:line:column: message` and the source line with `span` underlined.
fn located(origin: &str, text: &str, span: std::ops::Range<usize>, message: &str) -> String {
    let (line, column) = line_column(text, span.start);
    let source = text.lines().nth(line - 1).unwrap_or("");
    let width = text
        .get(span)
        .map_or(1, |s| s.lines().next().unwrap_or("").chars().count().max(1));
    let gutter = " ".repeat(line.to_string().len());
    let underline = format!("{}{}", " ".repeat(column - 1), "^".repeat(width));
    format!(
        "{origin}:{line}:{column}: {message}\n{gutter} |\n{line} | {source}\n{gutter} | {underline}"
    )
}

fn problem_of(e: cantus_framework::ModelError) -> String {
    match e {
        cantus_framework::ModelError::Config(m) => format!("is unusable: {m}"),
        other => format!("is unusable: {other}"),
    }
}

/// Whether `name` could be an environment variable's name.
fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Where the key at `path` is written in `text`, if it is.
fn key_span(text: &str, path: &[&str]) -> Option<std::ops::Range<usize>> {
    let doc = toml::de::DeTable::parse(text).ok()?;
    let mut table = doc.get_ref();
    let (last, parents) = path.split_last()?;
    for key in parents {
        table = table.get(*key)?.get_ref().as_table()?;
    }
    let (key, _) = table.get_key_value(*last)?;
    Some(key.span())
}

/// The 1-based line and column (in characters) of byte `offset`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_found_in_tables() {
        let text = "[backend]\nkind = \"openai\"\n\n[gate]\n  mode = \"lax\"\n";
        let span = key_span(text, &["gate", "mode"]).unwrap();
        assert_eq!(line_column(text, span.start), (5, 3));
        assert_eq!(&text[span], "mode");
        assert_eq!(key_span(text, &["backend", "timeout_s"]), None);
    }

    #[test]
    fn variable_names() {
        assert!(is_variable_name("OPENAI_API_KEY"));
        assert!(is_variable_name("_x1"));
        assert!(!is_variable_name("sk-abc123"));
        assert!(!is_variable_name("1ABC"));
        assert!(!is_variable_name(""));
    }
}
