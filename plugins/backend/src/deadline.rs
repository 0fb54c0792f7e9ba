//! [`Deadline`]: one attempt of a model call may take so long and no longer.
//!
//! A wrapper rather than each client's own timer, so that every backend kind gets the
//! `[backend]` table's `timeout_s` alike and ends a late attempt the same way: as a
//! [`ModelError::Timeout`], which a [`Retry`](crate::retry::Retry) around it counts as
//! transient. The late attempt is stopped by dropping its future, so it relies on the
//! [`ModelBackend`] contract that a call is cancel-safe: the HTTP client aborts the
//! request, a dynamic plugin's call is abandoned (the library stays loaded until it
//! returns), a subprocess plugin's process is killed and restarted on the next call.

use async_trait::async_trait;
use cantus_framework::{ModelBackend, ModelError, ModelReply, ModelRequest};
use std::sync::Arc;
use std::time::Duration;

/// A backend whose every call to `inner` ends after `limit`.
pub struct Deadline {
    inner: Arc<dyn ModelBackend>,
    limit: Duration,
}

impl Deadline {
    /// `inner`, each call allowed `limit` (the config's `timeout_s`).
    pub fn new(inner: Arc<dyn ModelBackend>, limit: Duration) -> Deadline {
        Deadline { inner, limit }
    }
}

#[async_trait]
impl ModelBackend for Deadline {
    fn name(&self) -> String {
        self.inner.name()
    }

    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        match tokio::time::timeout(self.limit, self.inner.complete(request)).await {
            Ok(outcome) => outcome,
            // Without the backend's name: whoever reports the error names the backend.
            Err(_elapsed) => Err(ModelError::Timeout(format!(
                "no answer within timeout_s = {} s",
                self.limit.as_secs_f64()
            ))),
        }
    }
}
