//! The OpenAI-compatible chat completions API (`POST {base_url}/chat/completions`):
//! OpenAI itself, vLLM, llama.cpp's `llama-server`, Ollama's `/v1`, and the many
//! hosted endpoints that copy it.
//!
//! Constraints go in the field of the configured [`ConstraintDialect`](crate::ConstraintDialect)
//! (`[backend] constraint`, default llama.cpp's `grammar` / `response_format`); see
//! [`crate::dialect`] for each server's fields. A request carries at most one
//! constraint, so a grammar and a schema are never sent together.
//!
//! Cached prompt tokens are read from `usage.prompt_tokens_details.cached_tokens`
//! (OpenAI; vLLM with `--enable-prompt-tokens-details`; SGLang with
//! `--enable-cache-report`; llama.cpp) or llama.cpp's `timings.cache_n`.

use crate::lenient;
use crate::registry::BackendFactory;
use crate::secret::ApiKey;
use crate::wire::{Parsed, Settings, WireFormat, join};
use cantus_framework::{ConstraintUse, ModelError, ModelRequest};
use serde_json::{Map, Value, json};

/// The OpenAI chat completions wire format (kind `openai`).
pub struct OpenAi;

/// A backend speaking the OpenAI chat completions API.
pub type OpenAiBackend = crate::wire::HttpBackend<OpenAi>;

inventory::submit! {
    BackendFactory::new(
        "openai",
        env!("CARGO_PKG_VERSION"),
        "OpenAI-compatible chat completions (OpenAI, vLLM, llama.cpp, Ollama /v1)",
        crate::wire::build::<OpenAi>,
    )
}

impl WireFormat for OpenAi {
    const KIND: &'static str = "openai";

    fn endpoint(base: &reqwest::Url) -> Result<reqwest::Url, ModelError> {
        join(base, "chat/completions")
    }

    fn headers(key: Option<&ApiKey>) -> Vec<(&'static str, String)> {
        key.map(|k| vec![("authorization", format!("Bearer {}", k.expose()))])
            .unwrap_or_default()
    }

    fn body(request: &ModelRequest, settings: &Settings) -> (Value, ConstraintUse) {
        let (temperature, seed, max_tokens) = settings.sampling(request);
        let mut body = Map::new();
        body.insert("model".into(), json!(settings.model));
        body.insert("messages".into(), json!(request.messages));
        body.insert("stream".into(), json!(false));
        if let Some(t) = temperature {
            body.insert("temperature".into(), json!(t));
        }
        if let Some(s) = seed {
            body.insert("seed".into(), json!(s));
        }
        if let Some(n) = max_tokens {
            body.insert("max_tokens".into(), json!(n));
        }
        let used = settings
            .constraint
            .place(request.constraint.as_ref(), &mut body);
        (Value::Object(body), used)
    }

    fn parse(body: &Value) -> Result<Parsed, ModelError> {
        let choice = body.pointer("/choices/0");
        let text = choice.and_then(|c| {
            c.pointer("/message/content")
                .and_then(lenient::text_of)
                .or_else(|| c.get("text").and_then(lenient::text_of))
        });
        let Some(text) = text else {
            if let Some(e) = lenient::embedded_error(body) {
                return Err(e);
            }
            return Err(lenient::missing("choices[0].message.content", body));
        };
        Ok(Parsed {
            text,
            usage: lenient::usage(
                body,
                &["/usage/prompt_tokens", "/usage/input_tokens"],
                &["/usage/completion_tokens", "/usage/output_tokens"],
                &[
                    "/usage/prompt_tokens_details/cached_tokens",
                    "/usage/input_tokens_details/cached_tokens",
                    "/timings/cache_n",
                ],
            ),
            stop_reason: lenient::str_at(
                body,
                &[
                    "/choices/0/finish_reason",
                    "/choices/0/stop_reason",
                    "/stop_reason",
                ],
            ),
            model: lenient::str_at(body, &["/model"]),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cantus_framework::{Constraint, Message};

    fn settings() -> Settings {
        Settings {
            model: "m".into(),
            temperature: Some(0.2),
            seed: Some(7),
            max_tokens: Some(64),
            constraint: crate::ConstraintDialect::default(),
        }
    }

    #[test]
    fn grammar_and_schema_are_never_sent_together() {
        let mut request = ModelRequest::new(vec![Message::user("hi")]);
        request.constraint = Some(Constraint::Gbnf("root ::= \"yes\"".into()));
        let (body, used) = OpenAi::body(&request, &settings());
        assert_eq!(used, ConstraintUse::Sent);
        assert_eq!(body["grammar"], "root ::= \"yes\"");
        assert!(body.get("response_format").is_none());

        request.constraint = Some(Constraint::JsonSchema(
            json!({"title": "Row form!", "type": "object"}),
        ));
        let (body, used) = OpenAi::body(&request, &settings());
        assert_eq!(used, ConstraintUse::Sent);
        assert!(body.get("grammar").is_none());
        assert_eq!(body["response_format"]["type"], "json_schema");
        assert_eq!(body["response_format"]["json_schema"]["name"], "Rowform");
        assert_eq!(body["response_format"]["json_schema"]["strict"], true);
    }

    #[test]
    fn request_sampling_overrides_the_config() {
        let mut request = ModelRequest::new(vec![Message::system("s"), Message::user("u")]);
        request.sampling.temperature = Some(0.0);
        let (body, used) = OpenAi::body(&request, &settings());
        assert_eq!(used, ConstraintUse::NotRequested);
        assert_eq!(body["temperature"], 0.0);
        assert_eq!(body["seed"], 7);
        assert_eq!(body["max_tokens"], 64);
        assert_eq!(body["messages"][0]["role"], "system");
    }

    #[test]
    fn parses_leniently() {
        let full = json!({
            "model": "smollm2",
            "choices": [{"message": {"role": "assistant", "content": [{"type": "text", "text": "yes"}]},
                          "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 1},
            "timings": {"whatever": 1}
        });
        let p = OpenAi::parse(&full).unwrap();
        assert_eq!(
            (p.text.as_str(), p.stop_reason.as_deref()),
            ("yes", Some("stop"))
        );
        assert_eq!((p.usage.tokens_in, p.usage.tokens_out), (Some(12), Some(1)));
        let bare = json!({"choices": [{"text": "legacy", "stop_reason": "length"}]});
        let p = OpenAi::parse(&bare).unwrap();
        assert_eq!(
            (p.text.as_str(), p.stop_reason.as_deref()),
            ("legacy", Some("length"))
        );
        assert_eq!(p.usage.tokens_in, None);
        let err = OpenAi::parse(&json!({"choices": []})).unwrap_err();
        assert!(
            err.to_string().contains("choices[0].message.content"),
            "{err}"
        );
    }
}
