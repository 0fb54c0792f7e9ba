//! Walking one `<part>` measure by measure into timed noteheads.
//!
//! Within a measure a cursor moves forward with each note's `<duration>` (in the
//! part's current `<divisions>`), back with `<backup>` and on with `<forward>`;
//! `<chord/>` notes share the previous note's onset. A measure lasts as long as
//! the furthest point its cursor reached (an empty measure lasts a full bar of
//! the current time signature), as music21 does, so incomplete measures and
//! pickups keep their notated length. Tied noteheads are merged later, in
//! [`super::ties`].

use super::dom::Doc;
use super::notation::{NoteType, parse_decimal};
use super::read::ReadReport;
use super::transpose::Transpose;
use super::{MusicXmlError, TAG_LYRIC_NAME};
use crate::format::{PitchLevel, ReadOptions};
use crate::score::{Grace, Key, Letter, Meter, Spelling, Time};
use num_traits::{CheckedAdd, CheckedDiv, Zero};

/// Largest `<beats>` or `<beat-type>` accepted.
pub(crate) const MAX_METER_TERM: u32 = 1000;
/// Most staves one part may have.
pub(super) const MAX_STAVES: u32 = 64;
/// Largest absolute `<fifths>` accepted.
pub(crate) const MAX_FIFTHS: i32 = 35;

/// What the whole score learns while its parts are read: the first meter, key
/// and tempo, and the running report.
#[derive(Debug, Default)]
pub(crate) struct ScoreFacts {
    pub meter: Option<Meter>,
    pub key: Option<Key>,
    /// Whether `key`'s mode was stated by a `<mode>` element.
    pub key_mode_stated: bool,
    pub tempo: Option<Time>,
    pub report: ReadReport,
}

/// One sounding notehead, before ties are merged.
#[derive(Debug, Clone)]
pub(crate) struct RawNote {
    pub onset: Time,
    pub duration: Time,
    pub midi: u8,
    pub spelling: Spelling,
    /// Noteheads of one `<chord/>` group share this number.
    pub group: usize,
    pub tag: Option<String>,
    pub tie_start: bool,
    pub tie_stop: bool,
    /// A `<fermata>` among its `<notations>`.
    pub fermata: bool,
    /// The MusicXML `<voice>` text ("1" when absent).
    pub layer: String,
    /// The `<staff>` number (1 when absent).
    pub staff: u32,
    /// The `<note>` element, for positions in errors and warnings.
    pub node: usize,
    /// Set for a grace note (duration zero, never tied).
    pub grace: Option<Grace>,
}

/// One part read: its noteheads and the length of each measure.
#[derive(Debug)]
pub(crate) struct PartReading {
    pub notes: Vec<RawNote>,
    pub measure_lengths: Vec<Time>,
    /// Sum of the measure lengths.
    pub total_length: Time,
    /// Staves of the part: the most declared by `<staves>` or used by `<staff>`.
    pub staves: u32,
    /// The part's own first key signature.
    pub key: Option<Key>,
    /// Whether its mode was stated (else major was assumed).
    pub key_mode_stated: bool,
}

/// The onset and chord group of the previous note or rest in a measure, which a
/// following `<chord/>` note joins.
type ChordAnchor = Option<(Time, Option<usize>)>;

/// State while walking one part.
pub(super) struct Walk<'d, 's, 'f> {
    pub(super) doc: &'d Doc<'s>,
    pub(super) facts: &'f mut ScoreFacts,
    pub(super) divisions: Option<Time>,
    pub(super) meter: Option<Meter>,
    pub(super) notes: Vec<RawNote>,
    pub(super) groups: usize,
    pub(super) staves: u32,
    pub(super) pitch_level: PitchLevel,
    /// Current `<transpose>` per staff number (0: every staff).
    pub(super) transposes: Vec<(u32, Transpose)>,
    /// Whether the missing-`<divisions>` warning was given.
    pub(super) divisions_guessed: bool,
    /// Whether grace notes are kept ([`ReadOptions::grace_notes`]).
    pub(super) grace_notes: bool,
    /// The part's first key signature (at the pitch level read).
    pub(super) part_key: Option<Key>,
    /// Whether a `<mode>` stated `part_key`'s mode.
    pub(super) part_key_mode_stated: bool,
}

impl PartReading {
    /// Reads every `<measure>` of the part element `part`.
    pub fn read(
        doc: &Doc<'_>,
        part: usize,
        facts: &mut ScoreFacts,
        opts: &ReadOptions,
    ) -> Result<Self, MusicXmlError> {
        let meter = facts.meter;
        let mut walk = Walk {
            doc,
            facts,
            divisions: None,
            meter,
            notes: Vec::new(),
            groups: 0,
            staves: 1,
            pitch_level: opts.pitch,
            transposes: Vec::new(),
            divisions_guessed: false,
            grace_notes: opts.grace_notes,
            part_key: None,
            part_key_mode_stated: false,
        };
        let mut start = Time::zero();
        let mut lengths = Vec::new();
        for measure in doc.children_named(part, "measure") {
            let len = walk.measure(measure, start)?;
            lengths.push(len);
            start = start
                .checked_add(&len)
                .ok_or_else(|| doc.error_at(measure, "the part is too long to time exactly"))?;
        }
        Ok(PartReading {
            notes: walk.notes,
            measure_lengths: lengths,
            total_length: start,
            staves: walk.staves,
            key: walk.part_key,
            key_mode_stated: walk.part_key_mode_stated,
        })
    }
}

impl Walk<'_, '_, '_> {
    /// Reads one measure starting at absolute time `start`; returns its length.
    fn measure(&mut self, m: usize, start: Time) -> Result<Time, MusicXmlError> {
        let doc = self.doc;
        let mut cursor = Time::zero();
        let mut longest = Time::zero();
        let mut anchor: ChordAnchor = None;
        for c in doc.children(m) {
            match doc.node(c).name.as_str() {
                "attributes" => self.attributes(c, m)?,
                "note" => self.note(c, start, &mut cursor, &mut longest, &mut anchor)?,
                "backup" => {
                    if self.divisions.is_none() {
                        self.guess_divisions(c)?;
                    }
                    let d = self.duration_of(c)?;
                    if d > cursor {
                        self.warn(
                            c,
                            "<backup> goes before the start of the measure; stopped there",
                        );
                        cursor = Time::zero();
                    } else {
                        cursor -= d;
                    }
                    anchor = None;
                }
                "forward" => {
                    if self.divisions.is_none() {
                        self.guess_divisions(c)?;
                    }
                    let d = self.duration_of(c)?;
                    cursor = self.add(c, cursor, d)?;
                    longest = longest.max(cursor);
                    anchor = None;
                }
                "direction" => {
                    for s in doc.children_named(c, "sound") {
                        self.sound(s);
                    }
                }
                "sound" => self.sound(c),
                _ => {}
            }
        }
        if longest.is_zero() {
            Ok(self
                .meter
                .or(self.facts.meter)
                .unwrap_or(Meter::COMMON)
                .bar_length())
        } else {
            Ok(longest)
        }
    }

    /// One `<note>`: a pitched notehead, a rest, a grace or unpitched note.
    fn note(
        &mut self,
        n: usize,
        start: Time,
        cursor: &mut Time,
        longest: &mut Time,
        anchor: &mut ChordAnchor,
    ) -> Result<(), MusicXmlError> {
        let doc = self.doc;
        let pitch = doc.child(n, "pitch");
        let grace = doc.child(n, "grace").map(|g| match doc.attr(g, "slash") {
            Some("yes") => Grace::Acciaccatura,
            _ => Grace::Appoggiatura,
        });
        if grace.is_some() && (pitch.is_none() || !self.grace_notes) {
            if pitch.is_some() {
                self.facts.report.grace_notes_skipped += 1;
            }
            return Ok(());
        }
        if self.divisions.is_none() {
            self.guess_divisions(n)?;
        }
        let duration = match doc.child(n, "duration") {
            // A grace note takes no notated time, whatever it draws.
            _ if grace.is_some() => Time::zero(),
            Some(d) => self.duration_of(d)?,
            None => match self.drawn_length(n) {
                Some(len) => {
                    self.warn(n, "a note without <duration>: timed by its <type>");
                    len
                }
                None => {
                    return Err(doc.error_at(
                        n,
                        "a note needs a <duration> or a <type> (only grace notes omit both)",
                    ));
                }
            },
        };
        let joined = if doc.has_child(n, "chord") {
            *anchor
        } else {
            None
        };
        let (onset, group) = match joined {
            Some(joined) => joined,
            None => {
                let onset = *cursor;
                *cursor = self.add(n, onset, duration)?;
                *longest = (*longest).max(*cursor);
                (onset, None)
            }
        };
        if doc.has_child(n, "rest") {
            *anchor = Some((onset, None));
            return Ok(());
        }
        if doc.has_child(n, "unpitched") {
            self.facts.report.unpitched_skipped += 1;
            *anchor = Some((onset, None));
            return Ok(());
        }
        let Some(pitch) = pitch else {
            return Err(doc.error_at(n, "a note needs <pitch>, <unpitched> or <rest>"));
        };
        let staff = match doc.child(n, "staff") {
            None => 1,
            Some(st) => self.staff_number(st)?,
        };
        let (mut midi, mut spelling) = self.pitch(pitch)?;
        if let Some(t) = self.transpose_for(staff) {
            (midi, spelling) = t.apply(midi, spelling).ok_or_else(|| {
                doc.error_at(
                    pitch,
                    "the sounding pitch (after <transpose>) lies outside MIDI 0-127",
                )
            })?;
        }
        let group = group.unwrap_or_else(|| {
            self.groups += 1;
            self.groups
        });
        *anchor = Some((onset, Some(group)));
        if duration.is_zero() && grace.is_none() {
            self.facts.report.zero_duration_skipped += 1;
            self.warn(n, "a pitched note with zero duration was left out");
            return Ok(());
        }
        let onset = self.add(n, start, onset)?;
        let (mut tie_start, mut tie_stop) = (false, false);
        let tied = doc
            .children_named(n, "notations")
            .flat_map(|nt| doc.children_named(nt, "tied"));
        for t in doc.children_named(n, "tie").chain(tied) {
            if grace.is_some() {
                break;
            }
            match doc.attr(t, "type") {
                Some("start") => tie_start = true,
                Some("stop") => tie_stop = true,
                Some("continue") => (tie_start, tie_stop) = (true, true),
                _ => {}
            }
        }
        self.staves = self.staves.max(staff);
        let tag = doc
            .children_named(n, "lyric")
            .filter(|&l| doc.attr(l, "name") == Some(TAG_LYRIC_NAME))
            .find_map(|l| doc.child(l, "text"))
            .map(|t| doc.node(t).text.clone());
        self.notes.push(RawNote {
            onset,
            duration,
            midi,
            spelling,
            group,
            tag,
            tie_start,
            tie_stop,
            fermata: doc
                .children_named(n, "notations")
                .any(|nt| doc.has_child(nt, "fermata")),
            layer: doc.child_text(n, "voice").unwrap_or("1").to_string(),
            staff,
            node: n,
            grace,
        });
        if grace.is_some() {
            self.facts.report.grace_notes_read += 1;
        }
        Ok(())
    }

    /// MIDI number and spelling of a `<pitch>` element.
    fn pitch(&self, p: usize) -> Result<(u8, Spelling), MusicXmlError> {
        let doc = self.doc;
        let step = doc.child_text(p, "step").unwrap_or("");
        let mut chars = step.chars();
        let letter = match (chars.next().and_then(Letter::from_char), chars.next()) {
            (Some(letter), None) if step.chars().all(|c| c.is_ascii_uppercase()) => letter,
            _ => return Err(doc.error_at(p, format!("<step> must be one of A-G, found {step:?}"))),
        };
        let alter = match doc.child_text(p, "alter") {
            None => Time::zero(),
            Some(text) => parse_decimal(text)
                .ok_or_else(|| doc.error_at(p, format!("<alter> is not a number: {text:?}")))?,
        };
        if !alter.is_integer() {
            return Err(doc.error_at(
                p,
                format!("microtonal <alter> {alter} cannot be held by the model"),
            ));
        }
        let octave_text = doc.child_text(p, "octave").unwrap_or("");
        let octave: i64 = octave_text.parse().map_err(|_| {
            doc.error_at(
                p,
                format!("<octave> must be an integer, found {octave_text:?}"),
            )
        })?;
        let alter = alter.to_integer();
        let midi = octave
            .checked_add(1)
            .and_then(|o| o.checked_mul(12))
            .and_then(|m| m.checked_add(i64::from(letter.pitch_class())))
            .and_then(|m| m.checked_add(alter));
        let (Some(midi), Ok(alter)) =
            (midi.and_then(|m| u8::try_from(m).ok()), i8::try_from(alter))
        else {
            return Err(doc.error_at(p, "the pitch lies outside MIDI 0-127"));
        };
        if midi > 127 {
            return Err(doc.error_at(p, "the pitch lies outside MIDI 0-127"));
        }
        Ok((midi, Spelling { letter, alter }))
    }

    /// With no `<divisions>` yet, the divisions the note `n` shows: its
    /// `<duration>` over the length its `<type>`, dots and time modification
    /// draw. Without a type to go by, one division per quarter note.
    fn guess_divisions(&mut self, n: usize) -> Result<(), MusicXmlError> {
        let doc = self.doc;
        let drawn = self.drawn_length(n);
        let written = doc
            .child_text(n, "duration")
            .and_then(parse_decimal)
            .filter(|v| *v > Time::zero());
        let (divisions, how) = match (drawn, written) {
            (Some(drawn), Some(written)) => match written.checked_div(&drawn) {
                Some(d) => (d, "taken from the first note's <type> and <duration>"),
                None => (Time::from_integer(1), "one per quarter note"),
            },
            _ => (Time::from_integer(1), "one per quarter note"),
        };
        self.divisions = Some(divisions);
        if !self.divisions_guessed {
            self.divisions_guessed = true;
            let msg =
                format!("no <divisions> before the first note: {divisions} per quarter, {how}");
            self.warn(n, &msg);
        }
        Ok(())
    }

    /// The length the `<type>`, dots and `<time-modification>` of note `n` draw.
    fn drawn_length(&self, n: usize) -> Option<Time> {
        let doc = self.doc;
        let t = doc
            .child_text(n, "type")
            .and_then(NoteType::from_musicxml_name)?;
        let dots = doc.children_named(n, "dot").count();
        let mut len = t.dotted(u32::try_from(dots).unwrap_or(u32::MAX));
        if let Some(tm) = doc.child(n, "time-modification") {
            let term = |name| doc.child_text(tm, name).and_then(|v| v.parse::<i64>().ok());
            if let (Some(actual), Some(normal)) = (term("actual-notes"), term("normal-notes"))
                && (1..=1000).contains(&actual)
                && (1..=1000).contains(&normal)
            {
                len *= Time::new(normal, actual);
            }
        }
        Some(len)
    }

    /// The `<duration>` child of `e` (or `e` itself if it is one) in quarter notes.
    fn duration_of(&self, e: usize) -> Result<Time, MusicXmlError> {
        let doc = self.doc;
        let d = if doc.node(e).name == "duration" {
            e
        } else {
            doc.child(e, "duration")
                .ok_or_else(|| doc.error_at(e, "missing <duration>"))?
        };
        let text = doc.trimmed_text(d);
        let value = parse_decimal(text)
            .filter(|v| *v >= Time::zero())
            .ok_or_else(|| {
                doc.error_at(
                    d,
                    format!("<duration> must be a non-negative number, found {text:?}"),
                )
            })?;
        let divisions = self
            .divisions
            .ok_or_else(|| doc.error_at(d, "a <duration> before any <divisions>"))?;
        value
            .checked_div(&divisions)
            .ok_or_else(|| doc.error_at(d, "the duration is too large to represent exactly"))
    }

    /// A `<staff>` or `<staves>` number: 1 to [`MAX_STAVES`].
    pub(super) fn staff_number(&self, e: usize) -> Result<u32, MusicXmlError> {
        let text = self.doc.trimmed_text(e);
        text.parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_STAVES).contains(n))
            .ok_or_else(|| {
                self.doc.error_at(
                    e,
                    format!("expected a staff count from 1 to {MAX_STAVES}, found {text:?}"),
                )
            })
    }

    /// `a + b`, or an error at element `e` on overflow.
    pub(super) fn add(&self, e: usize, a: Time, b: Time) -> Result<Time, MusicXmlError> {
        a.checked_add(&b).ok_or_else(|| {
            self.doc
                .error_at(e, "the time is too large to represent exactly")
        })
    }

    /// Records a warning positioned at element `e`.
    pub(super) fn warn(&mut self, e: usize, message: &str) {
        let at = self.doc.position(e);
        self.facts.report.warnings.push(format!("{at}: {message}"));
    }
}
