//! A misbehaving server never panics a backend: every fault ends in bounded retries
//! and either a reply or a `ModelError` naming the cause; statuses that will not change
//! by asking again are not retried.

mod support;

use cantus_framework::ModelError;
use std::time::{Duration, Instant};
use support::{FakeServer, Reply, ask, backend, config_toml, openai_reply};

async fn openai_against(
    script: Vec<Reply>,
    extra: &str,
) -> (
    FakeServer,
    std::sync::Arc<dyn cantus_framework::ModelBackend>,
) {
    let server = FakeServer::start(script);
    let backend = backend(&config_toml("openai", &format!("{}/v1", server.url), extra));
    (server, backend)
}

#[tokio::test]
async fn a_429_with_retry_after_seconds_is_honoured_then_answered() {
    let (server, backend) = openai_against(
        vec![
            Reply::status(429, r#"{"error":{"message":"Rate limit reached"}}"#)
                .with_header("retry-after", "1"),
            Reply::json(openai_reply("C4@0>1")),
        ],
        "",
    )
    .await;
    let started = Instant::now();
    let reply = backend
        .complete(&ask("go"))
        .await
        .expect("answered after one retry");
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "waited {:?}",
        started.elapsed()
    );
    assert_eq!(reply.text, "C4@0>1");
    assert_eq!(reply.retries, 1);
    assert_eq!(server.count(), 2);
    assert!(
        reply.latency_ms >= 950,
        "latency counts the wait: {}",
        reply.latency_ms
    );
}

#[tokio::test]
async fn a_retry_after_http_date_in_the_past_means_retry_now() {
    let (server, backend) = openai_against(
        vec![
            Reply::status(503, "busy").with_header("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT"),
            Reply::json(openai_reply("ok")),
        ],
        "backoff_s = 30",
    )
    .await;
    let started = Instant::now();
    let reply = backend.complete(&ask("go")).await.expect("answered");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the date said now, not backoff_s"
    );
    assert_eq!((reply.retries, server.count()), (1, 2));
}

#[tokio::test]
async fn a_retry_after_beyond_the_limit_fails_at_once_saying_so() {
    let (server, backend) = openai_against(
        vec![Reply::status(429, "slow down").with_header("retry-after", "3600")],
        "",
    )
    .await;
    let err = backend.complete(&ask("go")).await.unwrap_err();
    assert_eq!(server.count(), 1);
    assert!(matches!(err, ModelError::Http { status: 429, .. }), "{err}");
    assert!(err.to_string().contains("asked to wait 3600 s"), "{err}");
}

#[tokio::test]
async fn server_errors_are_retried_within_the_budget_then_reported() {
    let (server, backend) = openai_against(
        vec![
            Reply::status(500, r#"{"error":{"message":"kaboom"}}"#),
            Reply::status(503, "<html>Service Unavailable</html>"),
        ],
        "",
    )
    .await;
    let err = backend.complete(&ask("go")).await.unwrap_err();
    assert_eq!(server.count(), 3, "first attempt + retries = 2");
    let text = err.to_string();
    assert!(
        matches!(err, ModelError::Http { status: 503, .. }),
        "{text}"
    );
    assert!(
        text.contains("Service Unavailable") && text.contains("gave up after 2 retries"),
        "{text}"
    );
}

#[tokio::test]
async fn a_500_then_success_counts_one_retry() {
    let (_server, backend) = openai_against(
        vec![
            Reply::status(500, "oops"),
            Reply::json(openai_reply("fine")),
        ],
        "",
    )
    .await;
    let reply = backend.complete(&ask("go")).await.expect("answered");
    assert_eq!((reply.text.as_str(), reply.retries), ("fine", 1));
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    for status in [400, 401, 403, 404, 422] {
        let body = format!(r#"{{"error":{{"message":"no good ({status})"}}}}"#);
        let (server, backend) =
            openai_against(vec![Reply::status(status, &body)], "retries = 5").await;
        let err = backend.complete(&ask("go")).await.unwrap_err();
        assert_eq!(server.count(), 1, "{status} must not be retried");
        assert_eq!(
            err,
            ModelError::Http {
                status,
                message: format!("no good ({status})"),
                retry_after: cantus_framework::RetryAfter::Unsaid,
            }
        );
    }
}

#[tokio::test]
async fn an_exhausted_quota_is_not_retried() {
    let body = r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;
    let (server, backend) = openai_against(
        vec![Reply::status(429, body).with_header("retry-after", "0")],
        "retries = 5",
    )
    .await;
    let err = backend.complete(&ask("go")).await.unwrap_err();
    assert_eq!(server.count(), 1);
    assert!(err.to_string().contains("quota exhausted"), "{err}");
}

#[tokio::test]
async fn a_hang_past_the_timeout_is_retried_then_named() {
    let (server, backend) = openai_against(
        vec![Reply::Hang(Duration::from_secs(30))],
        "timeout_s = 0.3\nretries = 1",
    )
    .await;
    let started = Instant::now();
    let err = backend.complete(&ask("go")).await.unwrap_err();
    assert!(matches!(err, ModelError::Timeout(_)), "{err}");
    assert!(err.to_string().contains("gave up after 1 retries"), "{err}");
    assert_eq!(server.count(), 2);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "bounded: {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_hang_then_an_answer_recovers() {
    let (_server, backend) = openai_against(
        vec![
            Reply::Hang(Duration::from_secs(30)),
            Reply::json(openai_reply("late but fine")),
        ],
        "timeout_s = 0.3",
    )
    .await;
    let reply = backend
        .complete(&ask("go"))
        .await
        .expect("second attempt answers");
    assert_eq!((reply.text.as_str(), reply.retries), ("late but fine", 1));
}

#[tokio::test]
async fn malformed_json_is_a_bad_reply_naming_it() {
    let (server, backend) = openai_against(
        vec![Reply::status(
            200,
            r#"{"choices": [{"message": {"content": "C4@0>1"}"#,
        )],
        "",
    )
    .await;
    let err = backend.complete(&ask("go")).await.unwrap_err();
    assert!(matches!(err, ModelError::BadReply(_)), "{err}");
    assert!(err.to_string().contains("not JSON"), "{err}");
    assert_eq!(
        server.count(),
        1,
        "a server that wrote bad JSON is not asked again here"
    );
}

#[tokio::test]
async fn a_truncated_body_is_retried_as_a_broken_connection() {
    let full = openai_reply("whole").to_string();
    let cut = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{}",
        full.len(),
        &full[..full.len() / 2]
    );
    let (server, backend) = openai_against(vec![Reply::Raw(cut)], "").await;
    let err = backend.complete(&ask("go")).await.unwrap_err();
    assert!(matches!(err, ModelError::Connection(_)), "{err}");
    assert_eq!(server.count(), 3);
    let (_s, backend) = openai_against(
        vec![
            Reply::Raw(format!(
                "HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{{\"cho",
                full.len()
            )),
            Reply::json(openai_reply("whole")),
        ],
        "",
    )
    .await;
    assert_eq!(
        backend.complete(&ask("go")).await.expect("recovers").text,
        "whole"
    );
}

#[tokio::test]
async fn an_empty_reply_from_the_server_is_a_connection_error_after_retries() {
    let (server, backend) = openai_against(vec![Reply::Close], "").await;
    let err = backend.complete(&ask("go")).await.unwrap_err();
    assert!(matches!(err, ModelError::Connection(_)), "{err}");
    assert_eq!(server.count(), 3);
}

#[tokio::test]
async fn an_empty_body_is_a_bad_reply() {
    let (_server, backend) = openai_against(vec![Reply::status(200, "")], "").await;
    let err = backend.complete(&ask("go")).await.unwrap_err();
    assert_eq!(
        err,
        ModelError::BadReply("HTTP 200 with an empty body".into())
    );
}

#[tokio::test]
async fn prose_instead_of_json_is_a_bad_reply_quoting_it() {
    let (_server, backend) = openai_against(
        vec![Reply::status(200, "I'm sorry, I can't write music today.")],
        "",
    )
    .await;
    let err = backend.complete(&ask("go")).await.unwrap_err();
    assert!(
        err.to_string().contains("I'm sorry, I can't write music"),
        "{err}"
    );
}

#[tokio::test]
async fn prose_instead_of_grammar_is_returned_for_the_verifier_to_judge() {
    // The backend does not judge content: prose in a well-formed reply is a reply.
    let (_server, backend) = openai_against(
        vec![Reply::json(openai_reply(
            "Here is a lovely melody for you!",
        ))],
        "",
    )
    .await;
    let reply = backend.complete(&ask("go")).await.expect("a reply");
    assert_eq!(reply.text, "Here is a lovely melody for you!");
}

#[tokio::test]
async fn a_reply_without_content_names_what_is_missing() {
    let (_server, backend) = openai_against(
        vec![Reply::json(
            serde_json::json!({"choices": [{"finish_reason": "stop"}]}),
        )],
        "",
    )
    .await;
    let err = backend.complete(&ask("go")).await.unwrap_err();
    assert!(
        err.to_string().contains("choices[0].message.content"),
        "{err}"
    );
}

#[tokio::test]
async fn nobody_listening_is_a_connection_error_after_bounded_retries() {
    // Bind, note the port, close: nothing listens there now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let backend = backend(&config_toml(
        "openai",
        &format!("http://127.0.0.1:{port}/v1"),
        "",
    ));
    let err = backend.complete(&ask("go")).await.unwrap_err();
    assert!(matches!(err, ModelError::Connection(_)), "{err}");
    assert!(err.to_string().contains("gave up after 2 retries"), "{err}");
}

#[tokio::test]
async fn the_concurrency_limit_holds_calls_back() {
    let slow = || {
        Reply::Delayed(
            Duration::from_millis(800),
            Box::new(Reply::json(openai_reply("ok"))),
        )
    };
    for (limit, peak) in [(1, 1), (3, 3)] {
        let (server, backend) =
            openai_against(vec![slow()], &format!("concurrency = {limit}")).await;
        let requests = [ask("a"), ask("b"), ask("c")];
        let (a, b, c) = tokio::join!(
            backend.complete(&requests[0]),
            backend.complete(&requests[1]),
            backend.complete(&requests[2])
        );
        assert!(a.is_ok() && b.is_ok() && c.is_ok());
        assert_eq!(server.peak(), peak, "concurrency = {limit}");
    }
}

#[tokio::test]
async fn a_caller_that_stops_waiting_frees_its_place_for_the_next_call() {
    // The first call hangs far past its caller's patience; with one place, the second
    // call can only be answered soon if giving up on the first freed that place.
    let (server, backend) = openai_against(
        vec![
            Reply::Hang(Duration::from_secs(20)),
            Reply::json(openai_reply("ok")),
        ],
        "concurrency = 1\ntimeout_s = 30\nretries = 0",
    )
    .await;
    let gave_up =
        tokio::time::timeout(Duration::from_millis(300), backend.complete(&ask("a"))).await;
    assert!(gave_up.is_err(), "the hung call is still unanswered");
    let started = Instant::now();
    let reply = backend.complete(&ask("b")).await.expect("answered");
    assert_eq!(reply.text, "ok");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the second call waited {:?} for a place the first still held",
        started.elapsed()
    );
    assert_eq!(server.count(), 2);
}

#[tokio::test]
async fn every_wire_format_shares_the_retry_policy() {
    let overloaded =
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let answer =
        serde_json::json!({"content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn"});
    let server = FakeServer::start(vec![Reply::status(529, overloaded), Reply::json(answer)]);
    let reply = backend(&config_toml("anthropic", &server.url, ""))
        .complete(&ask("go"))
        .await
        .unwrap();
    assert_eq!((reply.text.as_str(), reply.retries), ("ok", 1));

    let server = FakeServer::start(vec![Reply::status(
        404,
        r#"{"error":"model \"x\" not found, try pulling it first"}"#,
    )]);
    let err = backend(&config_toml("ollama", &server.url, ""))
        .complete(&ask("go"))
        .await
        .unwrap_err();
    assert_eq!(server.count(), 1);
    assert!(err.to_string().contains("try pulling it first"), "{err}");
}
