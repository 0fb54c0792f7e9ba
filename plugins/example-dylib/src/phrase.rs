//! What the example plugins answer: one bar in the onset-slot grammar, decided only by
//! the request's `context`, so the same request always gets the same text.
//!
//! Context keys read (all optional; other keys are ignored, a null or missing context
//! gives the fixed default phrase):
//!
//! | key | meaning | default |
//! |---|---|---|
//! | `allowed_pitch_classes` | pitch classes 0–11, used in order, cyclically | `0 11 7 8 3 1 2 10 6 5 4 9` |
//! | `bar` | the bar number written, 1–10000 | 1 |
//! | `meter` | `"num/den"`, each 1–1000 | `"4/4"` |
//! | `grid` | slots per whole note, 1–3840, dividing the bar | 16 |
//! | `voice` | the voice name (letters, digits, space, `-`, `_`) | `"Voice"` |
//! | `octave` | octave of the notes, 0–8 (C4 = MIDI 60) | 4 |
//! | `notes` | how many notes, at most the bar's slots | number of pitch classes |
//!
//! The bar's slots are shared equally: `n` notes of `slots / n` slots each (integer
//! division), starting at slot 1. `plugins/example-subprocess/cantus_example_plugin.py`
//! implements the same rules with the same messages.

use serde_json::{Map, Value, json};

/// The phrase written when the context names no pitch classes: a fixed twelve-tone row.
pub const DEFAULT_PITCH_CLASSES: [u8; 12] = [0, 11, 7, 8, 3, 1, 2, 10, 6, 5, 4, 9];

const SHARP_NAMES: [&str; 12] = [
    "C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B",
];

/// Everything that decides the answer, read from a request's `context`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhraseSpec {
    /// Pitch classes 0–11, used in order, cyclically.
    pub pitch_classes: Vec<u8>,
    /// The bar number written.
    pub bar: u32,
    /// Numerator and denominator of the meter.
    pub meter: (u32, u32),
    /// Slots per whole note.
    pub grid: u32,
    /// The voice's name.
    pub voice: String,
    /// The octave of every note (C4 = MIDI 60).
    pub octave: u8,
    /// How many notes share the bar.
    pub notes: u32,
}

/// A whole number in `lo..=hi` at `context.key`, or `default` when absent.
fn whole(
    ctx: &Map<String, Value>,
    key: &str,
    lo: u64,
    hi: u64,
    default: u64,
) -> Result<u64, String> {
    match ctx.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => match v.as_u64() {
            Some(n) if (lo..=hi).contains(&n) => Ok(n),
            _ => Err(format!(
                "context.{key} must be a whole number from {lo} to {hi}, got {v}"
            )),
        },
    }
}

/// Reads the phrase settings from `context` (see the module docs).
pub fn spec_from_context(context: &Value) -> Result<PhraseSpec, String> {
    let empty = Map::new();
    let ctx = match context {
        Value::Null => &empty,
        Value::Object(map) => map,
        other => return Err(format!("context must be a JSON object, got {other}")),
    };
    let pitch_classes = match ctx.get("allowed_pitch_classes") {
        None | Some(Value::Null) => DEFAULT_PITCH_CLASSES.to_vec(),
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .enumerate()
            .map(|(i, v)| match v.as_u64() {
                Some(pc) if pc < 12 => Ok(pc as u8),
                _ => Err(format!(
                    "context.allowed_pitch_classes[{i}] must be a pitch class from 0 to 11, got {v}"
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(v) => {
            return Err(format!(
                "context.allowed_pitch_classes must be a non-empty list, got {v}"
            ));
        }
    };
    let bar = whole(ctx, "bar", 1, 10_000, 1)? as u32;
    let meter = match ctx.get("meter") {
        None | Some(Value::Null) => (4, 4),
        Some(v) => parse_meter(v).ok_or_else(|| {
            format!("context.meter must be \"num/den\" with each from 1 to 1000, got {v}")
        })?,
    };
    let grid = whole(ctx, "grid", 1, 3840, 16)? as u32;
    if (u64::from(grid) * u64::from(meter.0)) % u64::from(meter.1) != 0 {
        return Err(format!(
            "context.grid {grid} does not divide a bar of {}/{} into whole slots",
            meter.0, meter.1
        ));
    }
    let voice = match ctx.get("voice") {
        None | Some(Value::Null) => "Voice".to_string(),
        Some(Value::String(s)) if valid_voice(s) => s.clone(),
        Some(v) => {
            return Err(format!(
                "context.voice must be a name of letters, digits, spaces, `-` or `_`, got {v}"
            ));
        }
    };
    let octave = whole(ctx, "octave", 0, 8, 4)? as u8;
    let slots = u64::from(grid) * u64::from(meter.0) / u64::from(meter.1);
    let notes = whole(ctx, "notes", 1, slots, pitch_classes.len() as u64)
        .map_err(|e| format!("{e} (the bar has {slots} slots)"))? as u32;
    Ok(PhraseSpec {
        pitch_classes,
        bar,
        meter,
        grid,
        voice,
        octave,
        notes,
    })
}

fn parse_meter(v: &Value) -> Option<(u32, u32)> {
    let (num, den) = v.as_str()?.split_once('/')?;
    let ok = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u32>().ok())
            .flatten()
            .filter(|n| (1..=1000).contains(n))
    };
    Some((ok(num)?, ok(den)?))
}

fn valid_voice(s: &str) -> bool {
    !s.trim().is_empty()
        && s.trim() == s
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '-' | '_'))
}

/// The grammar text of the phrase: header, `VOICES:`, one bar.
pub fn write(spec: &PhraseSpec) -> String {
    let (num, den) = spec.meter;
    let slots = spec.grid * num / den;
    let each = slots / spec.notes.max(1);
    let tokens: Vec<String> = (0..spec.notes)
        .map(|i| {
            let pcs = &spec.pitch_classes;
            let pc = pcs.get(i as usize % pcs.len().max(1)).copied().unwrap_or(0);
            let name = SHARP_NAMES[usize::from(pc % 12)];
            format!("{name}{}@{}>{each}", spec.octave, 1 + i * each)
        })
        .collect();
    format!(
        "KEY: ? | METER: {num}/{den} | TEMPO: ? | GRID: {} | BARS: {}\nVOICES: {}\n@{} [-]\n  {}: {}\n",
        spec.grid,
        spec.bar,
        spec.voice,
        spec.bar,
        spec.voice,
        tokens.join(" ")
    )
}

/// The reply JSON to a request JSON: `{"text", "model", "stop_reason"}`, or why the
/// request's context cannot be used.
pub fn answer(request: &Value) -> Result<Value, String> {
    let context = request.get("context").unwrap_or(&Value::Null);
    let spec = spec_from_context(context)?;
    Ok(json!({
        "text": write(&spec),
        "model": "example-serial",
        "stop_reason": "stop",
    }))
}
