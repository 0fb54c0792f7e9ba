//! Turning a plugin's reply JSON into a [`ModelReply`], the same way for both plugin
//! kinds: `text` is required, every other field of `ModelReply` is optional; the host
//! measures the latency itself and names the plugin as the model when it did not.

use cantus_framework::{ModelError, ModelReply};
use std::time::Instant;

/// Reads `value` as a reply of plugin `name` to a call begun at `started`.
pub(crate) fn reply_from_json(
    value: serde_json::Value,
    name: &str,
    started: Instant,
) -> Result<ModelReply, ModelError> {
    let mut reply: ModelReply = serde_json::from_value(value).map_err(|e| {
        ModelError::Plugin(format!(
            "plugin `{name}` answered JSON that is not a reply ({e}); a reply needs at least {{\"text\": \"…\"}}"
        ))
    })?;
    reply.latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    if reply.model.is_none() {
        reply.model = Some(name.to_string());
    }
    Ok(reply)
}
