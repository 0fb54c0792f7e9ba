//! Deadline, retry and concurrency are wrappers over any backend: an in-process fake
//! that fails, hangs or dawdles gets them as an HTTP client does, alone or through the
//! registry, which wraps every kind — here one registered by this test crate — alike.

use cantus_backend::{Behaviour, Concurrency, Deadline, Retry, RetryPolicy};
use cantus_framework::{
    ModelBackend, ModelError, ModelReply, ModelRequest, RetryAfter, async_trait,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// What the fake does on one call.
#[derive(Clone)]
enum Step {
    Answer,
    Fail(ModelError),
    /// Sleeps this long, then answers.
    Dawdle(Duration),
    /// Never answers.
    Hang,
}

/// A backend following a script (its last step repeats), counting its calls and
/// how many were in flight at once. Each reply's text is the number in flight when
/// the call began.
struct Fake {
    script: Vec<Step>,
    calls: AtomicU32,
    in_flight: Arc<AtomicU32>,
    peak: AtomicU32,
}

impl Fake {
    fn new(script: Vec<Step>) -> Arc<Fake> {
        Arc::new(Fake {
            script,
            calls: AtomicU32::new(0),
            in_flight: Arc::new(AtomicU32::new(0)),
            peak: AtomicU32::new(0),
        })
    }
    fn calls(&self) -> u32 {
        self.calls.load(Ordering::SeqCst)
    }
    fn peak(&self) -> u32 {
        self.peak.load(Ordering::SeqCst)
    }
    fn in_flight(&self) -> u32 {
        self.in_flight.load(Ordering::SeqCst)
    }
}

/// Counts a call out of flight when dropped, answered or cancelled.
struct InFlight(Arc<AtomicU32>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[async_trait]
impl ModelBackend for Fake {
    fn name(&self) -> String {
        "fake:script".into()
    }

    async fn complete(&self, _request: &ModelRequest) -> Result<ModelReply, ModelError> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst) as usize;
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        let _flight = InFlight(Arc::clone(&self.in_flight));
        self.peak.fetch_max(now, Ordering::SeqCst);
        let step = self.script[call.min(self.script.len() - 1)].clone();
        match step {
            Step::Answer => {}
            Step::Fail(e) => return Err(e),
            Step::Dawdle(d) => tokio::time::sleep(d).await,
            Step::Hang => std::future::pending::<()>().await,
        }
        Ok(ModelReply::text(now.to_string()))
    }
}

fn ask() -> ModelRequest {
    ModelRequest::new(vec![cantus_framework::Message::user("go")])
}

fn policy(retries: u32) -> RetryPolicy {
    RetryPolicy {
        retries,
        backoff: Duration::from_millis(10),
    }
}

fn http(status: u16, retry_after: RetryAfter) -> ModelError {
    ModelError::Http {
        status,
        message: "busy".into(),
        retry_after,
    }
}

#[tokio::test]
async fn a_transient_failure_is_asked_again_and_the_retry_is_counted() {
    let fake = Fake::new(vec![
        Step::Fail(ModelError::Connection("reset".into())),
        Step::Fail(http(503, RetryAfter::Unsaid)),
        Step::Answer,
    ]);
    let reply = Retry::new(fake.clone(), policy(3))
        .complete(&ask())
        .await
        .expect("answered on the third attempt");
    assert_eq!((reply.retries, fake.calls()), (2, 3));

    let fake = Fake::new(vec![Step::Fail(http(502, RetryAfter::Unsaid))]);
    let err = Retry::new(fake.clone(), policy(2))
        .complete(&ask())
        .await
        .unwrap_err();
    assert_eq!(fake.calls(), 3, "first attempt + 2 retries");
    assert_eq!(
        err,
        ModelError::Http {
            status: 502,
            message: "busy (gave up after 2 retries)".into(),
            retry_after: RetryAfter::Unsaid,
        }
    );
}

#[tokio::test]
async fn what_asking_again_cannot_mend_is_not_asked_again() {
    for error in [
        ModelError::Plugin("refused".into()),
        ModelError::BadReply("not JSON".into()),
        ModelError::Config("no model".into()),
        http(400, RetryAfter::Unsaid),
        // A spent quota: a 429, but the server said asking again will not help.
        http(429, RetryAfter::Never),
    ] {
        assert!(!error.is_transient(), "{error}");
        let fake = Fake::new(vec![Step::Fail(error.clone())]);
        let got = Retry::new(fake.clone(), policy(5))
            .complete(&ask())
            .await
            .unwrap_err();
        assert_eq!((got, fake.calls()), (error, 1));
    }
}

#[tokio::test]
async fn the_servers_wait_in_the_error_replaces_the_backoff() {
    let fake = Fake::new(vec![
        Step::Fail(http(429, RetryAfter::Wait(Duration::from_millis(400)))),
        Step::Answer,
    ]);
    let started = Instant::now();
    let reply = Retry::new(fake.clone(), policy(3))
        .complete(&ask())
        .await
        .expect("answered after the wait");
    assert!(
        started.elapsed() >= Duration::from_millis(380),
        "waited only {:?}",
        started.elapsed()
    );
    assert_eq!(reply.retries, 1);
    assert!(reply.latency_ms >= 380, "latency counts the wait");

    let fake = Fake::new(vec![Step::Fail(http(
        503,
        RetryAfter::Wait(Duration::from_secs(3600)),
    ))]);
    let err = Retry::new(fake.clone(), policy(3))
        .complete(&ask())
        .await
        .unwrap_err();
    assert_eq!(fake.calls(), 1);
    assert!(err.to_string().contains("asked to wait 3600 s"), "{err}");
}

#[tokio::test]
async fn a_hung_attempt_ends_at_the_deadline_and_is_asked_again() {
    let fake = Fake::new(vec![Step::Hang]);
    let err = Deadline::new(fake.clone(), Duration::from_millis(200))
        .complete(&ask())
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ModelError::Timeout("no answer within timeout_s = 0.2 s".into())
    );
    assert_eq!(fake.in_flight(), 0, "the late attempt was dropped");

    let fake = Fake::new(vec![Step::Hang, Step::Answer]);
    let behaviour = Behaviour {
        deadline: Duration::from_millis(200),
        retry: policy(1),
        concurrency: 1,
    };
    let started = Instant::now();
    let reply = behaviour
        .wrap(fake.clone())
        .complete(&ask())
        .await
        .expect("the second attempt answers");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "bounded: {:?}",
        started.elapsed()
    );
    assert_eq!((reply.retries, fake.calls()), (1, 2));
    assert!(reply.latency_ms >= 190, "latency counts the late attempt");
}

#[tokio::test]
async fn no_more_calls_than_the_limit_are_in_flight() {
    for limit in [1, 2, 3] {
        let fake = Fake::new(vec![Step::Dawdle(Duration::from_millis(150))]);
        let replies = at_once(Arc::new(Concurrency::new(fake.clone(), limit)), 6).await;
        assert!(replies.iter().all(Result::is_ok));
        assert_eq!(fake.peak(), limit, "concurrency = {limit}");
        assert_eq!(fake.calls(), 6);
    }
}

#[tokio::test]
async fn a_caller_that_stops_waiting_frees_its_permit() {
    let fake = Fake::new(vec![Step::Hang, Step::Answer]);
    let backend = Concurrency::new(fake.clone(), 1);
    let gave_up = tokio::time::timeout(Duration::from_millis(200), backend.complete(&ask())).await;
    assert!(gave_up.is_err(), "the hung call is still unanswered");
    let reply = tokio::time::timeout(Duration::from_secs(10), backend.complete(&ask()))
        .await
        .expect("the second call got the only permit")
        .expect("answered");
    assert_eq!(reply.text, "1", "the first call is no longer in flight");
    assert_eq!(fake.calls(), 2);
}

/// `n` calls of `backend` made at once, their outcomes in order.
async fn at_once(backend: Arc<dyn ModelBackend>, n: usize) -> Vec<Result<ModelReply, ModelError>> {
    let calls: Vec<_> = (0..n)
        .map(|_| {
            let backend = Arc::clone(&backend);
            tokio::spawn(async move { backend.complete(&ask()).await })
        })
        .collect();
    let mut outcomes = Vec::new();
    for call in calls {
        outcomes.push(call.await.expect("the call's task ran"));
    }
    outcomes
}

// A kind from outside cantus-backend: the registry wraps it like its own. Its first
// call on each built backend hangs; every call dawdles 150 ms and answers with the
// number of its calls then in flight.
inventory::submit! {
    cantus_backend::BackendFactory::new(
        "test-sometimes-hangs",
        "0",
        "a test kind",
        |_config, _backend| Ok(Fake::new(vec![
            Step::Hang,
            Step::Dawdle(Duration::from_millis(150)),
        ])),
    )
}

#[tokio::test]
async fn the_registry_gives_every_kind_the_tables_deadline_retries_and_limit() {
    let config = cantus_backend::Config::from_toml_str(
        "[backend]\nkind = \"test-sometimes-hangs\"\ntimeout_s = 0.5\nretries = 1\n\
         backoff_s = 0.01\nconcurrency = 2\n",
        "test.toml",
    )
    .expect("valid config");
    let backend = cantus_backend::build(&config).expect("the test kind is registered");
    assert_eq!(backend.name(), "fake:script");
    // The first call hangs past timeout_s and is retried: a deadline and a retry.
    let first = backend.complete(&ask()).await.expect("answered on retry");
    assert_eq!(first.retries, 1);
    // Then five at once, two at a time: no reply saw more than two calls in flight.
    let replies = at_once(backend, 5).await;
    let peak = replies
        .iter()
        .map(|r| {
            r.as_ref()
                .expect("answered")
                .text
                .parse::<u32>()
                .expect("a count")
        })
        .max();
    assert_eq!(peak, Some(2));
}
