//! `cantus.toml`, the whole file, as one type ([`Config`]): which backend to use and
//! how (`[backend]`), which plugins to load (`[[plugins]]`), the engine's budgets and
//! how a model is asked (`[harness]`) and the release gate's mode (`[gate]`, both in
//! [`crate::harness`]). The program, a domain's own tools and tests all read it here,
//! so a file one of them takes every other takes too.
//!
//! A user switches backend by editing this file only. Keys are never stored here:
//! `api_key_env` names an environment variable, read when the backend is built.
//! Unknown keys are errors naming the key and its line (serde's `deny_unknown_fields`
//! with toml's spans), because a misspelt `temprature` silently ignored is worse than
//! a refusal.

pub use crate::dialect::ConstraintDialect;
pub use crate::harness::{GateSettings, HarnessSettings};
pub use crate::validate::TomlSource;
use cantus_framework::AskOptions;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A whole `cantus.toml`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub backend: BackendConfig,
    /// `[harness]`: the engine's budgets and how a model is asked.
    #[serde(default)]
    pub harness: HarnessSettings,
    /// `[gate]`: the release gate's mode.
    #[serde(default)]
    pub gate: GateSettings,
    /// Extra plugins to load and list (`[[plugins]]`), beyond the one `[backend]` may name.
    #[serde(default)]
    pub plugins: Vec<PluginConfig>,
    /// The directory of the file, for resolving relative plugin paths; not a key.
    #[serde(skip)]
    pub dir: PathBuf,
}

/// `[backend]`: one model backend.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackendConfig {
    /// A registered backend kind: `openai`, `anthropic`, `ollama`, `dynamic`, `subprocess`, …
    pub kind: String,
    /// e.g. `http://127.0.0.1:8088/v1` (OpenAI-compatible), `https://api.anthropic.com`, `http://127.0.0.1:11434`.
    #[serde(default)]
    pub base_url: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    /// The *name* of the environment variable holding the API key.
    #[serde(default)]
    pub api_key_env: Option<String>,
    #[serde(default)]
    pub temperature: Option<f64>,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub max_tokens: Option<u32>,
    /// `openai`: the request field the server reads a decoding constraint from —
    /// `llama.cpp` (default), `vllm`, `vllm-guided`, `sglang`, `json-schema` or `none`
    /// (see [`crate::dialect`]).
    #[serde(default)]
    pub constraint: ConstraintDialect,
    /// Seconds allowed to establish a connection (HTTP kinds).
    #[serde(default = "defaults::connect_timeout_s")]
    pub connect_timeout_s: f64,
    /// Seconds allowed for one attempt of a call, for every kind (the `Deadline`
    /// wrapper); a late attempt is a timeout, retried like a dropped connection. For
    /// `subprocess`, the first call's attempt includes starting the plugin and its
    /// handshake (before, a start had at least 10 s whatever `timeout_s` said).
    #[serde(default = "defaults::timeout_s")]
    pub timeout_s: f64,
    /// Retries after the first attempt of a transient failure (408, 429, 5xx, a broken
    /// connection, a timeout), for every kind (the `Retry` wrapper). A plugin's refusal
    /// or crash is not transient and is not retried; a hung plugin (past `timeout_s`) is.
    #[serde(default = "defaults::retries")]
    pub retries: u32,
    /// Base delay of the exponential backoff, in seconds (a `Retry-After` header wins).
    #[serde(default = "defaults::backoff_s")]
    pub backoff_s: f64,
    /// Calls in flight at once, for every kind (the `Concurrency` wrapper), shared by
    /// all callers of the built backend. A `dynamic` plugin's calls were not limited
    /// before: they now run one at a time unless this is raised (a plugin must be safe
    /// to call from several threads at once anyway). A `subprocess` plugin answers one
    /// call at a time whatever this says.
    #[serde(default = "defaults::concurrency")]
    pub concurrency: u32,
    /// `dynamic`: the plugin library (relative to the config file's directory).
    #[serde(default)]
    pub path: Option<PathBuf>,
    /// `subprocess`: the command and its arguments.
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// `dynamic` / `subprocess`: which of the plugin's entries to use, when it offers several.
    #[serde(default)]
    pub name: Option<String>,
}

impl Default for BackendConfig {
    fn default() -> Self {
        BackendConfig {
            kind: "openai".into(),
            base_url: None,
            model: None,
            api_key_env: None,
            temperature: None,
            seed: None,
            max_tokens: None,
            constraint: ConstraintDialect::default(),
            connect_timeout_s: defaults::connect_timeout_s(),
            timeout_s: defaults::timeout_s(),
            retries: defaults::retries(),
            backoff_s: defaults::backoff_s(),
            concurrency: defaults::concurrency(),
            path: None,
            command: None,
            name: None,
        }
    }
}

/// `[[plugins]]`: a plugin to load (and list in `cantus plugins`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginConfig {
    /// `dynamic` or `subprocess`.
    pub kind: String,
    #[serde(default)]
    pub path: Option<PathBuf>,
    #[serde(default)]
    pub command: Option<Vec<String>>,
}

mod defaults {
    pub fn connect_timeout_s() -> f64 {
        5.0
    }
    pub fn timeout_s() -> f64 {
        120.0
    }
    pub fn retries() -> u32 {
        3
    }
    pub fn backoff_s() -> f64 {
        0.5
    }
    pub fn concurrency() -> u32 {
        1
    }
}

/// A config file that could not be used; the message names the file, and for TOML
/// errors the line, column and key.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

impl Config {
    /// Parses and validates a file, naming `origin` (a path) in errors:
    /// `origin:line:column:` then the problem and the key (an unknown key, a zero
    /// timeout, a `base_url` that is not an http(s) URL, an `api_key_env` that is not a
    /// variable name, a budget past its bound).
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Config, ConfigError> {
        let source = TomlSource::new(text, origin);
        let config: Config = source.parse()?;
        config.backend.check(&source)?;
        config.harness.check(&source)?;
        Ok(config)
    }

    /// How a proposer asks the model: `[harness]` and `[backend]`'s sampling, with the
    /// `--constrained` flag switching constrained decoding on. A backend whose
    /// constraint dialect takes only JSON schemas (`constraint = "json-schema"`) is
    /// asked with a schema wherever the domain has one.
    pub fn ask(&self, constrained_flag: bool) -> AskOptions {
        AskOptions {
            constrained: constrained_flag || self.harness.constrained,
            json_schema: self.harness.json_schema || self.backend.constraint.wants_json_schema(),
            reasks: self.harness.reasks,
            temperature: self.backend.temperature,
            seed: self.backend.seed,
            max_tokens: self.backend.max_tokens,
            freedom: self.harness.freedom,
        }
    }

    /// Reads and parses the file at `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = TomlSource::read(path)?;
        let mut config = Config::from_toml_str(&text, &path.display().to_string())?;
        config.dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok(config)
    }
}

impl BackendConfig {
    /// Checks every value, naming the key and its place in `source` (see
    /// [`Config::from_toml_str`]); the first problem found.
    pub fn check(&self, source: &TomlSource<'_>) -> Result<(), ConfigError> {
        crate::validate::check_backend(self, source)
    }
}
