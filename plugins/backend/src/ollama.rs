//! Ollama's native chat API (`POST {base_url}/api/chat`, `stream: false`).
//!
//! Sampling goes in `options` (`temperature`, `seed`, `num_predict`); a JSON schema
//! goes in `format` ([`ConstraintUse::Sent`]); Ollama has no grammar field, so a GBNF
//! constraint is [`ConstraintUse::Unsupported`]. Ollama needs no key; when one is
//! configured (a proxy in front of it) it is sent as a bearer token.

use crate::lenient;
use crate::registry::BackendFactory;
use crate::secret::ApiKey;
use crate::wire::{Parsed, Settings, WireFormat, join};
use cantus_framework::{Constraint, ConstraintUse, ModelError, ModelRequest};
use serde_json::{Map, Value, json};

/// The Ollama native wire format (kind `ollama`).
pub struct Ollama;

/// A backend speaking Ollama's native API.
pub type OllamaBackend = crate::wire::HttpBackend<Ollama>;

inventory::submit! {
    BackendFactory::new(
        "ollama",
        env!("CARGO_PKG_VERSION"),
        "Ollama native chat API (/api/chat; JSON-schema format)",
        crate::wire::build::<Ollama>,
    )
}

impl WireFormat for Ollama {
    const KIND: &'static str = "ollama";

    fn endpoint(base: &reqwest::Url) -> Result<reqwest::Url, ModelError> {
        join(base, "api/chat")
    }

    fn headers(key: Option<&ApiKey>) -> Vec<(&'static str, String)> {
        key.map(|k| vec![("authorization", format!("Bearer {}", k.expose()))])
            .unwrap_or_default()
    }

    fn body(request: &ModelRequest, settings: &Settings) -> (Value, ConstraintUse) {
        let (temperature, seed, max_tokens) = settings.sampling(request);
        let mut options = Map::new();
        if let Some(t) = temperature {
            options.insert("temperature".into(), json!(t));
        }
        if let Some(s) = seed {
            options.insert("seed".into(), json!(s));
        }
        if let Some(n) = max_tokens {
            options.insert("num_predict".into(), json!(n));
        }
        let mut body = Map::new();
        body.insert("model".into(), json!(settings.model));
        body.insert("messages".into(), json!(request.messages));
        body.insert("stream".into(), json!(false));
        if !options.is_empty() {
            body.insert("options".into(), Value::Object(options));
        }
        let used = match &request.constraint {
            None => ConstraintUse::NotRequested,
            Some(Constraint::JsonSchema(schema)) => {
                body.insert("format".into(), schema.clone());
                ConstraintUse::Sent
            }
            Some(Constraint::Gbnf(_)) => ConstraintUse::Unsupported,
        };
        (Value::Object(body), used)
    }

    fn parse(body: &Value) -> Result<Parsed, ModelError> {
        let text = body
            .pointer("/message/content")
            .and_then(lenient::text_of)
            .or_else(|| body.get("response").and_then(lenient::text_of));
        let Some(text) = text else {
            if let Some(e) = lenient::embedded_error(body) {
                return Err(e);
            }
            return Err(lenient::missing("message.content", body));
        };
        Ok(Parsed {
            text,
            // Ollama reports no cached prompt tokens.
            usage: lenient::usage(body, &["/prompt_eval_count"], &["/eval_count"], &[]),
            stop_reason: lenient::str_at(body, &["/done_reason", "/stop_reason", "/finish_reason"]),
            model: lenient::str_at(body, &["/model"]),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cantus_framework::Message;

    #[test]
    fn schema_goes_in_format_and_grammar_is_unsupported() {
        let settings = Settings {
            model: "llama3".into(),
            temperature: Some(0.0),
            seed: Some(1),
            max_tokens: Some(10),
            constraint: crate::ConstraintDialect::default(),
        };
        let mut request = ModelRequest::new(vec![Message::user("go")]);
        request.constraint = Some(Constraint::JsonSchema(json!({"type": "object"})));
        let (body, used) = Ollama::body(&request, &settings);
        assert_eq!(used, ConstraintUse::Sent);
        assert_eq!(body["format"]["type"], "object");
        assert_eq!(body["options"]["num_predict"], 10);
        request.constraint = Some(Constraint::Gbnf("root ::= \"a\"".into()));
        let (body, used) = Ollama::body(&request, &settings);
        assert_eq!(used, ConstraintUse::Unsupported);
        assert!(body.get("format").is_none() && body.get("grammar").is_none());
    }

    #[test]
    fn parses_done_reason_and_counts() {
        let body = json!({"model": "llama3", "message": {"role": "assistant", "content": "hi"},
                          "done": true, "done_reason": "stop", "prompt_eval_count": 9, "eval_count": 2});
        let p = Ollama::parse(&body).unwrap();
        assert_eq!(p.stop_reason.as_deref(), Some("stop"));
        assert_eq!((p.usage.tokens_in, p.usage.tokens_out), (Some(9), Some(2)));
        assert!(Ollama::parse(&json!({"error": "model 'x' not found"})).is_err());
    }
}
