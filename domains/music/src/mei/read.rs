//! The walk through an MEI `<score>`: score and staff definitions, sections,
//! measures, staves, layers (see the module docs of [`super`] for what is read
//! and how). Noteheads are collected per staff as the MusicXML reader collects
//! them per part, and merged into events by the same tie code.

use super::MeiError;
use super::pitch::{MeasureAccidentals, accid_semitones, key_signature};
use crate::format::{PitchLevel, ReadOptions};
use crate::musicxml::ReadReport;
use crate::musicxml::dom::Doc;
use crate::musicxml::notation::{NoteType, parse_decimal};
use crate::musicxml::part::RawNote;
use crate::musicxml::ties::events_from_notes;
use crate::musicxml::transpose::{MAX_SEMITONES, Transpose};
use crate::score::{Key, Letter, Meter, Mode, Score, Spelling, Time, Voice, unique_name};
use num_traits::{CheckedAdd, CheckedMul, Zero};
use std::collections::{HashMap, HashSet};

/// Largest `@meter.count` / `@meter.unit`, tuplet term or `multiRest` count.
const MAX_TERM: i64 = 1000;

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
struct Staff {
    n: u32,
    name: String,
    transpose: Transpose,
    key: Option<[i8; 7]>,
    notes: Vec<RawNote>,
}

/// State of the walk.
struct Walk<'d, 's> {
    doc: &'d Doc<'s>,
    pitch_level: PitchLevel,
    staves: Vec<Staff>,
    meter: Option<Meter>,
    first_meter: Option<Meter>,
    key: Option<Key>,
    key_alters: [i8; 7],
    key_mode: Option<Mode>,
    tempo: Option<Time>,
    /// Start of the current measure.
    start: Time,
    measure_lengths: Vec<Time>,
    accidentals: MeasureAccidentals,
    groups: usize,
    /// `xml:id` of each notehead: (staff index, note index).
    ids: HashMap<String, (usize, usize)>,
    /// `<tie startid endid>` elements, resolved at the end.
    ties: Vec<(usize, String, String)>,
    grace: usize,
    repeats: usize,
    report: ReadReport,
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
            ties: Vec::new(),
            grace: 0,
            repeats: 0,
            report: ReadReport::default(),
        }
    }

    fn err(&self, at: usize, message: impl Into<String>) -> MeiError {
        self.doc.error_at(at, message).into()
    }

    fn warn(&mut self, at: usize, message: &str) {
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
    fn int_attr(&self, el: usize, name: &str, max: i64) -> Result<Option<i64>, MeiError> {
        let Some(text) = self.doc.attr(el, name) else {
            return Ok(None);
        };
        text.trim()
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

    /// Meter, key and tempo of a `<scoreDef>` (attributes or children), then its staves.
    fn score_def(&mut self, el: usize) -> Result<(), MeiError> {
        let doc = self.doc;
        let meter_sig = doc.child(el, "meterSig");
        let count = self.int_attr(el, "meter.count", MAX_TERM)?;
        let unit = self.int_attr(el, "meter.unit", MAX_TERM)?;
        let (count, unit) = match (count, unit, meter_sig) {
            (Some(c), Some(u), _) => (Some(c), Some(u)),
            (_, _, Some(ms)) => (
                self.int_attr(ms, "count", MAX_TERM)?,
                self.int_attr(ms, "unit", MAX_TERM)?,
            ),
            _ => (None, None),
        };
        if let (Some(count), Some(unit)) = (count, unit) {
            self.set_meter(el, count, unit)?;
        }
        let key_sig = doc.child(el, "keySig");
        let sig = doc
            .attr(el, "key.sig")
            .or_else(|| key_sig.and_then(|k| doc.attr(k, "sig")));
        let mode = doc
            .attr(el, "key.mode")
            .or_else(|| key_sig.and_then(|k| doc.attr(k, "mode")));
        if let Some(sig) = sig {
            let (fifths, alters) = self.key_sig(el, sig)?;
            self.key_alters = alters;
            for staff in &mut self.staves {
                staff.key = None;
            }
            self.set_key(el, fifths, mode);
        }
        if let Some(bpm) = doc.attr(el, "midi.bpm") {
            self.set_tempo(el, bpm);
        }
        for c in doc.children(el) {
            match doc.node(c).name.as_str() {
                "staffGrp" => self.staff_grp(c)?,
                "staffDef" => self.staff_def(c)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn staff_grp(&mut self, el: usize) -> Result<(), MeiError> {
        let doc = self.doc;
        for c in doc.children(el) {
            match doc.node(c).name.as_str() {
                "staffGrp" => self.staff_grp(c)?,
                "staffDef" => self.staff_def(c)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn key_sig(&self, el: usize, sig: &str) -> Result<(i32, [i8; 7]), MeiError> {
        key_signature(sig).ok_or_else(|| {
            self.err(
                el,
                format!("key signature {sig:?} is not `0` or 1-7 followed by `s` or `f`"),
            )
        })
    }

    fn set_meter(&mut self, el: usize, count: i64, unit: i64) -> Result<(), MeiError> {
        let (Ok(num), Ok(den)) = (u32::try_from(count), u32::try_from(unit)) else {
            return Err(self.err(el, "a meter needs a positive count and unit"));
        };
        if num == 0 || den == 0 {
            return Err(self.err(el, "a meter needs a positive count and unit"));
        }
        let meter = Meter::new(num, den);
        self.meter = Some(meter);
        match self.first_meter {
            None => self.first_meter = Some(meter),
            Some(first) if first != meter => {
                let msg = format!(
                    "meter change to {meter}: absolute times kept, the score keeps {first}"
                );
                self.warn(el, &msg);
            }
            Some(_) => {}
        }
        Ok(())
    }

    fn set_key(&mut self, el: usize, fifths: i32, mode: Option<&str>) {
        let mode = match mode {
            Some("minor") => Mode::Minor,
            _ => Mode::Major,
        };
        match self.key {
            None => {
                self.key = Some(Key::from_fifths(fifths, mode));
                self.key_mode = Some(mode);
            }
            Some(first) if first.fifths() != fifths || self.key_mode != Some(mode) => {
                let msg =
                    format!("key change to {fifths} fifths ignored; the score keeps its first key");
                self.warn(el, &msg);
            }
            Some(_) => {}
        }
    }

    fn set_tempo(&mut self, el: usize, bpm: &str) {
        match parse_decimal(bpm).filter(|t| *t > Time::zero()) {
            None => self.warn(el, &format!("tempo {bpm:?} ignored: not a positive number")),
            Some(t) if self.tempo.is_none() => self.tempo = Some(t),
            Some(t) if self.tempo != Some(t) => {
                self.warn(
                    el,
                    &format!("tempo change to {bpm} ignored; the score keeps its first tempo"),
                );
            }
            Some(_) => {}
        }
    }

    /// A `<staffDef>`: a new staff, or new settings for a known one.
    fn staff_def(&mut self, el: usize) -> Result<(), MeiError> {
        let doc = self.doc;
        let n = self
            .int_attr(el, "n", i64::from(u32::MAX))?
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| self.err(el, "a <staffDef> needs @n, its staff number"))?;
        let label = doc
            .attr(el, "label")
            .map(str::to_string)
            .or_else(|| doc.child(el, "label").map(|l| self.all_text(l)))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|l| !l.is_empty());
        let semi = self.int_attr(el, "trans.semi", i64::from(MAX_SEMITONES))?;
        let diat = self.int_attr(el, "trans.diat", i64::from(MAX_SEMITONES))?;
        let key = match doc
            .attr(el, "key.sig")
            .or_else(|| doc.child(el, "keySig").and_then(|k| doc.attr(k, "sig")))
        {
            Some(sig) => Some(self.key_sig(el, sig)?),
            None => None,
        };
        if let (Some(count), Some(unit)) = (
            self.int_attr(el, "meter.count", MAX_TERM)?,
            self.int_attr(el, "meter.unit", MAX_TERM)?,
        ) {
            self.set_meter(el, count, unit)?;
        }
        let index = match self.staves.iter().position(|s| s.n == n) {
            Some(i) => i,
            None => {
                self.staves.push(Staff {
                    n,
                    name: format!("Staff {n}"),
                    transpose: Transpose::default(),
                    key: None,
                    notes: Vec::new(),
                });
                self.staves.len() - 1
            }
        };
        let transpose = semi.map(|semi| Transpose::new(semi as i32, diat.map(|d| d as i32), 0));
        let staff = &mut self.staves[index];
        if let Some(label) = label {
            staff.name = label;
        }
        if let Some(t) = transpose {
            staff.transpose = t;
        }
        if let Some((fifths, alters)) = key {
            staff.key = Some(alters);
            let t = staff.transpose;
            let mode = doc.attr(el, "key.mode");
            let sounding = if self.pitch_level == PitchLevel::Sounding {
                t.fifths(fifths)
            } else {
                fifths
            };
            self.set_key(el, sounding.clamp(-7, 7), mode);
        }
        Ok(())
    }

    /// The text of `el` and of its children (a `<label>` may hold `<rend>` or `<lb/>`).
    fn all_text(&self, el: usize) -> String {
        let mut out = self.doc.node(el).text.clone();
        for c in self.doc.children(el) {
            out.push(' ');
            out.push_str(&self.doc.node(c).text);
        }
        out
    }

    /// The staff numbered `n`, created (named `Staff n`) if no `<staffDef>` declared it.
    fn staff_index(&mut self, n: u32) -> usize {
        match self.staves.iter().position(|s| s.n == n) {
            Some(i) => i,
            None => {
                self.staves.push(Staff {
                    n,
                    name: format!("Staff {n}"),
                    transpose: Transpose::default(),
                    key: None,
                    notes: Vec::new(),
                });
                self.staves.len() - 1
            }
        }
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
                    if doc.attr(c, "grace").is_some() {
                        self.grace += 1;
                        continue;
                    }
                    let length = self.duration(c, None, scale)?;
                    self.group_start();
                    self.note(c, staff, layer, cursor, length, None)?;
                    length
                }
                "chord" => {
                    let notes: Vec<usize> = doc.children_named(c, "note").collect();
                    if doc.attr(c, "grace").is_some() {
                        self.grace += notes.len();
                        continue;
                    }
                    let length = self.duration(c, None, scale)?;
                    self.group_start();
                    let tie = doc.attr(c, "tie");
                    for n in notes {
                        let own = self.duration(n, Some(length), scale)?;
                        self.note(n, staff, layer, cursor, own, tie)?;
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
                    self.grace += count_notes(doc, c);
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

    /// One notehead at `onset` within the measure.
    fn note(
        &mut self,
        n: usize,
        staff: usize,
        layer: &str,
        onset: Time,
        duration: Time,
        chord_tie: Option<&str>,
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
        let tie = doc.attr(n, "tie").or(chord_tie).unwrap_or("");
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
            layer: layer.to_string(),
            staff: 1,
            node: n,
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
            });
        }
        let mut warnings = report.warnings;
        if self.grace > 0 {
            warnings.push(format!(
                "{} grace notes skipped (they take no notated time)",
                self.grace
            ));
        }
        if self.repeats > 0 {
            warnings.push(format!(
                "{} measure or beat repeats read as silence (repeats are not expanded)",
                self.repeats
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
        Ok((score, warnings))
    }
}

/// Notes (in chords too) anywhere under `el`.
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
