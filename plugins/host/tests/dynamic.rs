//! Dynamic plugins end to end: the example cdylib loaded with libloading, asked for its
//! identity and called through the C ABI; libraries of another ABI version, without
//! the entry point or missing altogether refused with clear messages.

mod support;

use cantus_backend::Config;
use cantus_framework::{ModelBackend, ModelError, ModelRequest};
use cantus_plugin_host::{ABI_VERSION, DynamicBackend, DynamicPlugin, check_abi_version};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

fn example() -> PathBuf {
    support::example_library(&support::workspace_root(env!("CARGO_MANIFEST_DIR")))
}

fn request(context: serde_json::Value) -> ModelRequest {
    let mut request = ModelRequest::new(vec![]);
    request.context = context;
    request
}

#[test]
fn the_example_library_says_who_it_is() {
    let path = example();
    let plugin = DynamicPlugin::load(&path).expect("the example loads");
    let info = plugin.info();
    assert_eq!(info.kind, "proposer");
    assert_eq!(info.name, "example-serial");
    assert_eq!(info.version, env!("CARGO_PKG_VERSION"));
    assert_eq!(info.origin, format!("dynamic: {}", path.display()));
    assert!(
        info.description.contains("onset-slot grammar"),
        "{}",
        info.description
    );
}

#[tokio::test]
async fn a_call_crosses_the_c_abi_as_json_and_comes_back_as_a_reply() {
    let plugin = Arc::new(DynamicPlugin::load(&example()).expect("the example loads"));
    let backend = DynamicBackend::new(plugin, Duration::from_secs(10));
    assert_eq!(backend.name(), "dynamic:example-serial");
    let reply = backend
        .complete(&request(
            json!({"allowed_pitch_classes": [2, 9], "bar": 3, "notes": 2}),
        ))
        .await
        .expect("the example answers");
    assert_eq!(
        reply.text,
        "KEY: ? | METER: 4/4 | TEMPO: ? | GRID: 16 | BARS: 3\nVOICES: Voice\n@3 [-]\n  Voice: D4@1>8 A4@9>8\n"
    );
    assert_eq!(reply.model.as_deref(), Some("example-serial"));
    assert_eq!(reply.stop_reason.as_deref(), Some("stop"));
    // A refusal is an error naming the plugin and its reason; the plugin goes on answering.
    let refused = backend.complete(&request(json!({"bar": -1}))).await;
    assert_eq!(
        refused,
        Err(ModelError::Plugin(
            "plugin `example-serial` refused the request (status 1): context.bar must be a \
             whole number from 1 to 10000, got -1"
                .into()
        ))
    );
    assert!(backend.complete(&request(json!(null))).await.is_ok());
}

#[tokio::test]
async fn concurrent_calls_share_one_loaded_library_that_outlives_its_last_user() {
    let plugin = Arc::new(DynamicPlugin::load(&example()).expect("the example loads"));
    let backend = Arc::new(DynamicBackend::new(
        Arc::clone(&plugin),
        Duration::from_secs(10),
    ));
    drop(plugin);
    let calls: Vec<_> = (1..=8)
        .map(|bar| {
            let backend = Arc::clone(&backend);
            tokio::spawn(async move { backend.complete(&request(json!({"bar": bar}))).await })
        })
        .collect();
    drop(backend);
    for (bar, call) in (1..=8).zip(calls) {
        let reply = call.await.expect("task ran").expect("the example answers");
        assert!(
            reply.text.contains(&format!("\n@{bar} [-]\n")),
            "{}",
            reply.text
        );
    }
}

#[tokio::test]
async fn the_registry_builds_a_dynamic_backend_from_a_config_relative_path() {
    let path = example();
    let dir = path
        .parent()
        .expect("the library has a directory")
        .to_path_buf();
    let file = path.file_name().expect("a file name").to_string_lossy();
    let mut config = Config::from_toml_str(
        &format!("[backend]\nkind = \"dynamic\"\npath = \"{file}\"\ntimeout_s = 5\n"),
        "cantus.toml",
    )
    .expect("config reads");
    config.dir = dir;
    let backend = cantus_backend::build(&config).expect("the dynamic kind is registered");
    let reply = backend
        .complete(&request(json!(null)))
        .await
        .expect("answers");
    assert!(
        reply.text.starts_with("KEY: ? | METER: 4/4"),
        "{}",
        reply.text
    );

    config.backend.name = Some("another-plugin".into());
    let refused = cantus_backend::build(&config).err();
    assert_eq!(
        refused,
        Some(ModelError::Config(format!(
            "{} holds plugin `example-serial`, but the config asks for `another-plugin`",
            config.dir.join(&*file).display()
        )))
    );
}

#[test]
fn a_version_mismatch_names_both_versions() {
    assert_eq!(check_abi_version(Path::new("x.so"), ABI_VERSION), Ok(()));
    let Err(ModelError::Plugin(message)) = check_abi_version(Path::new("old.so"), 7) else {
        panic!("version 7 must be refused");
    };
    assert!(message.starts_with("old.so: the plugin was built for Cantus plugin ABI version 7, but this Cantus speaks ABI version 1"), "{message}");
}

/// Compiles `source` as a cdylib named `name` with rustc; `None` (and SKIPPED) when
/// rustc is not available.
fn compile_cdylib(dir: &Path, name: &str, source: &str) -> Option<PathBuf> {
    let src = dir.join(format!("{name}.rs"));
    std::fs::write(&src, source).expect("writing the test library source");
    let out = dir.join(format!(
        "{}{name}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    match Command::new(rustc)
        .args(["--edition", "2024", "--crate-type", "cdylib", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
    {
        Ok(status) if status.success() => Some(out),
        _ => {
            eprintln!("SKIPPED: compiling test library {name} (rustc not usable)");
            None
        }
    }
}

#[test]
fn a_library_built_for_another_abi_version_is_refused_before_its_table_is_read() {
    let dir = support::scratch_dir("abi-mismatch");
    // A table of a future ABI: only the version field is shared with ours.
    let source = "#[repr(C)] pub struct Table { abi_version: u32, other: [u64; 2] }\n\
                  static TABLE: Table = Table { abi_version: 999, other: [0, 0] };\n\
                  #[unsafe(no_mangle)] pub extern \"C\" fn cantus_plugin_entry() -> *const Table { &TABLE }\n";
    let Some(path) = compile_cdylib(&dir, "future_plugin", source) else {
        return;
    };
    let Err(ModelError::Plugin(message)) = DynamicPlugin::load(&path) else {
        panic!("a version-999 table must be refused");
    };
    assert_eq!(
        message,
        format!(
            "{}: the plugin was built for Cantus plugin ABI version 999, but this Cantus speaks \
             ABI version 1; rebuild the plugin against cantus-plugin-abi with ABI_VERSION 1",
            path.display()
        )
    );
}

#[test]
fn a_library_without_the_entry_point_or_no_library_at_all_is_refused() {
    let dir = support::scratch_dir("no-entry");
    let source = "#[unsafe(no_mangle)] pub extern \"C\" fn something_else() -> u32 { 1 }\n";
    if let Some(path) = compile_cdylib(&dir, "not_a_plugin", source) {
        let Err(ModelError::Plugin(message)) = DynamicPlugin::load(&path) else {
            panic!("a library without the entry point must be refused");
        };
        assert!(
            message.starts_with(&format!(
                "{} is not a Cantus plugin: it exports no `cantus_plugin_entry`",
                path.display()
            )),
            "{message}"
        );
    }
    let missing = dir.join("nowhere.so");
    let Err(ModelError::Plugin(message)) = DynamicPlugin::load(&missing) else {
        panic!("a missing file must be refused");
    };
    assert!(
        message.starts_with(&format!(
            "cannot load dynamic plugin {}:",
            missing.display()
        )),
        "{message}"
    );
}

/// A plugin written against the ABI by hand (no helper crate), whose `call` sleeps
/// for `millis` before refusing: for timeouts and the library's lifetime.
fn slow_plugin_source(millis: u64) -> String {
    format!(
        r#"use std::ffi::{{c_char, c_void}};
#[repr(C)] pub struct Buffer {{ ptr: *mut u8, len: usize }}
#[repr(C)] pub struct Table {{
    abi_version: u32,
    name: *const c_char, version: *const c_char, kind: *const c_char, description: *const c_char,
    init: unsafe extern "C" fn(*mut *mut c_void, *mut Buffer) -> i32,
    call: unsafe extern "C" fn(*mut c_void, *const u8, usize, *mut Buffer) -> i32,
    free_buffer: unsafe extern "C" fn(Buffer),
    drop: unsafe extern "C" fn(*mut c_void),
}}
unsafe impl Sync for Table {{}}
unsafe extern "C" fn init(_: *mut *mut c_void, _: *mut Buffer) -> i32 {{ 0 }}
unsafe extern "C" fn call(_: *mut c_void, _: *const u8, _: usize, out: *mut Buffer) -> i32 {{
    std::thread::sleep(std::time::Duration::from_millis({millis}));
    unsafe {{ out.write(Buffer {{ ptr: std::ptr::null_mut(), len: 0 }}) }};
    1
}}
unsafe extern "C" fn free_buffer(_: Buffer) {{}}
unsafe extern "C" fn drop(_: *mut c_void) {{}}
static TABLE: Table = Table {{
    abi_version: 1,
    name: c"slow".as_ptr(), version: c"0".as_ptr(), kind: c"backend".as_ptr(),
    description: c"sleeps".as_ptr(),
    init, call, free_buffer, drop,
}};
#[unsafe(no_mangle)] pub extern "C" fn cantus_plugin_entry() -> *const Table {{ &TABLE }}
"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_the_timeout_is_abandoned_and_the_library_stays_loaded_until_it_returns() {
    let dir = support::scratch_dir("slow");
    let Some(path) = compile_cdylib(&dir, "slow_plugin", &slow_plugin_source(1500)) else {
        return;
    };
    let plugin = Arc::new(DynamicPlugin::load(&path).expect("the hand-written plugin loads"));
    assert_eq!(plugin.info().name, "slow");
    let backend = DynamicBackend::new(plugin, Duration::from_millis(200));
    let started = std::time::Instant::now();
    let result = backend.complete(&request(json!(null))).await;
    assert!(
        started.elapsed() < Duration::from_millis(1400),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(
        result,
        Err(ModelError::Plugin(
            "plugin `slow` gave no reply within 0.2 s; the call was abandoned (the library \
             stays loaded until it returns)"
                .into()
        ))
    );
    // Dropping the last backend while the abandoned call still sleeps inside the
    // library must not unload it: were it unloaded, the call would return into unmapped
    // code and this test process would crash.
    drop(backend);
    tokio::time::sleep(Duration::from_millis(2000)).await;
}

/// A dynamic backend built through the registry from a config naming `path`, with
/// the `[backend]` lines `extra`.
fn registry_backend(path: &Path, extra: &str) -> Arc<dyn ModelBackend> {
    let config = Config::from_toml_str(
        &format!(
            "[backend]\nkind = \"dynamic\"\npath = \"{}\"\n{extra}\n",
            path.display()
        ),
        "cantus.toml",
    )
    .expect("config reads");
    cantus_backend::build(&config).expect("the dynamic kind is registered")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dynamic_plugin_built_from_a_config_gets_its_deadline_and_concurrency_limit() {
    let dir = support::scratch_dir("wrapped");
    let Some(path) = compile_cdylib(&dir, "slow_plugin", &slow_plugin_source(300)) else {
        return;
    };
    // The deadline: a late call is a timeout.
    let backend = registry_backend(&path, "timeout_s = 0.1\nretries = 0");
    assert_eq!(backend.name(), "dynamic:slow");
    let result = backend.complete(&request(json!(null))).await;
    assert_eq!(
        result,
        Err(ModelError::Timeout(
            "no answer within timeout_s = 0.1 s".into()
        ))
    );
    // The limit: three calls at once, one at a time, each 300 ms inside the library.
    // (Unlimited, the three would share the same 300 ms on the blocking pool.)
    let backend = registry_backend(&path, "timeout_s = 20\nconcurrency = 1");
    let started = std::time::Instant::now();
    let calls: Vec<_> = (0..3)
        .map(|_| {
            let backend = Arc::clone(&backend);
            tokio::spawn(async move { backend.complete(&request(json!(null))).await })
        })
        .collect();
    for call in calls {
        let outcome = call.await.expect("the call's task ran");
        assert!(
            matches!(&outcome, Err(ModelError::Plugin(m)) if m.contains("refused")),
            "a refusal is not retried: {outcome:?}"
        );
    }
    assert!(
        started.elapsed() >= Duration::from_millis(850),
        "three calls of 300 ms at concurrency = 1 took only {:?}",
        started.elapsed()
    );
    // Let the abandoned first call return before the test process ends.
    tokio::time::sleep(Duration::from_millis(400)).await;
}
