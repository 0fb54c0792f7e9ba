//! Subprocess plugins: any program speaking JSON lines over stdin/stdout.
//!
//! This is how a proposer is written in any language. The protocol (version
//! [`PROTOCOL_VERSION`]), one JSON object per line:
//!
//! ```text
//! host → {"cantus_plugin": 1}
//! plug → {"cantus_plugin": 1, "name": "…", "version": "…", "kind": "proposer", "description": "…"}
//! host → {"id": 1, "request": <ModelRequest>}
//! plug → {"id": 1, "reply": <ModelReply, at least {"text": "…"}>}   or   {"id": 1, "error": "why"}
//! …   (end of stdin: the plugin exits)
//! ```
//!
//! A plugin that answers the handshake with another version is refused, naming both.
//! A plugin that crashes (exits, closes its pipe, writes a line that is not protocol
//! JSON) or hangs (no reply within the timeout: it is killed) ends the call with
//! [`ModelError::Plugin`] naming the cause, its exit status and the last lines of its
//! stderr; the process is discarded and the next call starts a fresh one, so a run goes
//! on within its budget. An `error` reply is the plugin refusing one request: the
//! process stays. A caller that stops waiting mid-call (a deadline wrapped around the
//! backend) has the process killed the same way, so a late reply is never read as the
//! answer to the next request. The plugin's stderr is forwarded line by line, prefixed with its
//! name, to a sink (stderr by default) and never mixed into the protocol.

mod process;

use crate::reply::reply_from_json;
use cantus_backend::PluginInfo;
use cantus_framework::{ModelBackend, ModelError, ModelReply, ModelRequest};
use process::{Fault, Running};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The version of the JSON-lines protocol this host speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// Where a plugin's stderr lines go (already prefixed with `[name] `).
pub type StderrSink = Arc<dyn Fn(&str) + Send + Sync>;

/// The default sink: this process's stderr.
pub fn stderr_sink() -> StderrSink {
    Arc::new(|line| eprintln!("{line}"))
}

/// A plugin command: program, arguments and the directory it runs in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginCommand {
    /// The program: a path, or a name looked up in `PATH`.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The working directory (the config file's directory); `None`: ours.
    pub dir: Option<PathBuf>,
}

impl PluginCommand {
    /// The command of a config's `command = [...]`, run in `config_dir`. A relative
    /// program path containing `/` is taken relative to `config_dir`; a bare name is
    /// looked up in `PATH`.
    pub fn from_config(command: &[String], config_dir: &Path) -> Result<Self, ModelError> {
        let Some((program, args)) = command.split_first() else {
            return Err(ModelError::Config(
                "a subprocess plugin needs a non-empty `command`".into(),
            ));
        };
        let dir = (!config_dir.as_os_str().is_empty()).then(|| config_dir.to_path_buf());
        let program = match &dir {
            Some(d) if program.contains('/') && Path::new(program).is_relative() => {
                d.join(program).display().to_string()
            }
            _ => program.clone(),
        };
        Ok(PluginCommand {
            program,
            args: args.to_vec(),
            dir,
        })
    }

    /// The command as one line, for messages and `cantus plugins`.
    pub fn display(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A [`ModelBackend`] answering through a subprocess plugin, started on first use and
/// restarted after a crash or hang. Calls are answered one at a time.
pub struct SubprocessBackend {
    command: PluginCommand,
    /// Bounds starting the plugin and its handshake (at least 10 s).
    timeout: Duration,
    /// Bounds one exchange; `None`: the caller does (the registry's `Deadline`).
    call_timeout: Option<Duration>,
    expected_name: Option<String>,
    sink: StderrSink,
    running: tokio::sync::Mutex<Option<Running>>,
    /// The plugin's name once it has said it, else the command.
    label: Mutex<String>,
    next_id: AtomicU64,
}

impl std::fmt::Debug for SubprocessBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubprocessBackend")
            .field("command", &self.command)
            .field("timeout", &self.timeout)
            .field("call_timeout", &self.call_timeout)
            .finish_non_exhaustive()
    }
}

impl SubprocessBackend {
    /// A backend running `command`, allowing `timeout` for each call (and at least
    /// 10 s for starting and the handshake).
    pub fn new(command: PluginCommand, timeout: Duration) -> Self {
        let label = command.display();
        SubprocessBackend {
            command,
            timeout,
            call_timeout: Some(timeout),
            expected_name: None,
            sink: stderr_sink(),
            running: tokio::sync::Mutex::new(None),
            label: Mutex::new(label),
            next_id: AtomicU64::new(1),
        }
    }

    /// Sends the plugin's stderr lines to `sink` instead of our stderr.
    pub fn with_stderr_sink(mut self, sink: StderrSink) -> Self {
        self.sink = sink;
        self
    }

    /// Leaves each call's time limit to the caller (as `cantus_backend::build` does
    /// with a `Deadline`); the timeout given to [`new`](Self::new) still bounds the
    /// plugin's start and handshake. A call whose caller stops waiting kills the
    /// process, as a hang past the timeout does, and the next call starts a fresh one.
    pub fn without_call_timeout(mut self) -> Self {
        self.call_timeout = None;
        self
    }

    /// Refuses a plugin whose handshake gives another name (config `name`).
    pub fn expecting_name(mut self, name: Option<String>) -> Self {
        self.expected_name = name;
        self
    }

    fn label(&self) -> String {
        self.label.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// Starts the plugin if it is not running and returns who it says it is.
    pub async fn identify(&self) -> Result<PluginInfo, ModelError> {
        let mut guard = self.running.lock().await;
        Ok(self.ensure_started(&mut guard).await?.info.clone())
    }

    /// Closes the plugin's stdin and waits briefly for it to exit (then kills it).
    pub async fn shutdown(&self) {
        if let Some(running) = self.running.lock().await.take() {
            running.close().await;
        }
    }

    async fn ensure_started<'a>(
        &self,
        guard: &'a mut Option<Running>,
    ) -> Result<&'a mut Running, ModelError> {
        if guard.is_none() {
            let running = Running::start(
                &self.command,
                self.timeout,
                Arc::clone(&self.sink),
                self.expected_name.as_deref(),
            )
            .await?;
            if let Ok(mut label) = self.label.lock() {
                label.clone_from(&running.info.name);
            }
            *guard = Some(running);
        }
        guard
            .as_mut()
            .ok_or_else(|| ModelError::Plugin("the plugin process vanished".into()))
    }
}

#[async_trait::async_trait]
impl ModelBackend for SubprocessBackend {
    fn name(&self) -> String {
        format!("subprocess:{}", self.label())
    }

    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        let started = Instant::now();
        let mut slot = self.running.lock().await;
        self.ensure_started(&mut slot).await?;
        // The process is out of its slot for the exchange and goes back only when the
        // exchange ended in a whole answer. A caller that stops waiting mid-exchange (a
        // deadline) drops it here instead, killing it, so no late reply is ever read as
        // the answer to the next request.
        let Some(mut running) = slot.take() else {
            return Err(ModelError::Plugin("the plugin process vanished".into()));
        };
        let name = running.info.name.clone();
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let line = serde_json::json!({ "id": id, "request": request }).to_string();
        let exchange = running.exchange(id, &line);
        let outcome = match self.call_timeout {
            Some(timeout) => tokio::time::timeout(timeout, exchange)
                .await
                .map_err(|_| format!("gave no reply within {:.1} s", timeout.as_secs_f64())),
            None => Ok(exchange.await),
        };
        let fault = match outcome {
            Ok(Ok(reply)) => {
                *slot = Some(running);
                return reply_from_json(reply, &name, started);
            }
            Ok(Err(Fault::Refused(message))) => {
                *slot = Some(running);
                return Err(ModelError::Plugin(format!(
                    "subprocess plugin `{name}` refused the request: {message}"
                )));
            }
            Ok(Err(Fault::Broken(cause))) => cause,
            Err(late) => late,
        };
        let report = running.tear_down().await;
        Err(ModelError::Plugin(format!(
            "subprocess plugin `{name}` {fault}{report}; it will be restarted on the next call"
        )))
    }
}
