//! What a twelve-tone piece must be, before a note of it is written.
//!
//! A [`Spec`] is the contract between the person asking for a piece and the engine
//! that writes it: length, meter, tempo, the row, the voices and their registers,
//! the texture, the techniques (canons, register contrast), how strictly pitch
//! classes may repeat, how much the voices may cross, and how the piece is cut into
//! sections for planning. Everything downstream (proposer, verifier, repair, release
//! gate) reads these fields and nothing else.
//!
//! A spec comes from one of two places:
//!
//! * a TOML file ([`Spec::from_toml_str`], written back by [`Spec::to_toml_string`]);
//!   see `examples/specs/webern-trio.toml` for a documented example;
//! * an English brief compiled by [`compile_brief`] ("a 16-bar trio in 3/4 on
//!   Webern's Op. 21 row with a canon between the outer voices").
//!
//! Either way the result passes [`Spec::validate`]; the limits it enforces are listed
//! on each field. Defaults live in [`defaults`].
//!
//! Voices are numbered from 0 in a spec (index into [`Spec::voices`], top voice
//! first by convention); briefs count from 1 as people do ("voices 1 and 3").

pub mod brief;
pub mod defaults;
pub mod registers;
mod text;
mod toml_file;
mod validate;

use num_rational::Ratio;
use serde::{Deserialize, Serialize};

use crate::row::{Convention, Row, RowError};
use cantus_music::Meter;

pub use brief::{BriefError, CompiledBrief, Contradiction, MAX_BRIEF_CHARS, Phrase, compile_brief};
pub use validate::SpecError;

/// A complete description of a twelve-tone piece to be written.
///
/// Field order here is the order of the TOML file (plain values first, then tables).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "SpecFile")]
pub struct Spec {
    /// Optional title, shown in the score header. If present: 1..=200 characters, not blank.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Length in bars, 1..=512. Default 16.
    pub bars: u32,
    /// Time signature, written `"3/4"` in TOML. Numerator 1..=32, denominator a power
    /// of two 1..=64. Default 4/4.
    #[serde(serialize_with = "text::serialize_meter")]
    pub meter: Meter,
    /// Tempo in quarter-note beats per minute, 20..=300. Default 72.
    pub tempo: u32,
    /// How row forms are labelled in reports and traces. Default zero-centred
    /// (music21's `zeroCenteredTransformation`).
    pub convention: Convention,
    /// The largest fraction of the piece's duration during which any two voices may be
    /// crossed (a lower voice above a higher one), 0..=1, exact. Written `"1/10"` in
    /// TOML (`"10%"`, `"0.1"` and a plain float are read too). Default 1/10.
    #[serde(serialize_with = "text::serialize_fraction")]
    pub max_crossing: Ratio<i64>,
    /// Bars per section for planning and replanning, 1..=`bars`. Default 4, more in
    /// short meters so a section holds at least 12 quarter notes (2/4 → 6, 3/8 → 8),
    /// at most `bars` ([`defaults::default_section_bars`]). A last section shorter
    /// than half of this is merged into the one before it.
    pub section_bars: u32,
    /// Which twelve-tone row the piece is built on. Default: [`RowChoice::Default`].
    pub row: RowChoice,
    /// How dense the texture may be.
    pub texture: Texture,
    /// Whether a pitch class may be repeated immediately. Default: forbidden.
    pub repetition: Repetition,
    /// The voices, top first by convention: 1..=6, unique names. Default: the table
    /// in [`defaults::default_voices`] for 3 voices.
    pub voices: Vec<VoiceSpec>,
    /// Canons and register contrast; may be empty (the default).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub techniques: Vec<Technique>,
}

/// Which row a piece is built on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum RowChoice {
    /// A row given pitch class by pitch class (C = 0 … B = 11), in order.
    Explicit {
        /// The twelve pitch classes; must be a twelve-tone row. TOML takes a list of
        /// integers or row text (`"0 11 7 8 3 1 2 T 6 5 4 9"`, note names), checked by
        /// the row engine as it is read.
        #[serde(deserialize_with = "text::row_pcs")]
        pcs: [u8; 12],
    },
    /// One of the 71 historical rows music21 ships, by id (e.g. `WebernOp21`).
    Historical {
        /// The music21 id; any name [`crate::row::resolve`] accepts uniquely is valid.
        id: String,
    },
    /// An all-interval row chosen deterministically from a seed
    /// ([`Row::all_interval`]); the same seed always gives the same row.
    AllInterval {
        /// The seed, 0..=u64::MAX (written as a string in TOML above 2^63 − 1).
        #[serde(with = "text::seed")]
        seed: u64,
    },
    /// The documented default row: [`defaults::DEFAULT_ROW_ID`] (Schoenberg, Suite for
    /// Piano Op. 25, the first work written entirely with one twelve-tone row).
    Default,
}

impl RowChoice {
    /// The row this choice names.
    pub fn to_row(&self) -> Result<Row, RowError> {
        match self {
            RowChoice::Explicit { pcs } => Row::new(pcs),
            RowChoice::Historical { id } => crate::row::resolve(id).map(|h| h.row),
            RowChoice::AllInterval { seed } => Ok(Row::all_interval(*seed)),
            RowChoice::Default => crate::row::resolve(defaults::DEFAULT_ROW_ID).map(|h| h.row),
        }
    }

    /// A short human description: `"WebernOp21"`, `"all-interval row (seed 0)"`, `"0 11 7 …"`.
    pub fn describe(&self) -> String {
        match self {
            RowChoice::Explicit { pcs } => pcs
                .iter()
                .map(|pc| pc.to_string())
                .collect::<Vec<_>>()
                .join(" "),
            RowChoice::Historical { id } => id.clone(),
            RowChoice::AllInterval { seed } => format!("all-interval row (seed {seed})"),
            RowChoice::Default => format!("{} (default row)", defaults::DEFAULT_ROW_ID),
        }
    }
}

/// One voice: its name and the MIDI register it may use.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoiceSpec {
    /// The voice's name as printed in the score; unique (ignoring case), not blank.
    pub name: String,
    /// Lowest MIDI pitch the voice may sound (inclusive).
    pub low: u8,
    /// Highest MIDI pitch (inclusive), at most 127. `high − low` must be at least 11,
    /// so that the voice can sound every pitch class.
    pub high: u8,
}

impl VoiceSpec {
    /// A voice with the given name and inclusive MIDI register.
    pub fn new(name: impl Into<String>, low: u8, high: u8) -> VoiceSpec {
        VoiceSpec {
            name: name.into(),
            low,
            high,
        }
    }
}

/// Limits on how many pitches sound together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Texture {
    /// Most pitches in one event of one voice (a chord within a voice), 1..=4. Default 2.
    pub max_chord: u8,
    /// Most distinct pitches sounding at any instant across all voices, 1..=12 and at
    /// least `max_chord`. Default `min(12, voices + 2)`.
    pub max_sounding: u8,
}

/// A compositional technique the piece must show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Technique {
    /// The follower repeats the leader's pitch classes `delay_bars` later,
    /// transposed by `transpose` semitones.
    Canon {
        /// Index of the leading voice (0 = first voice).
        leader: usize,
        /// Index of the following voice; differs from `leader`, and a voice follows
        /// at most one canon.
        follower: usize,
        /// Distance between leader and follower in bars, 1..`bars`. Default 1.
        delay_bars: u32,
        /// Transposition of the follower in semitones, −24..=24. Default 0.
        transpose: i8,
    },
    /// Like [`Technique::Canon`], but the follower sings the leader's inversion
    /// (a "mirror canon"). Pitch class `p` in the leader becomes `(axis − p) mod 12`.
    InversionCanon {
        /// Index of the leading voice.
        leader: usize,
        /// Index of the following voice.
        follower: usize,
        /// Distance between leader and follower in bars, 1..`bars`. Default 1.
        delay_bars: u32,
        /// The inversion sum 0..=11; absent means "invert about the leader's first
        /// pitch class" (the follower starts on the same pitch class as the leader).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        axis: Option<u8>,
    },
    /// Keep the voices in their own bands of pitch (see [`Spec::working_voices`]).
    /// Needs at least two voices; at most one per spec.
    RegisterContrast {
        /// How far apart the bands are pushed.
        strength: Strength,
    },
}

/// How strongly register contrast is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strength {
    /// Each voice keeps roughly the half of its range nearest its own band.
    Mild,
    /// Each voice is confined to its own band (widened to 12 semitones where needed).
    Strong,
}

/// Whether a pitch class may sound twice in a row within a voice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Repetition {
    /// Strict: no pitch class is repeated before the row moves on (the default).
    #[default]
    Forbidden,
    /// Immediate repetition of a pitch class (a tremolo or repeated note) is allowed,
    /// at most `max_per_statement` times per statement of the row.
    Tremolo {
        /// Most immediate repetitions per row statement, 1..=12.
        max_per_statement: u8,
    },
}

/// What a spec file may contain: every field optional, nothing else allowed. Missing
/// fields take the values in [`defaults`].
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecFile {
    title: Option<String>,
    bars: Option<u32>,
    #[serde(default, with = "text::meter_opt")]
    meter: Option<Meter>,
    tempo: Option<u32>,
    convention: Option<Convention>,
    #[serde(default, with = "text::fraction_opt")]
    max_crossing: Option<Ratio<i64>>,
    section_bars: Option<u32>,
    row: Option<RowChoice>,
    texture: Option<TextureFile>,
    repetition: Option<Repetition>,
    voices: Option<Vec<VoiceSpec>>,
    techniques: Option<Vec<Technique>>,
}

/// The `[texture]` table as written: either limit may be left out.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TextureFile {
    max_chord: Option<u8>,
    max_sounding: Option<u8>,
}

impl From<SpecFile> for Spec {
    fn from(file: SpecFile) -> Spec {
        let bars = file.bars.unwrap_or(defaults::DEFAULT_BARS);
        let voices = file
            .voices
            .unwrap_or_else(|| defaults::default_voices(defaults::DEFAULT_VOICE_COUNT));
        let texture = file.texture.unwrap_or_default();
        let meter = file.meter.unwrap_or_default();
        Spec {
            title: file.title,
            bars,
            meter,
            tempo: file.tempo.unwrap_or(defaults::DEFAULT_TEMPO),
            convention: file.convention.unwrap_or_default(),
            max_crossing: file.max_crossing.unwrap_or(defaults::DEFAULT_MAX_CROSSING),
            section_bars: file
                .section_bars
                .unwrap_or_else(|| defaults::default_section_bars(bars, meter)),
            row: file.row.unwrap_or(RowChoice::Default),
            texture: Texture {
                max_chord: texture.max_chord.unwrap_or(defaults::DEFAULT_MAX_CHORD),
                max_sounding: texture
                    .max_sounding
                    .unwrap_or_else(|| defaults::default_max_sounding(voices.len())),
            },
            repetition: file.repetition.unwrap_or_default(),
            voices,
            techniques: file.techniques.unwrap_or_default(),
        }
    }
}

impl Default for Spec {
    /// Every field at its documented default (see [`defaults`]).
    fn default() -> Spec {
        Spec::from(SpecFile::default())
    }
}

impl Spec {
    /// A default spec for `voices` voices (named and ranged by
    /// [`defaults::default_voices`]), with the texture default that follows from it.
    pub fn with_voice_count(voices: usize) -> Spec {
        Spec::from(SpecFile {
            voices: Some(defaults::default_voices(voices)),
            ..SpecFile::default()
        })
    }

    /// Reads a spec from TOML text, fills in defaults and validates it. Errors name
    /// `source_name`, the line and column, and the field.
    pub fn from_toml_str(text: &str, source_name: &str) -> Result<Spec, SpecError> {
        toml_file::from_toml_str(text, source_name)
    }

    /// Writes the spec as TOML that [`Spec::from_toml_str`] reads back to an equal spec.
    pub fn to_toml_string(&self) -> String {
        toml_file::to_toml_string(self)
    }

    /// Checks every limit documented on the fields; the error names the field.
    pub fn validate(&self) -> Result<(), SpecError> {
        validate::validate(self)
    }

    /// The voices with the registers a generator should actually use: the declared
    /// registers, each narrowed to its own band by [`Technique::RegisterContrast`] if
    /// present (the rule is documented in [`registers`]). Without
    /// register contrast, the voices as declared.
    pub fn working_voices(&self) -> Vec<VoiceSpec> {
        match self.register_contrast() {
            Some(strength) => registers::working_voices(&self.voices, strength),
            None => self.voices.clone(),
        }
    }

    /// The strength of the spec's register contrast, if it asks for one.
    pub fn register_contrast(&self) -> Option<Strength> {
        self.techniques.iter().find_map(|t| match t {
            Technique::RegisterContrast { strength } => Some(*strength),
            _ => None,
        })
    }
}
