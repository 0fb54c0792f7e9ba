//! Reading the twelve-tone proposer's structured `context` (what
//! `domains/twelve-tone/src/proposer/llm/mod.rs` sends as `context_json`) into a
//! [`Job`], refusing anything unusable with a message that names the key.
//!
//! The messages are part of the example's contract: the Python plugin
//! (`plugins/example-subprocess/cantus_example_plugin.py`) refuses the same contexts
//! with the same words, and a test compares them.

use serde_json::{Map, Value};

/// Most slots a section may hold (the twelve-tone proposer's own limit).
pub const MAX_SLOTS: u64 = 4096;

/// One request of the twelve-tone proposer: a section (slots counted from 1) and
/// what each voice owes in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// `section`, `patch` or `rewrite`.
    pub request: String,
    /// Slots in the section; notes may sound up to the end of slot `slots`.
    pub slots: u32,
    /// The voices asked for, in the order their lines are written.
    pub voices: Vec<VoiceJob>,
}

/// One voice's part of a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VoiceJob {
    /// The name its line starts with.
    pub name: String,
    /// Its index in the piece: a lower index is an upper voice.
    pub voice: u32,
    /// Lowest MIDI pitch it may sound.
    pub low: u8,
    /// Highest MIDI pitch it may sound.
    pub high: u8,
    /// The lowest pitch of its last accepted note, if any (`previous_pitch`).
    pub previous: Option<u8>,
    /// The notes it owes, in order.
    pub notes: Vec<OwedNote>,
}

/// One note a voice owes: its pitch classes (several make a chord) and where it may sit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwedNote {
    /// Pitch classes 0–11, all sounded at once.
    pub pcs: Vec<u8>,
    /// Earliest onset slot (1-based).
    pub onset_lo: u32,
    /// Latest onset slot (1-based).
    pub onset_hi: u32,
    /// Longest length in slots.
    pub max_length: u32,
}

/// A JSON value as text, for messages.
fn show(v: &Value) -> String {
    v.to_string()
}

/// `v` as a whole number in `lo..=hi`, or a message naming `at`.
fn whole(v: Option<&Value>, at: &str, lo: u64, hi: u64) -> Result<u64, String> {
    match v.and_then(Value::as_u64) {
        Some(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(format!(
            "{at} must be a whole number from {lo} to {hi}, got {}",
            v.map_or_else(|| "nothing".to_string(), show)
        )),
    }
}

/// `v` as a pair of whole numbers in `lo..=hi`, the first not above the second.
fn pair(v: Option<&Value>, at: &str, lo: u64, hi: u64) -> Result<(u64, u64), String> {
    let bad = || {
        format!(
            "{at} must be [low, high], whole numbers from {lo} to {hi} with low <= high, got {}",
            v.map_or_else(|| "nothing".to_string(), show)
        )
    };
    match v {
        Some(Value::Array(items)) if items.len() == 2 => {
            let a = items[0].as_u64().filter(|n| (lo..=hi).contains(n));
            let b = items[1].as_u64().filter(|n| (lo..=hi).contains(n));
            match (a, b) {
                (Some(a), Some(b)) if a <= b => Ok((a, b)),
                _ => Err(bad()),
            }
        }
        _ => Err(bad()),
    }
}

/// Whether `s` is a voice name the grammar reads back.
pub fn valid_voice(s: &str) -> bool {
    !s.trim().is_empty()
        && s.trim() == s
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '-' | '_'))
}

fn note(v: &Value, at: &str, slots: u64) -> Result<OwedNote, String> {
    let Value::Object(n) = v else {
        return Err(format!("{at} must be a JSON object, got {}", show(v)));
    };
    let pcs = match n.get("pcs") {
        Some(Value::Array(items)) if !items.is_empty() => {
            let mut pcs: Vec<u8> = Vec::with_capacity(items.len());
            for (k, item) in items.iter().enumerate() {
                let pc = whole(Some(item), &format!("{at}.pcs[{k}]"), 0, 11)? as u8;
                if pcs.contains(&pc) {
                    return Err(format!("{at}.pcs names pitch class {pc} twice"));
                }
                pcs.push(pc);
            }
            pcs
        }
        other => {
            return Err(format!(
                "{at}.pcs must be a non-empty list of pitch classes, got {}",
                other.map_or_else(|| "nothing".to_string(), show)
            ));
        }
    };
    let (lo, hi) = pair(n.get("onset_slots"), &format!("{at}.onset_slots"), 1, slots)?;
    let max_length = whole(n.get("max_length"), &format!("{at}.max_length"), 1, slots)?;
    Ok(OwedNote {
        pcs,
        onset_lo: lo as u32,
        onset_hi: hi as u32,
        max_length: max_length as u32,
    })
}

fn voice(v: &Value, at: &str, slots: u64) -> Result<VoiceJob, String> {
    let Value::Object(map) = v else {
        return Err(format!("{at} must be a JSON object, got {}", show(v)));
    };
    let name = match map.get("name") {
        Some(Value::String(s)) if valid_voice(s) => s.clone(),
        other => {
            return Err(format!(
                "{at}.name must be a name of letters, digits, spaces, `-` or `_`, got {}",
                other.map_or_else(|| "nothing".to_string(), show)
            ));
        }
    };
    let index = whole(map.get("voice"), &format!("{at}.voice"), 0, 999)? as u32;
    let (low, high) = pair(map.get("register"), &format!("{at}.register"), 0, 127)?;
    let previous = match map.get("previous_pitch") {
        None | Some(Value::Null) => None,
        v => Some(whole(v, &format!("{at}.previous_pitch"), 0, 127)? as u8),
    };
    let notes = match map.get("notes") {
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(j, n)| note(n, &format!("{at}.notes[{j}]"), slots))
            .collect::<Result<Vec<_>, _>>()?,
        other => {
            return Err(format!(
                "{at}.notes must be a list, got {}",
                other.map_or_else(|| "nothing".to_string(), show)
            ));
        }
    };
    Ok(VoiceJob {
        name,
        voice: index,
        low: low as u8,
        high: high as u8,
        previous,
        notes,
    })
}

/// The planner's advice for a note (`context.plan`, sent when a voice is held to the
/// rules only): its voice, tag, onset slot and length. Entries it cannot read are
/// passed over — advice, unlike the windows, is not part of the contract.
fn advice(ctx: &Map<String, Value>) -> Vec<(u64, String, u64, u64)> {
    let Some(Value::Array(items)) = ctx.get("plan") else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|e| {
            Some((
                e.get("voice")?.as_u64()?,
                e.get("tag")?.as_str()?.to_string(),
                e.get("onset_slot")?.as_u64()?,
                e.get("length")?.as_u64()?,
            ))
        })
        .collect()
}

/// Rule 0 of the module docs: a note the plan advises keeps to the plan's onset and
/// length, where its window allows them.
fn follow_advice(voice: &mut VoiceJob, tags: &[Option<String>], plan: &[(u64, String, u64, u64)]) {
    for (note, tag) in voice.notes.iter_mut().zip(tags) {
        let advised = plan
            .iter()
            .find(|(v, t, ..)| *v == u64::from(voice.voice) && Some(t) == tag.as_ref());
        if let Some(&(_, _, onset, length)) = advised {
            let onset = u32::try_from(onset).unwrap_or(u32::MAX);
            if (note.onset_lo..=note.onset_hi).contains(&onset) {
                note.onset_lo = onset;
                note.onset_hi = onset;
                note.max_length = note
                    .max_length
                    .min(u32::try_from(length).unwrap_or(u32::MAX).max(1));
            }
        }
    }
}

/// Reads a context whose `domain` is `"twelve-tone"` (see the module docs).
pub fn job_from_context(ctx: &Map<String, Value>) -> Result<Job, String> {
    let request = match ctx.get("request").and_then(Value::as_str) {
        Some(r @ ("section" | "patch" | "rewrite")) => r.to_string(),
        Some("whole") => {
            return Err(
                "context.request \"whole\" names no voices or row positions; this plugin \
                 answers section, patch and rewrite requests"
                    .to_string(),
            );
        }
        _ => {
            return Err(format!(
                "context.request must be \"section\", \"patch\" or \"rewrite\", got {}",
                ctx.get("request")
                    .map_or_else(|| "nothing".to_string(), show)
            ));
        }
    };
    let slots = whole(ctx.get("slots"), "context.slots", 1, MAX_SLOTS)?;
    let plan = advice(ctx);
    let voices = match ctx.get("voices") {
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let mut job = voice(v, &format!("context.voices[{i}]"), slots)?;
                let tags: Vec<Option<String>> = v
                    .get("notes")
                    .and_then(Value::as_array)
                    .map(|notes| {
                        notes
                            .iter()
                            .map(|n| n.get("tag").and_then(Value::as_str).map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                follow_advice(&mut job, &tags, &plan);
                Ok(job)
            })
            .collect::<Result<Vec<_>, String>>()?,
        other => {
            return Err(format!(
                "context.voices must be a non-empty list, got {}",
                other.map_or_else(|| "nothing".to_string(), show)
            ));
        }
    };
    Ok(Job {
        request,
        slots: slots as u32,
        voices,
    })
}
