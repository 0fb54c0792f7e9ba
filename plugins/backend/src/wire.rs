//! What the three HTTP backends share: settings read from a `[backend]` table, the
//! [`WireFormat`] each implements, and [`HttpBackend`], which times one attempt, sends
//! it through the shared HTTP transport and fills in the [`ModelReply`]. Its deadline,
//! retries and concurrency limit are wrapped around it by [`crate::build`], as for
//! every backend kind ([`crate::behaviour`]).

use crate::behaviour::seconds;
use crate::config::{BackendConfig, Config};
use crate::http::{Transport, TransportSettings};
use crate::secret::ApiKey;
use async_trait::async_trait;
use cantus_framework::{ConstraintUse, ModelBackend, ModelError, ModelReply, ModelRequest, Usage};
use std::sync::Arc;
use std::time::Instant;

/// Model and sampling defaults from the config; a request's [`Sampling`](cantus_framework::Sampling) overrides them.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub model: String,
    pub temperature: Option<f64>,
    pub seed: Option<u64>,
    pub max_tokens: Option<u32>,
    /// Where the server takes a decoding constraint (read by the `openai` format).
    pub constraint: crate::dialect::ConstraintDialect,
}

impl Settings {
    /// The effective temperature, seed and token limit of `request`.
    pub fn sampling(&self, request: &ModelRequest) -> (Option<f64>, Option<u64>, Option<u32>) {
        let s = request.sampling;
        (
            s.temperature.or(self.temperature),
            s.seed.or(self.seed),
            s.max_tokens.or(self.max_tokens),
        )
    }
}

/// A reply as read from a server's JSON, before timing and retries are added.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parsed {
    pub text: String,
    pub usage: Usage,
    pub stop_reason: Option<String>,
    pub model: Option<String>,
}

/// One HTTP dialect: where to POST, which headers, what body, how to read the answer.
pub trait WireFormat: Send + Sync + 'static {
    /// The config `kind`, e.g. `openai`.
    const KIND: &'static str;
    /// The endpoint under `base` (the config's `base_url`).
    fn endpoint(base: &reqwest::Url) -> Result<reqwest::Url, ModelError>;
    /// Authentication and version headers.
    fn headers(key: Option<&ApiKey>) -> Vec<(&'static str, String)>;
    /// The JSON body, and what became of the request's constraint.
    fn body(request: &ModelRequest, settings: &Settings) -> (serde_json::Value, ConstraintUse);
    /// Reads a success answer, leniently.
    fn parse(body: &serde_json::Value) -> Result<Parsed, ModelError>;
}

/// A model behind an HTTP API speaking `W`, one attempt per call: no deadline, retry
/// or concurrency limit of its own (the registry's [`build`] wraps those around it).
pub struct HttpBackend<W: WireFormat> {
    endpoint: reqwest::Url,
    settings: Settings,
    transport: Transport,
    _wire: std::marker::PhantomData<W>,
}

impl<W: WireFormat> HttpBackend<W> {
    /// Builds the backend a `[backend]` table describes. Reads the key from the
    /// variable `api_key_env` names: when it is unset, a loopback server (127.0.0.1,
    /// localhost, ::1) is called without authentication and any other server is a
    /// [`ModelError::Config`] naming the variable.
    pub fn from_config(backend: &BackendConfig) -> Result<Self, ModelError> {
        let kind = W::KIND;
        let base = backend
            .base_url
            .as_deref()
            .ok_or_else(|| ModelError::Config(format!("backend kind `{kind}` needs `base_url`")))?;
        let base = parse_base_url(base)?;
        let model = backend
            .model
            .clone()
            .filter(|m| !m.trim().is_empty())
            .ok_or_else(|| ModelError::Config(format!("backend kind `{kind}` needs `model`")))?;
        let key = read_key(backend.api_key_env.as_deref(), &base)?;
        let transport = Transport::new(TransportSettings {
            connect_timeout: seconds(backend.connect_timeout_s, "connect_timeout_s")?,
            key,
        })?;
        Ok(HttpBackend {
            endpoint: W::endpoint(&base)?,
            settings: Settings {
                model,
                temperature: backend.temperature,
                seed: backend.seed,
                max_tokens: backend.max_tokens,
                constraint: backend.constraint,
            },
            transport,
            _wire: std::marker::PhantomData,
        })
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> &reqwest::Url {
        &self.endpoint
    }
}

/// The registry's `build` for kind `W::KIND`.
pub fn build<W: WireFormat>(
    _config: &Config,
    backend: &BackendConfig,
) -> Result<Arc<dyn ModelBackend>, ModelError> {
    Ok(Arc::new(HttpBackend::<W>::from_config(backend)?))
}

#[async_trait]
impl<W: WireFormat> ModelBackend for HttpBackend<W> {
    fn name(&self) -> String {
        format!("{}:{}", W::KIND, self.settings.model)
    }

    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        let started = Instant::now();
        let (body, constraint) = W::body(request, &self.settings);
        let headers = W::headers(self.transport.key());
        let answer = self
            .transport
            .post_json(&self.endpoint, &headers, &body)
            .await?;
        let parsed = W::parse(&answer).map_err(|e| match e {
            ModelError::BadReply(m) => {
                ModelError::BadReply(crate::secret::scrub(&m, self.transport.key()))
            }
            other => other,
        })?;
        Ok(ModelReply {
            text: parsed.text,
            usage: parsed.usage,
            stop_reason: parsed.stop_reason,
            model: parsed.model,
            constraint,
            retries: 0,
            latency_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        })
    }
}

/// `base_url` as an http(s) URL, or a config error quoting it.
pub fn parse_base_url(text: &str) -> Result<reqwest::Url, ModelError> {
    let url = reqwest::Url::parse(text.trim())
        .map_err(|e| ModelError::Config(format!("base_url `{text}` is not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ModelError::Config(format!(
            "base_url `{text}` must start with http:// or https://"
        )));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(ModelError::Config(
            "base_url must not carry credentials; name a variable in `api_key_env`".into(),
        ));
    }
    Ok(url)
}

/// `base` with `path` appended (keeping any path prefix, e.g. `/v1`).
pub fn join(base: &reqwest::Url, path: &str) -> Result<reqwest::Url, ModelError> {
    let joined = format!(
        "{}/{}",
        base.as_str().trim_end_matches('/'),
        path.trim_start_matches('/')
    );
    reqwest::Url::parse(&joined)
        .map_err(|e| ModelError::Config(format!("cannot form the endpoint URL: {e}")))
}

/// Whether `url` names this machine.
pub fn is_loopback(url: &reqwest::Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn read_key(var: Option<&str>, base: &reqwest::Url) -> Result<Option<ApiKey>, ModelError> {
    let Some(var) = var.filter(|v| !v.trim().is_empty()) else {
        return Ok(None);
    };
    match ApiKey::from_env(var)? {
        Some(key) => Ok(Some(key)),
        None if is_loopback(base) => Ok(None),
        None => Err(ModelError::Config(format!(
            "environment variable `{var}` (api_key_env) is not set; export it with your API key"
        ))),
    }
}
