//! Anthropic's Messages API (`POST {base_url}/v1/messages`, headers `x-api-key` and
//! `anthropic-version`).
//!
//! System messages go in the top-level `system` field; `max_tokens` is required by the
//! API, so [`DEFAULT_MAX_TOKENS`] is sent when neither config nor request sets it. The
//! API has no grammar or JSON-schema decoding field, so a constrained request goes
//! without its constraint, recorded as [`ConstraintUse::Unsupported`]; the verifier
//! stays the judge. There is no `seed` either.

use crate::lenient;
use crate::registry::BackendFactory;
use crate::secret::ApiKey;
use crate::wire::{Parsed, Settings, WireFormat, join};
use cantus_framework::{ConstraintUse, ModelError, ModelRequest, Role};
use serde_json::{Map, Value, json};

/// The `anthropic-version` header sent with every request.
pub const API_VERSION: &str = "2023-06-01";

/// `max_tokens` when neither the config nor the request gives one (the API requires it).
pub const DEFAULT_MAX_TOKENS: u32 = 1024;

/// The Anthropic Messages wire format (kind `anthropic`).
pub struct Anthropic;

/// A backend speaking the Anthropic Messages API.
pub type AnthropicBackend = crate::wire::HttpBackend<Anthropic>;

inventory::submit! {
    BackendFactory::new(
        "anthropic",
        env!("CARGO_PKG_VERSION"),
        "Anthropic Messages API (no constrained decoding)",
        crate::wire::build::<Anthropic>,
    )
}

impl WireFormat for Anthropic {
    const KIND: &'static str = "anthropic";

    /// `base_url` is the API root (`https://api.anthropic.com`); a root already ending
    /// in `/v1` is accepted too.
    fn endpoint(base: &reqwest::Url) -> Result<reqwest::Url, ModelError> {
        if base.path().trim_end_matches('/').ends_with("/v1") {
            join(base, "messages")
        } else {
            join(base, "v1/messages")
        }
    }

    fn headers(key: Option<&ApiKey>) -> Vec<(&'static str, String)> {
        let mut headers = vec![("anthropic-version", API_VERSION.to_string())];
        if let Some(k) = key {
            headers.push(("x-api-key", k.expose().to_string()));
        }
        headers
    }

    fn body(request: &ModelRequest, settings: &Settings) -> (Value, ConstraintUse) {
        let (temperature, _seed, max_tokens) = settings.sampling(request);
        let system: Vec<&str> = request
            .messages
            .iter()
            .filter(|m| m.role == Role::System)
            .map(|m| m.content.as_str())
            .collect();
        let messages: Vec<Value> = request
            .messages
            .iter()
            .filter(|m| m.role != Role::System)
            .map(|m| json!({"role": m.role, "content": m.content}))
            .collect();
        let mut body = Map::new();
        body.insert("model".into(), json!(settings.model));
        body.insert(
            "max_tokens".into(),
            json!(max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)),
        );
        if !system.is_empty() {
            body.insert("system".into(), json!(system.join("\n\n")));
        }
        body.insert("messages".into(), Value::Array(messages));
        if let Some(t) = temperature {
            body.insert("temperature".into(), json!(t));
        }
        let used = if request.constraint.is_some() {
            ConstraintUse::Unsupported
        } else {
            ConstraintUse::NotRequested
        };
        (Value::Object(body), used)
    }

    fn parse(body: &Value) -> Result<Parsed, ModelError> {
        let Some(text) = body.get("content").and_then(lenient::text_of) else {
            if let Some(e) = lenient::embedded_error(body) {
                return Err(e);
            }
            return Err(lenient::missing("text content block", body));
        };
        Ok(Parsed {
            text,
            usage: lenient::usage(
                body,
                &["/usage/input_tokens", "/usage/prompt_tokens"],
                &["/usage/output_tokens", "/usage/completion_tokens"],
                // Cache reads are counted apart from `input_tokens` (prompt caching).
                &["/usage/cache_read_input_tokens"],
            ),
            stop_reason: lenient::str_at(body, &["/stop_reason", "/finish_reason"]),
            model: lenient::str_at(body, &["/model"]),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cantus_framework::{Constraint, Message};

    #[test]
    fn system_goes_top_level_and_constraints_are_unsupported() {
        let settings = Settings {
            model: "claude".into(),
            temperature: None,
            seed: Some(3),
            max_tokens: None,
            constraint: crate::ConstraintDialect::default(),
        };
        let mut request = ModelRequest::new(vec![Message::system("rules"), Message::user("go")]);
        request.constraint = Some(Constraint::Gbnf("root ::= \"a\"".into()));
        let (body, used) = Anthropic::body(&request, &settings);
        assert_eq!(used, ConstraintUse::Unsupported);
        assert_eq!(body["system"], "rules");
        assert_eq!(body["messages"].as_array().map(Vec::len), Some(1));
        assert_eq!(body["max_tokens"], DEFAULT_MAX_TOKENS);
        assert!(body.get("seed").is_none() && body.get("grammar").is_none());
    }

    #[test]
    fn endpoint_accepts_root_or_v1() {
        let root = reqwest::Url::parse("https://api.anthropic.com").unwrap();
        let v1 = reqwest::Url::parse("http://127.0.0.1:9/v1/").unwrap();
        assert_eq!(
            Anthropic::endpoint(&root).unwrap().as_str(),
            "https://api.anthropic.com/v1/messages"
        );
        assert_eq!(
            Anthropic::endpoint(&v1).unwrap().as_str(),
            "http://127.0.0.1:9/v1/messages"
        );
    }

    #[test]
    fn parses_blocks_and_usage() {
        let body = json!({
            "content": [{"type": "thinking", "thinking": "…"}, {"type": "text", "text": "C4@0>1"}],
            "stop_reason": "end_turn", "model": "claude-x",
            "usage": {"input_tokens": 20, "output_tokens": 5}
        });
        let p = Anthropic::parse(&body).unwrap();
        assert_eq!(p.text, "C4@0>1");
        assert_eq!(p.stop_reason.as_deref(), Some("end_turn"));
        assert_eq!((p.usage.tokens_in, p.usage.tokens_out), (Some(20), Some(5)));
        let e = Anthropic::parse(&json!({"type": "error", "error": {"message": "overloaded"}}));
        assert!(e.unwrap_err().to_string().contains("overloaded"));
    }
}
