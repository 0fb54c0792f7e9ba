//! What every built backend does around its calls, from the `[backend]` table: a
//! deadline per attempt (`timeout_s`), retries of transient failures (`retries`,
//! `backoff_s`) and a limit on calls in flight (`concurrency`).
//!
//! A backend kind only answers one attempt; [`Behaviour::wrap`] puts the three
//! wrappers around it, tower-style, once, in [`crate::build`], for every registered kind
//! alike — HTTP, dynamic library, subprocess, or a kind from another crate:
//!
//! ```text
//! Concurrency( Retry( Deadline( kind ) ) )
//! ```
//!
//! The order is the meaning: the permit is held over every attempt and wait, as a
//! server's capacity is what it guards (and a wait for it is part of the call's
//! latency); each attempt has its own deadline, and a late one is retried like a
//! dropped connection.

use crate::concurrency::Concurrency;
use crate::config::BackendConfig;
use crate::deadline::Deadline;
use crate::retry::{Retry, RetryPolicy};
use cantus_framework::{ModelBackend, ModelError};
use std::sync::Arc;
use std::time::Duration;

/// A `[backend]` table's deadline, retry policy and concurrency limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Behaviour {
    /// How long one attempt may take (`timeout_s`).
    pub deadline: Duration,
    /// When to ask again (`retries`, `backoff_s`).
    pub retry: RetryPolicy,
    /// Calls in flight at once (`concurrency`; 0 is read as 1).
    pub concurrency: u32,
}

impl Behaviour {
    /// The behaviour `backend` asks for; a [`ModelError::Config`] naming the key when a
    /// duration is not one.
    pub fn from_config(backend: &BackendConfig) -> Result<Behaviour, ModelError> {
        Ok(Behaviour {
            deadline: seconds(backend.timeout_s, "timeout_s")?,
            retry: RetryPolicy {
                retries: backend.retries,
                backoff: Duration::try_from_secs_f64(backend.backoff_s.max(0.0)).map_err(|_| {
                    ModelError::Config(format!(
                        "backoff_s = {} is not a duration",
                        backend.backoff_s
                    ))
                })?,
            },
            concurrency: backend.concurrency,
        })
    }

    /// `kind` wrapped in the deadline, the retries and the concurrency limit.
    pub fn wrap(&self, kind: Arc<dyn ModelBackend>) -> Arc<dyn ModelBackend> {
        let attempt = Arc::new(Deadline::new(kind, self.deadline));
        let retried = Arc::new(Retry::new(attempt, self.retry));
        Arc::new(Concurrency::new(retried, self.concurrency))
    }
}

/// A positive number of seconds as a duration, or a config error naming `key`.
pub(crate) fn seconds(value: f64, key: &str) -> Result<Duration, ModelError> {
    if value.is_finite() && value > 0.0 {
        Duration::try_from_secs_f64(value)
            .map_err(|_| ModelError::Config(format!("{key} = {value} is not a duration")))
    } else {
        Err(ModelError::Config(format!(
            "{key} must be a positive number of seconds, not {value}"
        )))
    }
}
