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

use num_rational::Ratio;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Exact musical time in quarter notes.
pub type Time = Ratio<i64>;

/// Builds a [`Time`] from a numerator and denominator (quarter notes).
pub fn time(numer: i64, denom: i64) -> Time {
    Ratio::new(numer, denom)
}

/// A time signature `num/den`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Meter {
    pub num: u32,
    pub den: u32,
}

impl Meter {
    pub const COMMON: Meter = Meter { num: 4, den: 4 };

    pub fn new(num: u32, den: u32) -> Self {
        Meter { num, den }
    }

    /// Length of one bar in quarter notes: `4 * num / den`.
    pub fn bar_length(self) -> Time {
        Ratio::new(4 * i64::from(self.num), i64::from(self.den))
    }
}

/// Why a text is not a meter: it must be `num/den` with both parts whole numbers in
/// 1..=[`MAX_METER`](crate::grammar::MAX_METER) (spaces around the slash allowed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MeterError {
    pub text: String,
}

impl fmt::Display for MeterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot read meter {:?}: write it like \"3/4\" (whole numbers 1 to {})",
            self.text,
            crate::grammar::MAX_METER
        )
    }
}

impl std::error::Error for MeterError {}

/// Reads `"num/den"`: the one meter reader, used by the text grammar and by specs.
///
/// ```
/// use cantus_music::Meter;
/// assert_eq!("6 / 8".parse(), Ok(Meter::new(6, 8)));
/// assert!("0/4".parse::<Meter>().is_err());
/// ```
impl std::str::FromStr for Meter {
    type Err = MeterError;

    fn from_str(text: &str) -> Result<Meter, MeterError> {
        let bad = || MeterError { text: text.into() };
        let (num, den) = text.split_once('/').ok_or_else(bad)?;
        let part = |s: &str| {
            let s = s.trim();
            (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<u32>().ok())
                .flatten()
                .filter(|n| (1..=crate::grammar::MAX_METER).contains(n))
        };
        Ok(Meter::new(
            part(num).ok_or_else(bad)?,
            part(den).ok_or_else(bad)?,
        ))
    }
}

impl Default for Meter {
    fn default() -> Self {
        Meter::COMMON
    }
}

impl fmt::Display for Meter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.num, self.den)
    }
}

/// A note letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Letter {
    C,
    D,
    E,
    F,
    G,
    A,
    B,
}

impl Letter {
    pub const ALL: [Letter; 7] = [
        Letter::C,
        Letter::D,
        Letter::E,
        Letter::F,
        Letter::G,
        Letter::A,
        Letter::B,
    ];

    /// Pitch class of the natural note (C = 0 … B = 11).
    pub fn pitch_class(self) -> i32 {
        match self {
            Letter::C => 0,
            Letter::D => 2,
            Letter::E => 4,
            Letter::F => 5,
            Letter::G => 7,
            Letter::A => 9,
            Letter::B => 11,
        }
    }

    pub fn from_char(c: char) -> Option<Letter> {
        Some(match c.to_ascii_uppercase() {
            'C' => Letter::C,
            'D' => Letter::D,
            'E' => Letter::E,
            'F' => Letter::F,
            'G' => Letter::G,
            'A' => Letter::A,
            'B' => Letter::B,
            _ => return None,
        })
    }

    pub fn as_char(self) -> char {
        match self {
            Letter::C => 'C',
            Letter::D => 'D',
            Letter::E => 'E',
            Letter::F => 'F',
            Letter::G => 'G',
            Letter::A => 'A',
            Letter::B => 'B',
        }
    }
}

/// How a pitch is written: a letter and an alteration in semitones (+1 sharp,
/// -1 flat, ±2 double). The octave follows from the MIDI number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Spelling {
    pub letter: Letter,
    pub alter: i8,
}

impl Spelling {
    /// The default spelling of a pitch class: naturals where possible, else sharps.
    pub fn sharp_default(pc: u8) -> Spelling {
        const TABLE: [(Letter, i8); 12] = [
            (Letter::C, 0),
            (Letter::C, 1),
            (Letter::D, 0),
            (Letter::D, 1),
            (Letter::E, 0),
            (Letter::F, 0),
            (Letter::F, 1),
            (Letter::G, 0),
            (Letter::G, 1),
            (Letter::A, 0),
            (Letter::A, 1),
            (Letter::B, 0),
        ];
        let (letter, alter) = TABLE[usize::from(pc % 12)];
        Spelling { letter, alter }
    }

    /// The default flat spelling of a pitch class: naturals where possible, else flats.
    pub fn flat_default(pc: u8) -> Spelling {
        const TABLE: [(Letter, i8); 12] = [
            (Letter::C, 0),
            (Letter::D, -1),
            (Letter::D, 0),
            (Letter::E, -1),
            (Letter::E, 0),
            (Letter::F, 0),
            (Letter::G, -1),
            (Letter::G, 0),
            (Letter::A, -1),
            (Letter::A, 0),
            (Letter::B, -1),
            (Letter::B, 0),
        ];
        let (letter, alter) = TABLE[usize::from(pc % 12)];
        Spelling { letter, alter }
    }

    /// Scientific octave number of this spelling for a MIDI number (C4 = 60;
    /// B#3 = 60). May be negative.
    pub fn octave_for(self, midi: u8) -> i32 {
        (i32::from(midi) - i32::from(self.alter) - self.letter.pitch_class()).div_euclid(12) - 1
    }
}

/// One sounding pitch: a MIDI number (C4 = 60) and, optionally, how it is spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Pitch {
    pub midi: u8,
    pub spelling: Option<Spelling>,
}

impl Pitch {
    pub fn new(midi: u8) -> Self {
        Pitch {
            midi,
            spelling: None,
        }
    }

    pub fn spelled(midi: u8, spelling: Spelling) -> Self {
        Pitch {
            midi,
            spelling: Some(spelling),
        }
    }

    /// Pitch class 0..=11 (C = 0).
    pub fn pc(self) -> u8 {
        self.midi % 12
    }

    /// The spelling to write: the stored one, else the sharp default.
    pub fn spelling_or_default(self) -> Spelling {
        self.spelling
            .unwrap_or_else(|| Spelling::sharp_default(self.pc()))
    }

    /// Reads a pitch name as the text grammar writes it: a letter `A`–`G` (either
    /// case), any `#` or `b`, then the octave, possibly negative (C4 = MIDI 60,
    /// `Bb3`, `F#5`, `C##4`, `C-1` = 0). The spelling is kept. Also through
    /// [`str::parse`].
    ///
    /// ```
    /// use cantus_music::{Letter, Pitch};
    /// let p = Pitch::parse("Bb3").unwrap();
    /// assert_eq!(p.midi, 58);
    /// assert_eq!(p.spelling.map(|s| (s.letter, s.alter)), Some((Letter::B, -1)));
    /// assert_eq!("C-1".parse::<Pitch>().unwrap().midi, 0);
    /// assert!(Pitch::parse("H4").is_err());
    /// assert!(Pitch::parse("G#9").is_err(), "above MIDI 127");
    /// ```
    pub fn parse(text: &str) -> Result<Pitch, PitchError> {
        crate::grammar::parse_pitch_name(text)
    }
}

impl std::str::FromStr for Pitch {
    type Err = PitchError;

    fn from_str(text: &str) -> Result<Pitch, PitchError> {
        Pitch::parse(text)
    }
}

/// Why a pitch name could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PitchError {
    /// Not letter, accidentals, octave.
    #[error("{message}")]
    Malformed {
        /// The text read.
        text: String,
        /// What is wrong, e.g. "`H` is not a note letter (A-G)".
        message: String,
    },
    /// A well-formed name outside MIDI 0..=127.
    #[error("{message}")]
    OutOfRange {
        /// The text read.
        text: String,
        /// What is wrong, with the MIDI number when it is known.
        message: String,
    },
}

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

/// Key signature: tonic letter and alteration, and mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Key {
    pub tonic: Spelling,
    pub mode: Mode,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Mode {
    Major,
    Minor,
}

impl Key {
    /// Number of sharps (positive) or flats (negative) of this key's signature.
    pub fn fifths(self) -> i32 {
        // Position of the tonic on the line of fifths relative to C.
        let letter_fifths = match self.tonic.letter {
            Letter::F => -1,
            Letter::C => 0,
            Letter::G => 1,
            Letter::D => 2,
            Letter::A => 3,
            Letter::E => 4,
            Letter::B => 5,
        };
        let major = letter_fifths + 7 * i32::from(self.tonic.alter);
        match self.mode {
            Mode::Major => major,
            Mode::Minor => major - 3,
        }
    }

    /// The key with this many fifths in this mode (e.g. -1 major = F major).
    pub fn from_fifths(fifths: i32, mode: Mode) -> Key {
        let major_fifths = match mode {
            Mode::Major => fifths,
            Mode::Minor => fifths + 3,
        };
        // Line of fifths starting at F (index 0): F C G D A E B.
        const LINE: [Letter; 7] = [
            Letter::F,
            Letter::C,
            Letter::G,
            Letter::D,
            Letter::A,
            Letter::E,
            Letter::B,
        ];
        let idx = major_fifths + 1;
        let letter = LINE[idx.rem_euclid(7) as usize];
        let alter = idx.div_euclid(7) as i8;
        Key {
            tonic: Spelling { letter, alter },
            mode,
        }
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
    fn key_fifths_round_trip() {
        for mode in [Mode::Major, Mode::Minor] {
            for fifths in -7..=7 {
                assert_eq!(Key::from_fifths(fifths, mode).fifths(), fifths);
            }
        }
        let f_major = Key {
            tonic: Spelling {
                letter: Letter::F,
                alter: 0,
            },
            mode: Mode::Major,
        };
        assert_eq!(f_major.fifths(), -1);
        assert_eq!(Key::from_fifths(-3, Mode::Minor).tonic.letter, Letter::C);
    }

    #[test]
    fn spelling_octaves() {
        let bsharp = Spelling {
            letter: Letter::B,
            alter: 1,
        };
        assert_eq!(bsharp.octave_for(60), 3);
        let cflat = Spelling {
            letter: Letter::C,
            alter: -1,
        };
        assert_eq!(cflat.octave_for(59), 4);
        assert_eq!(Spelling::sharp_default(0).octave_for(0), -1);
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
