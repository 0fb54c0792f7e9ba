//! The chorale as the rules see it: four parts of spelled notes in exact time, a
//! key, a meter with its beat, and where the phrases end.
//!
//! The same type holds a melody to harmonise (only the soprano filled), a
//! chorale being written (the lower parts filled up to some beat) and a finished
//! one; [`Analysis`](crate::Analysis) cuts any of them into beats and sonorities.

use crate::pitch::{Part, Tonality, Tone};
use cantus_music::{Event, Meter, Score, Time, Voice};
use serde::Serialize;
use std::fmt;

/// One note of one part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Note {
    #[serde(with = "cantus_music::time_text")]
    pub onset: Time,
    #[serde(with = "cantus_music::time_text")]
    pub duration: Time,
    pub tone: Tone,
}

impl Note {
    /// End (exclusive).
    pub fn end(&self) -> Time {
        self.onset + self.duration
    }

    /// Whether it sounds at `t` (half-open).
    pub fn sounds_at(&self, t: Time) -> bool {
        self.onset <= t && t < self.end()
    }
}

/// A chorale, whole or in part.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Chorale {
    pub title: Option<String>,
    pub key: Tonality,
    pub meter: Meter,
    /// The beat in quarter notes: the meter's denominator (a dotted beat in
    /// compound meters such as 6/8).
    #[serde(with = "cantus_music::time_text")]
    pub beat: Time,
    /// Soprano, alto, tenor, bass; each sorted by onset, no two notes overlapping.
    /// A melody to harmonise has only the soprano.
    pub parts: [Vec<Note>; 4],
    /// Onsets of the soprano notes that end a phrase (fermatas, or given),
    /// ascending; the last soprano note always ends one.
    pub phrase_ends: Vec<Time>,
}

/// The beat of a meter in quarter notes.
pub fn beat_of(meter: Meter) -> Time {
    let unit = Time::new(4, i64::from(meter.den.max(1)));
    if meter.den >= 8 && meter.num.is_multiple_of(3) && meter.num > 3 {
        unit * 3
    } else {
        unit
    }
}

impl Chorale {
    /// The notes of `part`.
    pub fn part(&self, part: Part) -> &[Note] {
        &self.parts[part.index()]
    }

    /// Whether only the melody is written.
    pub fn is_melody(&self) -> bool {
        self.parts[1..].iter().all(Vec::is_empty)
    }

    /// End of the last note of any part.
    pub fn end(&self) -> Time {
        self.parts
            .iter()
            .filter_map(|p| p.last().map(Note::end))
            .max()
            .unwrap_or_default()
    }

    /// The beat number (from the start of the piece, 0-based) holding time `t`.
    pub fn beat_number(&self, t: Time) -> i64 {
        (t / self.beat).floor().to_integer()
    }

    /// Start of beat number `n`.
    pub fn beat_start(&self, n: i64) -> Time {
        self.beat * n
    }

    /// The first and last beat numbers with music in the soprano (or, for a
    /// chorale without soprano, in any part).
    pub fn beat_span(&self) -> Option<(i64, i64)> {
        let notes: Vec<&Note> = if self.parts[0].is_empty() {
            self.parts.iter().flatten().collect()
        } else {
            self.parts[0].iter().collect()
        };
        let first = notes.iter().map(|n| n.onset).min()?;
        let end = notes.iter().map(|n| n.end()).max()?;
        let last = (end / self.beat).ceil().to_integer() - 1;
        Some((self.beat_number(first), last.max(self.beat_number(first))))
    }

    /// Bar (from 1) and beat within it (from 1, exact) of time `t`.
    pub fn bar_beat(&self, t: Time) -> (u32, Time) {
        let bar_len = self.meter.bar_length();
        let bar = (t / bar_len).floor();
        let within = t - bar * bar_len;
        let bar = u32::try_from(bar.to_integer() + 1).unwrap_or(u32::MAX);
        (bar, within / self.beat + 1)
    }

    /// The index of the note of `part` sounding at `t`.
    pub fn note_at(&self, part: Part, t: Time) -> Option<usize> {
        let notes = &self.parts[part.index()];
        let upto = notes.partition_point(|n| n.onset <= t);
        upto.checked_sub(1).filter(|&i| notes[i].sounds_at(t))
    }

    /// Whether the soprano note starting at `t` ends a phrase.
    pub fn ends_phrase(&self, t: Time) -> bool {
        self.phrase_ends.binary_search(&t).is_ok()
    }

    /// The chorale as a score: four voices named Soprano, Alto, Tenor, Bass (only
    /// the parts that hold notes), in its key and meter.
    pub fn to_score(&self) -> Score {
        let voices = Part::ALL
            .iter()
            .filter(|p| !self.parts[p.index()].is_empty() || p.index() == 0)
            .map(|&p| {
                let mut v = Voice::new(p.name());
                v.events = self.parts[p.index()]
                    .iter()
                    .map(|n| Event::new(n.onset, n.duration, vec![n.tone.pitch()]))
                    .collect();
                v
            })
            .collect();
        let bars = (self.end() / self.meter.bar_length()).ceil().to_integer();
        Score {
            title: self.title.clone(),
            key: Some(self.key.key()),
            meter: self.meter,
            tempo: None,
            bars: u32::try_from(bars).ok(),
            voices,
        }
    }
}

/// Where a violation is: bar and beat of the sonority, its onset, the parts it
/// concerns; `from` is the onset of the earlier sonority for rules that judge a
/// motion (parallels, overlaps, resolutions).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Location {
    pub bar: u32,
    /// Beat within the bar, from 1 (`5/2` is halfway through beat 2).
    #[serde(with = "cantus_music::time_text")]
    pub beat: Time,
    #[serde(with = "cantus_music::time_text")]
    pub onset: Time,
    pub parts: Vec<Part>,
    #[serde(
        with = "crate::chorale::optional_time",
        skip_serializing_if = "Option::is_none"
    )]
    pub from: Option<Time>,
}

impl Location {
    /// The place of time `onset` in `chorale`, concerning `parts`.
    pub fn at(chorale: &Chorale, onset: Time, parts: Vec<Part>) -> Location {
        let (bar, beat) = chorale.bar_beat(onset);
        Location {
            bar,
            beat,
            onset,
            parts,
            from: None,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bar {} beat ", self.bar)?;
        if self.beat.is_integer() {
            write!(f, "{}", self.beat.to_integer())?;
        } else {
            let whole = self.beat.floor().to_integer();
            let frac = self.beat - self.beat.floor();
            write!(f, "{whole}+{}/{}", frac.numer(), frac.denom())?;
        }
        if !self.parts.is_empty() {
            let names: Vec<String> = self.parts.iter().map(ToString::to_string).collect();
            write!(f, " ({})", names.join(", "))?;
        }
        Ok(())
    }
}

/// Serde for an optional exact time as `"9/2"` text.
pub(crate) mod optional_time {
    use cantus_music::Time;
    use serde::Serializer;

    pub fn serialize<S: Serializer>(t: &Option<Time>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => cantus_music::time_text::serialize(t, s),
            None => s.serialize_none(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cantus_music::time;

    #[test]
    fn beats_bars_and_locations() {
        assert_eq!(beat_of(Meter::new(4, 4)), time(1, 1));
        assert_eq!(beat_of(Meter::new(3, 2)), time(2, 1));
        assert_eq!(beat_of(Meter::new(6, 8)), time(3, 2));
        let c = Chorale {
            title: None,
            key: Tonality::of(cantus_music::Key::from_fifths(0, cantus_music::Mode::Major)),
            meter: Meter::new(3, 4),
            beat: time(1, 1),
            parts: Default::default(),
            phrase_ends: Vec::new(),
        };
        assert_eq!(c.bar_beat(time(7, 2)), (2, time(3, 2)));
        let loc = Location::at(&c, time(7, 2), vec![Part::Alto, Part::Bass]);
        assert_eq!(loc.to_string(), "bar 2 beat 1+1/2 (alto, bass)");
    }
}
