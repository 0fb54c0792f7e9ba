//! Cantus firmi: Fux's own, shipped with the program, and any cantus from a file.
//!
//! The shipped canti come from `data/cantus_firmi.json` (Fux/Mann figure numbers and
//! the MarkGotham/species files they were read from are kept in each entry's
//! `source`). A cantus from a file may be that JSON shape, or a score in any format
//! Cantus reads whose cantus voice (named "Cantus…", or the only voice) gives one
//! note per bar.

use crate::pitch::{Modality, ModeName, Note};
use cantus_music::format::read_path;
use cantus_music::{Pitch, Score};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The shipped cantus firmi (JSON, MIDI numbers).
pub const SHIPPED_JSON: &str = include_str!("../data/cantus_firmi.json");

/// Fewest notes a cantus may have: a start, a penultimate and a final.
pub const MIN_NOTES: usize = 3;

/// A cantus firmus: its notes (one per bar), its modal collection and where it
/// comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cantus {
    pub id: String,
    pub modality: Modality,
    pub notes: Vec<Note>,
    pub source: String,
}

/// Why a cantus could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{origin}: {message}")]
pub struct CantusError {
    /// The file or entry the cantus came from.
    pub origin: String,
    pub message: String,
}

impl CantusError {
    fn new(origin: &str, message: impl Into<String>) -> Self {
        CantusError {
            origin: origin.to_owned(),
            message: message.into(),
        }
    }
}

/// One entry of the cantus JSON.
#[derive(Deserialize)]
struct Entry {
    id: String,
    #[serde(rename = "final", default)]
    final_name: Option<String>,
    #[serde(default)]
    mode: Option<String>,
    cantus: Vec<u8>,
    #[serde(default)]
    length: Option<usize>,
    #[serde(default)]
    source: Option<String>,
}

impl Cantus {
    /// A cantus from a melody (one pitch per bar). The final is the last note; the
    /// collection is `signature` if it holds the melody, else the one nearest the
    /// white keys that does.
    pub fn from_melody(
        id: &str,
        pitches: &[Pitch],
        signature: Option<i32>,
        source: &str,
    ) -> Result<Cantus, CantusError> {
        if pitches.len() < MIN_NOTES {
            return Err(CantusError::new(
                id,
                format!(
                    "a cantus firmus needs at least {MIN_NOTES} notes, this one has {}",
                    pitches.len()
                ),
            ));
        }
        let final_pc = pitches.last().map_or(0, |p| p.pc());
        let pcs: Vec<u8> = pitches.iter().map(|p| p.pc()).collect();
        let modality = Modality::infer(&pcs, final_pc, signature).ok_or_else(|| {
            CantusError::new(
                id,
                "the cantus firmus fits no diatonic collection (too many accidentals)",
            )
        })?;
        if modality.mode().is_none() {
            return Err(CantusError::new(
                id,
                "the cantus firmus ends on the seventh degree of its collection (locrian), not a mode Fux teaches",
            ));
        }
        Ok(Cantus {
            id: id.to_owned(),
            modality,
            notes: pitches.iter().map(|&p| modality.note_of(p)).collect(),
            source: source.to_owned(),
        })
    }

    /// The canti of a JSON text shaped like `data/cantus_firmi.json` (an array of
    /// entries, or one entry).
    pub fn from_json_str(text: &str, origin: &str) -> Result<Vec<Cantus>, CantusError> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| CantusError::new(origin, format!("not JSON: {e}")))?;
        let entries: Vec<Entry> = match value {
            serde_json::Value::Array(_) => serde_json::from_value(value),
            _ => serde_json::from_value(value).map(|e| vec![e]),
        }
        .map_err(|e| CantusError::new(origin, format!("not a cantus entry: {e}")))?;
        entries
            .into_iter()
            .map(|e| Cantus::from_entry(e, origin))
            .collect()
    }

    fn from_entry(e: Entry, origin: &str) -> Result<Cantus, CantusError> {
        let here = format!("{origin} ({})", e.id);
        if let Some(n) = e.length.filter(|&n| n != e.cantus.len()) {
            return Err(CantusError::new(
                &here,
                format!(
                    "`length` says {n} but `cantus` has {} notes",
                    e.cantus.len()
                ),
            ));
        }
        if let Some(bad) = e.cantus.iter().find(|&&m| m > 127) {
            return Err(CantusError::new(
                &here,
                format!("MIDI note {bad} is above 127"),
            ));
        }
        let pitches: Vec<Pitch> = e.cantus.iter().map(|&m| Pitch::new(m)).collect();
        let source = e.source.unwrap_or_else(|| origin.to_owned());
        let cantus = Cantus::from_melody(&e.id, &pitches, None, &source)
            .map_err(|err| CantusError::new(&here, err.message))?;
        let final_letter = cantus.modality.spell(cantus.modality.final_pc).letter;
        if let Some(f) = e.final_name {
            let named = f.trim().chars().next().map(|c| c.to_ascii_uppercase());
            if named != Some(final_letter.as_char()) {
                return Err(CantusError::new(
                    &here,
                    format!(
                        "`final` says {f} but the cantus ends on {}",
                        final_letter.as_char()
                    ),
                ));
            }
        }
        if let Some(m) = e.mode {
            let named = ModeName::parse(&m);
            if named != cantus.mode() {
                return Err(CantusError::new(
                    &here,
                    format!(
                        "`mode` says {m} but the cantus is {}",
                        cantus.mode().map_or("in no mode", ModeName::as_str)
                    ),
                ));
            }
        }
        Ok(cantus)
    }

    /// Every shipped cantus (seven: one per mode, two in C).
    pub fn shipped() -> Vec<Cantus> {
        // The shipped file is tested to parse, so this cannot fail at run time.
        Cantus::from_json_str(SHIPPED_JSON, "data/cantus_firmi.json")
            .expect("the shipped cantus firmi parse")
    }

    /// Fux's cantus in `mode` (for C, the twelve-bar one of Figs. 44–45).
    pub fn fux(mode: ModeName) -> Cantus {
        Cantus::shipped()
            .into_iter()
            .find(|c| c.mode() == Some(mode))
            .expect("every mode has a shipped cantus")
    }

    /// A cantus from a file: `.json` as the shipped data (the first entry), or a
    /// score whose cantus voice gives one note per bar.
    pub fn from_path(path: &Path) -> Result<Cantus, CantusError> {
        let origin = path.display().to_string();
        let is_json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        if is_json {
            let text = std::fs::read_to_string(path)
                .map_err(|e| CantusError::new(&origin, e.to_string()))?;
            return Cantus::from_json_str(&text, &origin)?
                .into_iter()
                .next()
                .ok_or_else(|| CantusError::new(&origin, "the file holds no cantus"));
        }
        let loaded =
            read_path(path, false).map_err(|e| CantusError::new(&origin, e.to_string()))?;
        Cantus::from_score(&loaded.score, &origin)
    }

    /// The cantus voice of a score: the voice named "Cantus…" (any case), else the
    /// only voice with notes. Each note is one bar; chords, overlaps are refused.
    pub fn from_score(score: &Score, origin: &str) -> Result<Cantus, CantusError> {
        let with_notes: Vec<_> = score
            .voices
            .iter()
            .filter(|v| !v.events.is_empty())
            .collect();
        let voice = with_notes
            .iter()
            .find(|v| crate::read::is_cantus_name(&v.name))
            .or(if with_notes.len() == 1 { with_notes.first() } else { None })
            .ok_or_else(|| {
                CantusError::new(
                    origin,
                    format!(
                        "no voice named \"Cantus…\" and {} voices with notes; name the cantus voice \"Cantus\"",
                        with_notes.len()
                    ),
                )
            })?;
        let mut pitches = Vec::new();
        let mut end = None;
        for e in &voice.events {
            let bar = score.bar_of(e.onset);
            let [p] = e.pitches.as_slice() else {
                return Err(CantusError::new(
                    origin,
                    format!("bar {bar}: the cantus has a chord; it must be one line"),
                ));
            };
            if end.is_some_and(|t| e.onset < t) {
                return Err(CantusError::new(
                    origin,
                    format!("bar {bar}: cantus notes overlap"),
                ));
            }
            end = Some(e.end());
            pitches.push(*p);
        }
        let signature = score.key.map(|k| k.fifths());
        Cantus::from_melody(&voice.name, &pitches, signature, origin)
            .map_err(|e| CantusError::new(origin, e.message))
    }

    /// The mode (always present for a read cantus).
    pub fn mode(&self) -> Option<ModeName> {
        self.modality.mode()
    }

    /// Number of bars.
    pub fn len(&self) -> usize {
        self.notes.len()
    }

    /// Whether the cantus has no notes (never, for a read cantus).
    pub fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_canti_parse_with_their_modes() {
        let modes: Vec<Option<ModeName>> = Cantus::shipped().iter().map(Cantus::mode).collect();
        use ModeName::*;
        assert_eq!(
            modes,
            [
                Dorian, Phrygian, Lydian, Mixolydian, Aeolian, Ionian, Ionian
            ]
            .map(Some)
        );
        assert_eq!(Cantus::fux(Ionian).id, "fux-cf-c");
        assert_eq!(Cantus::fux(Phrygian).notes.len(), 10);
    }

    #[test]
    fn bad_entries_name_the_problem() {
        let err = |text: &str| {
            Cantus::from_json_str(text, "x.json")
                .err()
                .map(|e| e.message)
        };
        assert!(
            err(r#"{"id": "a", "cantus": [62, 64]}"#).is_some_and(|m| m.contains("at least 3"))
        );
        assert!(
            err(r#"{"id": "a", "final": "E", "cantus": [62, 64, 62]}"#)
                .is_some_and(|m| m.contains("ends on D"))
        );
        assert!(
            err(r#"{"id": "a", "length": 4, "cantus": [62, 64, 62]}"#)
                .is_some_and(|m| m.contains("length"))
        );
        assert!(
            err(r#"{"id": "a", "cantus": [60, 61, 62, 63, 64, 65, 66, 60]}"#)
                .is_some_and(|m| m.contains("diatonic"))
        );
        assert!(err("[1, 2").is_some_and(|m| m.contains("not JSON")));
    }
}
