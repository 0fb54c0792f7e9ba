//! Reading a score-partwise document into a [`Score`].
//!
//! Each `<part>` becomes one voice, or one per staff when it has several
//! (named `<part-name> (staff k)`), as in music21 (see [`super::part`] for the walk through its
//! measures and [`super::ties`] for merging tied notes into events). This module
//! handles what spans parts: the root element, title, part names, the score's
//! single meter, key and tempo, the pickup shift, and the declared bar count.

use super::MusicXmlError;
use super::dom::Doc;
use super::part::{PartReading, ScoreFacts};
use super::ties::events_from_notes;
use crate::format::ReadOptions;
use crate::score::{Meter, Score, Time, Voice};
use num_integer::Integer;
use num_traits::{CheckedAdd, CheckedDiv, CheckedSub, Zero};
use std::collections::HashMap;

/// What reading noticed beyond the score itself: skipped notation, merged ties,
/// the pickup shift and anything the model could not hold (as warnings).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadReport {
    /// Human-readable notes on what was skipped, ignored or repaired, with positions.
    pub warnings: Vec<String>,
    /// Pitched grace noteheads left out (they take no notated time; kept only
    /// with [`ReadOptions::grace_notes`]).
    pub grace_notes_skipped: usize,
    /// Pitched grace noteheads kept as grace events.
    pub grace_notes_read: usize,
    /// `<unpitched>` (percussion) noteheads left out.
    pub unpitched_skipped: usize,
    /// Pitched noteheads with a zero `<duration>`, left out.
    pub zero_duration_skipped: usize,
    /// Noteheads joined to the previous same-pitch note by a tie stop.
    pub ties_merged: usize,
    /// Tie stops with no same-pitch note ending where they start (kept as notes).
    pub ties_unmatched: usize,
    /// How far the music was moved so a pickup ends a full first bar.
    pub pickup_shift: Time,
    /// Length of the longest part as notated (sum of its measures), before the shift.
    pub notated_length: Time,
    /// Number of `<measure>` elements in the longest part.
    pub measures: usize,
}

/// Reads a score-partwise MusicXML document.
pub fn read(xml: &str) -> Result<Score, MusicXmlError> {
    read_with_report(xml).map(|(score, _)| score)
}

/// Reads a score-partwise MusicXML document at sounding pitch and reports
/// what was skipped or merged.
pub fn read_with_report(xml: &str) -> Result<(Score, ReadReport), MusicXmlError> {
    read_with(xml, &ReadOptions::default())
}

/// Reads a score-partwise MusicXML document with `opts` (sounding or written
/// pitch for transposing parts) and reports what was skipped or merged.
///
/// Grace notes are skipped unless [`ReadOptions::grace_notes`] asks for them
/// (they take no notated time): the report counts them and its warnings say how
/// many, so a user sees it. Kept, each becomes an event flagged
/// [`Event::grace`](crate::Event::grace) — acciaccatura for `<grace slash="yes"/>`,
/// appoggiatura otherwise — with no duration, at the onset of the note it leads to;
/// `<grace/><chord/>` noteheads are one grace chord; ties on grace notes are
/// ignored. A part without `<divisions>` is timed from its note types, as music21
/// reads such files.
pub fn read_with(xml: &str, opts: &ReadOptions) -> Result<(Score, ReadReport), MusicXmlError> {
    let doc = Doc::parse(xml)?;
    let root = doc.root;
    match doc.node(root).name.as_str() {
        "score-partwise" => {}
        "score-timewise" => {
            return Err(doc.error_at(
                root,
                "score-timewise MusicXML is not supported; convert it to score-partwise \
                 (e.g. with the timepart.xsl stylesheet from the MusicXML distribution)",
            ));
        }
        _ => {
            return Err(doc.error_at(
                root,
                "not a MusicXML score: the root element must be <score-partwise>",
            ));
        }
    }

    let title = doc
        .child(root, "work")
        .and_then(|w| doc.child(w, "work-title"))
        .or_else(|| doc.child(root, "movement-title"))
        .map(|t| doc.node(t).text.clone());

    let mut names: HashMap<&str, &str> = HashMap::new();
    if let Some(list) = doc.child(root, "part-list") {
        for sp in doc.children_named(list, "score-part") {
            if let (Some(id), Some(name)) = (doc.attr(sp, "id"), doc.child(sp, "part-name")) {
                names.entry(id).or_insert(doc.node(name).text.as_str());
            }
        }
    }

    let mut facts = ScoreFacts::default();
    let mut parts = Vec::new();
    for (i, part) in doc.children_named(root, "part").enumerate() {
        let id = doc.attr(part, "id").unwrap_or("").trim();
        let fallback = || {
            if id.is_empty() {
                format!("Part {}", i + 1)
            } else {
                id.to_string()
            }
        };
        let name = match names.get(id) {
            Some(name) if !name.trim().is_empty() => (*name).to_string(),
            Some(_) => {
                let name = fallback();
                facts.report.warnings.push(format!(
                    "{}: part {:?} has an empty <part-name>; named {name:?}",
                    doc.position(part),
                    id
                ));
                name
            }
            None => fallback(),
        };
        let reading = PartReading::read(&doc, part, &mut facts, opts)?;
        parts.push((name, reading));
    }
    let skipped = [
        (
            facts.report.grace_notes_skipped,
            "grace note",
            "grace notes",
            "they take no notated time; kept when grace notes are asked for",
        ),
        (
            facts.report.unpitched_skipped,
            "unpitched (percussion) note",
            "unpitched (percussion) notes",
            "the model holds pitches",
        ),
    ];
    for (count, one, many, why) in skipped {
        if count > 0 {
            let what = crate::counted(count as u64, one, many);
            facts
                .report
                .warnings
                .push(format!("{what} skipped ({why})"));
        }
    }

    let meter = facts.meter.unwrap_or(Meter::COMMON);
    let bar = meter.bar_length();
    let mut report = std::mem::take(&mut facts.report);
    let first_len = parts
        .iter()
        .filter_map(|(_, p)| p.measure_lengths.first().copied())
        .max();
    let shift = match first_len {
        Some(len) if len < bar => bar.checked_sub(&len).ok_or_else(overflow)?,
        _ => Time::zero(),
    };
    report.pickup_shift = shift;
    for (_, p) in &parts {
        report.notated_length = report.notated_length.max(p.total_length);
        report.measures = report.measures.max(p.measure_lengths.len());
    }

    let facts_key = facts.key;
    let mut voices = Vec::with_capacity(parts.len());
    for (name, mut reading) in parts {
        for note in &mut reading.notes {
            note.onset = note.onset.checked_add(&shift).ok_or_else(|| {
                doc.error_at(note.node, "the note's time is too large to represent")
            })?;
        }
        let staves = reading.staves;
        // A signature that states no mode has the score's when their fifths agree
        // (a chorale's lower parts often leave the mode to the soprano's).
        let key = match (reading.key, facts_key) {
            (Some(own), Some(score))
                if !reading.key_mode_stated && own.fifths() == score.fifths() =>
            {
                Some(score)
            }
            (own, _) => own,
        };
        let lists = events_from_notes(&doc, reading.notes, staves, &mut report)?;
        for (k, events) in lists.into_iter().enumerate() {
            let name = if staves > 1 {
                format!("{name} (staff {})", k + 1)
            } else {
                name.clone()
            };
            voices.push(Voice { name, events, key });
        }
    }

    let mut score = Score {
        title,
        key: facts.key,
        meter,
        tempo: facts.tempo,
        bars: None,
        voices,
    };
    let total = shift
        .checked_add(&report.notated_length)
        .ok_or_else(overflow)?;
    let declared = bars_spanned(total, bar).ok_or_else(overflow)?;
    let needed = bars_spanned(score.end(), bar).ok_or_else(overflow)?;
    if declared > needed {
        score.bars = u32::try_from(declared).ok();
    }
    score.fold_part_keys();
    Ok((score, report))
}

/// Whole bars of length `bar` needed to hold `length` (`None` on overflow).
fn bars_spanned(length: Time, bar: Time) -> Option<i64> {
    let bars = length.checked_div(&bar)?;
    Some(Integer::div_ceil(bars.numer(), bars.denom()))
}

/// The error for times too large for exact 64-bit fractions.
fn overflow() -> MusicXmlError {
    MusicXmlError::Invalid {
        line: 1,
        column: 1,
        element: "score-partwise".into(),
        message: "the score's length is too large to represent exactly".into(),
    }
}
