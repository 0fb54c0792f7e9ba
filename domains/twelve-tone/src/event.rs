//! Twelve-tone events and where they sit.
//!
//! A [`ToneEvent`] is one onset in one voice sounding one or more pitches, tagged with
//! the row form and the consecutive order positions it claims to realise ([`Tag`]).
//! The online verifier checks the claim; the strict release gate ignores it and
//! re-derives the labels from the pitches. Tags travel in scores as the text
//! `P0:1-3` (form, then 1-based positions) in [`cantus_music::Event::tag`].

use crate::row::{PitchClass, RowForm};
use cantus_music::{Time, time_text};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The row form and order positions an event claims: positions `start..start + len`
/// (0-based) of `form`, in any order within a chord.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Tag {
    pub form: RowForm,
    /// First order position, 0..=11.
    pub start: u8,
    /// Number of positions, 1..=12 − start.
    pub len: u8,
}

impl Tag {
    /// One past the last position (`start + len`), without overflow for any tag a
    /// proposer may send.
    pub fn end(self) -> u16 {
        u16::from(self.start) + u16::from(self.len)
    }

    /// The positions as a range.
    pub fn positions(self) -> std::ops::Range<u8> {
        self.start..self.start.saturating_add(self.len)
    }
}

impl fmt::Display for Tag {
    /// `P0:4` for one position, `RI11:1-3` for several (1-based, as musicians count).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let first = u32::from(self.start) + 1;
        if self.len <= 1 {
            write!(f, "{}:{first}", self.form)
        } else {
            write!(
                f,
                "{}:{first}-{}",
                self.form,
                first + u32::from(self.len) - 1
            )
        }
    }
}

impl FromStr for Tag {
    type Err = String;

    fn from_str(text: &str) -> Result<Tag, String> {
        let (form, positions) = text.split_once(':').ok_or_else(|| {
            format!("row tag {text:?} needs the form \":\" positions, e.g. P0:1-3")
        })?;
        let form: RowForm = form.parse().map_err(|e| format!("row tag {text:?}: {e}"))?;
        let (first, last) = match positions.split_once('-') {
            Some((a, b)) => (a, b),
            None => (positions, positions),
        };
        let parse = |s: &str| -> Result<u8, String> {
            s.trim()
                .parse::<u8>()
                .ok()
                .filter(|p| (1..=12).contains(p))
                .ok_or_else(|| format!("row tag {text:?}: position {s:?} is not 1..=12"))
        };
        let (first, last) = (parse(first)?, parse(last)?);
        if last < first {
            return Err(format!("row tag {text:?}: positions run backwards"));
        }
        Ok(Tag {
            form,
            start: first - 1,
            len: last - first + 1,
        })
    }
}

/// One onset in one voice.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToneEvent {
    /// Voice index (0 = top voice of the spec).
    pub voice: usize,
    #[serde(with = "time_text")]
    pub onset: Time,
    #[serde(with = "time_text")]
    pub duration: Time,
    /// MIDI pitches, ascending, at least one.
    pub pitches: Vec<u8>,
    pub tag: Tag,
}

impl ToneEvent {
    /// End time (exclusive).
    pub fn end(&self) -> Time {
        self.onset + self.duration
    }

    /// Whether two events share a positive amount of time.
    pub fn overlaps(&self, other: &ToneEvent) -> bool {
        self.onset < other.end() && other.onset < self.end()
    }

    /// The pitch classes sounded, as a 12-bit set (bit `pc`).
    pub fn pc_set(&self) -> u16 {
        self.pitches.iter().fold(0, |s, &p| s | 1 << (p % 12))
    }

    /// The pitch classes sounded, in pitch order.
    pub fn pcs(&self) -> impl Iterator<Item = PitchClass> + '_ {
        self.pitches.iter().map(|p| p % 12)
    }
}

/// Where a violation is: bar (from 1), voice name and onset in quarter notes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    pub bar: u32,
    pub voice: String,
    #[serde(with = "time_text")]
    pub onset: Time,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bar {}, {}, onset {}",
            self.bar,
            self.voice,
            time_text::format(self.onset)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip_as_text() {
        for text in ["P0:1", "RI11:1-3", "I5:10-12", "R3:7-8"] {
            let tag: Tag = text.parse().unwrap();
            assert_eq!(tag.to_string(), text);
        }
        let tag: Tag = "T5:2-4".parse().unwrap();
        assert_eq!(
            (tag.form.to_string().as_str(), tag.start, tag.len),
            ("P5", 1, 3)
        );
        assert!("P0".parse::<Tag>().unwrap_err().contains("needs the form"));
        assert!("P0:13".parse::<Tag>().unwrap_err().contains("not 1..=12"));
        assert!("P0:4-2".parse::<Tag>().unwrap_err().contains("backwards"));
        assert!("Q0:1".parse::<Tag>().is_err());
    }
}
