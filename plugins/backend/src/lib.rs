//! Model backends for Cantus: config files, OpenAI-compatible, Anthropic and Ollama
//! clients, retries, cassettes, and the backend registry.
//!
//! A `cantus.toml` ([`Config`]) names a backend `kind`; [`build`] finds its factory in
//! the registry, builds an `Arc<dyn ModelBackend>` and wraps it in the table's
//! [`Behaviour`]: a [`Deadline`] per attempt, [`Retry`] of transient failures with
//! backoff that honours `Retry-After` ([`retry`]), and a [`Concurrency`] limit — the
//! same wrappers for every kind, tower-style, so no kind implements them itself. The
//! three HTTP kinds — `openai`, `anthropic`, `ollama` — are thin clients over reqwest
//! ([`wire`] and a private transport) answering one attempt each, with lenient reading
//! of replies ([`lenient`]) and keys that never leave the process ([`secret`]). A
//! [`Cassette`] records or replays every exchange; a [`ModelSource`] (a config file,
//! perhaps a cassette) opens as the [`Configured`] model a command runs with.
//!
//! ```
//! use cantus_backend::{Config, build};
//!
//! let config = Config::from_toml_str(
//!     r#"
//!     [backend]
//!     kind = "openai"
//!     base_url = "http://127.0.0.1:8088/v1"
//!     model = "smollm2"
//!     api_key_env = "CANTUS_LOCAL_MODEL_KEY"   # unset: a local server gets no auth
//!     "#,
//!     "cantus.toml",
//! )?;
//! let backend = build(&config)?; // no connection is made until the first call
//! assert_eq!(backend.name(), "openai:smollm2");
//! // backend.complete(&request).await → Result<ModelReply, ModelError>
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod anthropic;
pub mod behaviour;
pub mod cassette;
pub mod concurrency;
pub mod config;
pub mod deadline;
pub mod dialect;
pub mod grammar;
pub mod harness;
mod http;
pub mod lenient;
pub mod null;
pub mod ollama;
pub mod openai;
pub mod registry;
pub mod retry;
pub mod secret;
pub mod source;
pub mod uniform;
pub mod validate;
pub mod wire;

pub use anthropic::AnthropicBackend;
pub use behaviour::Behaviour;
pub use cassette::Cassette;
pub use concurrency::Concurrency;
pub use config::{
    BackendConfig, Config, ConfigError, GateSettings, HarnessSettings, PluginConfig, TomlSource,
};
pub use deadline::Deadline;
pub use dialect::ConstraintDialect;
pub use null::NullBackend;
pub use ollama::OllamaBackend;
pub use openai::OpenAiBackend;
pub use registry::{BackendFactory, PluginInfo, build, factories, infos};
pub use retry::{Retry, RetryPolicy};
pub use secret::{ApiKey, leaks, scrub};
pub use source::{Configured, ModelSetupError, ModelSource};
pub use uniform::Language;
pub use validate::limits;
pub use wire::HttpBackend;
