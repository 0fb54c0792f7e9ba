//! The rules the serial release gate enforces, by stable id, and the internal
//! record of one finding before it is given a bar and a voice name.
//!
//! Ids are part of the project's public vocabulary (traces, reports, CLI output)
//! and are never renamed.

use crate::row::note_name;
use cantus_music::Time;
use std::fmt::Write as _;

/// One rule of the gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// `TT-VOICES`: the score has as many voices as the plan.
    Voices,
    /// `TT-TIME`: every time can be placed exactly and every event lasts a positive time.
    Time,
    /// `TT-ROW`: every statement is one of the 48 forms (in relaxed mode: as tagged).
    Row,
    /// `TT-REPEAT`: no pitch class recurs within a statement.
    Repeat,
    /// `TT-ROW-COMPLETE`: every statement has all 12 pitch classes.
    RowComplete,
    /// `TT-SCHEDULE`: statement k of a voice is the plan's form for section k, inside it.
    Schedule,
    /// `TT-AGGREGATE`: every section sounds all 12 pitch classes.
    Aggregate,
    /// `TT-COLLISION`: voices sounding together share no pitch class.
    Collision,
    /// `TT-OCTAVE`: no event doubles a pitch class.
    Octave,
    /// `TT-TEXTURE`: chord size, pitches sounding at once, one line per voice.
    Texture,
    /// `TT-REGISTER`: every pitch inside its voice's register.
    Register,
    /// `TT-CROSSING`: the crossed share of the voices' time together is small enough.
    Crossing,
    /// `TT-BARS`: everything inside the declared bars, and no bar silent.
    Bars,
}

impl Rule {
    /// Every rule, in report order.
    pub const ALL: [Rule; 13] = [
        Rule::Voices,
        Rule::Time,
        Rule::Row,
        Rule::Repeat,
        Rule::RowComplete,
        Rule::Schedule,
        Rule::Aggregate,
        Rule::Collision,
        Rule::Octave,
        Rule::Texture,
        Rule::Register,
        Rule::Crossing,
        Rule::Bars,
    ];

    /// The stable predicate id, e.g. `"TT-COLLISION"`.
    pub fn id(self) -> &'static str {
        match self {
            Rule::Voices => "TT-VOICES",
            Rule::Time => "TT-TIME",
            Rule::Row => "TT-ROW",
            Rule::Repeat => "TT-REPEAT",
            Rule::RowComplete => "TT-ROW-COMPLETE",
            Rule::Schedule => "TT-SCHEDULE",
            Rule::Aggregate => "TT-AGGREGATE",
            Rule::Collision => "TT-COLLISION",
            Rule::Octave => "TT-OCTAVE",
            Rule::Texture => "TT-TEXTURE",
            Rule::Register => "TT-REGISTER",
            Rule::Crossing => "TT-CROSSING",
            Rule::Bars => "TT-BARS",
        }
    }

    /// One sentence on what the rule requires.
    pub fn description(self) -> &'static str {
        match self {
            Rule::Voices => "The score has one voice per voice of the plan, in the plan's order.",
            Rule::Time => {
                "Every onset and duration can be placed exactly on one integer grid, and every event lasts a positive time."
            }
            Rule::Row => {
                "Each voice's pitch classes, cut into consecutive statements of 12, state a form of the row in every statement."
            }
            Rule::Repeat => {
                "No pitch class sounds twice within one statement, not even immediately."
            }
            Rule::RowComplete => {
                "Every statement, including a voice's last, has all 12 pitch classes."
            }
            Rule::Schedule => {
                "Statement k of each voice is the plan's form for section k and begins inside that section."
            }
            Rule::Aggregate => "The voices together sound all 12 pitch classes in every section.",
            Rule::Collision => {
                "Events of different voices that sound together share no pitch class."
            }
            Rule::Octave => "No event sounds one pitch class twice (an octave doubling).",
            Rule::Texture => {
                "Chords stay within the chord limit, few enough pitches sound at once, and a voice's events never overlap."
            }
            Rule::Register => "Every pitch lies inside its voice's register.",
            Rule::Crossing => {
                "Voices are crossed for at most the allowed share of the time they sound together."
            }
            Rule::Bars => {
                "Every event lies within the piece's bars, and no bar is entirely silent."
            }
        }
    }

    /// The rule with this id.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.id() == id)
    }

    /// Whether the rule is about voices sounding together (collision, crossing,
    /// texture): what moving an event in time can address, and what a proposer eases
    /// by writing fewer chords and more air.
    pub fn is_vertical(self) -> bool {
        matches!(self, Rule::Collision | Rule::Crossing | Rule::Texture)
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

impl From<Rule> for cantus_framework::RuleId {
    fn from(rule: Rule) -> Self {
        cantus_framework::RuleId::new(rule.id())
    }
}

/// The id names no twelve-tone rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotTwelveTone;

impl TryFrom<cantus_framework::RuleId> for Rule {
    type Error = NotTwelveTone;

    fn try_from(id: cantus_framework::RuleId) -> Result<Rule, NotTwelveTone> {
        Rule::from_id(id.as_str()).ok_or(NotTwelveTone)
    }
}

/// A finding before it is located: rule, voice index (None for the whole texture),
/// the onset it is pinned to, and the reason.
#[derive(Clone, Debug)]
pub(crate) struct Finding {
    pub rule: Rule,
    pub voice: Option<usize>,
    pub onset: Time,
    pub reason: String,
}

impl Finding {
    pub fn new(rule: Rule, voice: Option<usize>, onset: Time, reason: String) -> Finding {
        Finding {
            rule,
            voice,
            onset,
            reason,
        }
    }
}

/// `"4 (E)"` for one pitch class.
pub(crate) fn pc_text(pc: u8) -> String {
    format!("{pc} ({})", note_name(pc))
}

/// The pitch classes of a 12-bit set as `"0 (C), 4 (E)"`, ascending.
pub(crate) fn mask_text(mask: u16) -> String {
    let mut out = String::new();
    for pc in 0..12u8 {
        if mask & (1 << pc) != 0 {
            if !out.is_empty() {
                out.push_str(", ");
            }
            out.push_str(&pc_text(pc));
        }
    }
    if out.is_empty() {
        out.push_str("none");
    }
    out
}

/// Pitch classes in the order given, space-separated (`"0 11 7 8"`).
pub(crate) fn pcs_text(pcs: impl IntoIterator<Item = u8>) -> String {
    let mut out = String::new();
    for pc in pcs {
        if !out.is_empty() {
            out.push(' ');
        }
        let _ = write!(out, "{pc}");
    }
    out
}

/// `"an event"` / `"a chord of 3 pitches"` style phrase for a pitch count.
pub(crate) fn event_noun(pitches: usize) -> String {
    if pitches == 1 {
        "a note".to_owned()
    } else {
        format!("a chord of {pitches} pitches")
    }
}

/// `"1 quarter note"`, `"3/2 quarter notes"`.
pub(crate) fn quarters(amount: &str) -> String {
    if amount == "1" {
        "1 quarter note".to_owned()
    } else {
        format!("{amount} quarter notes")
    }
}
