//! Subprocess plugins over JSON lines: the handshake, normal calls and refusals with
//! the Python example, and the failures a run must survive — a crash mid-call, a hang
//! past the timeout, garbage on stdout, another protocol version — each reported as
//! `ModelError::Plugin` with its cause, the next call starting a fresh process.

mod support;

use cantus_backend::Config;
use cantus_framework::{ModelBackend, ModelError, ModelRequest};
use cantus_plugin_host::{PluginCommand, SubprocessBackend};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn request(context: serde_json::Value) -> ModelRequest {
    let mut request = ModelRequest::new(vec![]);
    request.context = context;
    request
}

fn root() -> PathBuf {
    support::workspace_root(env!("CARGO_MANIFEST_DIR"))
}

fn command(python: &str, script: &Path, args: &[&str]) -> PluginCommand {
    PluginCommand {
        program: python.to_string(),
        args: std::iter::once(script.display().to_string())
            .chain(args.iter().map(|a| a.to_string()))
            .collect(),
        dir: None,
    }
}

/// An inline plugin: a correct handshake, then `body` run for each request with
/// `req` (the request envelope), `send` and `marker` (argv[1], a path) in scope.
fn inline_plugin(dir: &Path, name: &str, body: &str) -> PathBuf {
    let script = format!(
        "import json, os, sys, time\n\
         def send(m):\n    sys.stdout.write(json.dumps(m) + '\\n'); sys.stdout.flush()\n\
         marker = sys.argv[1] if len(sys.argv) > 1 else ''\n\
         sys.stdin.readline()\n\
         send({{'cantus_plugin': 1, 'name': '{name}', 'version': '0', 'kind': 'backend', 'description': 'test'}})\n\
         for line in sys.stdin:\n    req = json.loads(line)\n{}\n",
        body.lines()
            .map(|l| format!("    {l}\n"))
            .collect::<String>()
    );
    let path = dir.join(format!("{name}.py"));
    std::fs::write(&path, script).expect("writing an inline plugin");
    path
}

fn plugin_error(result: Result<cantus_framework::ModelReply, ModelError>) -> String {
    match result {
        Err(ModelError::Plugin(message)) => message,
        other => panic!("expected a plugin error, got {other:?}"),
    }
}

#[tokio::test]
async fn the_python_example_shakes_hands_answers_and_refuses_by_name() {
    let Some(python) = support::python3("subprocess handshake with the Python example") else {
        return;
    };
    let script = support::python_example(&root());
    let backend = SubprocessBackend::new(command(&python, &script, &[]), Duration::from_secs(20));
    let info = backend.identify().await.expect("handshake");
    assert_eq!(
        (
            info.kind.as_str(),
            info.name.as_str(),
            info.version.as_str()
        ),
        ("proposer", "example-serial-py", "0.1.0")
    );
    assert_eq!(
        info.origin,
        format!("subprocess: {python} {}", script.display())
    );
    assert_eq!(backend.name(), "subprocess:example-serial-py");

    let reply = backend
        .complete(&request(
            json!({"allowed_pitch_classes": [4, 5, 11], "voice": "Flute", "meter": "3/4"}),
        ))
        .await
        .expect("answers");
    assert_eq!(
        reply.text,
        "KEY: ? | METER: 3/4 | TEMPO: ? | GRID: 16 | BARS: 1\nVOICES: Flute\n@1 [-]\n  Flute: E4@1>4 F4@5>4 B4@9>4\n"
    );
    assert_eq!(reply.model.as_deref(), Some("example-serial-py"));
    assert_eq!(
        plugin_error(backend.complete(&request(json!({"octave": 9}))).await),
        "subprocess plugin `example-serial-py` refused the request: context.octave must be a \
         whole number from 0 to 8, got 9"
    );
    // A refusal leaves the process running and answering.
    assert!(backend.complete(&request(json!(null))).await.is_ok());
    backend.shutdown().await;
}

#[tokio::test]
async fn the_rust_and_python_examples_write_the_same_text() {
    let Some(python) = support::python3("agreement of the Rust and Python examples") else {
        return;
    };
    let dylib = cantus_plugin_host::DynamicPlugin::load(&support::example_library(&root()))
        .expect("the example loads");
    let rust = cantus_plugin_host::DynamicBackend::new(Arc::new(dylib), Duration::from_secs(10));
    let py = SubprocessBackend::new(
        command(&python, &support::python_example(&root()), &[]),
        Duration::from_secs(20),
    );
    let contexts = [
        json!(null),
        json!({"allowed_pitch_classes": [11, 10, 9, 8], "bar": 12, "meter": "7/8", "grid": 32}),
        json!({"voice": "Cello 2", "octave": 2, "notes": 5, "meter": "5/4", "grid": 4}),
        json!({"allowed_pitch_classes": [0], "notes": 3, "meter": "6/8", "grid": 12}),
    ];
    for context in contexts {
        let a = rust
            .complete(&request(context.clone()))
            .await
            .expect("rust answers");
        let b = py
            .complete(&request(context.clone()))
            .await
            .expect("python answers");
        assert_eq!(a.text, b.text, "context {context}");
    }
    for context in [
        json!({"grid": 5, "meter": "3/4"}),
        json!({"allowed_pitch_classes": [1, "2"]}),
    ] {
        let a = plugin_error(rust.complete(&request(context.clone())).await);
        let b = plugin_error(py.complete(&request(context.clone())).await);
        let reason = |m: &str| m.find("context.").map(|i| m[i..].to_string());
        assert!(reason(&a).is_some(), "{a}");
        assert_eq!(reason(&a), reason(&b), "context {context}");
    }
    py.shutdown().await;
}

/// Twelve-tone contexts: one recorded from a real run and variants of it that make the
/// plugins chord, fall back, cut notes short and refuse.
fn twelve_tone_contexts() -> Vec<serde_json::Value> {
    let path = root().join("plugins/example-dylib/tests/fixtures/section-three-voices.json");
    let text = std::fs::read_to_string(&path).expect("reading the recorded context");
    let recorded: serde_json::Value = serde_json::from_str(&text).expect("the fixture is JSON");
    let edit = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut c = recorded.clone();
        f(&mut c);
        c
    };
    let voices = |c: &mut serde_json::Value| -> Vec<serde_json::Value> {
        c["voices"].as_array().cloned().unwrap_or_default()
    };
    vec![
        recorded.clone(),
        // A patch: one chord of two positions for the Tenor.
        edit(&|c| {
            c["request"] = json!("patch");
            let mut tenor = voices(c)[1].clone();
            tenor["notes"] = json!([{"tag": "I11:4-5", "pcs": [2, 9], "onset_slots": [13, 15], "max_length": 4}]);
            c["voices"] = json!([tenor]);
        }),
        // A rewrite of the Bass alone, from its fourth note on.
        edit(&|c| {
            c["request"] = json!("rewrite");
            let mut bass = voices(c)[2].clone();
            let notes = bass["notes"].as_array().cloned().unwrap_or_default();
            bass["notes"] = json!(notes[3..]);
            c["voices"] = json!([bass]);
        }),
        // Every voice owes the Soprano's notes in one shared register: collisions and
        // crossings everywhere, so notes move, shrink and fall back.
        edit(&|c| {
            let mut all = voices(c);
            let soprano = all[0]["notes"].clone();
            for v in &mut all {
                v["notes"] = soprano.clone();
                v["register"] = json!([55, 70]);
            }
            c["voices"] = json!(all);
        }),
        // One wide register for all: the nearest pitch would often cross the voice above.
        edit(&|c| {
            let mut all = voices(c);
            for v in &mut all {
                v["register"] = json!([48, 84]);
            }
            c["voices"] = json!(all);
        }),
        // Wider windows: each note may start one slot later, so it could run into the next.
        edit(&|c| {
            let mut all = voices(c);
            for v in &mut all {
                for n in v["notes"].as_array_mut().into_iter().flatten() {
                    let hi = n["onset_slots"][1].as_u64().unwrap_or(1);
                    n["onset_slots"][1] = json!(hi + 1);
                }
            }
            c["voices"] = json!(all);
        }),
        // Each voice leads on from its last accepted note (`previous_pitch`).
        edit(&|c| {
            let mut all = voices(c);
            for (v, previous) in all.iter_mut().zip([79, 50, 36]) {
                v["previous_pitch"] = json!(previous);
            }
            c["voices"] = json!(all);
        }),
        // Refusals.
        edit(&|c| c["request"] = json!("whole")),
        edit(&|c| c["voices"][0]["previous_pitch"] = json!(128)),
        edit(&|c| c["voices"][1]["register"] = json!([61, 62])),
        edit(&|c| c["voices"][2]["notes"][5]["onset_slots"] = json!([50, 51])),
        edit(&|c| c["voices"][0]["notes"][0]["pcs"] = json!([4, "5"])),
    ]
}

#[tokio::test]
async fn the_rust_and_python_examples_propose_the_same_twelve_tone_notes() {
    let Some(python) = support::python3("twelve-tone agreement of the Rust and Python examples")
    else {
        return;
    };
    let dylib = cantus_plugin_host::DynamicPlugin::load(&support::example_library(&root()))
        .expect("the example loads");
    let rust = cantus_plugin_host::DynamicBackend::new(Arc::new(dylib), Duration::from_secs(10));
    let py = SubprocessBackend::new(
        command(&python, &support::python_example(&root()), &[]),
        Duration::from_secs(20),
    );
    let (mut answered, mut refused) = (0, 0);
    for context in twelve_tone_contexts() {
        let a = rust.complete(&request(context.clone())).await;
        let b = py.complete(&request(context.clone())).await;
        match (a, b) {
            (Ok(a), Ok(b)) => {
                assert!(a.text.lines().all(|l| l.contains(": ")), "{}", a.text);
                assert_eq!(a.text, b.text, "context {context}");
                answered += 1;
            }
            (a, b) => {
                let (a, b) = (plugin_error(a), plugin_error(b));
                let reason = |m: &str| m.find("context.").map(|i| m[i..].to_string());
                assert!(reason(&a).is_some(), "{a}");
                assert_eq!(reason(&a), reason(&b), "context {context}");
                refused += 1;
            }
        }
    }
    assert_eq!((answered, refused), (7, 5));
    py.shutdown().await;
}

#[tokio::test]
async fn a_crash_mid_call_is_reported_with_status_and_stderr_and_the_next_call_restarts() {
    let Some(python) = support::python3("subprocess crash mid-call") else {
        return;
    };
    let dir = support::scratch_dir("crash");
    let marker = dir.join("crashed-once");
    let script = inline_plugin(
        &dir,
        "crasher",
        "if not os.path.exists(marker):\n    open(marker, 'w').close()\n    print('out of memory, giving up', file=sys.stderr)\n    sys.exit(3)\nsend({'id': req['id'], 'reply': {'text': 'fine'}})",
    );
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink_lines = Arc::clone(&lines);
    let backend = SubprocessBackend::new(
        command(&python, &script, &[&marker.display().to_string()]),
        Duration::from_secs(20),
    )
    .with_stderr_sink(Arc::new(move |l: &str| {
        sink_lines.lock().unwrap().push(l.to_string())
    }));
    let message = plugin_error(backend.complete(&request(json!(null))).await);
    assert_eq!(
        message,
        "subprocess plugin `crasher` exited or closed its stdout without answering (exit status: 3; \
         stderr: out of memory, giving up); it will be restarted on the next call"
    );
    assert_eq!(
        *lines.lock().unwrap(),
        ["[crasher] out of memory, giving up"]
    );
    let reply = backend
        .complete(&request(json!(null)))
        .await
        .expect("a fresh process answers");
    assert_eq!(reply.text, "fine");
}

#[tokio::test]
async fn a_hung_plugin_is_killed_at_the_timeout_and_the_next_call_restarts() {
    let Some(python) = support::python3("subprocess hang past the timeout") else {
        return;
    };
    let dir = support::scratch_dir("hang");
    let marker = dir.join("hung-once");
    let script = inline_plugin(
        &dir,
        "sleeper",
        "if not os.path.exists(marker):\n    open(marker, 'w').close()\n    time.sleep(60)\nsend({'id': req['id'], 'reply': {'text': 'awake'}})",
    );
    let backend = SubprocessBackend::new(
        command(&python, &script, &[&marker.display().to_string()]),
        Duration::from_millis(1500),
    );
    backend.identify().await.expect("handshake");
    let started = Instant::now();
    let message = plugin_error(backend.complete(&request(json!(null))).await);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert!(
        message.starts_with(
            "subprocess plugin `sleeper` gave no reply within 1.5 s (killed: signal: 9"
        ),
        "{message}"
    );
    assert!(
        message.ends_with("; it will be restarted on the next call"),
        "{message}"
    );
    let reply = backend
        .complete(&request(json!(null)))
        .await
        .expect("a fresh process answers");
    assert_eq!(reply.text, "awake");
}

#[tokio::test]
async fn garbage_on_stdout_breaks_the_protocol_and_is_quoted() {
    let Some(python) = support::python3("subprocess garbage output") else {
        return;
    };
    let dir = support::scratch_dir("garbage");
    let script = inline_plugin(
        &dir,
        "babbler",
        "print('Here is your music: C4 D4 E4', flush=True)",
    );
    let backend = SubprocessBackend::new(command(&python, &script, &[]), Duration::from_secs(20));
    let message = plugin_error(backend.complete(&request(json!(null))).await);
    assert!(
        message.starts_with(
            "subprocess plugin `babbler` wrote a line that is not protocol JSON: \
             `Here is your music: C4 D4 E4` (killed: signal: 9"
        ),
        "{message}"
    );
    let script = inline_plugin(
        &dir,
        "textless",
        "send({'id': req['id'], 'reply': {'words': 1}})",
    );
    let backend = SubprocessBackend::new(command(&python, &script, &[]), Duration::from_secs(20));
    let message = plugin_error(backend.complete(&request(json!(null))).await);
    assert!(
        message.starts_with(
            "plugin `textless` answered JSON that is not a reply (missing field `text`"
        ),
        "{message}"
    );
}

#[tokio::test]
async fn another_protocol_version_is_refused_naming_both() {
    let Some(python) = support::python3("subprocess protocol mismatch") else {
        return;
    };
    let dir = support::scratch_dir("mismatch");
    let script = dir.join("future.py");
    std::fs::write(
        &script,
        "import sys\nsys.stdin.readline()\nprint('{\"cantus_plugin\": 2, \"name\": \"future\", \"version\": \"9\", \"kind\": \"backend\"}', flush=True)\n",
    )
    .expect("writing the script");
    let backend = SubprocessBackend::new(command(&python, &script, &[]), Duration::from_secs(20));
    let Err(ModelError::Plugin(message)) = backend.identify().await else {
        panic!("protocol 2 must be refused");
    };
    assert_eq!(
        message,
        format!(
            "subprocess plugin `{python} {}` speaks plugin protocol version 2, but this Cantus speaks version 1",
            script.display()
        )
    );
}

#[tokio::test]
async fn stderr_is_forwarded_with_the_plugin_name_and_never_read_as_protocol() {
    let Some(python) = support::python3("subprocess stderr forwarding") else {
        return;
    };
    let dir = support::scratch_dir("stderr");
    let script = inline_plugin(
        &dir,
        "chatty",
        "print('{\"id\": 99, \"reply\": {\"text\": \"decoy\"}}', file=sys.stderr, flush=True)\nsend({'id': req['id'], 'reply': {'text': 'real'}})",
    );
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink_lines = Arc::clone(&lines);
    let backend = SubprocessBackend::new(command(&python, &script, &[]), Duration::from_secs(20))
        .with_stderr_sink(Arc::new(move |l: &str| {
            sink_lines.lock().unwrap().push(l.to_string())
        }));
    let reply = backend
        .complete(&request(json!(null)))
        .await
        .expect("answers");
    assert_eq!(reply.text, "real");
    backend.shutdown().await;
    assert_eq!(
        *lines.lock().unwrap(),
        [r#"[chatty] {"id": 99, "reply": {"text": "decoy"}}"#]
    );
}

#[tokio::test]
async fn a_missing_program_is_reported_and_the_registry_runs_a_config_command() {
    let backend = SubprocessBackend::new(
        PluginCommand {
            program: "/nonexistent/cantus-plugin".into(),
            args: vec![],
            dir: None,
        },
        Duration::from_secs(5),
    );
    let message = plugin_error(backend.complete(&request(json!(null))).await);
    assert!(
        message.starts_with("cannot start subprocess plugin `/nonexistent/cantus-plugin`: "),
        "{message}"
    );

    let Some(python) = support::python3("subprocess plugin from a config file") else {
        return;
    };
    let mut config = Config::from_toml_str(
        &format!(
            "[backend]\nkind = \"subprocess\"\ncommand = [\"{python}\", \"cantus_example_plugin.py\"]\n\
             name = \"example-serial-py\"\ntimeout_s = 20\n"
        ),
        "cantus.toml",
    )
    .expect("config reads");
    config.dir = root().join("plugins/example-subprocess");
    let backend = cantus_backend::build(&config).expect("the subprocess kind is registered");
    let reply = backend
        .complete(&request(json!({"bar": 2})))
        .await
        .expect("answers");
    assert!(reply.text.contains("\n@2 [-]\n"), "{}", reply.text);
    assert_eq!(backend.name(), "subprocess:example-serial-py");

    config.backend.name = Some("someone-else".into());
    let backend = cantus_backend::build(&config).expect("builds lazily");
    let message = plugin_error(backend.complete(&request(json!(null))).await);
    assert!(
        message.ends_with("is named `example-serial-py`, but the config asks for `someone-else`"),
        "{message}"
    );
}

#[test]
fn the_python_example_answers_a_host_of_another_version_with_its_own_and_exits() {
    let Some(python) = support::python3("the Python example's side of the handshake") else {
        return;
    };
    use std::io::Write as _;
    let mut child = std::process::Command::new(&python)
        .arg(support::python_example(&root()))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python runs");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(b"{\"cantus_plugin\": 2}\n").expect("write");
    drop(stdin);
    let out = child.wait_with_output().expect("it exits");
    assert_eq!(out.status.code(), Some(1));
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON line");
    assert_eq!(answer["cantus_plugin"], 1);
    assert_eq!(
        answer["error"],
        "this plugin speaks protocol version 1, the host 2"
    );
}

#[tokio::test]
async fn a_plugin_that_quits_after_the_handshake_fails_the_call_not_the_host() {
    let Some(python) = support::python3("subprocess exit after handshake") else {
        return;
    };
    let dir = support::scratch_dir("quitter");
    let script = dir.join("quitter.py");
    std::fs::write(
        &script,
        "import sys\nsys.stdin.readline()\n\
         print('{\"cantus_plugin\": 1, \"name\": \"quitter\", \"version\": \"0\", \"kind\": \"backend\"}', flush=True)\n\
         sys.stdout.close()\nsys.exit(0)\n",
    )
    .expect("writing the script");
    let backend = SubprocessBackend::new(command(&python, &script, &[]), Duration::from_secs(20));
    backend.identify().await.expect("handshake");
    for _ in 0..2 {
        let message = plugin_error(backend.complete(&request(json!(null))).await);
        let broken_pipe =
            message.starts_with("subprocess plugin `quitter` could not be written to (");
        let eof = message.starts_with("subprocess plugin `quitter` exited or closed its stdout without answering (exit status: 0");
        assert!(broken_pipe || eof, "{message}");
        assert!(
            message.ends_with("; it will be restarted on the next call"),
            "{message}"
        );
    }
}

#[tokio::test]
async fn a_plugin_built_from_a_config_that_hangs_once_is_cut_off_and_asked_again() {
    let Some(python) = support::python3("subprocess deadline and retry from a config") else {
        return;
    };
    let dir = support::scratch_dir("hang-retry");
    let marker = dir.join("hung-once");
    let script = inline_plugin(
        &dir,
        "sleeper",
        "if not os.path.exists(marker):\n    open(marker, 'w').close()\n    time.sleep(60)\nsend({'id': req['id'], 'reply': {'text': 'awake'}})",
    );
    let config = Config::from_toml_str(
        &format!(
            "[backend]\nkind = \"subprocess\"\ncommand = [\"{python}\", \"{}\", \"{}\"]\n\
             timeout_s = 3\nretries = 1\nbackoff_s = 0.01\n",
            script.display(),
            marker.display()
        ),
        "cantus.toml",
    )
    .expect("config reads");
    let backend = cantus_backend::build(&config).expect("the subprocess kind is registered");
    let started = Instant::now();
    let reply = backend
        .complete(&request(json!(null)))
        .await
        .expect("the retry, in a fresh process, answers");
    assert_eq!((reply.text.as_str(), reply.retries), ("awake", 1));
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "took {:?}",
        started.elapsed()
    );
    assert!(
        reply.latency_ms >= 2900,
        "latency counts the late attempt: {}",
        reply.latency_ms
    );
}

#[tokio::test]
async fn a_caller_that_stops_waiting_never_gets_the_late_reply_on_its_next_call() {
    let Some(python) = support::python3("subprocess cancelled mid-exchange") else {
        return;
    };
    let dir = support::scratch_dir("cancelled");
    let script = inline_plugin(
        &dir,
        "dawdler",
        "time.sleep(0.5)\nsend({'id': req['id'], 'reply': {'text': 'answer to %d' % req['id']}})",
    );
    let backend = SubprocessBackend::new(command(&python, &script, &[]), Duration::from_secs(20));
    backend.identify().await.expect("handshake");
    let gave_up = tokio::time::timeout(
        Duration::from_millis(100),
        backend.complete(&request(json!(null))),
    )
    .await;
    assert!(gave_up.is_err(), "the first call is still unanswered");
    // The first process is gone with its late reply; a fresh one answers the second request.
    let reply = backend
        .complete(&request(json!(null)))
        .await
        .expect("a fresh process answers");
    assert_eq!(reply.text, "answer to 2");
}
