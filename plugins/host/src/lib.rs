//! Loads Cantus plugins: dynamic libraries (libloading, C ABI) and subprocesses (JSON lines).
//!
//! A plugin is a model backend — or a symbolic proposer behind the same interface,
//! reading the request's `context` instead of its prompt — that lives outside the
//! Cantus binary, so users add their own without forking. This crate registers two
//! backend kinds with `cantus-backend`'s registry:
//!
//! * `dynamic` ([`dynamic`]): a shared library exporting the versioned C ABI of
//!   `cantus-plugin-abi`; config key `path`, relative to the config file's directory;
//! * `subprocess` ([`subprocess`]): any program speaking the JSON-lines protocol;
//!   config key `command`, run in the config file's directory.
//!
//! Both honour the `[backend]` table's `name` (refuse a plugin with another name).
//! Built through `cantus_backend::build`, both get the same deadline (`timeout_s`),
//! retries and concurrency limit as every other kind, as wrappers around them; built
//! directly, [`DynamicBackend::new`] and [`SubprocessBackend::new`] keep a time limit
//! of their own per call. [`describe`] loads a plugin only to ask who it is, for
//! `cantus plugins`. A program gets these kinds by linking this crate (calling any of
//! its functions, e.g. [`entries`], is enough).

pub mod dynamic;
mod reply;
pub mod subprocess;

pub use cantus_plugin_abi::ABI_VERSION;
pub use dynamic::{DynamicBackend, DynamicPlugin, check_abi_version};
pub use subprocess::{PROTOCOL_VERSION, PluginCommand, StderrSink, SubprocessBackend, stderr_sink};

use cantus_backend::PluginInfo;
use cantus_backend::{BackendConfig, BackendFactory, Config, PluginConfig};
use cantus_framework::{ModelBackend, ModelError};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

inventory::submit! {
    BackendFactory::new(
        "dynamic",
        env!("CARGO_PKG_VERSION"),
        "a shared library exporting the Cantus plugin C ABI (config: path)",
        build_dynamic,
    )
}

inventory::submit! {
    BackendFactory::new(
        "subprocess",
        env!("CARGO_PKG_VERSION"),
        "a program speaking the Cantus JSON-lines plugin protocol (config: command)",
        build_subprocess,
    )
}

/// The per-call timeout of a `[backend]` table.
fn timeout_of(backend: &BackendConfig) -> Result<Duration, ModelError> {
    Duration::try_from_secs_f64(backend.timeout_s)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            ModelError::Config(format!(
                "timeout_s must be a positive number of seconds, got {}",
                backend.timeout_s
            ))
        })
}

/// `path` as the config means it: relative paths are taken from the config's directory.
pub fn resolve_path(config: &Config, path: &Path) -> PathBuf {
    if path.is_relative() && !config.dir.as_os_str().is_empty() {
        config.dir.join(path)
    } else {
        path.to_path_buf()
    }
}

fn library_path(config: &Config, plugin: &PluginConfig) -> Result<PathBuf, ModelError> {
    plugin
        .path
        .as_deref()
        .map(|p| {
            // A bare relative name would make dlopen search the system's library
            // path instead of the directory the user means.
            let path = resolve_path(config, p);
            std::path::absolute(&path).unwrap_or(path)
        })
        .ok_or_else(|| {
            ModelError::Config("a `dynamic` plugin needs `path` (the library file)".into())
        })
}

fn plugin_command(config: &Config, plugin: &PluginConfig) -> Result<PluginCommand, ModelError> {
    let command = plugin.command.as_deref().ok_or_else(|| {
        ModelError::Config("a `subprocess` plugin needs `command` (program and arguments)".into())
    })?;
    PluginCommand::from_config(command, &config.dir)
}

fn unknown_kind(kind: &str) -> ModelError {
    ModelError::Config(format!(
        "plugin kind `{kind}` is neither `dynamic` nor `subprocess`"
    ))
}

/// The `[backend]` table seen as a plugin entry (kind, path, command).
fn as_plugin(backend: &BackendConfig) -> PluginConfig {
    PluginConfig {
        kind: backend.kind.clone(),
        path: backend.path.clone(),
        command: backend.command.clone(),
    }
}

fn build_dynamic(
    config: &Config,
    backend: &BackendConfig,
) -> Result<Arc<dyn ModelBackend>, ModelError> {
    let path = library_path(config, &as_plugin(backend))?;
    let plugin = DynamicPlugin::load(&path)?;
    if let Some(expected) = backend.name.as_deref().filter(|n| *n != plugin.info().name) {
        return Err(ModelError::Config(format!(
            "{} holds plugin `{}`, but the config asks for `{expected}`",
            path.display(),
            plugin.info().name
        )));
    }
    // The registry wraps the deadline around it.
    Ok(Arc::new(DynamicBackend::without_timeout(Arc::new(plugin))))
}

fn build_subprocess(
    config: &Config,
    backend: &BackendConfig,
) -> Result<Arc<dyn ModelBackend>, ModelError> {
    let timeout = timeout_of(backend)?;
    let command = plugin_command(config, &as_plugin(backend))?;
    // The registry wraps each call's deadline around it; the first call, which starts
    // the plugin, is bounded by that deadline too.
    Ok(Arc::new(
        SubprocessBackend::new(command, timeout)
            .without_call_timeout()
            .expecting_name(backend.name.clone()),
    ))
}

/// The plugins a config names: `[backend]` when its kind is `dynamic` or
/// `subprocess`, then every `[[plugins]]` entry, in file order.
pub fn entries(config: &Config) -> Vec<PluginConfig> {
    let backend = matches!(config.backend.kind.as_str(), "dynamic" | "subprocess")
        .then(|| as_plugin(&config.backend));
    backend
        .into_iter()
        .chain(config.plugins.iter().cloned())
        .collect()
}

/// Where an entry comes from, as `cantus plugins` shows it: `dynamic: PATH`,
/// `subprocess: COMMAND`, or the kind when the entry is incomplete.
pub fn origin(config: &Config, plugin: &PluginConfig) -> String {
    match plugin.kind.as_str() {
        "dynamic" => match library_path(config, plugin) {
            Ok(path) => format!("dynamic: {}", path.display()),
            Err(_) => "dynamic: (no path)".into(),
        },
        "subprocess" => match plugin_command(config, plugin) {
            Ok(command) => format!("subprocess: {}", command.display()),
            Err(_) => "subprocess: (no command)".into(),
        },
        other => other.to_string(),
    }
}

/// Loads the plugin `plugin` names just to ask who it is (a subprocess is started,
/// greeted and closed again). Uses the `[backend]` table's timeout.
pub async fn describe(config: &Config, plugin: &PluginConfig) -> Result<PluginInfo, ModelError> {
    let timeout = timeout_of(&config.backend)?;
    match plugin.kind.as_str() {
        "dynamic" => {
            let path = library_path(config, plugin)?;
            let loaded = tokio::task::spawn_blocking(move || DynamicPlugin::load(&path))
                .await
                .map_err(|e| ModelError::Plugin(format!("loading the library failed: {e}")))??;
            Ok(loaded.info().clone())
        }
        "subprocess" => {
            let backend = SubprocessBackend::new(plugin_command(config, plugin)?, timeout);
            let info = backend.identify().await;
            backend.shutdown().await;
            info
        }
        other => Err(unknown_kind(other)),
    }
}
