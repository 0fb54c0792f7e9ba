//! The `<attributes>` of a measure and the score-wide facts inside measures:
//! divisions, staves, `<transpose>`, key, time signature, and `<sound tempo>`.
//! The first meter and tempo are the score's; later different ones are reported
//! (the model has one of each). Each part keeps its own first key (parts differ:
//! transposing instruments, horns without a signature); the score's key is the
//! first part's (a part in that key has no key of its own, `Voice::key`), and only a
//! part changing its own key is reported.

use super::MusicXmlError;
use super::notation::parse_decimal;
use super::part::{MAX_FIFTHS, MAX_METER_TERM, MAX_STAVES, Walk};
use super::transpose::{MAX_SEMITONES, Transpose};
use crate::format::PitchLevel;
use crate::score::{Key, Meter, Mode, Time};
use num_traits::Zero;

impl Walk<'_, '_, '_> {
    /// `<divisions>`, `<key>` and `<time>` of an `<attributes>` element in measure `m`.
    pub(super) fn attributes(&mut self, a: usize, m: usize) -> Result<(), MusicXmlError> {
        let doc = self.doc;
        if let Some(d) = doc.child(a, "divisions") {
            let text = doc.trimmed_text(d);
            match parse_decimal(text) {
                Some(v) if v > Time::zero() => self.divisions = Some(v),
                _ => {
                    return Err(doc.error_at(
                        d,
                        format!("<divisions> must be a positive number, found {text:?}"),
                    ));
                }
            }
        }
        if let Some(st) = doc.child(a, "staves") {
            let staves = self.staff_number(st)?;
            self.staves = self.staves.max(staves);
        }
        // <transpose> follows <key> in the schema, but says how to read it.
        let mut first_transpose = true;
        for t in doc.children_named(a, "transpose") {
            if first_transpose {
                self.transposes.clear();
                first_transpose = false;
            }
            self.transpose(t)?;
        }
        if let Some(k) = doc.child(a, "key") {
            self.key(k, m)?;
        }
        if let Some(t) = doc.child(a, "time") {
            self.time(t, m)?;
        }
        Ok(())
    }

    /// A `<key>`: the first one is the score's key; later different ones are reported.
    fn key(&mut self, k: usize, m: usize) -> Result<(), MusicXmlError> {
        let doc = self.doc;
        let Some(text) = doc.child_text(k, "fifths") else {
            self.warn(k, "a key signature without <fifths> was ignored");
            return Ok(());
        };
        let fifths = text
            .parse::<i32>()
            .ok()
            .filter(|f| f.abs() <= MAX_FIFTHS)
            .ok_or_else(|| {
                doc.error_at(
                    k,
                    format!("<fifths> must be an integer from -{MAX_FIFTHS} to {MAX_FIFTHS}, found {text:?}"),
                )
            })?;
        // A transposing part's signature is written; the score's key sounds.
        let fifths = match self.transpose_for(1) {
            Some(t) => t.fifths(fifths).clamp(-MAX_FIFTHS, MAX_FIFTHS),
            None => fifths,
        };
        // A signature without <mode> says nothing about the mode: it agrees with
        // any key of the same fifths, and a later stated mode refines it.
        let mode = match doc.child_text(k, "mode") {
            None | Some("") => None,
            Some("major") => Some(Mode::Major),
            Some("minor") => Some(Mode::Minor),
            Some(other) => {
                let msg = format!("mode {other:?} read as major (the model knows major and minor)");
                self.warn(k, &msg);
                Some(Mode::Major)
            }
        };
        let measure = doc.attr(m, "number").unwrap_or("?");
        match self.part_key {
            None => {
                self.part_key = Some(Key::from_fifths(fifths, mode.unwrap_or(Mode::Major)));
                self.part_key_mode_stated = mode.is_some();
            }
            Some(first) if first.fifths() != fifths => {
                let msg = format!(
                    "key change to {fifths} fifths in measure {measure} ignored; \
                     the part keeps its first key"
                );
                self.warn(k, &msg);
                return Ok(());
            }
            Some(first) => match (self.part_key_mode_stated, mode) {
                (false, Some(mode)) => {
                    self.part_key = Some(Key::from_fifths(fifths, mode));
                    self.part_key_mode_stated = true;
                }
                (true, Some(mode)) if mode != first.mode => {
                    let msg = format!(
                        "measure {measure} calls the key {mode:?}, the part's first key \
                         says {:?}; the first is kept",
                        first.mode
                    );
                    self.warn(k, &msg);
                    return Ok(());
                }
                _ => {}
            },
        }
        match self.facts.key {
            None => {
                self.facts.key = Some(Key::from_fifths(fifths, mode.unwrap_or(Mode::Major)));
                self.facts.key_mode_stated = mode.is_some();
            }
            // Another part's own key: kept with that part.
            Some(first) if first.fifths() != fifths => {}
            // A mode stated later refines a signature that stated none; another
            // part's different mode stays that part's.
            Some(_) => {
                if let (false, Some(mode)) = (self.facts.key_mode_stated, mode) {
                    self.facts.key = Some(Key::from_fifths(fifths, mode));
                    self.facts.key_mode_stated = true;
                }
            }
        }
        Ok(())
    }

    /// A `<transpose>`: chromatic semitones, diatonic steps, octave change and
    /// `<double/>` (an extra octave down), for one staff (`number`) or all.
    fn transpose(&mut self, t: usize) -> Result<(), MusicXmlError> {
        let doc = self.doc;
        let int = |name: &str| -> Result<Option<i32>, MusicXmlError> {
            let Some(text) = doc.child_text(t, name) else {
                return Ok(None);
            };
            parse_decimal(text)
                .filter(|v| v.is_integer() && v.to_integer().abs() <= i64::from(MAX_SEMITONES))
                .and_then(|v| i32::try_from(v.to_integer()).ok())
                .map(Some)
                .ok_or_else(|| {
                    doc.error_at(
                        t,
                        format!("<{name}> must be a whole number from -{MAX_SEMITONES} to {MAX_SEMITONES}, found {text:?}"),
                    )
                })
        };
        let chromatic =
            int("chromatic")?.ok_or_else(|| doc.error_at(t, "<transpose> needs <chromatic>"))?;
        let diatonic = int("diatonic")?;
        let octaves = int("octave-change")?.unwrap_or(0) - i32::from(doc.has_child(t, "double"));
        let staff = match doc.attr(t, "number") {
            None => 0,
            Some(_) => self.staff_number_attr(t)?,
        };
        let interval = Transpose::new(chromatic, diatonic, octaves);
        self.transposes.retain(|(s, _)| *s != staff);
        if !interval.is_identity() {
            self.transposes.push((staff, interval));
        }
        Ok(())
    }

    /// The transposition to apply to notes on `staff`, if the options ask for
    /// sounding pitch and the part transposes.
    pub(super) fn transpose_for(&self, staff: u32) -> Option<Transpose> {
        if self.pitch_level == PitchLevel::Written {
            return None;
        }
        let find = |s: u32| {
            self.transposes
                .iter()
                .find(|(k, _)| *k == s)
                .map(|(_, t)| *t)
        };
        find(staff).or_else(|| find(0))
    }

    /// A `<time>`: the first one is the score's meter; later different ones keep
    /// absolute times and are reported.
    fn time(&mut self, t: usize, m: usize) -> Result<(), MusicXmlError> {
        let doc = self.doc;
        if doc.has_child(t, "senza-misura") {
            self.warn(t, "senza-misura ignored");
            return Ok(());
        }
        let term = |name: &str| -> Option<u32> {
            let text = doc.child_text(t, name)?;
            let mut sum: u32 = 0;
            for part in text.split('+') {
                sum = sum.checked_add(part.trim().parse::<u32>().ok()?)?;
            }
            Some(sum).filter(|v| (1..=MAX_METER_TERM).contains(v))
        };
        let (Some(num), Some(den)) = (term("beats"), term("beat-type")) else {
            return Err(doc.error_at(
                t,
                format!("<time> needs <beats> and <beat-type> between 1 and {MAX_METER_TERM}"),
            ));
        };
        let meter = Meter::new(num, den);
        self.meter = Some(meter);
        match self.facts.meter {
            None => self.facts.meter = Some(meter),
            Some(first) if first != meter => {
                let msg = format!(
                    "meter change to {meter} in measure {}: absolute times kept, the score keeps {first}",
                    doc.attr(m, "number").unwrap_or("?")
                );
                self.warn(t, &msg);
            }
            Some(_) => {}
        }
        Ok(())
    }

    /// A `<sound tempo>`: the first one is the score's tempo.
    pub(super) fn sound(&mut self, s: usize) {
        let Some(text) = self.doc.attr(s, "tempo") else {
            return;
        };
        match parse_decimal(text).filter(|t| *t > Time::zero()) {
            None => self.warn(s, &format!("tempo {text:?} ignored: not a positive number")),
            Some(tempo) => match self.facts.tempo {
                None => self.facts.tempo = Some(tempo),
                Some(first) if first != tempo => {
                    let msg =
                        format!("tempo change to {text} ignored; the score keeps its first tempo");
                    self.warn(s, &msg);
                }
                Some(_) => {}
            },
        }
    }

    /// The `number` attribute of `e` as a staff number.
    fn staff_number_attr(&self, e: usize) -> Result<u32, MusicXmlError> {
        let text = self.doc.attr(e, "number").unwrap_or("").trim();
        text.parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_STAVES).contains(n))
            .ok_or_else(|| {
                self.doc.error_at(
                    e,
                    format!("number=\"{text}\" must be a staff from 1 to {MAX_STAVES}"),
                )
            })
    }
}
