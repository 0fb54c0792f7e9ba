//! The backend registry: every backend kind registers a factory by name through
//! `inventory`, so a config file's `kind = "…"` finds it — built-in HTTP clients,
//! the plugin host's `dynamic` and `subprocess` kinds, or a kind from any crate
//! linked into the program — and `cantus plugins` can list them all.
//!
//! [`build`] is also where every kind gets the `[backend]` table's deadline, retries
//! and concurrency limit ([`Behaviour`]), wrapped around what its factory built, so no
//! kind implements them itself and none goes without.

use crate::behaviour::Behaviour;
use crate::config::{BackendConfig, Config};
use cantus_framework::{ModelBackend, ModelError};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A factory's constructor: the whole config file and its `[backend]` table in, a backend out.
pub type BuildFn =
    fn(config: &Config, backend: &BackendConfig) -> Result<Arc<dyn ModelBackend>, ModelError>;

/// Builds a backend of one kind from its `[backend]` table. Made with
/// [`BackendFactory::new`] (and [`BackendFactory::bare`] for a kind that needs no
/// wrappers), so a field added later breaks no factory outside this crate:
///
/// ```
/// use cantus_backend::{BackendConfig, BackendFactory, Config};
/// use cantus_framework::{ModelBackend, ModelError};
/// use std::sync::Arc;
///
/// fn build(_: &Config, _: &BackendConfig) -> Result<Arc<dyn ModelBackend>, ModelError> {
///     Err(ModelError::Config("not built in this example".into()))
/// }
///
/// inventory::submit! {
///     BackendFactory::new("echo", "0.1.0", "answers with the prompt", build)
/// }
/// # fn main() {
/// #     assert!(cantus_backend::factories().iter().any(|f| f.kind == "echo" && !f.bare));
/// # }
/// ```
#[non_exhaustive]
pub struct BackendFactory {
    /// The `kind` a config names.
    pub kind: &'static str,
    /// The version `cantus plugins` shows.
    pub version: &'static str,
    /// One line for `cantus plugins`.
    pub description: &'static str,
    /// `config` is the whole file (for its directory and harness settings); `backend` its table.
    pub build: BuildFn,
    /// `true` for a kind that answers in the caller's process at once and never fails
    /// transiently (the null model): [`build`] returns it without the deadline, retry
    /// and concurrency wrappers, so its calls cost nothing more and run where they are
    /// made. Every kind that waits on something — a server, a library, a program — is
    /// `false` (the default).
    pub bare: bool,
}

impl BackendFactory {
    /// The factory of `kind`, its backends wrapped in the `[backend]` table's deadline,
    /// retries and concurrency limit.
    pub const fn new(
        kind: &'static str,
        version: &'static str,
        description: &'static str,
        build: BuildFn,
    ) -> Self {
        BackendFactory {
            kind,
            version,
            description,
            build,
            bare: false,
        }
    }

    /// The same factory with its backends left unwrapped (see [`BackendFactory::bare`]).
    pub const fn bare(mut self) -> Self {
        self.bare = true;
        self
    }
}

inventory::collect!(BackendFactory);

/// Every registered factory, sorted by kind.
pub fn factories() -> Vec<&'static BackendFactory> {
    let mut all: Vec<_> = inventory::iter::<BackendFactory>.into_iter().collect();
    all.sort_by_key(|f| f.kind);
    all
}

/// The registered backends as `cantus plugins` lists them.
pub fn infos() -> Vec<PluginInfo> {
    factories()
        .into_iter()
        .map(|f| PluginInfo {
            kind: "backend".into(),
            name: f.kind.into(),
            version: f.version.into(),
            origin: "built-in".into(),
            description: f.description.into(),
        })
        .collect()
}

/// Builds the backend `config.backend` names, wrapped in the table's [`Behaviour`]
/// (unless its kind is [`bare`](BackendFactory::bare)).
pub fn build(config: &Config) -> Result<Arc<dyn ModelBackend>, ModelError> {
    let backend = &config.backend;
    let Some(factory) = factories().into_iter().find(|f| f.kind == backend.kind) else {
        let known: Vec<_> = factories().iter().map(|f| f.kind).collect();
        return Err(ModelError::Config(format!(
            "unknown backend kind `{}` (registered: {})",
            backend.kind,
            known.join(", ")
        )));
    };
    if factory.bare {
        return (factory.build)(config, backend);
    }
    let behaviour = Behaviour::from_config(backend)?;
    Ok(behaviour.wrap((factory.build)(config, backend)?))
}

/// One entry of `cantus plugins`: something registered by name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginInfo {
    /// `backend` or `proposer`.
    pub kind: String,
    pub name: String,
    pub version: String,
    /// `built-in`, `dynamic: PATH` or `subprocess: COMMAND`.
    pub origin: String,
    pub description: String,
}
