//! The walk through an MEI `<score>`: score and staff definitions, sections,
//! measures, staves, layers (see the module docs of [`super`] for what is read
//! and how). Noteheads are collected per staff as the MusicXML reader collects
//! them per part, and merged into events by the same tie code.

use super::MeiError;
use super::pitch::{MeasureAccidentals, accid_semitones};
use crate::format::{PitchLevel, ReadOptions};
use crate::musicxml::ReadReport;
use crate::musicxml::dom::Doc;
use crate::musicxml::notation::NoteType;
use crate::musicxml::part::RawNote;
use crate::musicxml::ties::events_from_notes;
use crate::musicxml::transpose::Transpose;
use crate::score::{Grace, Key, Letter, Meter, Mode, Score, Spelling, Time, Voice, unique_name};
use num_traits::{CheckedAdd, CheckedMul, Zero};
use std::collections::{HashMap, HashSet};

/// Largest `@meter.count` / `@meter.unit`, tuplet term or `multiRest` count.
pub(super) const MAX_TERM: i64 = 1000;

/// Reads an MEI document with `opts`; the warnings say what was skipped.
pub fn read_with(xml: &str, opts: &ReadOptions) -> Result<(Score, Vec<String>), MeiError> {
    let doc = Doc::parse(xml)?;
    if doc.node(doc.root).name != "mei" {
        return Err(doc
            .error_at(
                doc.root,
                "not an MEI document: the root element must be <mei>",
            )
            .into());
    }
    let title = doc
        .child(doc.root, "meiHead")
        .and_then(|h| doc.child(h, "fileDesc"))
        .and_then(|f| doc.child(f, "titleStmt"))
        .and_then(|t| doc.child(t, "title"))
        .map(|t| doc.trimmed_text(t).to_string())
        .filter(|t| !t.is_empty());
    let score = find_score(&doc).ok_or_else(|| {
        MeiError::from(doc.error_at(doc.root, "no <score> in <music>: nothing to read"))
    })?;
    let mut walk = Walk::new(&doc, opts);
    walk.block(score)?;
    walk.finish(title)
}

/// The first `<score>` under `<music>` (through `body` and `mdiv`, nested or not).
fn find_score(doc: &Doc<'_>) -> Option<usize> {
    let music = doc.child(doc.root, "music")?;
    let mut stack = vec![music];
    while let Some(at) = stack.pop() {
        if doc.node(at).name == "score" {
            return Some(at);
        }
        for c in doc.children(at).collect::<Vec<_>>().into_iter().rev() {
            if matches!(doc.node(c).name.as_str(), "body" | "mdiv" | "score") {
                stack.push(c);
            }
        }
    }
    None
}

/// One staff: its voice name, transposition and key signature.
pub(super) struct Staff {
    pub(super) n: u32,
    pub(super) name: String,
    pub(super) transpose: Transpose,
    pub(super) key: Option<[i8; 7]>,
    /// Its first signature as a key, at the pitch level read (the voice's key).
    pub(super) first_key: Option<Key>,
    pub(super) notes: Vec<RawNote>,
}

/// State of the walk.
pub(super) struct Walk<'d, 's> {
    pub(super) doc: &'d Doc<'s>,
    pub(super) pitch_level: PitchLevel,
    pub(super) staves: Vec<Staff>,
    pub(super) meter: Option<Meter>,
    pub(super) first_meter: Option<Meter>,
    pub(super) key: Option<Key>,
    pub(super) key_alters: [i8; 7],
    pub(super) key_mode: Option<Mode>,
    pub(super) tempo: Option<Time>,
    /// Start of the current measure.
    pub(super) start: Time,
    pub(super) measure_lengths: Vec<Time>,
    pub(super) accidentals: MeasureAccidentals,
    pub(super) groups: usize,
    /// `xml:id` of each notehead: (staff index, note index).
    pub(super) ids: HashMap<String, (usize, usize)>,
    /// `xml:id` of each chord: its first notehead (a fermata on it is the chord's).
    pub(super) chord_ids: HashMap<String, (usize, usize)>,
    /// `<tie startid endid>` elements, resolved at the end.
    pub(super) ties: Vec<(usize, String, String)>,
    /// `<fermata startid>` elements, resolved at the end.
    pub(super) fermatas: Vec<(usize, String)>,
    /// Grace notes left out (not asked for).
    pub(super) grace: usize,
    /// Whether grace notes are kept ([`ReadOptions::grace_notes`]).
    pub(super) grace_notes: bool,
    /// Inside a `<graceGrp>`: the kind its notes are.
    pub(super) in_grace_group: Option<Grace>,
    pub(super) repeats: usize,
    pub(super) report: ReadReport,
}

impl<'d, 's> Walk<'d, 's> {
    fn new(doc: &'d Doc<'s>, opts: &ReadOptions) -> Self {
        Walk {
            doc,
            pitch_level: opts.pitch,
            staves: Vec::new(),
            meter: None,
            first_meter: None,
            key: None,
            key_alters: [0; 7],
            key_mode: None,
            tempo: None,
            start: Time::zero(),
            measure_lengths: Vec::new(),
            accidentals: MeasureAccidentals::default(),
            groups: 0,
            ids: HashMap::new(),
            chord_ids: HashMap::new(),
            ties: Vec::new(),
            fermatas: Vec::new(),
            grace: 0,
            grace_notes: opts.grace_notes,
            in_grace_group: None,
            repeats: 0,
            report: ReadReport::default(),
        }
    }

    pub(super) fn err(&self, at: usize, message: impl Into<String>) -> MeiError {
        self.doc.error_at(at, message).into()
    }

    pub(super) fn warn(&mut self, at: usize, message: &str) {
        let position = self.doc.position(at);
        self.report.warnings.push(format!("{position}: {message}"));
    }

    /// A score, section, ending or editorial wrapper: its children in order.
    fn block(&mut self, el: usize) -> Result<(), MeiError> {
        let doc = self.doc;
        for c in doc.children(el) {
            match doc.node(c).name.as_str() {
                "scoreDef" => self.score_def(c)?,
                "staffDef" => self.staff_def(c)?,
                "staffGrp" => self.staff_grp(c)?,
                "measure" => self.measure(c)?,
                "section" | "ending" | "lem" | "rdg" | "corr" | "reg" | "sic" | "orig" => {
                    self.block(c)?
                }
                "app" | "choice" => {
                    if let Some(chosen) = self.editorial(c) {
                        self.block(chosen)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The reading of an `<app>` or `<choice>` to follow.
    fn editorial(&self, el: usize) -> Option<usize> {
        let doc = self.doc;
        ["lem", "corr", "reg", "expan"]
            .iter()
            .find_map(|name| doc.child(el, name))
            .or_else(|| doc.children(el).next())
    }

    /// A whole number attribute within ±`max`, if present.
    pub(super) fn int_attr(
        &self,
        el: usize,
        name: &str,
        max: i64,
    ) -> Result<Option<i64>, MeiError> {
        let Some(text) = self.doc.attr(el, name) else {
            return Ok(None);
        };
        // Some encoders write whole numbers as decimals ("-2.000000"): read those too.
        let trimmed = text.trim();
        let whole = match trimmed.split_once('.') {
            Some((int, frac)) if !frac.is_empty() && frac.bytes().all(|b| b == b'0') => int,
            _ => trimmed,
        };
        whole
            .parse::<i64>()
            .ok()
            .filter(|v| v.abs() <= max)
            .map(Some)
            .ok_or_else(|| {
                self.err(
                    el,
                    format!("@{name} must be a whole number from -{max} to {max}, found {text:?}"),
                )
            })
    }

    fn bar(&self) -> Time {
        self.meter.unwrap_or(Meter::COMMON).bar_length()
    }

    /// One `<measure>`: its staves' layers from the measure start, then its
    /// control events (ties, tempo).
    fn measure(&mut self, m: usize) -> Result<(), MeiError> {
        let doc = self.doc;
        self.accidentals.clear();
        let mut longest = Time::zero();
        for (position, staff_el) in doc.children_named(m, "staff").enumerate() {
            let n = match self.int_attr(staff_el, "n", i64::from(u32::MAX))? {
                Some(n) => {
                    u32::try_from(n).map_err(|_| self.err(staff_el, "@n must be positive"))?
                }
                None => u32::try_from(position + 1).unwrap_or(u32::MAX),
            };
            let staff = self.staff_index(n);
            for layer in doc.children_named(staff_el, "layer") {
                let name = doc.attr(layer, "n").unwrap_or("1").to_string();
                let end = self.layer(layer, staff, &name, Time::zero(), Time::from_integer(1))?;
                longest = longest.max(end);
            }
        }
        for c in doc.children(m) {
            match doc.node(c).name.as_str() {
                "tie" => {
                    let id = |name| {
                        doc.attr(c, name)
                            .map(|v| v.trim_start_matches('#').to_string())
                    };
                    if let (Some(from), Some(to)) = (id("startid"), id("endid")) {
                        self.ties.push((c, from, to));
                    }
                }
                "tempo" => {
                    if let Some(bpm) = doc.attr(c, "midi.bpm") {
                        self.set_tempo(c, bpm);
                    }
                }
                "fermata" => self.fermata(c)?,
                _ => {}
            }
        }
        let length = if longest.is_zero() {
            self.bar()
        } else {
            longest
        };
        self.measure_lengths.push(length);
        self.start = self
            .start
            .checked_add(&length)
            .ok_or_else(|| self.err(m, "the piece is too long to time exactly"))?;
        Ok(())
    }

    /// The items of a layer (or of a beam, tuplet, tremolo inside one) from
    /// `cursor`, each lasting its written value times `scale`; returns the
    /// cursor after the last.
    fn layer(
        &mut self,
        el: usize,
        staff: usize,
        layer: &str,
        mut cursor: Time,
        scale: Time,
    ) -> Result<Time, MeiError> {
        let doc = self.doc;
        for c in doc.children(el) {
            let advance = match doc.node(c).name.as_str() {
                "note" => {
                    if let Some(kind) = self.grace_kind(c) {
                        if self.grace_notes {
                            self.group_start();
                            self.note(c, staff, layer, (cursor, Time::zero()), None, Some(kind))?;
                        } else {
                            self.grace += 1;
                        }
                        continue;
                    }
                    let length = self.duration(c, None, scale)?;
                    self.group_start();
                    self.note(c, staff, layer, (cursor, length), None, None)?;
                    length
                }
                "chord" => {
                    let notes: Vec<usize> = doc.children_named(c, "note").collect();
                    if let Some(kind) = self.grace_kind(c) {
                        if self.grace_notes {
                            self.group_start();
                            for n in notes {
                                let zero = Time::zero();
                                self.note(n, staff, layer, (cursor, zero), None, Some(kind))?;
                            }
                        } else {
                            self.grace += notes.len();
                        }
                        continue;
                    }
                    let length = self.duration(c, None, scale)?;
                    self.group_start();
                    if let Some(id) = doc.attr(c, "xml:id")
                        && !notes.is_empty()
                    {
                        let first = (staff, self.staves[staff].notes.len());
                        self.chord_ids.insert(id.to_string(), first);
                    }
                    for n in notes {
                        let own = self.duration(n, Some(length), scale)?;
                        self.note(n, staff, layer, (cursor, own), Some(c), None)?;
                    }
                    length
                }
                "rest" | "space" => self.duration(c, None, scale)?,
                "mRest" | "mSpace" => self.bar(),
                "multiRest" => {
                    let count = self.int_attr(c, "num", MAX_TERM)?.unwrap_or(1).max(1);
                    self.bar() * Time::from_integer(count)
                }
                "mRpt" | "beatRpt" | "halfmRpt" => {
                    self.repeats += 1;
                    let meter = self.meter.unwrap_or(Meter::COMMON);
                    match doc.node(c).name.as_str() {
                        "mRpt" => self.bar(),
                        "halfmRpt" => self.bar() / 2,
                        _ => Time::new(4, i64::from(meter.den)),
                    }
                }
                "beam" | "bTrem" => {
                    cursor = self.layer(c, staff, layer, cursor, scale)?;
                    continue;
                }
                "fTrem" => {
                    cursor = self.layer(c, staff, layer, cursor, scale / 2)?;
                    continue;
                }
                "tuplet" => {
                    let num = self.int_attr(c, "num", MAX_TERM)?.unwrap_or(3);
                    let numbase = self.int_attr(c, "numbase", MAX_TERM)?.unwrap_or(2);
                    if num <= 0 || numbase <= 0 {
                        return Err(self.err(c, "a tuplet needs a positive @num and @numbase"));
                    }
                    let inner = scale
                        .checked_mul(&Time::new(numbase, num))
                        .ok_or_else(|| self.err(c, "tuplets nested too deeply to time exactly"))?;
                    cursor = self.layer(c, staff, layer, cursor, inner)?;
                    continue;
                }
                "graceGrp" => {
                    if self.grace_notes {
                        // Its notes take no time: the cursor stays where it is.
                        let outer = self.in_grace_group;
                        self.in_grace_group = Some(grace_of(doc, c).unwrap_or(Grace::Appoggiatura));
                        self.layer(c, staff, layer, cursor, scale)?;
                        self.in_grace_group = outer;
                    } else {
                        self.grace += count_notes(doc, c);
                    }
                    continue;
                }
                "app" | "choice" => {
                    if let Some(chosen) = self.editorial(c) {
                        cursor = self.layer(chosen, staff, layer, cursor, scale)?;
                    }
                    continue;
                }
                _ => continue,
            };
            cursor = cursor
                .checked_add(&advance)
                .ok_or_else(|| self.err(c, "the measure is too long to time exactly"))?;
        }
        Ok(cursor)
    }

    fn group_start(&mut self) {
        self.groups += 1;
    }

    /// The grace kind of a `<note>` or `<chord>`: its own `@grace`, or the
    /// enclosing `<graceGrp>`'s; `None` for a note that takes time.
    fn grace_kind(&self, el: usize) -> Option<Grace> {
        grace_of(self.doc, el).or(self.in_grace_group)
    }

    /// The written value of `el` (`@dur`, `@dots` or `<dot>` children) times
    /// `scale`; `inherited` when `el` has no `@dur` of its own (a chord's note).
    fn duration(&self, el: usize, inherited: Option<Time>, scale: Time) -> Result<Time, MeiError> {
        let doc = self.doc;
        let Some(dur) = doc.attr(el, "dur").or_else(|| doc.attr(el, "dur.ges")) else {
            return inherited.ok_or_else(|| self.err(el, "needs @dur (its written value)"));
        };
        let Some(value) = NoteType::from_mei_dur(dur.trim()) else {
            return Err(self.err(
                el,
                format!("@dur {dur:?} is not a value such as 1, 2, 4, 8, 16 or breve"),
            ));
        };
        let dots = match self.int_attr(el, "dots", 8)? {
            Some(d) => u32::try_from(d).map_err(|_| self.err(el, "@dots must not be negative"))?,
            None => u32::try_from(doc.children_named(el, "dot").count()).unwrap_or(8),
        };
        let length = value.dotted(dots) * scale;
        if length <= Time::zero() {
            return Err(self.err(el, "a duration must be positive"));
        }
        Ok(length)
    }

    /// A `<fermata>` control event: on the note or chord `@startid` names (at the
    /// end, when every id is known), or on the notes of `@staff` (every staff when
    /// absent) beginning at `@tstamp` of this measure.
    fn fermata(&mut self, el: usize) -> Result<(), MeiError> {
        let doc = self.doc;
        if let Some(id) = doc.attr(el, "startid") {
            self.fermatas
                .push((el, id.trim_start_matches('#').to_string()));
            return Ok(());
        }
        let Some(tstamp) = doc.attr(el, "tstamp") else {
            self.warn(el, "a <fermata> with neither @startid nor @tstamp; ignored");
            return Ok(());
        };
        let beat = crate::musicxml::notation::parse_decimal(tstamp.trim())
            .filter(|b| *b >= Time::from_integer(1))
            .ok_or_else(|| {
                self.err(
                    el,
                    format!("@tstamp must be a beat from 1, found {tstamp:?}"),
                )
            })?;
        let meter = self.meter.unwrap_or(Meter::COMMON);
        let onset = self.start + (beat - 1) * Time::new(4, i64::from(meter.den.max(1)));
        let staves: Vec<u32> = match doc.attr(el, "staff") {
            Some(list) => list
                .split_whitespace()
                .filter_map(|n| n.parse().ok())
                .collect(),
            None => self.staves.iter().map(|s| s.n).collect(),
        };
        let mut found = false;
        for staff in self.staves.iter_mut().filter(|s| staves.contains(&s.n)) {
            for note in staff
                .notes
                .iter_mut()
                .filter(|n| n.onset == onset && !n.duration.is_zero())
            {
                note.fermata = true;
                found = true;
            }
        }
        if !found {
            self.warn(el, "a <fermata> @tstamp where no note begins; ignored");
        }
        Ok(())
    }

    /// One notehead at `onset` within the measure; `chord` is the `<chord>` it
    /// belongs to (its `@tie` and `@fermata` are the note's too).
    fn note(
        &mut self,
        n: usize,
        staff: usize,
        layer: &str,
        (onset, duration): (Time, Time),
        chord: Option<usize>,
        grace: Option<Grace>,
    ) -> Result<(), MeiError> {
        let doc = self.doc;
        let pname = doc.attr(n, "pname").unwrap_or("");
        let mut chars = pname.chars();
        let letter = match (chars.next().and_then(Letter::from_char), chars.next()) {
            (Some(l), None) if pname.chars().all(|c| c.is_ascii_lowercase()) => l,
            _ => return Err(self.err(n, format!("@pname must be one of a-g, found {pname:?}"))),
        };
        let octave = self
            .int_attr(n, "oct", 20)?
            .ok_or_else(|| self.err(n, "a <note> needs @oct"))?;
        let staff_n = self.staves[staff].n;
        let written = doc
            .attr(n, "accid")
            .or_else(|| doc.child(n, "accid").and_then(|a| doc.attr(a, "accid")));
        let gestural = doc
            .attr(n, "accid.ges")
            .or_else(|| doc.child(n, "accid").and_then(|a| doc.attr(a, "accid.ges")));
        let semitones = |v: &str| {
            accid_semitones(v.trim())
                .ok_or_else(|| self.err(n, format!("accidental {v:?} cannot be held by the model")))
        };
        let written = written.map(semitones).transpose()?;
        let gestural = gestural.map(semitones).transpose()?;
        if let Some(w) = written {
            self.accidentals.write(staff_n, letter, octave, w);
        }
        let index = Letter::ALL.iter().position(|l| *l == letter).unwrap_or(0);
        let key = self.staves[staff].key.unwrap_or(self.key_alters);
        let alter = gestural
            .or(written)
            .or_else(|| self.accidentals.get(staff_n, letter, octave))
            .unwrap_or(key[index]);
        let midi = (octave + 1) * 12 + i64::from(letter.pitch_class()) + i64::from(alter);
        let mut pitch = u8::try_from(midi)
            .ok()
            .filter(|m| *m <= 127)
            .map(|m| (m, Spelling { letter, alter }))
            .ok_or_else(|| self.err(n, "the pitch lies outside MIDI 0-127"))?;
        let t = self.staves[staff].transpose;
        if self.pitch_level == PitchLevel::Sounding && !t.is_identity() {
            pitch = t.apply(pitch.0, pitch.1).ok_or_else(|| {
                self.err(
                    n,
                    "the sounding pitch (after @trans.semi) lies outside MIDI 0-127",
                )
            })?;
        }
        // A grace note is never tied.
        let tie = match grace {
            Some(_) => "",
            None => doc
                .attr(n, "tie")
                .or_else(|| chord.and_then(|c| doc.attr(c, "tie")))
                .unwrap_or(""),
        };
        let absolute = self
            .start
            .checked_add(&onset)
            .ok_or_else(|| self.err(n, "the note's time is too large to represent"))?;
        let notes = &mut self.staves[staff].notes;
        if let Some(id) = doc.attr(n, "xml:id") {
            self.ids.insert(id.to_string(), (staff, notes.len()));
        }
        notes.push(RawNote {
            onset: absolute,
            duration,
            midi: pitch.0,
            spelling: pitch.1,
            group: self.groups,
            tag: None,
            tie_start: tie.contains(['i', 'm']),
            tie_stop: tie.contains(['t', 'm']),
            fermata: [Some(n), chord]
                .into_iter()
                .flatten()
                .any(|el| doc.attr(el, "fermata").is_some()),
            layer: layer.to_string(),
            staff: 1,
            node: n,
            grace,
        });
        Ok(())
    }

    /// Ties, the pickup shift, events per staff, the score.
    fn finish(mut self, title: Option<String>) -> Result<(Score, Vec<String>), MeiError> {
        let doc = self.doc;
        for (el, from, to) in std::mem::take(&mut self.ties) {
            match (self.ids.get(&from), self.ids.get(&to)) {
                (Some(&(fs, fi)), Some(&(ts, ti))) => {
                    self.staves[fs].notes[fi].tie_start = true;
                    self.staves[ts].notes[ti].tie_stop = true;
                }
                _ => self.warn(el, "a <tie> names a note that is not in the score; ignored"),
            }
        }
        for (el, id) in std::mem::take(&mut self.fermatas) {
            match self.ids.get(&id).or_else(|| self.chord_ids.get(&id)) {
                Some(&(s, i)) => self.staves[s].notes[i].fermata = true,
                None => self.warn(
                    el,
                    "a <fermata> names a note that is not in the score; ignored",
                ),
            }
        }
        let meter = self.first_meter.unwrap_or(Meter::COMMON);
        let bar = meter.bar_length();
        let shift = match self.measure_lengths.first() {
            Some(first) if *first < bar => bar - first,
            _ => Time::zero(),
        };
        let mut report = std::mem::take(&mut self.report);
        let mut voices = Vec::with_capacity(self.staves.len());
        let mut used = HashSet::new();
        for staff in std::mem::take(&mut self.staves) {
            let mut notes = staff.notes;
            for note in &mut notes {
                note.onset = note.onset.checked_add(&shift).ok_or_else(|| {
                    MeiError::from(doc.error_at(note.node, "the note's time is too large"))
                })?;
            }
            let events = events_from_notes(doc, notes, 1, &mut report)?
                .into_iter()
                .next()
                .unwrap_or_default();
            voices.push(Voice {
                name: unique_name(staff.name, &mut used),
                events,
                key: staff.first_key,
            });
        }
        let mut warnings = report.warnings;
        if self.grace > 0 {
            warnings.push(format!(
                "{} skipped (they take no notated time; kept when grace notes are asked for)",
                crate::counted(self.grace as u64, "grace note", "grace notes")
            ));
        }
        if self.repeats > 0 {
            warnings.push(format!(
                "{} read as silence (repeats are not expanded)",
                crate::counted(
                    self.repeats as u64,
                    "measure or beat repeat",
                    "measure or beat repeats"
                )
            ));
        }
        let mut score = Score {
            title,
            key: self.key,
            meter,
            tempo: self.tempo,
            bars: None,
            voices,
        };
        let total = self.start + shift;
        let declared = (total / bar).ceil().to_integer();
        let needed = (score.end() / bar).ceil().to_integer();
        if declared > needed {
            score.bars = u32::try_from(declared).ok();
        }
        score.fold_part_keys();
        Ok((score, warnings))
    }
}

/// Notes (in chords too) anywhere under `el`.
/// The grace kind `@grace` (or a one-slash `@stem.mod`) gives `el`: `unacc` or a
/// slashed stem is an acciaccatura, `acc` and `unknown` an appoggiatura.
fn grace_of(doc: &Doc<'_>, el: usize) -> Option<Grace> {
    let kind = doc.attr(el, "grace")?;
    Some(match kind.trim() {
        "unacc" => Grace::Acciaccatura,
        _ if doc.attr(el, "stem.mod") == Some("1slash") => Grace::Acciaccatura,
        _ => Grace::Appoggiatura,
    })
}

fn count_notes(doc: &Doc<'_>, el: usize) -> usize {
    let mut count = 0;
    let mut stack = vec![el];
    while let Some(at) = stack.pop() {
        for c in doc.children(at) {
            if doc.node(c).name == "note" {
                count += 1;
            } else {
                stack.push(c);
            }
        }
    }
    count
}
