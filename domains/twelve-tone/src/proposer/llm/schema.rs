//! The JSON-schema alternative to the GBNF grammar, for servers that constrain output
//! with `response_format: json_schema` but take no grammar.
//!
//! The reply is an object with one array per voice, one string per owed note
//! (`{"Soprano": ["E4@1>2", "F5@6>3", …], …}`); each string is held to the same
//! language as the grammar's note (pitch names of the owed pitch class in the
//! register, onset and length inside the note's window) by a `pattern`. The array
//! becomes a voice line again before it is read, so everything downstream is shared.
//! Servers skip keywords they do not know (llama.cpp documents this), so whether the
//! reply honoured the schema is checked here, with the grammar's own [`admits`].

use super::constraint::{DigitClass, admits, number_range, pitch_names};
use super::job::{Job, Owed, VoiceJob};

/// A regex alternative for a digit pattern.
fn digits_regex(alt: &[DigitClass]) -> String {
    alt.iter()
        .map(|&(lo, hi)| {
            if lo == hi {
                char::from(b'0' + lo).to_string()
            } else {
                format!("[{}-{}]", char::from(b'0' + lo), char::from(b'0' + hi))
            }
        })
        .collect()
}

/// `(a|b|…)` for the numbers `lo..=hi`.
fn number_regex(lo: u32, hi: u32) -> String {
    let alts: Vec<String> = number_range(lo, hi)
        .iter()
        .map(|a| digits_regex(a))
        .collect();
    format!("({})", alts.join("|"))
}

/// The pattern of one owed note.
fn note_pattern(voice: &VoiceJob, note: &Owed) -> String {
    let (low, high) = voice.range_of(note);
    let chord: Vec<String> = note
        .pcs
        .iter()
        .map(|&pc| format!("({})", pitch_names(pc, low, high).join("|")))
        .collect();
    let w = note.window;
    format!(
        "^{}@{}>{}$",
        chord.join("\\+"),
        number_regex(w.onset_lo + 1, w.onset_hi + 1),
        number_regex(w.min_len, w.max_len)
    )
}

/// The JSON schema of a job's reply.
pub(crate) fn json_schema(job: &Job) -> serde_json::Value {
    let mut properties = serde_json::Map::new();
    for voice in &job.voices {
        let items: Vec<serde_json::Value> = voice
            .notes
            .iter()
            .map(|n| serde_json::json!({"type": "string", "pattern": note_pattern(voice, n)}))
            .collect();
        let count = items.len();
        properties.insert(
            voice.name.clone(),
            serde_json::json!({
                "type": "array",
                "prefixItems": items,
                "minItems": count,
                "maxItems": count,
            }),
        );
    }
    let required: Vec<&str> = job.voices.iter().map(|v| v.name.as_str()).collect();
    serde_json::json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// The voice lines of a JSON reply (`None` when the text is not such an object).
pub(crate) fn lines_from_json(job: &Job, text: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(text.trim()).ok()?;
    let object = value.as_object()?;
    let mut out = String::new();
    for voice in &job.voices {
        let notes = object.get(&voice.name)?.as_array()?;
        let tokens: Vec<&str> = notes.iter().filter_map(serde_json::Value::as_str).collect();
        out.push_str(&format!("{}: {}\n", voice.name, tokens.join(" ")));
    }
    Some(out)
}

/// Whether a JSON reply is in the schema's language.
pub(crate) fn honoured(job: &Job, text: &str) -> bool {
    lines_from_json(job, text).is_some_and(|lines| admits(job, &lines))
}
