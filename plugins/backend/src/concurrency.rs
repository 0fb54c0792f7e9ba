//! [`Concurrency`]: at most so many calls to one backend in flight at once.
//!
//! One limiter per built backend, shared by every caller of it — `--jobs N` pieces
//! drive one backend, so its `concurrency` caps their requests together. A permit is
//! held for the whole call, retries and their waits included, as a server's capacity
//! is what it protects.
//!
//! A call waits for its permit, and runs, in a task of the runtime rather than in the
//! caller's future. The caller may be a piece's own thread (`--jobs N` drives each
//! piece with `Handle::block_on`), and a permit freed there would wake the next request
//! only after that thread was scheduled, and the next request's thread after it: two
//! thread hand-offs between one reply and the next request, on every round. As runtime
//! tasks, a reply frees its permit where it was read, and the request waiting for it is
//! sent from the same worker at once. The task is aborted when the caller stops waiting
//! (a deadline), so a cancelled call frees its permit at once.

use async_trait::async_trait;
use cantus_framework::{ModelBackend, ModelError, ModelReply, ModelRequest};
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::Semaphore;

/// A backend letting at most `limit` calls of `inner` run at once; the others wait
/// their turn. A reply's [`ModelReply::latency_ms`] includes the wait.
pub struct Concurrency {
    inner: Arc<dyn ModelBackend>,
    permits: Arc<Semaphore>,
}

impl Concurrency {
    /// `inner`, with at most `limit` calls in flight (at least one).
    pub fn new(inner: Arc<dyn ModelBackend>, limit: u32) -> Concurrency {
        let limit = usize::try_from(limit.max(1)).unwrap_or(usize::MAX);
        Concurrency {
            inner,
            permits: Arc::new(Semaphore::new(limit.min(Semaphore::MAX_PERMITS))),
        }
    }
}

#[async_trait]
impl ModelBackend for Concurrency {
    fn name(&self) -> String {
        self.inner.name()
    }

    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        let started = Instant::now();
        let (inner, permits) = (Arc::clone(&self.inner), Arc::clone(&self.permits));
        // Owned by the task, which may outlive the caller's borrow until it is aborted.
        let request = request.clone();
        let call = async move {
            let _permit = permits
                .acquire_owned()
                .await
                .map_err(|_| ModelError::Connection("backend is shutting down".into()))?;
            inner.complete(&request).await
        };
        let outcome = match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                // Dropping the caller's future (a deadline) aborts the call and frees its permit.
                let mut task = AbortOnDrop(runtime.spawn(call));
                match (&mut task.0).await {
                    Ok(outcome) => outcome,
                    Err(e) => Err(ModelError::Connection(format!(
                        "the request task failed: {e}"
                    ))),
                }
            }
            Err(_) => call.await,
        };
        outcome.map(|mut reply| {
            reply.latency_ms = reply.latency_ms.max(crate::retry::elapsed_ms(started));
            reply
        })
    }
}

/// A spawned call, aborted when its caller stops waiting for it.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}
