//! Why a model call failed ([`ModelError`]), and what deciding to ask again needs
//! from it: whether it is transient, and what the server said about waiting
//! ([`RetryAfter`]). Every retry of a model call decides from the error alone, so
//! backends of every kind report their failures in these terms.

use serde::{Deserialize, Serialize};

/// Why a model call failed. Messages never contain secrets.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", content = "message", rename_all = "snake_case")]
pub enum ModelError {
    /// Could not connect, or the connection broke.
    #[error("connection failed: {0}")]
    Connection(String),
    /// No answer within the configured timeout.
    #[error("timed out: {0}")]
    Timeout(String),
    /// The server answered with an HTTP error status.
    #[error("HTTP {status}: {message}")]
    Http {
        status: u16,
        message: String,
        /// What the server said about asking again (`Retry-After`, a spent quota); left
        /// out of JSON when it said nothing, so older cassettes read unchanged.
        #[serde(default, skip_serializing_if = "RetryAfter::is_unsaid")]
        retry_after: RetryAfter,
    },
    /// The server's answer could not be read (malformed JSON, truncated body, no text).
    #[error("unreadable reply: {0}")]
    BadReply(String),
    /// The configuration cannot work (unknown backend kind, missing key variable, bad URL).
    #[error("configuration: {0}")]
    Config(String),
    /// A plugin crashed, hung or broke its protocol.
    #[error("plugin: {0}")]
    Plugin(String),
}

/// What a server said, with an HTTP error, about asking again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetryAfter {
    /// Nothing: the status alone decides whether to ask again.
    #[default]
    Unsaid,
    /// Ask again, but not before this long (a `Retry-After` header).
    Wait(std::time::Duration),
    /// Asking again will not help, whatever the status (a 429 whose quota is spent).
    Never,
}

impl RetryAfter {
    /// Whether the server said nothing.
    pub fn is_unsaid(&self) -> bool {
        matches!(self, RetryAfter::Unsaid)
    }
}

impl ModelError {
    /// Whether asking again, unchanged, may succeed: a broken or refused connection, a
    /// call past its deadline, or HTTP 408, 429 and 5xx — unless the server said that
    /// asking again will not help ([`RetryAfter::Never`]). A refusal, an unreadable
    /// reply, a configuration error or a plugin's failure is not: the same request
    /// would meet it again. This is what every retry of a model call decides by, so
    /// it is decided from the error alone.
    pub fn is_transient(&self) -> bool {
        match self {
            ModelError::Connection(_) | ModelError::Timeout(_) => true,
            ModelError::Http {
                status,
                retry_after,
                ..
            } => ModelError::transient_status(*status) && *retry_after != RetryAfter::Never,
            ModelError::BadReply(_) | ModelError::Config(_) | ModelError::Plugin(_) => false,
        }
    }

    /// Whether an HTTP status is worth another attempt: 408, 429 and every 5xx.
    /// (400, 401, 403, 404 and 422 will not change by asking again.)
    pub fn transient_status(status: u16) -> bool {
        status == 408 || status == 429 || (500..=599).contains(&status)
    }

    /// How long the server asked to be left alone before the next attempt, if it said.
    pub fn retry_after(&self) -> Option<std::time::Duration> {
        match self {
            ModelError::Http {
                retry_after: RetryAfter::Wait(wait),
                ..
            } => Some(*wait),
            _ => None,
        }
    }

    /// The same error with `note` appended to its message (a retry saying how many
    /// attempts were spent); an error without a free message is returned as it is.
    pub fn noted(self, note: &str) -> ModelError {
        if note.is_empty() {
            return self;
        }
        match self {
            ModelError::Http {
                status,
                message,
                retry_after,
            } => ModelError::Http {
                status,
                message: message + note,
                retry_after,
            },
            ModelError::Connection(m) => ModelError::Connection(m + note),
            ModelError::Timeout(m) => ModelError::Timeout(m + note),
            ModelError::BadReply(m) => ModelError::BadReply(m + note),
            ModelError::Plugin(m) => ModelError::Plugin(m + note),
            other @ ModelError::Config(_) => other,
        }
    }
}
