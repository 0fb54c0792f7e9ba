//! The exercise: a cantus firmus, a counterpoint against it, and where each
//! counterpoint note sits (bar and beat).
//!
//! Rules read an [`Exercise`] as a list of [`Moment`]s: one per counterpoint note,
//! each with the cantus note sounding under (or over) it. The same type holds a
//! finished exercise (the gate) and a prefix of one (the online verifier and the
//! proposer's search), so one rule definition serves both.

use crate::pitch::{Interval, Modality, Note};
use cantus_music::{Event, Meter, Score, Time, Voice, time_text};
use serde::Serialize;
use std::fmt;

/// Voice name the domain writes for the cantus firmus.
pub const CANTUS_VOICE: &str = "Cantus";
/// Voice name the domain writes for the counterpoint.
pub const COUNTERPOINT_VOICE: &str = "Counterpoint";

/// Fux's species: note against note, or two notes against one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Species {
    /// 1:1, whole notes against whole notes.
    First,
    /// 2:1, half notes against whole notes.
    Second,
}

impl Species {
    /// 1 or 2.
    pub fn number(self) -> u8 {
        match self {
            Species::First => 1,
            Species::Second => 2,
        }
    }

    /// The species numbered `n`.
    pub fn from_number(n: u8) -> Option<Species> {
        match n {
            1 => Some(Species::First),
            2 => Some(Species::Second),
            _ => None,
        }
    }
}

/// Where the counterpoint lies relative to the cantus firmus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Position {
    /// The counterpoint is the upper voice (cantus below).
    Above,
    /// The counterpoint is the lower voice (cantus above).
    Below,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Position::Above => "above",
            Position::Below => "below",
        })
    }
}

/// Thesis or arsis: the first or the second half of a bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Beat {
    Down,
    Up,
}

/// One counterpoint note against the cantus note of its bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Moment {
    /// Bar index from 0 (= cantus note index).
    pub bar: usize,
    pub beat: Beat,
    /// Onset of the counterpoint note in the score it was read from (or will be written to).
    #[serde(with = "time_text")]
    pub onset: Time,
    pub cantus: Note,
    pub counterpoint: Note,
}

/// Where a violation is: a bar (from 1), a voice, the onset; `from_bar` when the
/// rule judges the move from an earlier bar (parallels, overlaps, leaps).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Location {
    pub bar: u32,
    pub voice: String,
    #[serde(with = "time_text")]
    pub onset: Time,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_bar: Option<u32>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.from_bar {
            Some(from) if from != self.bar => write!(f, "bars {from}-{}", self.bar)?,
            _ => write!(f, "bar {}", self.bar)?,
        }
        write!(f, " ({})", self.voice)
    }
}

/// A two-voice species exercise (or a prefix of one).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Exercise {
    pub species: Species,
    pub position: Position,
    pub modality: Modality,
    /// One cantus note per bar: always the whole cantus, even for a prefix.
    pub cantus: Vec<Note>,
    /// The counterpoint notes so far, in time order.
    pub moments: Vec<Moment>,
    pub cantus_voice: String,
    pub counterpoint_voice: String,
}

/// Length of one bar (one cantus note) in the scores this domain writes: a whole note.
pub fn bar_length() -> Time {
    Time::from_integer(4)
}

impl Exercise {
    /// An exercise with no counterpoint yet.
    pub fn empty(
        species: Species,
        position: Position,
        modality: Modality,
        cantus: Vec<Note>,
    ) -> Self {
        Exercise {
            species,
            position,
            modality,
            cantus,
            moments: Vec::new(),
            cantus_voice: CANTUS_VOICE.to_owned(),
            counterpoint_voice: COUNTERPOINT_VOICE.to_owned(),
        }
    }

    /// Number of bars (cantus notes).
    pub fn bars(&self) -> usize {
        self.cantus.len()
    }

    /// Whether `bar` is the last bar.
    pub fn is_last_bar(&self, bar: usize) -> bool {
        bar + 1 == self.bars()
    }

    /// Whether `bar` is the penultimate bar.
    pub fn is_penultimate_bar(&self, bar: usize) -> bool {
        bar + 2 == self.bars()
    }

    /// The upper and lower note of a moment (by voice role, not by pitch).
    pub fn upper_lower(&self, m: &Moment) -> (Note, Note) {
        match self.position {
            Position::Above => (m.counterpoint, m.cantus),
            Position::Below => (m.cantus, m.counterpoint),
        }
    }

    /// The vertical interval of moment `i`, from the lower voice to the upper.
    pub fn vertical(&self, i: usize) -> Interval {
        let (up, lo) = self.upper_lower(&self.moments[i]);
        Interval::between(lo, up)
    }

    /// The counterpoint's melodic interval from moment `i - 1` to `i`.
    pub fn melodic(&self, i: usize) -> Option<Interval> {
        let prev = self.moments.get(i.checked_sub(1)?)?;
        Some(Interval::between(
            prev.counterpoint,
            self.moments[i].counterpoint,
        ))
    }

    /// The upper and lower voices' motion (semitones) from moment `i - 1` to `i`.
    pub fn motion(&self, i: usize) -> Option<(i32, i32)> {
        let prev = self.moments.get(i.checked_sub(1)?)?;
        let (u0, l0) = self.upper_lower(prev);
        let (u1, l1) = self.upper_lower(&self.moments[i]);
        Some((
            i32::from(u1.midi) - i32::from(u0.midi),
            i32::from(l1.midi) - i32::from(l0.midi),
        ))
    }

    /// Onset of a bar and beat in the scores this domain writes.
    pub fn onset(bar: usize, beat: Beat) -> Time {
        let start = bar_length() * Time::from_integer(bar as i64);
        match beat {
            Beat::Down => start,
            Beat::Up => start + bar_length() / 2,
        }
    }

    /// The slots (bar, beat) the species fills, in order. Second species may open
    /// with a half rest (`rest_start`) and always closes on one whole note.
    pub fn slots(species: Species, bars: usize, rest_start: bool) -> Vec<(usize, Beat)> {
        let mut out = Vec::new();
        for bar in 0..bars {
            match species {
                Species::First => out.push((bar, Beat::Down)),
                Species::Second => {
                    if !(bar == 0 && rest_start) {
                        out.push((bar, Beat::Down));
                    }
                    if bar + 1 < bars {
                        out.push((bar, Beat::Up));
                    }
                }
            }
        }
        out
    }

    /// Where a violation at moment `i` is reported (the counterpoint voice).
    pub fn location(&self, i: usize) -> Location {
        let m = &self.moments[i];
        Location {
            bar: m.bar as u32 + 1,
            voice: self.counterpoint_voice.clone(),
            onset: m.onset,
            from_bar: None,
        }
    }

    /// Where a violation of the move from moment `from` to `to` is reported.
    pub fn span(&self, from: usize, to: usize) -> Location {
        Location {
            from_bar: Some(self.moments[from].bar as u32 + 1),
            ..self.location(to)
        }
    }

    /// The exercise as a score: 4/4, one whole note per cantus note, the upper voice
    /// first; spelled pitches throughout.
    pub fn to_score(&self, title: Option<String>) -> Score {
        let bar = bar_length();
        let mut cantus = Voice::new(self.cantus_voice.clone());
        for (i, n) in self.cantus.iter().enumerate() {
            cantus.events.push(Event::new(
                Exercise::onset(i, Beat::Down),
                bar,
                vec![n.pitch()],
            ));
        }
        let mut cp = Voice::new(self.counterpoint_voice.clone());
        for m in &self.moments {
            let duration = match (self.species, m.beat) {
                (Species::Second, _) if !self.is_last_bar(m.bar) => bar / 2,
                _ => bar,
            };
            cp.events.push(Event::new(
                Exercise::onset(m.bar, m.beat),
                duration,
                vec![m.counterpoint.pitch()],
            ));
        }
        let voices = match self.position {
            Position::Above => vec![cp, cantus],
            Position::Below => vec![cantus, cp],
        };
        Score {
            title,
            key: None,
            meter: Meter::COMMON,
            tempo: None,
            bars: Some(self.bars() as u32),
            voices,
        }
    }
}
