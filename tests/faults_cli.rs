//! `cantus compose --config …` end to end under a misbehaving model server (issue 5,
//! "Faults and bad input").
//!
//! A loopback server (`cantus-fake-server`) answers the binary's requests with 429 +
//! `Retry-After`, 500, 503, a hang past `timeout_s`, malformed JSON, a truncated body,
//! a connection closed without a reply, or prose instead of the onset-slot grammar.
//! Every run must end in an explicit failure (exit 1, `FAILED` naming the cause, a
//! `report.json` saying `released: false` with the diagnostic), never a panic, a signal
//! or a released piece, after a number of requests bounded by the config. Client
//! errors (400/401/404/422) must not be retried at all. One run audits that a key given
//! through `api_key_env` appears in no output and no file.
//!
//! With `CANTUS_LOCAL_MODEL_URL` set (llama.cpp with SmolLM2-135M), the same server
//! becomes a proxy that faults on the first request and forwards the rest to the real
//! model: the run must recover — release a piece that `cantus verify` passes — or fail
//! explicitly naming why. Without the variable those tests print `SKIPPED: …`, and fail
//! if `CANTUS_REQUIRE_MODEL=1`.

mod common;

use cantus_fake_server::{FakeServer, Reply, openai_reply};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const BRIEF: &str = "a 4-bar piece for two voices in 4/4";

/// The budgets every fault run uses; the request bound is computed from them.
const RETRIES: usize = 2;
const REASKS: usize = 1;
const MAX_CALLS: usize = 3;
const TIMEOUT_S: u64 = 1;

/// The most HTTP requests a run may make: every proposer call may re-ask an unreadable
/// reply `reasks` times, and every request may be retried `retries` times.
const BOUND: usize = MAX_CALLS * (REASKS + 1) * (RETRIES + 1);

const KEY_VAR: &str = "CANTUS_FAULTS_CLI_TEST_KEY";
const KEY: &str = "sk-faults-cli-5c1f9a7e-never-print-me";

/// What one `cantus` run left behind.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
    out: PathBuf,
}

impl Run {
    /// The proposer calls the totals line reports (`…; N proposer call(s)`).
    fn proposer_calls(&self) -> usize {
        self.stdout
            .split("; ")
            .find_map(|part| {
                let (n, rest) = part.split_once(' ')?;
                rest.starts_with("proposer call").then(|| n.parse().ok())?
            })
            .unwrap_or_else(|| panic!("no proposer-call count in:\n{}", self.stdout))
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cantus-faults-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// A `cantus.toml` for an OpenAI-compatible server at `base_url`; `harness` is extra
/// lines of the `[harness]` table.
fn write_config(dir: &Path, base_url: &str, timeout_s: u64, harness: &str) -> PathBuf {
    let path = dir.join("cantus.toml");
    let text = format!(
        "[backend]\nkind = \"openai\"\nbase_url = \"{base_url}\"\nmodel = \"m\"\n\
         api_key_env = \"{KEY_VAR}\"\nconnect_timeout_s = 1\ntimeout_s = {timeout_s}\n\
         retries = {RETRIES}\nbackoff_s = 0.01\ntemperature = 0.0\nseed = 7\n\n\
         [harness]\nmax_proposer_calls = {MAX_CALLS}\nreasks = {REASKS}\n{harness}\n"
    );
    std::fs::write(&path, text).expect("config written");
    path
}

/// Runs `cantus compose --brief BRIEF --config CONFIG --out DIR/out`, with the test key
/// in the child's environment only when `key` is set.
fn compose(dir: &Path, config: &Path, key: bool) -> Run {
    let out = dir.join("out");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cantus"));
    cmd.arg("compose")
        .args(["--brief", BRIEF, "--seed", "3", "--config"])
        .arg(config)
        .arg("--out")
        .arg(&out)
        .env_remove(KEY_VAR);
    if key {
        cmd.env(KEY_VAR, KEY);
    }
    let start = Instant::now();
    let output = cmd.output().expect("the cantus binary runs");
    let run = Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        elapsed: start.elapsed(),
        out,
    };
    eprintln!(
        "cantus compose → exit {:?} in {:.1?}\n{}",
        run.code, run.elapsed, run.stdout
    );
    run
}

/// The run failed explicitly: exit 1 (not a panic's 101, not a signal), `FAILED` and
/// every one of `causes` on stdout, no released piece, and a `report.json` saying
/// `released: false` whose diagnostics name the cause too.
fn assert_explicit_failure(run: &Run, causes: &[&str]) {
    assert_eq!(
        run.code,
        Some(1),
        "an explicit failure exits 1 (101 is a panic, None a signal)\nstdout:\n{}\nstderr:\n{}",
        run.stdout,
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert!(run.stdout.contains("FAILED"), "{}", run.stdout);
    for cause in causes {
        assert!(
            run.stdout.contains(cause),
            "stdout names the cause {cause:?}:\n{}",
            run.stdout
        );
    }
    assert!(
        !run.out.join("piece.txt").exists(),
        "nothing is released after a failure"
    );
    let report = std::fs::read_to_string(run.out.join("report.json")).expect("report.json");
    let report: serde_json::Value = serde_json::from_str(&report).expect("report.json is JSON");
    assert_eq!(report["released"], false, "{report:#}");
    let diagnostics = report["diagnostics"]
        .as_array()
        .expect("report.json lists diagnostics");
    assert!(
        diagnostics
            .iter()
            .filter_map(|d| d.as_str())
            .any(|d| causes.iter().all(|c| d.contains(c))),
        "a diagnostic in report.json names {causes:?}: {diagnostics:?}"
    );
}

/// How the server's request count must relate to the run's proposer calls.
#[derive(Clone, Copy)]
enum Expect {
    /// Each call was tried `retries + 1` times (a transient fault).
    Retried,
    /// Each call asked `reasks + 1` times (an unreadable answer).
    Reasked,
    /// Whatever the program chose, within the bound.
    Bounded,
}

/// Runs compose against a server answering every request with `reply` and checks the
/// explicit failure and the number of requests. Returns the run.
fn fault_case(name: &str, reply: Reply, causes: &[&str], expect: Expect) -> Run {
    let dir = scratch(name);
    let server = FakeServer::start(vec![reply]);
    let config = write_config(&dir, &format!("{}/v1", server.url), TIMEOUT_S, "");
    let run = compose(&dir, &config, false);
    assert_explicit_failure(&run, causes);
    let seen = server.count();
    let calls = run.proposer_calls();
    eprintln!("{name}: {seen} requests for {calls} proposer calls (bound {BOUND})");
    assert!(seen >= 1, "the server was asked at all");
    assert!(calls <= MAX_CALLS, "calls within max_proposer_calls");
    assert!(seen <= BOUND, "{seen} requests exceed the bound {BOUND}");
    match expect {
        Expect::Retried => assert_eq!(seen, calls * (RETRIES + 1), "retries = {RETRIES}"),
        Expect::Reasked => assert_eq!(seen, calls * (REASKS + 1), "reasks = {REASKS}"),
        Expect::Bounded => {}
    }
    for request in server.seen() {
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, "/v1/chat/completions");
    }
    let _ = std::fs::remove_dir_all(&dir);
    run
}

#[test]
fn rate_limit_with_retry_after_is_retried_after_the_servers_wait_then_fails() {
    let reply = Reply::status(429, r#"{"error":{"message":"rate limited, slow down"}}"#)
        .with_header("retry-after", "1");
    let run = fault_case("429", reply, &["HTTP 429", "slow down"], Expect::Retried);
    // backoff_s is 0.01: only honouring Retry-After makes the retries take seconds.
    assert!(
        run.elapsed >= Duration::from_secs(RETRIES as u64),
        "Retry-After: 1 was honoured before each of {RETRIES} retries ({:?})",
        run.elapsed
    );
}

#[test]
fn internal_server_error_is_retried_then_fails() {
    let reply = Reply::status(500, r#"{"error":{"message":"internal failure"}}"#);
    fault_case("500", reply, &["HTTP 500"], Expect::Retried);
}

#[test]
fn service_unavailable_is_retried_then_fails() {
    let reply = Reply::status(503, r#"{"error":{"message":"model overloaded"}}"#);
    fault_case("503", reply, &["HTTP 503", "overloaded"], Expect::Retried);
}

#[test]
fn a_hang_past_the_timeout_is_retried_then_fails() {
    let reply = Reply::Hang(Duration::from_secs(TIMEOUT_S * 8));
    let run = fault_case("hang", reply, &["timed out"], Expect::Retried);
    // Each attempt waits timeout_s, not the server's whole hang.
    let attempts = (RETRIES + 1) as u64;
    assert!(
        run.elapsed >= Duration::from_secs(TIMEOUT_S * attempts)
            && run.elapsed < Duration::from_secs(TIMEOUT_S * 8 * attempts),
        "{attempts} attempts of timeout_s = {TIMEOUT_S}: {:?}",
        run.elapsed
    );
}

#[test]
fn malformed_json_fails_as_unreadable() {
    let reply = Reply::status(200, r#"{"choices": [ {"message": {"content": "Sopr"#);
    fault_case(
        "json",
        reply,
        &["unreadable reply", "not JSON"],
        Expect::Bounded,
    );
}

#[test]
fn a_truncated_body_is_retried_then_fails() {
    let raw = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 400\r\n\
               connection: close\r\n\r\n{\"choices\":[{\"index\":0,\"message\":";
    fault_case(
        "truncated",
        Reply::Raw(raw.into()),
        &["connection failed", "body"],
        Expect::Retried,
    );
}

#[test]
fn a_connection_closed_without_a_reply_is_retried_then_fails() {
    fault_case(
        "empty",
        Reply::Close,
        &["connection failed", "closed"],
        Expect::Retried,
    );
}

#[test]
fn prose_instead_of_grammar_is_reasked_then_fails_as_unreadable() {
    let prose = "What a lovely idea! Music is the art of organising time; let us begin \
                 with a gentle melody that rises and falls like the sea.";
    fault_case(
        "prose",
        Reply::json(openai_reply(prose)),
        &["could not be read"],
        Expect::Reasked,
    );
}

#[test]
fn client_errors_are_never_retried() {
    for status in [400u16, 401, 404, 422] {
        let body = format!(r#"{{"error":{{"message":"client error {status}"}}}}"#);
        let dir = scratch(&format!("client-{status}"));
        let server = FakeServer::start(vec![Reply::status(status, &body)]);
        let config = write_config(&dir, &format!("{}/v1", server.url), TIMEOUT_S, "");
        let run = compose(&dir, &config, false);
        assert_explicit_failure(&run, &[&format!("HTTP {status}")]);
        assert!(
            !run.stdout.contains("gave up after"),
            "HTTP {status} is not retried: {}",
            run.stdout
        );
        let calls = run.proposer_calls();
        assert!(
            (1..=MAX_CALLS).contains(&calls),
            "calls within max_proposer_calls"
        );
        assert_eq!(
            server.count(),
            calls,
            "HTTP {status}: exactly one request per proposer call"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_key_echoed_by_a_failing_server_appears_in_no_output_and_no_file() {
    let dir = scratch("key");
    let server = FakeServer::start(vec![Reply::EchoAuthorization { status: 503 }]);
    let config = write_config(&dir, &format!("{}/v1", server.url), TIMEOUT_S, "");
    let run = compose(&dir, &config, true);
    assert_explicit_failure(&run, &["HTTP 503"]);
    // The audit is only meaningful if the key really went out, and came back.
    let sent = server.seen();
    assert!(
        sent.iter()
            .all(|r| r.header("authorization") == Some(&format!("Bearer {KEY}"))),
        "every request carried the key from {KEY_VAR}"
    );
    assert_eq!(
        sent.len(),
        run.proposer_calls() * (RETRIES + 1),
        "the echoing 503 was retried"
    );
    let found = cantus_backend::leaks(KEY, &[&dir], &[&run.stdout, &run.stderr]);
    assert!(found.is_empty(), "the key leaked into {found:?}");
    assert!(
        run.out.join("trace.jsonl").is_file(),
        "the audit scanned a real run's files"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The real model's `host:port` and base path, or `None` (after printing `SKIPPED`)
/// without `CANTUS_LOCAL_MODEL_URL`.
fn model_upstream(test: &str) -> Option<(String, String)> {
    let url = common::local_model_url(test)?;
    let rest = url.strip_prefix("http://").unwrap_or_else(|| {
        panic!("CANTUS_LOCAL_MODEL_URL must be an http:// URL (the proxy speaks plain HTTP): {url}")
    });
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    Some((host.to_string(), format!("/{}", path.trim_end_matches('/'))))
}

/// The first request gets `fault`; later ones reach the real model. With the constrained
/// harness the run should release a piece `cantus verify` passes; an explicit failure
/// naming its cause is accepted (and printed). Either way the proxy saw the retry.
/// `retry_after` is the wait the fault asked for, if any.
fn recovers_through_proxy(name: &str, fault: Reply, retry_after: Option<Duration>) {
    let Some((upstream, base_path)) = model_upstream(name) else {
        return;
    };
    let dir = scratch(name);
    let proxy = FakeServer::start(vec![fault, Reply::Forward(upstream)]);
    let harness = "constrained = true\ndeadline_s = 120.0";
    let config = write_config(&dir, &format!("{}{base_path}", proxy.url), 90, harness);
    let run = compose(&dir, &config, false);
    let seen = proxy.count();
    eprintln!("{name}: the proxy saw {seen} requests");
    assert!(
        seen >= 2,
        "the faulted first request was retried through the proxy ({seen} seen)"
    );
    assert!(seen <= BOUND, "{seen} requests exceed the bound {BOUND}");
    let requests = proxy.seen();
    assert_eq!(
        requests[0].body, requests[1].body,
        "the second request retried the faulted one, unchanged"
    );
    if let Some(wait) = retry_after {
        assert!(
            run.elapsed >= wait,
            "Retry-After was honoured: {:?}",
            run.elapsed
        );
    }
    match run.code {
        Some(0) => {
            assert!(run.stdout.contains("released"), "{}", run.stdout);
            let verify = Command::new(env!("CARGO_BIN_EXE_cantus"))
                .arg("verify")
                .arg(run.out.join("piece.txt"))
                .output()
                .expect("cantus verify runs");
            assert_eq!(
                verify.status.code(),
                Some(0),
                "a released piece passes verify:\n{}",
                String::from_utf8_lossy(&verify.stdout)
            );
        }
        Some(1) => {
            eprintln!(
                "{name}: the real-model run failed explicitly:\n{}",
                run.stdout
            );
            assert!(run.stdout.contains("FAILED"), "{}", run.stdout);
            let report = std::fs::read_to_string(run.out.join("report.json")).expect("report");
            let report: serde_json::Value = serde_json::from_str(&report).expect("JSON");
            assert_eq!(report["released"], false);
            assert!(
                report["diagnostics"]
                    .as_array()
                    .is_some_and(|d| !d.is_empty()),
                "the failure names its cause: {report:#}"
            );
        }
        other => panic!(
            "exit {other:?} is neither a release nor an explicit failure\n{}\n{}",
            run.stdout, run.stderr
        ),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn real_model_recovers_after_a_rate_limit() {
    let fault =
        Reply::status(429, r#"{"error":{"message":"slow down"}}"#).with_header("retry-after", "1");
    recovers_through_proxy("real-429", fault, Some(Duration::from_secs(1)));
}

#[test]
fn real_model_recovers_after_service_unavailable() {
    let fault = Reply::status(503, r#"{"error":{"message":"loading model"}}"#);
    recovers_through_proxy("real-503", fault, None);
}

#[test]
fn real_model_recovers_after_a_truncated_body() {
    let raw = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 300\r\n\
               connection: close\r\n\r\n{\"choices\":[";
    recovers_through_proxy("real-truncated", Reply::Raw(raw.into()), None);
}
