//! `cantus-fake-server`: a loopback HTTP/1.1 model server written by hand, for tests
//! only (a dev-dependency, never shipped), so a test can make a server misbehave
//! precisely: any status and headers, a body cut short, a connection closed without a
//! word, a slow answer, a hang past the client's timeout — or pass a request on to a
//! real server (a fault-injecting proxy).
//!
//! It runs on std threads, one per connection, so it serves async clients in the same
//! process and a separate `cantus` process alike. Each connection takes the next
//! scripted [`Reply`] (the last one repeats) and records the request it read; the
//! server also counts requests in flight ([`FakeServer::peak`]). It binds 127.0.0.1
//! only and stops when dropped.
//!
//! By default every answer closes its connection, so a test's script is read one
//! connection at a time. [`FakeServer::keep_alive`] serves many requests on one
//! connection, each taking the next reply, as real model servers do: what a benchmark
//! measures is then the client, not a TCP handshake and a thread per request.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the server does with one connection, after reading the request.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A complete response with a correct `Content-Length`.
    Http {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// A complete response whose JSON error message quotes the `Authorization` header
    /// the client sent — the worst case an API key can meet.
    EchoAuthorization { status: u16 },
    /// These bytes exactly, then close (truncated bodies, garbage).
    Raw(String),
    /// Wait this long, then close without answering (a hung server).
    Hang(Duration),
    /// Close without answering ("empty reply").
    Close,
    /// Send the request to the server at `host:port` and relay its answer.
    Forward(String),
    /// Wait, then do the inner reply (a slow server).
    Delayed(Duration, Box<Reply>),
}

impl Reply {
    /// Any status with a JSON body.
    pub fn status(status: u16, body: &str) -> Reply {
        Reply::Http {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.into(),
        }
    }

    /// `200` with a JSON body.
    pub fn json(body: serde_json::Value) -> Reply {
        Reply::status(200, &body.to_string())
    }

    /// Adds a header.
    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        if let Reply::Http { headers, .. } = &mut self {
            headers.push((name.into(), value.into()));
        }
        self
    }
}

/// A request as the server read it.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// When the server had read the whole request (benchmarks split a run's wall
    /// time into the wait for its first request, the requests, and what follows).
    pub received: Instant,
}

impl Seen {
    /// The value of header `name` (lower-case), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON (panics if the client sent something else: a test failure).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).expect("the client sent JSON")
    }
}

/// Requests being answered now, and the most at one time.
#[derive(Default)]
struct Load {
    now: usize,
    peak: usize,
}

/// A running fake server.
pub struct FakeServer {
    /// `http://127.0.0.1:PORT`
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    load: Arc<Mutex<Load>>,
    connections: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl FakeServer {
    /// Starts a server answering connections with `script` in order, one request
    /// per connection.
    pub fn start(script: Vec<Reply>) -> FakeServer {
        FakeServer::serving(script, false)
    }

    /// Starts a server that keeps each connection open for the client's next request
    /// (HTTP/1.1 keep-alive); every request takes the next reply of `script`. Only a
    /// complete response ([`Reply::Http`], [`Reply::EchoAuthorization`]) keeps the
    /// connection; any other reply ends it as [`FakeServer::start`]'s do.
    pub fn keep_alive(script: Vec<Reply>) -> FakeServer {
        FakeServer::serving(script, true)
    }

    fn serving(script: Vec<Reply>, keep_alive: bool) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let url = format!("http://{}", listener.local_addr().expect("local addr"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let load = Arc::new(Mutex::new(Load::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let connections = Arc::new(AtomicUsize::new(0));
        let (log, gauge, stopped) = (seen.clone(), load.clone(), stop.clone());
        let accepted = connections.clone();
        std::thread::spawn(move || {
            let script = Arc::new(Script {
                replies: script,
                next: AtomicUsize::new(0),
            });
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(stream) = stream else { continue };
                accepted.fetch_add(1, Ordering::SeqCst);
                // One request per connection: its reply is the next in accept order.
                let first = (!keep_alive).then(|| script.take());
                let (log, gauge, script) = (log.clone(), gauge.clone(), script.clone());
                std::thread::spawn(move || serve(stream, first, &script, &log, &gauge));
            }
        });
        FakeServer {
            url,
            seen,
            load,
            connections,
            stop,
        }
    }

    /// Requests read so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("log").clone()
    }

    /// How many requests arrived.
    pub fn count(&self) -> usize {
        self.seen.lock().expect("log").len()
    }

    /// How many connections clients opened.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// The most requests in flight at one time: read, and not yet answered.
    pub fn peak(&self) -> usize {
        self.load.lock().expect("load").peak
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        if let Some(addr) = self.url.strip_prefix("http://") {
            let _ = TcpStream::connect(addr);
        }
    }
}

/// The replies, taken in order; the last one repeats.
struct Script {
    replies: Vec<Reply>,
    next: AtomicUsize,
}

impl Script {
    fn take(&self) -> Reply {
        let n = self.next.fetch_add(1, Ordering::SeqCst);
        self.replies
            .get(n)
            .or(self.replies.last())
            .cloned()
            .unwrap_or(Reply::Close)
    }
}

/// Serves one connection: one request answered with `only` if given, else requests
/// for as long as the client and the replies keep the connection open.
fn serve(
    mut stream: TcpStream,
    mut only: Option<Reply>,
    script: &Script,
    log: &Mutex<Vec<Seen>>,
    load: &Mutex<Load>,
) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let _ = stream.set_nodelay(true);
    let keep_alive = only.is_none();
    while let Some(seen) = read_message(&mut stream, true) {
        log.lock().expect("log").push(seen.clone());
        {
            let mut l = load.lock().expect("load");
            l.now += 1;
            l.peak = l.peak.max(l.now);
        }
        // A request is in flight until its answer starts to be written: counting it
        // any longer would overlap the client's next request, which may leave as soon
        // as this answer arrives. A hang or a relayed answer counts until it is over.
        let mut reply = only.take().unwrap_or_else(|| script.take());
        while let Reply::Delayed(wait, inner) = reply {
            std::thread::sleep(wait);
            reply = *inner;
        }
        let keep = keep_alive
            && matches!(reply, Reply::Http { .. } | Reply::EchoAuthorization { .. })
            && !seen
                .header("connection")
                .is_some_and(|c| c.eq_ignore_ascii_case("close"));
        let answered_at_once = !matches!(reply, Reply::Hang(_) | Reply::Forward(_));
        if answered_at_once {
            load.lock().expect("load").now -= 1;
        }
        answer(&mut stream, reply, &seen, keep);
        if !answered_at_once {
            load.lock().expect("load").now -= 1;
        }
        let _ = stream.flush();
        if !keep {
            break;
        }
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

fn answer(stream: &mut TcpStream, reply: Reply, seen: &Seen, keep: bool) {
    match reply {
        Reply::Http {
            status,
            headers,
            body,
        } => write_response(stream, status, &headers, &body, keep),
        Reply::EchoAuthorization { status } => {
            let token = seen.header("authorization").unwrap_or("(none)");
            let body = serde_json::json!({"error": {"message": format!("rejected {token}")}});
            let headers = [("content-type".to_string(), "application/json".to_string())];
            write_response(stream, status, &headers, &body.to_string(), keep);
        }
        Reply::Raw(bytes) => {
            let _ = stream.write_all(bytes.as_bytes());
        }
        Reply::Hang(d) => std::thread::sleep(d),
        Reply::Close => {}
        Reply::Forward(upstream) => {
            if let Some(answer) = forward(&upstream, seen) {
                let _ = stream.write_all(&answer);
            }
        }
        Reply::Delayed(wait, inner) => {
            std::thread::sleep(wait);
            answer(stream, *inner, seen, keep);
        }
    }
}

fn write_response(
    stream: &mut TcpStream,
    status: u16,
    headers: &[(String, String)],
    body: &str,
    keep: bool,
) {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str(&format!(
        "content-length: {}\r\nconnection: {}\r\n\r\n",
        body.len(),
        if keep { "keep-alive" } else { "close" }
    ));
    // One write: a head and a body written apart would leave the body to Nagle's
    // algorithm, waiting on the client's delayed acknowledgement.
    head.push_str(body);
    let _ = stream.write_all(head.as_bytes());
}

/// Sends `request` (as read, re-framed with `Connection: close`) to `upstream` and
/// returns its whole answer, or `None` if the upstream could not be reached.
fn forward(upstream: &str, request: &Seen) -> Option<Vec<u8>> {
    let mut conn = TcpStream::connect(upstream).ok()?;
    conn.set_read_timeout(Some(Duration::from_secs(120))).ok()?;
    let mut head = format!(
        "{} {} HTTP/1.1\r\nhost: {upstream}\r\n",
        request.method, request.path
    );
    for (n, v) in &request.headers {
        if !matches!(n.as_str(), "host" | "connection" | "content-length") {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
    }
    head.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n",
        request.body.len()
    ));
    conn.write_all(head.as_bytes()).ok()?;
    conn.write_all(request.body.as_bytes()).ok()?;
    let answer = read_message(&mut conn, false)?;
    // Re-frame the answer the same way: status line, headers, exact length.
    let mut out = format!("{} {}\r\n", answer.method, answer.path);
    for (n, v) in &answer.headers {
        if !matches!(
            n.as_str(),
            "connection" | "content-length" | "transfer-encoding"
        ) {
            out.push_str(&format!("{n}: {v}\r\n"));
        }
    }
    out.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n",
        answer.body.len()
    ));
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(answer.body.as_bytes());
    Some(bytes)
}

/// Reads one HTTP/1.1 message (a request if `is_request`, else a response) framed by
/// `Content-Length`; with none, a request has no body and a response runs to the end
/// of the stream. For a response, `method` holds the protocol and `path` the status
/// code and reason.
fn read_message(stream: &mut TcpStream, is_request: bool) -> Option<Seen> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let (method, path) = lines.next()?.split_once(' ')?;
    let path = path.split(" HTTP/").next().unwrap_or(path);
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: Option<usize> = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        // A request with no length has no body (RFC 9112 §6.3); a response runs to the end.
        .or(is_request.then_some(0));
    while length.is_none_or(|l| buf.len() < head_end + l) {
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = String::from_utf8_lossy(&buf[head_end..]).to_string();
    Some(Seen {
        method: method.to_string(),
        path: path.to_string(),
        headers,
        body,
        received: Instant::now(),
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Whatever",
    }
}

/// An OpenAI chat completion answering `text`.
pub fn openai_reply(text: &str) -> serde_json::Value {
    serde_json::json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "fake-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(stream: &mut TcpStream, body: &str) {
        let request = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
    }

    fn response(stream: &mut TcpStream) -> Seen {
        read_message(stream, false).expect("an answer")
    }

    fn addr(server: &FakeServer) -> &str {
        server.url.strip_prefix("http://").unwrap()
    }

    #[test]
    fn a_kept_alive_connection_answers_each_request_with_the_next_reply() {
        let server = FakeServer::keep_alive(vec![
            Reply::status(500, "{\"n\":1}"),
            Reply::json(serde_json::json!({"n": 2})),
        ]);
        let mut stream = TcpStream::connect(addr(&server)).unwrap();
        post(&mut stream, "{\"a\":1}");
        let first = response(&mut stream);
        assert_eq!(first.path, "500 Internal Server Error");
        assert_eq!(first.header("connection"), Some("keep-alive"));
        assert_eq!(first.body, "{\"n\":1}");
        post(&mut stream, "{\"a\":2}");
        let second = response(&mut stream);
        assert_eq!(
            (second.path.as_str(), second.body.as_str()),
            ("200 OK", "{\"n\":2}")
        );
        assert_eq!(server.connections(), 1, "both requests on one connection");
        let bodies: Vec<_> = server.seen().into_iter().map(|s| s.body).collect();
        assert_eq!(bodies, ["{\"a\":1}", "{\"a\":2}"]);
    }

    #[test]
    fn by_default_each_answer_closes_its_connection() {
        let server = FakeServer::start(vec![Reply::json(serde_json::json!({"n": 1}))]);
        let mut stream = TcpStream::connect(addr(&server)).unwrap();
        post(&mut stream, "{}");
        let first = response(&mut stream);
        assert_eq!(first.header("connection"), Some("close"));
        let mut rest = Vec::new();
        stream.read_to_end(&mut rest).unwrap();
        assert!(rest.is_empty(), "closed after one answer");
    }

    #[test]
    fn a_reply_that_is_not_a_whole_answer_ends_a_kept_alive_connection() {
        let server = FakeServer::keep_alive(vec![Reply::Raw("HTTP/1.1 200 OK\r\n\r\n{".into())]);
        let mut stream = TcpStream::connect(addr(&server)).unwrap();
        post(&mut stream, "{}");
        let mut all = String::new();
        stream.read_to_string(&mut all).unwrap();
        assert_eq!(all, "HTTP/1.1 200 OK\r\n\r\n{");
    }
}
