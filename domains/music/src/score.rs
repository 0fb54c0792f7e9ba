//! The exact score model every musical domain and every format shares.
//!
//! Time is a [`Time`]: an exact rational number of quarter notes. No float ever
//! decides whether two notes overlap, where a barline falls or whether a grid can
//! represent a bar; floats appear only at the edges (a tempo shown to a person).
//!
//! A [`Score`] is a list of [`Voice`]s, each a list of [`Event`]s sorted by onset.
//! An event is one onset with one duration sounding one or more MIDI pitches (a
//! chord within a voice). Ties do not exist in the model: a note that crosses a
//! barline is one event with its whole duration; writers that need ties (MusicXML,
//! LilyPond) split at barlines, and readers merge tied notes back.
//!
//! There is one meter per score. Readers that meet a pickup bar shift the music so
//! the pickup ends a full first bar; readers that meet a meter change keep every
//! note's exact absolute time and the first meter, and say so in a warning.

mod meter;
mod pitch;

pub use meter::{Meter, MeterError, Time, time};
pub use pitch::{Key, Letter, Mode, Pitch, PitchError, Spelling};

use serde::{Deserialize, Serialize};
/// How a grace note is written: slashed and quick, or unslashed and leaning on
/// the note it leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Grace {
    /// Slashed, played as quickly as possible (MusicXML `<grace slash="yes"/>`,
    /// MEI `@grace="unacc"`, LilyPond `\acciaccatura`, the text grammar's `>0/`).
    Acciaccatura,
    /// Unslashed (MusicXML `<grace/>`, MEI `@grace="acc"` or `"unknown"`, LilyPond
    /// `\appoggiatura`, the text grammar's `>0`).
    Appoggiatura,
}

/// One onset in one voice: one or more pitches sharing onset and duration.
///
/// **Grace notes** are events with [`Event::grace`] set. They take no notated time:
/// their `duration` is zero and their `onset` is the onset of the note they lead to
/// (where they are written). In a voice they come before the other events at that
/// onset, in the order they were written ([`Voice::sort`] keeps it). How long one
/// sounds in a performance (time taken from the note before, or from the note it
/// leads to) is the player's, not the score's: the model records none.
///
/// Every field has a default, so a literal can name only what it needs:
///
/// ```
/// use cantus_music::{Event, Grace, Pitch, time};
/// let grace = Event {
///     onset: time(2, 1),
///     pitches: vec![Pitch::new(61)],
///     grace: Some(Grace::Acciaccatura),
///     ..Event::default()
/// };
/// assert!(grace.is_grace() && grace.duration == time(0, 1));
/// assert_eq!(Event::grace_note(time(2, 1), vec![Pitch::new(61)], Grace::Acciaccatura), grace);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// Onset from the start of the score, in quarter notes (≥ 0).
    pub onset: Time,
    /// Duration in quarter notes: > 0, or exactly 0 for a grace note.
    pub duration: Time,
    /// Sounding pitches, sorted ascending by MIDI number, no duplicates, never empty.
    pub pitches: Vec<Pitch>,
    /// An optional free-form annotation carried by formats that can hold it
    /// (the twelve-tone domain stores its row tags here, e.g. `P0:1-3`).
    pub tag: Option<String>,
    /// Set for a grace note (see the type's docs); `None` for every other event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace: Option<Grace>,
    /// A fermata is written over (or under) the event: where a chorale's phrase
    /// ends. Read from MusicXML `<fermata>` and MEI `@fermata` / `<fermata>`,
    /// written to MusicXML and LilyPond; MIDI and the text grammar do not carry it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fermata: bool,
}

impl Event {
    pub fn new(onset: Time, duration: Time, pitches: Vec<Pitch>) -> Self {
        let mut e = Event {
            onset,
            duration,
            pitches,
            ..Event::default()
        };
        e.normalise_pitches();
        e
    }

    /// A grace note (or grace chord) written before the note at `onset`: no
    /// duration, `grace` set.
    pub fn grace_note(onset: Time, pitches: Vec<Pitch>, kind: Grace) -> Self {
        let mut e = Event {
            onset,
            pitches,
            grace: Some(kind),
            ..Event::default()
        };
        e.normalise_pitches();
        e
    }

    /// Whether this is a grace note.
    pub fn is_grace(&self) -> bool {
        self.grace.is_some()
    }

    /// End time (exclusive).
    pub fn end(&self) -> Time {
        self.onset + self.duration
    }

    /// Sorts pitches ascending and removes duplicate MIDI numbers.
    pub fn normalise_pitches(&mut self) {
        self.pitches.sort_by_key(|p| p.midi);
        self.pitches.dedup_by_key(|p| p.midi);
    }

    /// Whether two half-open intervals `[onset, end)` share a positive amount of time.
    pub fn overlaps(&self, other: &Event) -> bool {
        self.onset < other.end() && other.onset < self.end()
    }

    /// Whether this event sounds at time `t` (half-open: sounding at its onset,
    /// silent at its end).
    pub fn sounds_at(&self, t: Time) -> bool {
        self.onset <= t && t < self.end()
    }
}

/// One voice (part, staff line) of a score.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Voice {
    pub name: String,
    /// Events sorted by onset (ties broken by duration, pitches, tag: [`Voice::sort`]).
    pub events: Vec<Event>,
    /// This part's own key signature where it differs from the score's
    /// ([`Score::key`]); `None`: the part is in the score's key. Parts of one
    /// score may differ — transposing instruments, horns written without a
    /// signature — and a part's key is at the pitch its notes were read at (a B♭
    /// clarinet's signature is transposed with its notes when a score is read at
    /// sounding pitch). [`Score::part_key`] gives the key a part is in either way.
    ///
    /// Readers keep one form: the score's key is the first part's, and a part
    /// whose key equals the score's has `None` here (so the same music read from
    /// MusicXML, MEI or the text grammar compares equal). A part that states no
    /// signature at all is in the score's key. A key given here that equals the
    /// score's is kept as written by every writer and reads back as such from
    /// the text grammar.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<Key>,
}

impl Voice {
    pub fn new(name: impl Into<String>) -> Self {
        Voice {
            name: name.into(),
            ..Voice::default()
        }
    }

    /// Restores the canonical order of `events`: by onset, then grace notes before
    /// the other events at that onset (in their written order: the sort is
    /// stable and never reorders two grace notes of one onset), then duration, then
    /// the pitches (MIDI numbers, compared in order), then the tag. Apart from grace
    /// notes the order is total, so writers that walk a sorted voice produce the same
    /// output for equal voices.
    pub fn sort(&mut self) {
        self.events.sort_by(|a, b| {
            a.onset
                .cmp(&b.onset)
                .then_with(|| b.is_grace().cmp(&a.is_grace()))
                .then_with(|| {
                    if a.is_grace() {
                        return std::cmp::Ordering::Equal;
                    }
                    a.duration
                        .cmp(&b.duration)
                        .then_with(|| {
                            a.pitches
                                .iter()
                                .map(|p| p.midi)
                                .cmp(b.pitches.iter().map(|p| p.midi))
                        })
                        .then_with(|| a.tag.cmp(&b.tag))
                })
        });
    }

    /// Number of grace notes (events) in the voice.
    pub fn grace_count(&self) -> usize {
        self.events.iter().filter(|e| e.is_grace()).count()
    }
}
/// A whole piece: metadata and voices.
///
/// Build one, write it in any format, read it back:
///
/// ```
/// use cantus_music::format::{self, Format};
/// use cantus_music::{Event, Meter, Pitch, Score, Voice, grammar, time};
///
/// let mut melody = Voice::new("Melody");
/// // C5 for a half note, then E5 and G5 together (a chord) for a half note.
/// melody.events.push(Event::new(time(0, 1), time(2, 1), vec![Pitch::parse("C5")?]));
/// melody.events.push(Event::new(
///     time(2, 1),
///     time(2, 1),
///     vec!["E5".parse()?, "G5".parse()?],
/// ));
/// let score = Score {
///     meter: Meter::new(4, 4),
///     tempo: Some(time(96, 1)),
///     bars: Some(1),
///     voices: vec![melody],
///     ..Score::default()
/// };
/// assert_eq!(score.end(), time(4, 1));
///
/// // The text grammar carries every note exactly …
/// let text = grammar::write(&score)?;
/// assert!(text.contains("Melody: C5@1>2 E5+G5@3>2"), "{text}");
/// assert_eq!(grammar::parse(&text, &Default::default())?.score, score);
///
/// // … and so do MIDI (which drops spellings) and MusicXML.
/// let midi = format::render(&score, Format::Midi)?;
/// let back = cantus_music::midi::read(&midi)?;
/// assert_eq!(back.voices[0].events.len(), 2);
/// let xml = format::render(&score, Format::MusicXml)?;
/// let back = cantus_music::musicxml::read(std::str::from_utf8(&xml)?)?;
/// assert_eq!(back.voices[0].events, score.voices[0].events);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score {
    pub title: Option<String>,
    pub key: Option<Key>,
    pub meter: Meter,
    /// Tempo in quarter-note beats per minute, exact.
    pub tempo: Option<Time>,
    /// Number of bars the piece declares (may exceed the bars that hold notes).
    pub bars: Option<u32>,
    pub voices: Vec<Voice>,
}

impl Score {
    /// Length of one bar in quarter notes.
    pub fn bar_length(&self) -> Time {
        self.meter.bar_length()
    }

    /// End of the last sounding note (0 for an empty score).
    pub fn end(&self) -> Time {
        self.voices
            .iter()
            .flat_map(|v| v.events.iter().map(Event::end))
            .max()
            .unwrap_or_else(|| Time::from_integer(0))
    }

    /// The key `voice` is written in: its own ([`Voice::key`]), else the score's.
    pub fn part_key(&self, voice: &Voice) -> Option<Key> {
        voice.key.or(self.key)
    }

    /// Puts part keys in the readers' one form: a part whose own key is the
    /// score's has none of its own ([`Voice::key`]).
    pub(crate) fn fold_part_keys(&mut self) {
        let key = self.key;
        for voice in &mut self.voices {
            if voice.key == key {
                voice.key = None;
            }
        }
    }

    /// Number of bars: the declared count, or enough bars to hold every note.
    pub fn bar_count(&self) -> u32 {
        let needed = (self.end() / self.bar_length()).ceil().to_integer();
        let needed = u32::try_from(needed).unwrap_or(u32::MAX);
        self.bars.unwrap_or(0).max(needed)
    }

    /// 1-based bar number holding time `t`.
    pub fn bar_of(&self, t: Time) -> u32 {
        u32::try_from((t / self.bar_length()).floor().to_integer() + 1).unwrap_or(u32::MAX)
    }

    /// Start time of 1-based bar `bar`.
    pub fn bar_start(&self, bar: u32) -> Time {
        self.bar_length() * Time::from_integer(i64::from(bar) - 1)
    }

    /// Total number of events over all voices.
    pub fn event_count(&self) -> usize {
        self.voices.iter().map(|v| v.events.len()).sum()
    }

    /// Index of the voice with this name.
    pub fn voice_index(&self, name: &str) -> Option<usize> {
        self.voices.iter().position(|v| v.name == name)
    }

    /// Every `(voice index, event)` sounding at time `t` (half-open intervals).
    pub fn sounding_at(&self, t: Time) -> impl Iterator<Item = (usize, &Event)> {
        self.voices.iter().enumerate().flat_map(move |(vi, v)| {
            // Events are sorted by onset: only those starting at or before t can sound.
            let upto = v.events.partition_point(|e| e.onset <= t);
            v.events[..upto]
                .iter()
                .filter(move |e| e.sounds_at(t))
                .map(move |e| (vi, e))
        })
    }

    /// Every `(voice index, event)` of a voice other than `voice` that overlaps
    /// `event` by a positive amount of time.
    pub fn overlapping_others<'a>(
        &'a self,
        voice: usize,
        event: &'a Event,
    ) -> impl Iterator<Item = (usize, &'a Event)> + 'a {
        self.voices
            .iter()
            .enumerate()
            .filter(move |(vi, _)| *vi != voice)
            .flat_map(move |(vi, v)| {
                let upto = v.events.partition_point(|e| e.onset < event.end());
                v.events[..upto]
                    .iter()
                    .filter(move |e| e.overlaps(event))
                    .map(move |e| (vi, e))
            })
    }

    /// Sorts every voice's events.
    pub fn sort(&mut self) {
        for v in &mut self.voices {
            v.sort();
        }
    }

    /// Number of grace notes (events) over all voices.
    pub fn grace_count(&self) -> usize {
        self.voices.iter().map(Voice::grace_count).sum()
    }

    /// Removes every grace note; returns how many events were removed.
    pub fn remove_grace_notes(&mut self) -> usize {
        let mut removed = 0;
        for v in &mut self.voices {
            let before = v.events.len();
            v.events.retain(|e| !e.is_grace());
            removed += before - v.events.len();
        }
        removed
    }
}

/// `name`, or `name #2`, `name #3`, … whichever `used` does not hold yet; the
/// result is added to `used`. Readers and converters give repeated names this way.
pub(crate) fn unique_name(name: String, used: &mut std::collections::HashSet<String>) -> String {
    let mut candidate = name.clone();
    let mut n = 2u64;
    while used.contains(&candidate) {
        candidate = format!("{name} #{n}");
        n += 1;
    }
    used.insert(candidate.clone());
    candidate
}
#[cfg(test)]
mod tests {
    use super::*;

    fn ev(on: (i64, i64), dur: (i64, i64), midi: u8) -> Event {
        Event::new(time(on.0, on.1), time(dur.0, dur.1), vec![Pitch::new(midi)])
    }

    #[test]
    fn overlap_is_exact_and_half_open() {
        let a = ev((0, 1), (1, 3), 60);
        let b = ev((1, 3), (1, 1), 62);
        assert!(!a.overlaps(&b), "touching notes do not overlap");
        let d = ev((0, 1), (2, 6), 60); // 1/3 exactly, written differently
        assert_eq!(d.end(), time(1, 3));
        let e = ev((1, 3), (1, 1), 62);
        assert!(!d.overlaps(&e));
        let f = ev((0, 1), (1_000_001, 3_000_000), 60);
        assert!(f.overlaps(&e), "any positive amount overlaps");
    }

    #[test]
    fn grace_notes_sort_before_their_note_in_written_order() {
        let g = |midi| Event::grace_note(time(1, 1), vec![Pitch::new(midi)], Grace::Acciaccatura);
        let mut v = Voice::new("Piano");
        v.events = vec![ev((1, 1), (1, 1), 60), g(67), ev((0, 1), (1, 1), 72), g(61)];
        v.sort();
        let order: Vec<(u8, bool)> = v
            .events
            .iter()
            .map(|e| (e.pitches[0].midi, e.is_grace()))
            .collect();
        // The higher grace note was written first and stays first.
        assert_eq!(order, [(72, false), (67, true), (61, true), (60, false)]);
        assert_eq!(v.grace_count(), 2);
        let mut score = Score {
            voices: vec![v],
            ..Score::default()
        };
        assert_eq!(score.remove_grace_notes(), 2);
        assert_eq!(score.event_count(), 2);
    }

    #[test]
    fn queries() {
        let mut s = Score::default();
        let mut v1 = Voice::new("A");
        v1.events.push(ev((0, 1), (2, 1), 60));
        v1.events.push(ev((2, 1), (2, 1), 62));
        let mut v2 = Voice::new("B");
        v2.events.push(ev((1, 1), (3, 2), 48));
        s.voices = vec![v1, v2];
        assert_eq!(s.sounding_at(time(3, 2)).count(), 2);
        assert_eq!(
            s.sounding_at(time(5, 2)).count(),
            1,
            "B ends exactly at 5/2"
        );
        assert_eq!(s.sounding_at(time(4, 1)).count(), 0);
        let probe = s.voices[1].events[0].clone();
        let others: Vec<_> = s.overlapping_others(1, &probe).collect();
        assert_eq!(others.len(), 2);
        assert_eq!(s.bar_count(), 1);
        assert_eq!(s.bar_of(time(4, 1)), 2);
    }
}
