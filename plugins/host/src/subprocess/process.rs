//! One running plugin process: spawning it, the handshake, one request–reply
//! exchange, and tearing it down with a report of how it ended (exit status, last
//! stderr lines) for the error message.

use super::{PROTOCOL_VERSION, PluginCommand, StderrSink};
use cantus_backend::PluginInfo;
use cantus_framework::ModelError;
use serde_json::{Map, Value};
use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::task::JoinHandle;

/// Longest protocol line read; a longer one is a broken plugin, not a reply.
const MAX_LINE: u64 = 16 * 1024 * 1024;
/// Stderr lines kept for error messages.
const STDERR_TAIL: usize = 5;
/// The least time a plugin gets to start and answer the handshake (an interpreter
/// may take longer to start than a call takes).
const HANDSHAKE_MIN: Duration = Duration::from_secs(10);
/// How long a plugin may take to exit once its stdin is closed or it is killed.
const GRACE: Duration = Duration::from_millis(1000);

/// Why an exchange failed.
pub(super) enum Fault {
    /// The process is unusable (crashed, closed a pipe, wrote garbage): discard it.
    Broken(String),
    /// The plugin answered `{"error": …}`: the process is fine.
    Refused(String),
}

/// A started plugin that has passed the handshake.
pub(super) struct Running {
    pub(super) info: PluginInfo,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr_task: JoinHandle<()>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
}

/// Shows at most 200 characters of a line a plugin wrote.
fn excerpt(line: &str) -> String {
    let cut: String = line.chars().take(200).collect();
    if cut.len() < line.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

impl Running {
    /// Spawns `command`, forwards its stderr to `sink` and performs the handshake
    /// within `timeout`.
    pub(super) async fn start(
        command: &PluginCommand,
        timeout: Duration,
        sink: StderrSink,
        expected_name: Option<&str>,
    ) -> Result<Running, ModelError> {
        let shown = command.display();
        let mut cmd = tokio::process::Command::new(&command.program);
        cmd.args(&command.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(dir) = &command.dir {
            cmd.current_dir(dir);
        }
        let mut child = cmd.spawn().map_err(|e| {
            ModelError::Plugin(format!("cannot start subprocess plugin `{shown}`: {e}"))
        })?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(ModelError::Plugin(format!(
                "subprocess plugin `{shown}`: its pipes could not be opened"
            )));
        };
        // Until the handshake names the plugin, its stderr is labelled with the file
        // name of the command's last word (`python3 plugin.py` → `plugin.py`).
        let last = command.args.last().unwrap_or(&command.program);
        let label = Arc::new(Mutex::new(
            std::path::Path::new(last)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| shown.clone()),
        ));
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let stderr_task = tokio::spawn(forward_stderr(
            BufReader::new(stderr),
            Arc::clone(&label),
            Arc::clone(&stderr_tail),
            sink,
        ));
        let mut running = Running {
            info: PluginInfo {
                kind: String::new(),
                name: shown.clone(),
                version: String::new(),
                origin: format!("subprocess: {shown}"),
                description: String::new(),
            },
            child,
            stdin,
            stdout: BufReader::new(stdout),
            stderr_task,
            stderr_tail,
        };
        let hello = format!("{{\"cantus_plugin\":{PROTOCOL_VERSION}}}");
        let timeout = timeout.max(HANDSHAKE_MIN);
        let answer = match tokio::time::timeout(timeout, running.round_trip(&hello)).await {
            Ok(Ok(line)) => line,
            Ok(Err(cause)) => return Err(running.fail_start(&shown, &cause).await),
            Err(_) => {
                let cause = format!("gave no handshake within {:.1} s", timeout.as_secs_f64());
                return Err(running.fail_start(&shown, &cause).await);
            }
        };
        match read_handshake(&answer, &shown, expected_name) {
            Ok(mut info) => {
                if let Ok(mut l) = label.lock() {
                    l.clone_from(&info.name);
                }
                info.origin = running.info.origin.clone();
                running.info = info;
                Ok(running)
            }
            Err(message) => {
                running.close().await;
                Err(ModelError::Plugin(message))
            }
        }
    }

    /// Tears a process down after a failed start and builds the error.
    async fn fail_start(self, shown: &str, cause: &str) -> ModelError {
        let report = self.tear_down().await;
        ModelError::Plugin(format!("subprocess plugin `{shown}` {cause}{report}"))
    }

    /// Writes one line and reads the next non-blank line.
    async fn round_trip(&mut self, line: &str) -> Result<String, String> {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.stdin
            .write_all(&bytes)
            .await
            .map_err(|e| format!("could not be written to ({e})"))?;
        self.stdin
            .flush()
            .await
            .map_err(|e| format!("could not be written to ({e})"))?;
        loop {
            let mut buf = Vec::new();
            let n = (&mut self.stdout)
                .take(MAX_LINE)
                .read_until(b'\n', &mut buf)
                .await
                .map_err(|e| format!("could not be read from ({e})"))?;
            if n == 0 {
                return Err("exited or closed its stdout without answering".into());
            }
            if buf.last() != Some(&b'\n') && n as u64 >= MAX_LINE {
                return Err(format!("wrote a line longer than {MAX_LINE} bytes"));
            }
            let text =
                String::from_utf8(buf).map_err(|_| "wrote a line that is not UTF-8".to_string())?;
            if !text.trim().is_empty() {
                return Ok(text.trim_end().to_string());
            }
        }
    }

    /// Sends request `id` and reads its reply object.
    pub(super) async fn exchange(&mut self, id: u64, line: &str) -> Result<Value, Fault> {
        let answer = self.round_trip(line).await.map_err(Fault::Broken)?;
        let Ok(Value::Object(mut object)) = serde_json::from_str::<Value>(&answer) else {
            return Err(Fault::Broken(format!(
                "wrote a line that is not protocol JSON: `{}`",
                excerpt(&answer)
            )));
        };
        if object.get("id").and_then(Value::as_u64) != Some(id) {
            return Err(Fault::Broken(format!(
                "answered with id {} to request {id}",
                object.get("id").cloned().unwrap_or(Value::Null)
            )));
        }
        if let Some(error) = object.get("error") {
            let message = error
                .as_str()
                .map_or_else(|| error.to_string(), str::to_string);
            return Err(Fault::Refused(message));
        }
        object.remove("reply").ok_or_else(|| {
            Fault::Broken(format!(
                "answered without `reply` or `error`: `{}`",
                excerpt(&answer)
            ))
        })
    }

    /// Closes stdin so the plugin can exit on its own; kills it after a grace period.
    pub(super) async fn close(mut self) {
        let _ = self.stdin.shutdown().await;
        if tokio::time::timeout(GRACE, self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
    }

    /// Kills the process (unless it already exited) and reports how it ended:
    /// `" (exit status 3; stderr: …)"`.
    pub(super) async fn tear_down(mut self) -> String {
        let status = match self.child.try_wait() {
            Ok(Some(status)) => Some(status),
            _ => match tokio::time::timeout(Duration::from_millis(200), self.child.wait()).await {
                Ok(Ok(status)) => Some(status),
                _ => {
                    let _ = self.child.start_kill();
                    None
                }
            },
        };
        let status = match status {
            Some(s) => format!("{s}"),
            None => match tokio::time::timeout(GRACE, self.child.wait()).await {
                Ok(Ok(status)) => format!("killed: {status}"),
                _ => "killed (not yet reaped)".to_string(),
            },
        };
        // Let the forwarder read what the process wrote before it ended.
        let _ = tokio::time::timeout(Duration::from_millis(500), &mut self.stderr_task).await;
        let tail: Vec<String> = self
            .stderr_tail
            .lock()
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default();
        if tail.is_empty() {
            format!(" ({status})")
        } else {
            format!(" ({status}; stderr: {})", tail.join(" | "))
        }
    }
}

/// Checks the plugin's handshake line and reads its identity.
fn read_handshake(
    line: &str,
    shown: &str,
    expected_name: Option<&str>,
) -> Result<PluginInfo, String> {
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(line) else {
        return Err(format!(
            "subprocess plugin `{shown}` answered the handshake with a line that is not JSON: `{}`",
            excerpt(line)
        ));
    };
    let Some(version) = object.get("cantus_plugin") else {
        return Err(format!(
            "subprocess plugin `{shown}` answered the handshake without `cantus_plugin`: `{}`",
            excerpt(line)
        ));
    };
    let field = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_string);
    if version.as_u64() != Some(PROTOCOL_VERSION) {
        let why = field("error")
            .map(|e| format!(" (it says: {e})"))
            .unwrap_or_default();
        return Err(format!(
            "subprocess plugin `{shown}` speaks plugin protocol version {version}, but this \
             Cantus speaks version {PROTOCOL_VERSION}{why}"
        ));
    }
    if let Some(error) = field("error") {
        return Err(format!(
            "subprocess plugin `{shown}` refused to start: {error}"
        ));
    }
    let info = identity(&object, shown)?;
    if let Some(expected) = expected_name.filter(|e| *e != info.name) {
        return Err(format!(
            "subprocess plugin `{shown}` is named `{}`, but the config asks for `{expected}`",
            info.name
        ));
    }
    Ok(info)
}

fn identity(object: &Map<String, Value>, shown: &str) -> Result<PluginInfo, String> {
    let get = |key: &str| match object.get(key).and_then(Value::as_str) {
        Some(s) if !s.trim().is_empty() => Ok(s.to_string()),
        _ => Err(format!(
            "subprocess plugin `{shown}`: the handshake lacks a non-empty string `{key}`"
        )),
    };
    Ok(PluginInfo {
        kind: get("kind")?,
        name: get("name")?,
        version: get("version")?,
        origin: String::new(),
        description: object
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
    })
}

/// Forwards stderr lines to `sink` as `[label] line`, keeping the last few.
async fn forward_stderr(
    mut stderr: BufReader<tokio::process::ChildStderr>,
    label: Arc<Mutex<String>>,
    tail: Arc<Mutex<VecDeque<String>>>,
    sink: StderrSink,
) {
    loop {
        let mut buf = Vec::new();
        match (&mut stderr)
            .take(MAX_LINE)
            .read_until(b'\n', &mut buf)
            .await
        {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&buf).trim_end().to_string();
        let name = label.lock().map(|l| l.clone()).unwrap_or_default();
        sink(&format!("[{name}] {line}"));
        if let Ok(mut tail) = tail.lock() {
            if tail.len() == STDERR_TAIL {
                tail.pop_front();
            }
            tail.push_back(line);
        }
    }
}
