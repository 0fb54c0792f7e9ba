//! When a failed call is tried again, and how long to wait first.
//!
//! Transient failures — 408, 429, any 5xx, a refused or broken connection, a timeout —
//! are retried with exponential backoff, within the configured count. A server's
//! `Retry-After` (seconds or an HTTP date) replaces the computed delay. Everything else
//! fails at once: 400/401/403/404/422 will not change by asking again, and neither will
//! a 429 that says the account's quota is spent (OpenAI's `insufficient_quota`).

use std::time::{Duration, SystemTime};

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

/// Whether an HTTP status is worth another attempt.
pub fn retryable_status(status: u16) -> bool {
    status == 408 || status == 429 || (500..=599).contains(&status)
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
            assert!(retryable_status(s), "{s}");
        }
        for s in [400, 401, 403, 404, 422] {
            assert!(!retryable_status(s), "{s}");
        }
        assert!(quota_exhausted(
            r#"{"error":{"code":"insufficient_quota","message":"You exceeded your current quota"}}"#
        ));
        assert!(!quota_exhausted(
            r#"{"error":{"message":"Rate limit reached"}}"#
        ));
    }
}
