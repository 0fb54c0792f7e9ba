//! Reading a `trace.jsonl` leniently, as JSON values.
//!
//! The trace's Rust types (`cantus_framework::trace`) may be versioned, but the
//! JSON lines stay the same: records tagged by `kind` (`run`, `call`, `event`,
//! `section`, `round`, `gate`, `totals`, `timing`). This reader needs only the
//! few fields it uses and ignores the rest, so a trace from any domain — or a
//! newer Cantus — still reads. Event certificates of a section attempt that a
//! replan rolled back are kept but marked, since their events are not in the
//! piece.

use crate::error::{RenderError, Result};
use cantus_music::{Score, Time, time_text};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

/// Most bytes of trace read (a trace is a few hundred bytes per event).
pub const MAX_TRACE_BYTES: u64 = 256 * 1024 * 1024;

/// What became of one candidate event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum EventStatus {
    /// Accepted as proposed.
    Accepted,
    /// Accepted after the named rung's repair.
    Repaired { rung: String },
    /// Dropped when the ladder was exhausted.
    Dropped,
    /// A status this reader does not know.
    Other { name: String },
}

/// One event certificate of the trace.
#[derive(Clone, Debug, Serialize)]
pub struct TraceEvent {
    /// 1-based line in the trace file.
    pub line: usize,
    pub section: u64,
    pub replan: u64,
    /// Whether it stands in the piece: its section attempt was kept (not rolled back
    /// by a replan) and it was not withdrawn with a drop before it in its voice.
    pub kept: bool,
    #[serde(flatten)]
    pub status: EventStatus,
    /// Voice index in the piece, when the record names one (by index or name).
    pub voice: Option<usize>,
    /// The voice's name as the record gives it.
    pub voice_name: Option<String>,
    /// Onset of the event as it ended (accepted, else proposed), in quarters.
    #[serde(with = "option_time")]
    pub onset: Option<Time>,
    /// The whole record, for the trace viewer.
    pub record: Value,
}

/// A trace file read leniently.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TraceView {
    /// The `run` record (domain, proposer, seed, ladder, …); `Null` when absent.
    pub header: Value,
    pub events: Vec<TraceEvent>,
    /// The `gate` record, when the run reached the gate.
    pub gate: Option<Value>,
    /// The `totals` record.
    pub totals: Option<Value>,
}

impl TraceView {
    /// Reads a trace file: every line must be JSON (an error names the line);
    /// records of kinds it does not know are skipped.
    pub fn read(path: &Path) -> Result<TraceView> {
        let size = std::fs::metadata(path)
            .map_err(|e| RenderError::io(path, e))?
            .len();
        if size > MAX_TRACE_BYTES {
            return Err(RenderError::Trace {
                path: path.to_path_buf(),
                line: 0,
                message: format!("{size} bytes; at most {MAX_TRACE_BYTES} are read"),
            });
        }
        let text = std::fs::read_to_string(path).map_err(|e| RenderError::io(path, e))?;
        TraceView::parse(&text).map_err(|(line, message)| RenderError::Trace {
            path: path.to_path_buf(),
            line,
            message,
        })
    }

    /// Parses trace text; `Err((line, why))` for a line that is not JSON.
    pub fn parse(text: &str) -> Result<TraceView, (usize, String)> {
        let mut view = TraceView {
            header: Value::Null,
            ..TraceView::default()
        };
        let mut replanned: BTreeSet<(u64, u64)> = BTreeSet::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let record: Value = serde_json::from_str(line).map_err(|e| (i + 1, e.to_string()))?;
            let kind = record.get("kind").and_then(Value::as_str).unwrap_or("");
            match kind {
                "run" => view.header = record,
                "gate" => view.gate = Some(record),
                "totals" => view.totals = Some(record),
                "section" if record.get("outcome").and_then(Value::as_str) == Some("replanned") => {
                    replanned.insert((number(&record, "section"), number(&record, "replan")));
                }
                "event" => view.events.push(event(i + 1, record)),
                _ => {}
            }
        }
        for e in &mut view.events {
            e.kept &= !replanned.contains(&(e.section, e.replan));
        }
        Ok(view)
    }

    /// The ladder's rung names in order (from the `run` record).
    pub fn ladder(&self) -> Vec<String> {
        self.header
            .get("ladder")
            .and_then(Value::as_array)
            .map(|l| {
                l.iter()
                    .filter_map(|r| r.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Resolves voice names to indices of `score` where a record gave only a name.
    pub fn resolve_voices(&mut self, score: &Score) {
        for e in &mut self.events {
            if e.voice.is_none() {
                e.voice = e.voice_name.as_deref().and_then(|n| score.voice_index(n));
            }
        }
    }
}

fn number(record: &Value, key: &str) -> u64 {
    record.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn event(line: usize, record: Value) -> TraceEvent {
    let status = match record.get("status").and_then(Value::as_str) {
        Some("accepted") => EventStatus::Accepted,
        Some("repaired") => EventStatus::Repaired {
            rung: record
                .get("rung")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_owned(),
        },
        Some("dropped") => EventStatus::Dropped,
        other => EventStatus::Other {
            name: other.unwrap_or("").to_owned(),
        },
    };
    let ended = record
        .get("accepted")
        .filter(|a| !a.is_null())
        .or_else(|| record.get("proposed"));
    let location = record.get("location");
    let voice = ended
        .and_then(|e| e.get("voice"))
        .and_then(Value::as_u64)
        .and_then(|v| usize::try_from(v).ok());
    let voice_name = location
        .and_then(|l| l.get("voice"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let onset = ended
        .and_then(|e| e.get("onset"))
        .or_else(|| location.and_then(|l| l.get("onset")))
        .and_then(time_of);
    TraceEvent {
        line,
        section: number(&record, "section"),
        replan: number(&record, "replan"),
        kept: record.get("withdrawn").and_then(Value::as_bool) != Some(true),
        status,
        voice,
        voice_name,
        onset,
        record,
    }
}

/// A time written as `"7/2"` (or a plain JSON integer).
pub(crate) fn time_of(value: &Value) -> Option<Time> {
    match value {
        Value::String(s) => time_text::parse(s).ok(),
        Value::Number(n) => n.as_i64().map(Time::from_integer),
        _ => None,
    }
}

mod option_time {
    use cantus_music::{Time, time_text};
    use serde::Serializer;

    pub fn serialize<S: Serializer>(t: &Option<Time>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_str(&time_text::format(*t)),
            None => s.serialize_none(),
        }
    }
}
