//! A loopback HTTP/1.1 server written by hand, so tests can misbehave precisely:
//! answer with any status, headers and body, cut a body short, close without a word,
//! or hang. Each connection takes the next scripted [`Reply`] (the last one repeats)
//! and records the request it read. It binds 127.0.0.1 only and stops with the test.

#![allow(dead_code)] // each test binary uses part of it

use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the server does with one connection.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A complete response with a correct `Content-Length`.
    Http {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// These bytes exactly, then close (truncated bodies, garbage).
    Raw(String),
    /// Read the request, wait this long, then close without answering.
    Hang(Duration),
    /// Read the request and close without answering ("empty reply").
    Close,
    /// Wait, then do the inner reply (a slow server).
    Delayed(Duration, Box<Reply>),
}

impl Reply {
    /// `200` with a JSON body.
    pub fn json(body: serde_json::Value) -> Reply {
        Reply::status(200, &body.to_string())
    }
    /// Any status with a body.
    pub fn status(status: u16, body: &str) -> Reply {
        Reply::Http {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.into(),
        }
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
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).expect("the client sent JSON")
    }
}

/// A running fake server.
pub struct FakeServer {
    /// `http://127.0.0.1:PORT`
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    load: Arc<Mutex<(usize, usize)>>,
    task: tokio::task::JoinHandle<()>,
}

impl FakeServer {
    /// Starts a server answering connections with `script` in order.
    pub async fn start(script: Vec<Reply>) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let url = format!("http://{}", listener.local_addr().expect("local addr"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let load = Arc::new(Mutex::new((0, 0)));
        let gauge = load.clone();
        let task = tokio::spawn(async move {
            let mut n = 0usize;
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let reply = script
                    .get(n)
                    .or(script.last())
                    .cloned()
                    .unwrap_or(Reply::Close);
                n += 1;
                let log = log.clone();
                let gauge = gauge.clone();
                tokio::spawn(async move { serve(stream, reply, log, gauge).await });
            }
        });
        FakeServer {
            url,
            seen,
            load,
            task,
        }
    }

    /// Requests read so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("log").clone()
    }

    /// The most requests being answered at one time.
    pub fn peak(&self) -> usize {
        self.load.lock().expect("load").1
    }

    /// How many requests arrived.
    pub fn count(&self) -> usize {
        self.seen.lock().expect("log").len()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(
    mut stream: TcpStream,
    reply: Reply,
    log: Arc<Mutex<Vec<Seen>>>,
    load: Arc<Mutex<(usize, usize)>>,
) {
    let Some(seen) = read_request(&mut stream).await else {
        return;
    };
    log.lock().expect("log").push(seen);
    {
        let mut l = load.lock().expect("load");
        l.0 += 1;
        l.1 = l.1.max(l.0);
    }
    answer(&mut stream, reply).await;
    load.lock().expect("load").0 -= 1;
    let _ = stream.shutdown().await;
}

async fn answer(stream: &mut TcpStream, reply: Reply) {
    let mut reply = reply;
    while let Reply::Delayed(d, inner) = reply {
        tokio::time::sleep(d).await;
        reply = *inner;
    }
    match reply {
        Reply::Http {
            status,
            headers,
            body,
        } => {
            let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
            for (n, v) in &headers {
                head.push_str(&format!("{n}: {v}\r\n"));
            }
            head.push_str(&format!(
                "content-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            ));
            let _ = stream.write_all(head.as_bytes()).await;
            let _ = stream.write_all(body.as_bytes()).await;
        }
        Reply::Raw(bytes) => {
            let _ = stream.write_all(bytes.as_bytes()).await;
        }
        Reply::Hang(d) => tokio::time::sleep(d).await,
        Reply::Close | Reply::Delayed(..) => {}
    }
}

async fn read_request(stream: &mut TcpStream) -> Option<Seen> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = String::from_utf8_lossy(&buf[head_end..]).to_string();
    Some(Seen {
        method,
        path,
        headers,
        body,
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

/// A `cantus.toml` for `kind` at `base_url` with fast retries; lines of `extra`
/// (`key = value`) replace the defaults of the same key.
pub fn config_toml(kind: &str, base_url: &str, extra: &str) -> String {
    let defaults = [
        "model = \"test-model\"",
        "connect_timeout_s = 2",
        "timeout_s = 2",
        "retries = 2",
        "backoff_s = 0.01",
    ];
    let key = |line: &str| line.split('=').next().unwrap_or("").trim().to_string();
    let overridden: Vec<String> = extra.lines().map(key).collect();
    let mut text = format!("[backend]\nkind = \"{kind}\"\nbase_url = \"{base_url}\"\n");
    for line in defaults.iter().filter(|l| !overridden.contains(&key(l))) {
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(extra);
    text.push('\n');
    text
}

/// The backend a TOML text describes, built through the registry.
pub fn backend(toml: &str) -> std::sync::Arc<dyn cantus_framework::ModelBackend> {
    let config = cantus_backend::Config::from_toml_str(toml, "test.toml").expect("valid config");
    cantus_backend::build(&config).expect("backend builds")
}

/// A one-message request.
pub fn ask(text: &str) -> cantus_framework::ModelRequest {
    cantus_framework::ModelRequest::new(vec![cantus_framework::Message::user(text)])
}
