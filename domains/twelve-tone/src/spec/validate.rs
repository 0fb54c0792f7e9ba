//! The limits a spec must respect, checked in one pass, and the error that names the
//! offending field (and, for a file, where it is).
//!
//! The limits are the ones documented on [`Spec`]'s fields. Two are judgement calls,
//! recorded here so they can be argued with:
//!
//! * a voice's register must span at least 11 semitones (`high − low ≥ 11`), so the
//!   voice can sound every pitch class and can carry a row on its own;
//! * a voice follows at most one canon (it cannot imitate two leaders at once), and a
//!   canon's delay is at least one bar and shorter than the piece.

use std::collections::HashSet;
use std::fmt;

use num_rational::Ratio;

use super::defaults::{MAX_BARS, MAX_VOICES, TEMPO_RANGE};
use super::{Repetition, RowChoice, Spec, Technique};
use crate::row::Row;

/// Why a spec is not acceptable: the field, the reason and, when the spec came from
/// a file, the file name, line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    /// The file (or other source) the spec was read from, if any.
    pub source_name: Option<String>,
    /// 1-based line of the offending text, if known.
    pub line: Option<usize>,
    /// 1-based character column of the offending text, if known.
    pub column: Option<usize>,
    /// The field path, e.g. `voices[1].low` or `techniques[0].follower`, if known.
    pub field: Option<String>,
    /// What is wrong, in words.
    pub message: String,
}

impl SpecError {
    /// An error about `field` with no location yet.
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> SpecError {
        SpecError {
            source_name: None,
            line: None,
            column: None,
            field: Some(field.into()),
            message: message.into(),
        }
    }
}

impl fmt::Display for SpecError {
    /// ``webern-trio.toml:14:7: field `voices[1].low`: …`` (parts that are unknown are left out).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(source) = &self.source_name {
            write!(f, "{source}")?;
            if let Some(line) = self.line {
                write!(f, ":{line}")?;
                if let Some(column) = self.column {
                    write!(f, ":{column}")?;
                }
            }
            f.write_str(": ")?;
        }
        if let Some(field) = &self.field {
            write!(f, "field `{field}`: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for SpecError {}

/// Checks every documented limit; the first violation found is returned.
pub(super) fn validate(spec: &Spec) -> Result<(), SpecError> {
    check_scalars(spec)?;
    check_row(&spec.row)?;
    check_voices(spec)?;
    check_texture(spec)?;
    check_techniques(spec)?;
    check_repetition(spec.repetition)
}

fn check_scalars(spec: &Spec) -> Result<(), SpecError> {
    if let Some(title) = &spec.title {
        if title.trim().is_empty() {
            return Err(SpecError::field(
                "title",
                "the title is blank; leave it out instead",
            ));
        }
        if title.chars().count() > 200 {
            return Err(SpecError::field(
                "title",
                "the title is longer than 200 characters",
            ));
        }
    }
    if spec.bars == 0 {
        return Err(SpecError::field("bars", "a piece needs at least 1 bar"));
    }
    if spec.bars > MAX_BARS {
        return Err(SpecError::field(
            "bars",
            format!("{} bars is too long: at most {MAX_BARS}", spec.bars),
        ));
    }
    let meter = spec.meter;
    if !(1..=32).contains(&meter.num) {
        return Err(SpecError::field(
            "meter",
            format!("meter {meter}: the number of beats must be 1..=32"),
        ));
    }
    if !(meter.den.is_power_of_two() && meter.den <= 64) {
        return Err(SpecError::field(
            "meter",
            format!(
                "meter {meter}: the beat unit must be a power of two (1, 2, 4, 8, 16, 32 or 64)"
            ),
        ));
    }
    if !TEMPO_RANGE.contains(&spec.tempo) {
        return Err(SpecError::field(
            "tempo",
            format!(
                "tempo {} bpm is out of range: {}..={} bpm",
                spec.tempo,
                TEMPO_RANGE.start(),
                TEMPO_RANGE.end()
            ),
        ));
    }
    if spec.max_crossing < Ratio::from_integer(0) || spec.max_crossing > Ratio::from_integer(1) {
        return Err(SpecError::field(
            "max_crossing",
            format!(
                "{} is not a fraction of the piece: it must be 0..=1",
                super::text::format_fraction(spec.max_crossing)
            ),
        ));
    }
    if spec.section_bars == 0 || spec.section_bars > spec.bars {
        return Err(SpecError::field(
            "section_bars",
            format!(
                "sections of {} bars do not fit a {}-bar piece: use 1..={}",
                spec.section_bars, spec.bars, spec.bars
            ),
        ));
    }
    Ok(())
}

fn check_row(row: &RowChoice) -> Result<(), SpecError> {
    let field = match row {
        RowChoice::Explicit { .. } => "row.pcs",
        RowChoice::Historical { .. } => "row.id",
        RowChoice::AllInterval { .. } | RowChoice::Default => "row",
    };
    if let RowChoice::Explicit { pcs } = row {
        return Row::new(pcs)
            .map(|_| ())
            .map_err(|e| SpecError::field(field, e.to_string()));
    }
    row.to_row()
        .map(|_| ())
        .map_err(|e| SpecError::field(field, e.to_string()))
}

fn check_voices(spec: &Spec) -> Result<(), SpecError> {
    let count = spec.voices.len();
    if count == 0 {
        return Err(SpecError::field("voices", "a piece needs at least 1 voice"));
    }
    if count > MAX_VOICES {
        return Err(SpecError::field(
            "voices",
            format!("{count} voices is too many: at most {MAX_VOICES} voices"),
        ));
    }
    let mut names = HashSet::new();
    for (i, voice) in spec.voices.iter().enumerate() {
        let at = |leaf: &str| format!("voices[{i}].{leaf}");
        if voice.name.trim().is_empty() {
            return Err(SpecError::field(at("name"), "the voice has no name"));
        }
        if !names.insert(voice.name.trim().to_lowercase()) {
            return Err(SpecError::field(
                at("name"),
                format!("two voices are named {:?}; names must differ", voice.name),
            ));
        }
        if voice.high > 127 {
            return Err(SpecError::field(
                at("high"),
                format!("{} is above the highest MIDI pitch, 127", voice.high),
            ));
        }
        if voice.low >= voice.high {
            return Err(SpecError::field(
                at("low"),
                format!(
                    "register inverted: low {} is not below high {}",
                    voice.low, voice.high
                ),
            ));
        }
        if voice.high - voice.low < 11 {
            return Err(SpecError::field(
                at("high"),
                format!(
                    "register {}..={} spans {} semitones; a voice needs at least 11 to sound every pitch class",
                    voice.low,
                    voice.high,
                    voice.high - voice.low
                ),
            ));
        }
    }
    Ok(())
}

fn check_texture(spec: &Spec) -> Result<(), SpecError> {
    let t = spec.texture;
    if !(1..=4).contains(&t.max_chord) {
        return Err(SpecError::field(
            "texture.max_chord",
            format!("{} pitches per event is out of range: 1..=4", t.max_chord),
        ));
    }
    if !(1..=12).contains(&t.max_sounding) {
        return Err(SpecError::field(
            "texture.max_sounding",
            format!(
                "{} pitches sounding at once is out of range: 1..=12",
                t.max_sounding
            ),
        ));
    }
    if t.max_sounding < t.max_chord {
        return Err(SpecError::field(
            "texture.max_sounding",
            format!(
                "at most {} pitches sounding at once cannot hold a {}-pitch chord (max_chord)",
                t.max_sounding, t.max_chord
            ),
        ));
    }
    Ok(())
}

fn check_techniques(spec: &Spec) -> Result<(), SpecError> {
    let count = spec.voices.len();
    let mut followers: Vec<(usize, usize)> = Vec::new(); // (follower, technique index)
    let mut contrast_seen = false;
    for (i, technique) in spec.techniques.iter().enumerate() {
        let at = |leaf: &str| format!("techniques[{i}].{leaf}");
        match *technique {
            Technique::Canon {
                leader,
                follower,
                delay_bars,
                ..
            }
            | Technique::InversionCanon {
                leader,
                follower,
                delay_bars,
                ..
            } => {
                if count < 2 {
                    return Err(SpecError::field(
                        format!("techniques[{i}]"),
                        "a canon needs at least 2 voices; the piece has 1",
                    ));
                }
                for (leaf, index) in [("leader", leader), ("follower", follower)] {
                    if index >= count {
                        return Err(SpecError::field(
                            at(leaf),
                            format!(
                                "there is no voice {index}: voices are numbered 0..={}",
                                count - 1
                            ),
                        ));
                    }
                }
                if leader == follower {
                    return Err(SpecError::field(
                        at("follower"),
                        format!(
                            "{} cannot be in canon with itself",
                            voice_label(spec, leader)
                        ),
                    ));
                }
                if let Some(&(_, other)) = followers.iter().find(|(f, _)| *f == follower) {
                    return Err(SpecError::field(
                        at("follower"),
                        format!(
                            "{} already follows another canon (techniques[{other}]); a voice follows at most one canon",
                            voice_label(spec, follower)
                        ),
                    ));
                }
                followers.push((follower, i));
                if delay_bars == 0 {
                    return Err(SpecError::field(
                        at("delay_bars"),
                        "a canon's delay must be at least 1 bar",
                    ));
                }
                if delay_bars >= spec.bars {
                    return Err(SpecError::field(
                        at("delay_bars"),
                        format!(
                            "a canon delayed by {delay_bars} bars does not fit a {}-bar piece",
                            spec.bars
                        ),
                    ));
                }
                check_canon_pitch(technique, &at)?;
            }
            Technique::RegisterContrast { .. } => {
                if count < 2 {
                    return Err(SpecError::field(
                        format!("techniques[{i}]"),
                        "register contrast needs at least 2 voices; the piece has 1",
                    ));
                }
                if contrast_seen {
                    return Err(SpecError::field(
                        format!("techniques[{i}]"),
                        "register contrast is given twice; give it once",
                    ));
                }
                contrast_seen = true;
            }
        }
    }
    Ok(())
}

/// `the Bass (voices[2])`: a voice named so that both a file's author (who counts
/// from 0) and a brief's author (who knows the names) can find it.
fn voice_label(spec: &Spec, index: usize) -> String {
    match spec.voices.get(index) {
        Some(voice) => format!("the {} (voices[{index}])", voice.name),
        None => format!("voices[{index}]"),
    }
}

fn check_canon_pitch(technique: &Technique, at: &dyn Fn(&str) -> String) -> Result<(), SpecError> {
    match *technique {
        Technique::Canon { transpose, .. } if !(-24..=24).contains(&transpose) => {
            Err(SpecError::field(
                at("transpose"),
                format!("a transposition of {transpose} semitones is out of range: -24..=24"),
            ))
        }
        Technique::InversionCanon {
            axis: Some(axis), ..
        } if axis > 11 => Err(SpecError::field(
            at("axis"),
            format!("inversion axis {axis} is not a pitch class: 0..=11"),
        )),
        _ => Ok(()),
    }
}

fn check_repetition(repetition: Repetition) -> Result<(), SpecError> {
    match repetition {
        Repetition::Tremolo { max_per_statement } if !(1..=12).contains(&max_per_statement) => {
            Err(SpecError::field(
                "repetition.max_per_statement",
                format!(
                    "{max_per_statement} repetitions per row statement is out of range: 1..=12"
                ),
            ))
        }
        _ => Ok(()),
    }
}
