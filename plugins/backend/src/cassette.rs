//! Cassettes: every model exchange of a run on disk, to reproduce the run offline.
//!
//! `--record FILE` wraps the configured backend: each call's request and outcome (a
//! reply or an error) is appended to FILE as one JSON line, flushed at once, so a run
//! that dies still leaves what it did. `--replay FILE` answers from the file alone, no
//! network: a request is matched by its whole content (messages, constraint, sampling,
//! context); identical requests are answered in recorded order. A request that is not
//! on the cassette is an explicit [`ModelError::Config`] naming the call. Requests and
//! replies carry no key, so a cassette cannot hold one.

use async_trait::async_trait;
use cantus_framework::{ModelBackend, ModelError, ModelReply, ModelRequest};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// One line of a cassette.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// 1-based number of the call within the recorded run.
    pub call: u64,
    /// The backend's name.
    pub backend: String,
    pub request: ModelRequest,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// What a recorded call ended in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Reply(ModelReply),
    Error(ModelError),
}

/// A backend that records another, or replays a file.
pub struct Cassette {
    path: PathBuf,
    mode: Mode,
    calls: Mutex<u64>,
}

enum Mode {
    Record {
        inner: Arc<dyn ModelBackend>,
        file: Mutex<std::fs::File>,
    },
    Replay {
        name: String,
        answers: Mutex<HashMap<String, VecDeque<Outcome>>>,
    },
}

impl Cassette {
    /// Records every exchange of `inner` to `path` (created or truncated now).
    pub fn record(inner: Arc<dyn ModelBackend>, path: &Path) -> Result<Cassette, ModelError> {
        let file = std::fs::File::create(path).map_err(|e| {
            ModelError::Config(format!("cannot create cassette {}: {e}", path.display()))
        })?;
        Ok(Cassette {
            path: path.to_path_buf(),
            mode: Mode::Record {
                inner,
                file: Mutex::new(file),
            },
            calls: Mutex::new(0),
        })
    }

    /// Answers from the cassette at `path`, offline. Errors name the file and line of
    /// an unreadable entry.
    pub fn replay(path: &Path) -> Result<Cassette, ModelError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            ModelError::Config(format!("cannot read cassette {}: {e}", path.display()))
        })?;
        let mut answers: HashMap<String, VecDeque<Outcome>> = HashMap::new();
        let mut name = None;
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let entry: Entry = serde_json::from_str(line).map_err(|e| {
                ModelError::Config(format!(
                    "cassette {} line {}: not a cassette entry: {e}",
                    path.display(),
                    i + 1
                ))
            })?;
            name.get_or_insert(entry.backend.clone());
            answers
                .entry(request_key(&entry.request)?)
                .or_default()
                .push_back(entry.outcome);
        }
        Ok(Cassette {
            path: path.to_path_buf(),
            mode: Mode::Replay {
                name: name.unwrap_or_else(|| "cassette".into()),
                answers: Mutex::new(answers),
            },
            calls: Mutex::new(0),
        })
    }

    fn next_call(&self) -> u64 {
        let mut calls = self.calls.lock().unwrap_or_else(|p| p.into_inner());
        *calls += 1;
        *calls
    }
}

#[async_trait]
impl ModelBackend for Cassette {
    /// The recorded backend's name, so a replayed trace reads like the original.
    fn name(&self) -> String {
        match &self.mode {
            Mode::Record { inner, .. } => inner.name(),
            Mode::Replay { name, .. } => name.clone(),
        }
    }

    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        let call = self.next_call();
        match &self.mode {
            Mode::Record { inner, file } => {
                let result = inner.complete(request).await;
                let entry = Entry {
                    call,
                    backend: inner.name(),
                    request: request.clone(),
                    outcome: match &result {
                        Ok(reply) => Outcome::Reply(reply.clone()),
                        Err(e) => Outcome::Error(e.clone()),
                    },
                };
                let line = serde_json::to_string(&entry).map_err(|e| {
                    ModelError::Config(format!("cannot encode cassette entry {call}: {e}"))
                })?;
                let mut file = file.lock().unwrap_or_else(|p| p.into_inner());
                writeln!(file, "{line}")
                    .and_then(|()| file.flush())
                    .map_err(|e| {
                        ModelError::Config(format!(
                            "cannot write cassette {}: {e}",
                            self.path.display()
                        ))
                    })?;
                result
            }
            Mode::Replay { answers, .. } => {
                let key = request_key(request)?;
                let mut answers = answers.lock().unwrap_or_else(|p| p.into_inner());
                match answers.get_mut(&key).and_then(VecDeque::pop_front) {
                    Some(Outcome::Reply(reply)) => Ok(reply),
                    Some(Outcome::Error(e)) => Err(e),
                    None => Err(ModelError::Config(format!(
                        "replay: call {call} is not on cassette {} (no recorded exchange, or \
                         none left, for this request; last message: {})",
                        self.path.display(),
                        describe(request)
                    ))),
                }
            }
        }
    }
}

/// The request's canonical JSON: its identity on a cassette.
fn request_key(request: &ModelRequest) -> Result<String, ModelError> {
    serde_json::to_string(request)
        .map_err(|e| ModelError::Config(format!("cannot encode a request: {e}")))
}

/// The start of the request's last message, quoted.
fn describe(request: &ModelRequest) -> String {
    match request.messages.last() {
        Some(m) => format!("{:?} {:?}", m.role, crate::http::excerpt(&m.content)),
        None => "(no messages)".into(),
    }
}
