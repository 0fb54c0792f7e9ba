//! Reading replies the way servers actually write them.
//!
//! OpenAI, vLLM, llama.cpp, Ollama and Anthropic agree on little beyond "JSON": content
//! may be a string or an array of parts, usage may be missing or named differently,
//! the stop reason is `finish_reason`, `stop_reason` or `done_reason`, and every server
//! adds fields of its own. These helpers look in each known place and ignore the rest.

use cantus_framework::{ModelError, Usage};
use serde_json::Value;

/// The text of a content value: a string; an array of parts (`{"type": "text", "text":
/// …}` or plain strings), joined; or an object with `text`. `None` when there is none.
pub fn text_of(content: &Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter(|p| {
                    p.get("type")
                        .and_then(Value::as_str)
                        .is_none_or(|t| matches!(t, "text" | "output_text"))
                })
                .filter_map(|p| p.as_str().or_else(|| p.get("text").and_then(Value::as_str)))
                .collect();
            (!texts.is_empty()).then(|| texts.concat())
        }
        Value::Object(o) => o.get("text").and_then(Value::as_str).map(str::to_string),
        _ => None,
    }
}

/// The first of `pointers` (JSON pointers) that holds a string.
pub fn str_at(body: &Value, pointers: &[&str]) -> Option<String> {
    pointers
        .iter()
        .filter_map(|p| body.pointer(p))
        .find_map(|v| v.as_str().filter(|s| !s.is_empty()).map(str::to_string))
}

/// The first of `pointers` that holds a non-negative integer (or a string of one).
pub fn count_at(body: &Value, pointers: &[&str]) -> Option<u64> {
    pointers
        .iter()
        .filter_map(|p| body.pointer(p))
        .find_map(|v| {
            v.as_u64()
                .or_else(|| {
                    v.as_f64()
                        .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                        .map(|f| f as u64)
                })
                .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
        })
}

/// Token counts under any of the names servers use.
pub fn usage(body: &Value, tokens_in: &[&str], tokens_out: &[&str], cached: &[&str]) -> Usage {
    Usage {
        tokens_in: count_at(body, tokens_in),
        tokens_out: count_at(body, tokens_out),
        tokens_cached: count_at(body, cached),
    }
}

/// A success status whose body is an error object (some proxies do this), as a
/// [`ModelError::BadReply`] quoting the server's message.
pub fn embedded_error(body: &Value) -> Option<ModelError> {
    let error = body.get("error").filter(|e| !e.is_null())?;
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| error.as_str())
        .unwrap_or("(no message)");
    Some(ModelError::BadReply(format!(
        "the server answered with an error: {}",
        crate::http::excerpt(message)
    )))
}

/// A [`ModelError::BadReply`] saying what was missing and how the body began.
pub fn missing(what: &str, body: &Value) -> ModelError {
    ModelError::BadReply(format!(
        "no {what} in the reply; it begins: {}",
        crate::http::excerpt(&body.to_string())
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_as_string_parts_or_object() {
        assert_eq!(text_of(&json!("C4@0>1")), Some("C4@0>1".into()));
        assert_eq!(
            text_of(&json!([{"type": "text", "text": "a"}, {"type": "image"}, {"text": "b"}, "c"])),
            Some("abc".into())
        );
        assert_eq!(text_of(&json!({"text": "x"})), Some("x".into()));
        assert_eq!(text_of(&Value::Null), None);
        assert_eq!(text_of(&json!([])), None);
    }

    #[test]
    fn counts_accept_numbers_and_numeric_strings() {
        let body = json!({"usage": {"a": 3, "b": "4", "c": 2.0, "d": -1}});
        assert_eq!(count_at(&body, &["/usage/x", "/usage/a"]), Some(3));
        assert_eq!(count_at(&body, &["/usage/b"]), Some(4));
        assert_eq!(count_at(&body, &["/usage/c"]), Some(2));
        assert_eq!(count_at(&body, &["/usage/d"]), None);
    }

    #[test]
    fn error_objects_in_success_bodies_are_reported() {
        let e = embedded_error(&json!({"error": {"message": "context too long"}})).unwrap();
        assert!(e.to_string().contains("context too long"));
        assert!(embedded_error(&json!({"error": null, "choices": []})).is_none());
    }
}
