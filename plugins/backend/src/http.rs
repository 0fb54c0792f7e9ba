//! One POST of JSON, as one attempt: sent, read, and turned into an error that says
//! whether asking again may help.
//!
//! The three wire formats differ in body and headers only; how a call is sent and how
//! a failure becomes a [`ModelError`] is the same for all of them and lives here. Every
//! text that came from the server is scrubbed of the key before it goes into an error.
//! What an HTTP error says about asking again — a `Retry-After`, a spent quota — goes
//! into the error ([`RetryAfter`]), so the deadline, retries and concurrency limit can
//! be wrappers over any backend ([`crate::behaviour`]) rather than loops in here. The
//! transport keeps only what is HTTP's own: the connect timeout.

use crate::retry::{quota_exhausted, retry_after};
use crate::secret::{ApiKey, scrub};
use cantus_framework::{ModelError, RetryAfter};
use std::time::{Duration, SystemTime};

/// How much of an error body goes into a message.
const EXCERPT_CHARS: usize = 300;

/// An HTTP client with one backend's key and connect timeout, shared by every call
/// in flight.
pub(crate) struct Transport {
    client: reqwest::Client,
    key: Option<ApiKey>,
    connect_timeout: Duration,
}

/// The settings [`Transport::new`] needs.
pub(crate) struct TransportSettings {
    pub connect_timeout: Duration,
    pub key: Option<ApiKey>,
}

impl Transport {
    pub(crate) fn new(settings: TransportSettings) -> Result<Transport, ModelError> {
        // reqwest is built without a default crypto provider; install ring's once
        // (an error only means a provider is already installed).
        let _ = rustls::crypto::ring::default_provider().install_default();
        // No overall timeout here: the whole attempt is bounded by the `Deadline`
        // wrapper, the same for every backend kind.
        let client = reqwest::Client::builder()
            .connect_timeout(settings.connect_timeout)
            .build()
            .map_err(|e| ModelError::Config(format!("cannot build the HTTP client: {e}")))?;
        Ok(Transport {
            client,
            key: settings.key,
            connect_timeout: settings.connect_timeout,
        })
    }

    pub(crate) fn key(&self) -> Option<&ApiKey> {
        self.key.as_ref()
    }

    /// POSTs `body` to `url` with `headers` once; the parsed JSON answer, or the
    /// failure. Cancel-safe: dropping the future aborts the request.
    pub(crate) async fn post_json(
        &self,
        url: &reqwest::Url,
        headers: &[(&'static str, String)],
        body: &serde_json::Value,
    ) -> Result<serde_json::Value, ModelError> {
        let bytes = serde_json::to_vec(body)
            .map_err(|e| ModelError::Config(format!("cannot encode the request: {e}")))?;
        let mut request = self
            .client
            .post(url.clone())
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .body(bytes);
        for (name, value) in headers {
            request = request.header(*name, value.as_str());
        }
        let response = request
            .send()
            .await
            .map_err(|e| self.transport_failure(&e))?;
        let status = response.status().as_u16();
        let wait = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| retry_after(v, SystemTime::now()));
        let raw = response
            .bytes()
            .await
            .map_err(|e| self.transport_failure(&e))?;
        let text = scrub(&String::from_utf8_lossy(&raw), self.key());
        if !(200..300).contains(&status) {
            let quota = status == 429 && quota_exhausted(&text);
            let mut message = error_message(&text);
            if quota {
                message = format!("quota exhausted (not retried): {message}");
            }
            let retry_after = match wait {
                _ if quota => RetryAfter::Never,
                Some(wait) => RetryAfter::Wait(wait),
                None => RetryAfter::Unsaid,
            };
            return Err(ModelError::Http {
                status,
                message,
                retry_after,
            });
        }
        if text.trim().is_empty() {
            return Err(ModelError::BadReply(format!(
                "HTTP {status} with an empty body"
            )));
        }
        serde_json::from_str(&text).map_err(|e| {
            ModelError::BadReply(format!(
                "the body is not JSON ({e}); it begins: {}",
                excerpt(&text)
            ))
        })
    }

    /// A connection or body error (both transient), with its sources, scrubbed.
    fn transport_failure(&self, e: &reqwest::Error) -> ModelError {
        let mut message = e.to_string();
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            message.push_str(": ");
            message.push_str(&s.to_string());
            source = s.source();
        }
        let message = scrub(&message, self.key());
        if e.is_timeout() && e.is_connect() {
            ModelError::Timeout(format!(
                "could not connect within connect_timeout_s = {} s: {message}",
                self.connect_timeout.as_secs_f64()
            ))
        } else if e.is_timeout() {
            ModelError::Timeout(message)
        } else {
            ModelError::Connection(message)
        }
    }
}

/// The message of an error body: `error.message`, `error` (a string), `message`, or
/// the start of the text.
fn error_message(text: &str) -> String {
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(text) {
        let candidates = [
            json.pointer("/error/message"),
            json.get("error").filter(|v| v.is_string()),
            json.get("message"),
            json.get("detail"),
        ];
        if let Some(m) = candidates.into_iter().flatten().find_map(|v| v.as_str()) {
            return excerpt(m);
        }
    }
    if text.trim().is_empty() {
        "(empty body)".into()
    } else {
        excerpt(text)
    }
}

/// At most [`EXCERPT_CHARS`] characters of `text`, on one line.
pub(crate) fn excerpt(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = flat.chars().take(EXCERPT_CHARS).collect();
    if flat.chars().count() > EXCERPT_CHARS {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_messages_are_found_where_servers_put_them() {
        assert_eq!(
            error_message(r#"{"error":{"message":"bad model"}}"#),
            "bad model"
        );
        assert_eq!(
            error_message(r#"{"error":"model not found"}"#),
            "model not found"
        );
        assert_eq!(
            error_message("<html>502 Bad Gateway</html>"),
            "<html>502 Bad Gateway</html>"
        );
        assert_eq!(error_message(""), "(empty body)");
    }

    #[test]
    fn excerpts_are_short_and_cut_on_characters() {
        let long = "é".repeat(1000);
        let e = excerpt(&long);
        assert_eq!(e.chars().count(), EXCERPT_CHARS + 1);
    }
}
