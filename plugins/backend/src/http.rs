//! One POST of JSON with the backend's timeouts, retries and concurrency limit.
//!
//! The three wire formats differ in body and headers only; how a call is sent, timed,
//! retried and turned into an error is the same for all of them and lives here. Every
//! text that came from the server is scrubbed of the key before it goes into an error.
//!
//! A call waits for its permit, and is sent and read, in a task of the runtime rather
//! than in the caller's future. The caller may be a piece's own thread (`--jobs N`
//! drives each piece with `Handle::block_on`), and a permit freed there would wake the
//! next request only after that thread was scheduled, and the next request's thread
//! after it: two thread hand-offs between one reply and the next request, on every
//! round. As runtime tasks, a reply frees its permit where it was read, and the request
//! waiting for it is sent from the same worker at once.

use crate::retry::{MAX_RETRY_WAIT, RetryPolicy, quota_exhausted, retry_after, retryable_status};
use crate::secret::{ApiKey, scrub};
use cantus_framework::ModelError;
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tokio::sync::Semaphore;

/// How much of an error body goes into a message.
const EXCERPT_CHARS: usize = 300;

/// An HTTP client with one backend's policy: timeouts, retries, concurrency, key;
/// shared by every call in flight.
pub(crate) struct Transport(Arc<Shared>);

struct Shared {
    client: reqwest::Client,
    policy: RetryPolicy,
    permits: Semaphore,
    key: Option<ApiKey>,
    timeout: Duration,
    connect_timeout: Duration,
}

/// A JSON answer and what it took to get it.
pub(crate) struct Answer {
    pub body: serde_json::Value,
    pub retries: u32,
}

/// The settings [`Transport::new`] needs.
pub(crate) struct TransportSettings {
    pub connect_timeout: Duration,
    pub timeout: Duration,
    pub policy: RetryPolicy,
    pub concurrency: u32,
    pub key: Option<ApiKey>,
}

/// One failed attempt: the error, whether to try again, and the server's requested wait.
struct Failure {
    error: ModelError,
    retry: bool,
    wait: Option<Duration>,
}

impl Transport {
    pub(crate) fn new(settings: TransportSettings) -> Result<Transport, ModelError> {
        // reqwest is built without a default crypto provider; install ring's once
        // (an error only means a provider is already installed).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .connect_timeout(settings.connect_timeout)
            .timeout(settings.timeout)
            .build()
            .map_err(|e| ModelError::Config(format!("cannot build the HTTP client: {e}")))?;
        Ok(Transport(Arc::new(Shared {
            client,
            policy: settings.policy,
            permits: Semaphore::new(settings.concurrency.max(1) as usize),
            key: settings.key,
            timeout: settings.timeout,
            connect_timeout: settings.connect_timeout,
        })))
    }

    pub(crate) fn key(&self) -> Option<&ApiKey> {
        self.0.key()
    }

    /// POSTs `body` to `url` with `headers`, retrying transient failures; the parsed
    /// JSON answer of the first success.
    pub(crate) async fn post_json(
        &self,
        url: &reqwest::Url,
        headers: &[(&'static str, String)],
        body: &serde_json::Value,
    ) -> Result<Answer, ModelError> {
        // Encoded before a permit is taken: a permit is the server's time, and
        // nothing the client can do without the server should hold one.
        let bytes = serde_json::to_vec(body)
            .map_err(|e| ModelError::Config(format!("cannot encode the request: {e}")))?;
        let shared = Arc::clone(&self.0);
        let (url, headers) = (url.clone(), headers.to_vec());
        let call = async move { shared.post(&url, &headers, &bytes).await };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return call.await;
        };
        // Dropping the caller's future (a deadline) aborts the call and frees its permit.
        let mut task = AbortOnDrop(runtime.spawn(call));
        match (&mut task.0).await {
            Ok(answer) => answer,
            Err(e) => Err(ModelError::Connection(format!(
                "the request task failed: {e}"
            ))),
        }
    }
}

/// A spawned call, aborted when its caller stops waiting for it.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Shared {
    fn key(&self) -> Option<&ApiKey> {
        self.key.as_ref()
    }

    /// Waits for a permit, then sends `bytes` until an attempt succeeds or the policy
    /// gives up.
    async fn post(
        &self,
        url: &reqwest::Url,
        headers: &[(&'static str, String)],
        bytes: &[u8],
    ) -> Result<Answer, ModelError> {
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| ModelError::Connection("backend is shutting down".into()))?;
        let mut retries = 0;
        loop {
            match self.attempt(url, headers, bytes).await {
                Ok(body) => return Ok(Answer { body, retries }),
                Err(failure) => {
                    let wait = failure
                        .wait
                        .unwrap_or_else(|| self.policy.delay(retries + 1));
                    if !failure.retry || retries >= self.policy.retries || wait > MAX_RETRY_WAIT {
                        return Err(finally(failure, retries, wait));
                    }
                    retries += 1;
                    tokio::time::sleep(wait).await;
                }
            }
        }
    }

    async fn attempt(
        &self,
        url: &reqwest::Url,
        headers: &[(&'static str, String)],
        bytes: &[u8],
    ) -> Result<serde_json::Value, Failure> {
        let mut request = self
            .client
            .post(url.clone())
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .body(bytes.to_vec());
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
            return Err(Failure {
                error: ModelError::Http { status, message },
                retry: retryable_status(status) && !quota,
                wait,
            });
        }
        if text.trim().is_empty() {
            return Err(Failure {
                error: ModelError::BadReply(format!("HTTP {status} with an empty body")),
                retry: false,
                wait: None,
            });
        }
        serde_json::from_str(&text).map_err(|e| Failure {
            error: ModelError::BadReply(format!(
                "the body is not JSON ({e}); it begins: {}",
                excerpt(&text)
            )),
            retry: false,
            wait: None,
        })
    }

    /// A connection, timeout or body error as a retryable failure.
    fn transport_failure(&self, e: &reqwest::Error) -> Failure {
        let mut message = e.to_string();
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            message.push_str(": ");
            message.push_str(&s.to_string());
            source = s.source();
        }
        let message = scrub(&message, self.key());
        let error = if e.is_timeout() && e.is_connect() {
            ModelError::Timeout(format!(
                "could not connect within connect_timeout_s = {} s: {message}",
                self.connect_timeout.as_secs_f64()
            ))
        } else if e.is_timeout() {
            ModelError::Timeout(format!(
                "no answer within timeout_s = {} s: {message}",
                self.timeout.as_secs_f64()
            ))
        } else {
            ModelError::Connection(message)
        };
        Failure {
            error,
            retry: true,
            wait: None,
        }
    }
}

/// The error to report after the last attempt, saying how many retries were spent.
fn finally(failure: Failure, retries: u32, wait: Duration) -> ModelError {
    let note = if failure.retry && wait > MAX_RETRY_WAIT {
        format!(
            " (the server asked to wait {} s, more than the {} s Cantus waits)",
            wait.as_secs(),
            MAX_RETRY_WAIT.as_secs()
        )
    } else if retries > 0 {
        format!(" (gave up after {retries} retries)")
    } else {
        String::new()
    };
    match failure.error {
        ModelError::Http { status, message } => ModelError::Http {
            status,
            message: message + &note,
        },
        ModelError::Connection(m) => ModelError::Connection(m + &note),
        ModelError::Timeout(m) => ModelError::Timeout(m + &note),
        ModelError::BadReply(m) => ModelError::BadReply(m + &note),
        other => other,
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
