//! Score and staff definitions: meter, key, tempo, staff labels and
//! transpositions, from MEI 4 attributes (`@meter.count`, `@key.sig`,
//! `@label`) or MEI 5 children (`<meterSig>`, `<keySig>`, `<label>`).

use super::MeiError;
use super::pitch::key_signature;
use super::read::{MAX_TERM, Staff, Walk};
use crate::format::PitchLevel;
use crate::musicxml::notation::parse_decimal;
use crate::musicxml::transpose::{MAX_SEMITONES, Transpose};
use crate::score::{Key, Meter, Mode, Time};
use num_traits::Zero;

impl Walk<'_, '_> {
    /// Meter, key and tempo of a `<scoreDef>` (attributes or children), then its staves.
    pub(super) fn score_def(&mut self, el: usize) -> Result<(), MeiError> {
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

    pub(super) fn staff_grp(&mut self, el: usize) -> Result<(), MeiError> {
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

    pub(super) fn set_tempo(&mut self, el: usize, bpm: &str) {
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
    pub(super) fn staff_def(&mut self, el: usize) -> Result<(), MeiError> {
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
        let index = self.staff_index(n);
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
            let mode = match doc.attr(el, "key.mode") {
                Some("minor") => Mode::Minor,
                _ => Mode::Major,
            };
            let fifths = if self.pitch_level == PitchLevel::Sounding {
                t.fifths(fifths)
            } else {
                fifths
            };
            // Each staff keeps its own signature: parts of one score differ (a
            // transposing instrument, horns without a signature). Only a staff
            // changing its own key is something the model cannot hold.
            let key = Key::from_fifths(fifths.clamp(-7, 7), mode);
            let n = staff.n;
            match staff.first_key {
                None => staff.first_key = Some(key),
                Some(first) if first != key => {
                    let msg = format!(
                        "staff {n}: key change to {} fifths ignored; the staff keeps its first key",
                        key.fifths()
                    );
                    self.warn(el, &msg);
                }
                Some(_) => {}
            }
            if self.key.is_none() {
                self.key = Some(key);
                self.key_mode = Some(mode);
            }
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
    pub(super) fn staff_index(&mut self, n: u32) -> usize {
        match self.staves.iter().position(|s| s.n == n) {
            Some(i) => i,
            None => {
                self.staves.push(Staff {
                    n,
                    name: format!("Staff {n}"),
                    transpose: Transpose::default(),
                    key: None,
                    first_key: None,
                    notes: Vec::new(),
                });
                self.staves.len() - 1
            }
        }
    }
}
