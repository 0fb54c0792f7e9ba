//! Values a `cantus.toml` may parse but not use: a zero timeout, an unknown gate mode,
//! a base URL that is not one. Each error names the file, the key's line and column,
//! and the key, like the parser's own errors do.

use crate::config::{Config, ConfigError};

/// Checks every value of `config`, parsed from `text`; the first problem found.
pub(crate) fn check(config: &Config, text: &str, origin: &str) -> Result<(), ConfigError> {
    let fail = |path: &[&str], problem: String| {
        let message = format!("`{}` {problem}", path.join("."));
        Err(ConfigError(match key_span(text, path) {
            Some(span) => located(origin, text, span, &message),
            None => format!("{origin}: {message}"),
        }))
    };
    let b = &config.backend;
    if b.kind.trim().is_empty() {
        return fail(
            &["backend", "kind"],
            "must name a backend kind (e.g. `openai`)".into(),
        );
    }
    if let Some(url) = &b.base_url
        && let Err(e) = crate::wire::parse_base_url(url)
    {
        return fail(&["backend", "base_url"], problem_of(e));
    }
    if let Some(var) = &b.api_key_env
        && !is_variable_name(var)
    {
        // Never quote the line: its value may be a key pasted by mistake.
        let at = key_span(text, &["backend", "api_key_env"])
            .map(|span| line_column(text, span.start))
            .map(|(line, column)| format!(":{line}:{column}"))
            .unwrap_or_default();
        return Err(ConfigError(format!(
            "{origin}{at}: `backend.api_key_env` must be the *name* of an environment variable \
             (letters, digits, `_`), not a key; put the key in that variable"
        )));
    }
    if let Some(t) = b.temperature
        && !(t.is_finite() && t >= 0.0)
    {
        return fail(
            &["backend", "temperature"],
            format!("must be 0 or more, not {t}"),
        );
    }
    if b.max_tokens == Some(0) {
        return fail(&["backend", "max_tokens"], "must be at least 1".into());
    }
    for (key, value) in [
        ("connect_timeout_s", b.connect_timeout_s),
        ("timeout_s", b.timeout_s),
    ] {
        if !(value.is_finite() && value > 0.0) {
            return fail(
                &["backend", key],
                format!("must be a positive number of seconds, not {value}"),
            );
        }
    }
    if !(b.backoff_s.is_finite() && b.backoff_s >= 0.0) {
        return fail(
            &["backend", "backoff_s"],
            format!("must be 0 or more seconds, not {}", b.backoff_s),
        );
    }
    if b.concurrency == 0 {
        return fail(&["backend", "concurrency"], "must be at least 1".into());
    }
    if let Some(d) = config.harness.deadline_s
        && !(d.is_finite() && d > 0.0)
    {
        return fail(
            &["harness", "deadline_s"],
            format!("must be a positive number of seconds, not {d}"),
        );
    }
    if !matches!(config.gate.mode.as_str(), "strict" | "relaxed") {
        return fail(
            &["gate", "mode"],
            format!("must be `strict` or `relaxed`, not `{}`", config.gate.mode),
        );
    }
    Ok(())
}

/// A TOML parse error as `origin:line:column: message`, then the line with the span
/// underlined (rustc style).
pub(crate) fn parse_error(e: &toml::de::Error, text: &str, origin: &str) -> ConfigError {
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
