//! When a failed call is tried again, and how long to wait first — and [`Retry`], the
//! wrapper that does it for any [`ModelBackend`].
//!
//! Transient failures — 408, 429, any 5xx, a refused or broken connection, a call past
//! its deadline — are retried with exponential backoff, within the configured count
//! ([`ModelError::is_transient`] decides, from the error alone). A server's
//! `Retry-After` (seconds or an HTTP date), carried in the error, replaces the computed
//! delay. Everything else fails at once: 400/401/403/404/422 will not change by asking
//! again, and neither will a 429 that says the account's quota is spent (OpenAI's
//! `insufficient_quota`), a refusal, an unreadable reply or a plugin's failure.
//!
//! Retrying is a wrapper rather than a loop inside the HTTP client so that every
//! backend kind — HTTP, a dynamic library, a subprocess, a kind from another crate —
//! gets the same policy from the same `[backend]` keys.

use async_trait::async_trait;
use cantus_framework::{ModelBackend, ModelError, ModelReply, ModelRequest};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// The longest wait Cantus accepts before a retry; a `Retry-After` asking for more
/// ends the call with the server's error instead of stalling the run.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(60);

/// How often and how patiently one backend retries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetryPolicy {
    /// Attempts after the first.
    pub retries: u32,
    /// Delay before the first retry; doubled for each further one.
    pub backoff: Duration,
}

impl RetryPolicy {
    /// The wait before retry number `retry` (1-based), unless the server said otherwise:
    /// `backoff × 2^(retry−1)`, capped at [`MAX_RETRY_WAIT`].
    pub fn delay(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.saturating_sub(1));
        self.backoff.saturating_mul(factor).min(MAX_RETRY_WAIT)
    }
}

/// A backend that asks `inner` again after a transient failure, within a
/// [`RetryPolicy`]. The reply counts the attempts beyond the first in
/// [`ModelReply::retries`] (added to any the inner backend reports) and the wall time
/// of every attempt and wait in [`ModelReply::latency_ms`]; the last error says how
/// many retries were spent, or that the server asked to wait longer than
/// [`MAX_RETRY_WAIT`].
pub struct Retry {
    inner: Arc<dyn ModelBackend>,
    policy: RetryPolicy,
}

impl Retry {
    /// `inner`, retried under `policy`.
    pub fn new(inner: Arc<dyn ModelBackend>, policy: RetryPolicy) -> Retry {
        Retry { inner, policy }
    }
}

#[async_trait]
impl ModelBackend for Retry {
    fn name(&self) -> String {
        self.inner.name()
    }

    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        let started = Instant::now();
        let mut retries = 0;
        loop {
            let error = match self.inner.complete(request).await {
                Ok(mut reply) => {
                    reply.retries = reply.retries.saturating_add(retries);
                    reply.latency_ms = reply.latency_ms.max(elapsed_ms(started));
                    return Ok(reply);
                }
                Err(error) => error,
            };
            let transient = error.is_transient();
            let wait = error
                .retry_after()
                .unwrap_or_else(|| self.policy.delay(retries + 1));
            if !transient || retries >= self.policy.retries || wait > MAX_RETRY_WAIT {
                return Err(gave_up(error, transient, retries, wait));
            }
            retries += 1;
            tokio::time::sleep(wait).await;
        }
    }
}

/// Milliseconds since `started`, saturating.
pub(crate) fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// The error to report after the last attempt, saying how many retries were spent.
fn gave_up(error: ModelError, transient: bool, retries: u32, wait: Duration) -> ModelError {
    let note = if transient && wait > MAX_RETRY_WAIT {
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
    error.noted(&note)
}

/// Whether a 429 body says the quota is spent (asking again will not help).
pub fn quota_exhausted(body: &str) -> bool {
    let lower = body.to_ascii_lowercase();
    lower.contains("insufficient_quota")
        || lower.contains("quota exceeded")
        || lower.contains("exceeded your current quota")
}

/// A `Retry-After` header value as a wait from `now`: delta-seconds (`"3"`, `"1.5"`)
/// or an HTTP date (`"Wed, 21 Oct 2026 07:28:00 GMT"`; a date in the past means now).
/// `None` when it is neither.
pub fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_is_capped() {
        let p = RetryPolicy {
            retries: 10,
            backoff: Duration::from_millis(100),
        };
        assert_eq!(p.delay(1), Duration::from_millis(100));
        assert_eq!(p.delay(2), Duration::from_millis(200));
        assert_eq!(p.delay(4), Duration::from_millis(800));
        assert_eq!(p.delay(40), MAX_RETRY_WAIT);
    }

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let now = httpdate::parse_http_date("Wed, 21 Oct 2026 07:28:00 GMT").unwrap();
        assert_eq!(retry_after("3", now), Some(Duration::from_secs(3)));
        assert_eq!(retry_after(" 0.25 ", now), Some(Duration::from_millis(250)));
        assert_eq!(
            retry_after("Wed, 21 Oct 2026 07:28:05 GMT", now),
            Some(Duration::from_secs(5))
        );
        assert_eq!(
            retry_after("Wed, 21 Oct 2026 07:27:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(retry_after("-1", now), None);
    }

    #[test]
    fn statuses_and_quota() {
        for s in [408, 429, 500, 502, 503, 529] {
            assert!(ModelError::transient_status(s), "{s}");
        }
        for s in [400, 401, 403, 404, 422] {
            assert!(!ModelError::transient_status(s), "{s}");
        }
        assert!(quota_exhausted(
            r#"{"error":{"code":"insufficient_quota","message":"You exceeded your current quota"}}"#
        ));
        assert!(!quota_exhausted(
            r#"{"error":{"message":"Rate limit reached"}}"#
        ));
    }
}
