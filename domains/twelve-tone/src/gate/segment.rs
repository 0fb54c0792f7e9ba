//! Statement re-derivation: the serial rules (`TT-ROW`, `TT-REPEAT`,
//! `TT-ROW-COMPLETE`) in one pass over a voice.
//!
//! # How a voice is cut into statements
//!
//! The voice's events are read in onset order. An event realises as many order
//! positions as it has distinct pitch classes (a chord realises consecutive positions
//! in any order). Statements are consecutive runs of 12 positions. Two refinements:
//!
//! * **Re-sounding.** An event with exactly the pitch classes of the voice's previous
//!   event, while that statement is still open (a repeated note, a tremolo), re-sounds
//!   the same positions: it realises none. In strict mode it is a `TT-REPEAT`
//!   violation. In relaxed mode an event whose readable tag equals the previous
//!   event's tag is such a re-sounding too, and is let through (counted as a
//!   `tagged_repetitions` fact) provided its pitch classes are the tagged ones.
//! * **Straddling.** A chord with more pitch classes than its statement has positions
//!   left is a `TT-ROW` violation, and closes that statement. If exactly as many of its
//!   pitch classes as there were positions left are new to the statement, the reading
//!   goes on as if the chord had been split there: the others open the next
//!   statement. Otherwise the whole chord opens the next statement.
//!
//! Any other event whose pitch classes already sounded in the open statement is a
//! premature repetition (`TT-REPEAT`) and still takes positions.
//!
//! # How a statement is judged
//!
//! Strict: the labels are re-derived from the pitches alone (tags are ignored): the
//! statement's candidate forms are narrowed event by event (see [`super::tables`]);
//! the first event that leaves no candidate is where the statement breaks, reported
//! once as `TT-ROW` with what was found and what the forms that fitted so far
//! expected. A complete, unbroken statement's labels are its remaining candidates:
//! one label, or two for a symmetric row. Relaxed: a tagged event must sit where its
//! tag says (`start` = its first position, `len` = its pitch-class count) and sound
//! the tagged positions of the tagged form; the statement's labels are then the
//! tagged form (and its aliases). Untagged events are derived as in strict mode.
//! A voice's last statement with fewer than 12 positions is `TT-ROW-COMPLETE`.

use super::events::Slot;
use super::findings::Findings;
use super::rules::{Finding, Rule, mask_text, pcs_text};
use super::tables::{ALL_FORMS, SerialTables, forms_in, labels_text};
use crate::event::Tag;
use cantus_music::{Event, time_text};
use std::fmt::Write as _;

/// One statement as the gate derived it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Statement {
    /// Index of its first event in the voice.
    pub first: usize,
    /// Onset of its first event, in ticks.
    pub onset: i64,
    /// Forms consistent with it (its labels when complete and unbroken).
    pub forms: u64,
    /// Positions sounded, 1..=12.
    pub filled: u8,
    /// Whether a `TT-ROW` violation was reported in it.
    pub broken: bool,
}

/// Facts relaxed mode counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TagCounts {
    /// Events whose readable tag the gate used.
    pub relying: u64,
    /// Re-soundings let through because they repeat the previous tag.
    pub repetitions: u64,
    /// Events with a tag that does not read as a row tag.
    pub unreadable: u64,
}

/// The statement being filled.
#[derive(Clone, Copy, Debug)]
struct Open {
    first: usize,
    onset: i64,
    pos: u8,
    mask: u16,
    forms: u64,
    broken: bool,
}

impl Open {
    fn new(first: usize, onset: i64) -> Open {
        Open {
            first,
            onset,
            pos: 0,
            mask: 0,
            forms: ALL_FORMS,
            broken: false,
        }
    }

    fn close(self) -> Statement {
        Statement {
            first: self.first,
            onset: self.onset,
            forms: if self.broken { 0 } else { self.forms },
            filled: self.pos,
            broken: self.broken,
        }
    }
}

/// What the wording of a violation needs about one voice (built on the cold path).
pub(crate) struct VoiceInput<'a> {
    pub tables: &'a SerialTables,
    pub relaxed: bool,
    pub voice: usize,
    pub events: &'a [Event],
    /// The voice's slots read so far (at least up to the event being judged).
    pub slots: &'a [Slot],
}

/// The serial pass over one voice, fed one event at a time as its slot is built
/// (so the events are read once for every per-voice rule).
pub(crate) struct Walker<'a> {
    tables: &'a SerialTables,
    relaxed: bool,
    voice: usize,
    events: &'a [Event],
    statements: Vec<Statement>,
    /// The open statement, kept as plain fields (`open.pos == 0`: none open).
    open: Open,
    prev_mask: u16,
    prev_tag: Option<Tag>,
    prev_index: usize,
    /// Facts of relaxed mode.
    pub tags: TagCounts,
}

impl<'a> Walker<'a> {
    /// A walker for voice `voice` with events `events`.
    pub fn new(
        tables: &'a SerialTables,
        relaxed: bool,
        voice: usize,
        events: &'a [Event],
    ) -> Walker<'a> {
        Walker {
            tables,
            relaxed,
            voice,
            events,
            statements: Vec::with_capacity(events.len() / 10 + 1),
            open: Open::new(0, 0),
            prev_mask: 0,
            prev_tag: None,
            prev_index: 0,
            tags: TagCounts::default(),
        }
    }

    fn input<'b>(&'b self, slots: &'b [Slot]) -> VoiceInput<'b> {
        VoiceInput {
            tables: self.tables,
            relaxed: self.relaxed,
            voice: self.voice,
            events: self.events,
            slots,
        }
    }

    /// Reads event `k`, whose slot is `slots[k]`.
    #[inline]
    pub fn step(&mut self, k: usize, slots: &[Slot], findings: &mut Findings) {
        let Some(slot) = slots.get(k) else {
            return;
        };
        let m = slot.mask;
        if m == 0 {
            return;
        }
        let n = m.count_ones() as u8;
        let tag = if self.relaxed {
            self.events.get(k).and_then(|e| read_tag(e, &mut self.tags))
        } else {
            None
        };
        let tagged_repeat = tag.is_some() && tag == self.prev_tag;
        if tagged_repeat || (self.open.pos > 0 && m == self.prev_mask) {
            self.repeat(k, slots, m, tag, tagged_repeat, findings);
            return;
        }
        // What of this event the statement it lands in takes (all of it, unless it
        // straddles).
        let (mut m, mut n) = (m, n);
        if self.open.pos > 0 && self.open.pos + n > 12 {
            (m, n) = self.straddle(k, slots, m, n, findings);
        }
        if self.open.pos == 0 {
            self.open = Open::new(k, slot.onset);
        }
        if m & self.open.mask != 0 {
            let o = self.open;
            findings.push(premature_repeat(&self.input(slots), k, &o, m & o.mask));
        }
        if !self.open.broken {
            let forms = self.open.forms & self.tables.narrow(self.open.pos, n, m);
            if forms == 0 || tag.is_some() {
                self.judge_tag_or_break(k, slots, m, n, forms, tag, findings);
            } else {
                self.open.forms = forms;
            }
        }
        self.open.mask |= m;
        self.open.pos += n;
        if self.open.pos >= 12 {
            let closed = self.open.close();
            self.statements.push(closed);
            self.open.pos = 0;
        }
        self.prev_mask = slot.mask;
        self.prev_tag = tag;
        self.prev_index = k;
    }

    /// An event that re-sounds the previous one's pitch classes (or, relaxed, its tag).
    #[cold]
    fn repeat(
        &mut self,
        k: usize,
        slots: &[Slot],
        m: u16,
        tag: Option<Tag>,
        tagged_repeat: bool,
        findings: &mut Findings,
    ) {
        match tag {
            Some(t) if tagged_repeat => {
                self.tags.repetitions += 1;
                if self.tables.window_mask(t.form, t.start, t.len) != m {
                    findings.push(tag_lie(&self.input(slots), k, t, m));
                }
            }
            _ => findings.push(immediate_repeat(&self.input(slots), k, self.prev_index, m)),
        }
        self.prev_mask = m;
        self.prev_tag = tag;
        self.prev_index = k;
    }

    /// A chord running past its statement: reports it, closes the statement, and
    /// returns what of the chord opens the next one.
    #[cold]
    fn straddle(
        &mut self,
        k: usize,
        slots: &[Slot],
        m: u16,
        n: u8,
        findings: &mut Findings,
    ) -> (u16, u8) {
        let o = self.open;
        if !o.broken {
            findings.push(straddle(
                &self.input(slots),
                k,
                &o,
                n,
                self.statements.len(),
            ));
        }
        let mut cut = o;
        cut.broken = true;
        self.statements.push(cut.close());
        self.open.pos = 0;
        let fresh = m & !o.mask;
        if fresh.count_ones() == u32::from(12 - o.pos) {
            let rest = m & !fresh;
            (rest, rest.count_ones() as u8)
        } else {
            (m, n)
        }
    }

    /// Narrows by a tag (relaxed) or reports the break when nothing fits.
    #[allow(clippy::too_many_arguments)]
    fn judge_tag_or_break(
        &mut self,
        k: usize,
        slots: &[Slot],
        m: u16,
        n: u8,
        mut forms: u64,
        tag: Option<Tag>,
        findings: &mut Findings,
    ) {
        let o = self.open;
        let mut tag_problem = None;
        if let Some(t) = tag {
            if t.start != o.pos
                || t.len != n
                || self.tables.window_mask(t.form, t.start, t.len) != m
            {
                tag_problem = Some(t);
                forms = 0;
            } else {
                forms &= self.tables.same_as(t.form);
            }
        }
        if forms == 0 {
            self.open.broken = true;
            let input = self.input(slots);
            let finding = match tag_problem {
                Some(t) => tag_mismatch(&input, k, &o, t, m),
                None => row_break(&input, k, &o, m, tag, self.statements.len()),
            };
            findings.push(finding);
        }
        self.open.forms = forms;
    }

    /// Ends the voice (reporting a last statement cut short); its statements.
    pub fn finish(
        mut self,
        slots: &[Slot],
        findings: &mut Findings,
    ) -> (Vec<Statement>, TagCounts) {
        if self.open.pos > 0 {
            let o = self.open;
            findings.push(incomplete(&self.input(slots), &o, self.statements.len()));
            self.statements.push(o.close());
        }
        (self.statements, self.tags)
    }
}

/// The event's row tag in relaxed mode, counting readable and unreadable tags.
fn read_tag(e: &Event, tags: &mut TagCounts) -> Option<Tag> {
    let text = e.tag.as_deref()?;
    match text.parse::<Tag>() {
        Ok(t) => {
            tags.relying += 1;
            Some(t)
        }
        Err(_) => {
            tags.unreadable += 1;
            None
        }
    }
}

/// The statement's events before `k`, written `0 11 [7 8] 3` (chords bracketed).
fn prefix_text(input: &VoiceInput<'_>, first: usize, k: usize) -> String {
    let mut out = String::new();
    for e in input.events.get(first..k).unwrap_or_default() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&event_pcs(e));
    }
    if out.is_empty() {
        out.push_str("nothing");
    }
    out
}

/// An event's pitch classes in pitch order, a chord bracketed.
fn event_pcs(e: &Event) -> String {
    let pcs = pcs_text(e.pitches.iter().map(|p| p.midi % 12));
    if e.pitches.len() > 1 {
        format!("[{pcs}]")
    } else {
        pcs
    }
}

/// `"position 5"` or `"positions 5–7"` (1-based).
fn positions_text(start: u8, len: u8) -> String {
    if len <= 1 {
        format!("position {}", start + 1)
    } else {
        format!("positions {}–{}", start + 1, start + len)
    }
}

#[cold]
fn immediate_repeat(input: &VoiceInput<'_>, k: usize, prev: usize, m: u16) -> Finding {
    let e = &input.events[k];
    let before = input.events.get(prev).map_or(e.onset, |p| p.onset);
    let why = if input.relaxed {
        " (only an event tagged like the previous one may repeat it in relaxed mode)"
    } else {
        ""
    };
    Finding::new(
        Rule::Repeat,
        Some(input.voice),
        e.onset,
        format!(
            "{} sounded again right after onset {}: a pitch class may not recur within a statement, \
             not even immediately{why}",
            mask_text(m),
            time_text::format(before)
        ),
    )
}

#[cold]
fn premature_repeat(input: &VoiceInput<'_>, k: usize, o: &Open, again: u16) -> Finding {
    let e = &input.events[k];
    let earlier = (o.first..k)
        .rev()
        .find(|&j| input.slots.get(j).is_some_and(|s| s.mask & again != 0))
        .and_then(|j| input.events.get(j))
        .map_or_else(String::new, |p| {
            format!(" at onset {}", time_text::format(p.onset))
        });
    Finding::new(
        Rule::Repeat,
        Some(input.voice),
        e.onset,
        format!(
            "{} already sounded in this statement{earlier} (it has {} of 12 pitch classes so far: {}); \
             a pitch class may not recur before all 12 have sounded",
            mask_text(again),
            o.mask.count_ones(),
            prefix_text(input, o.first, k)
        ),
    )
}

#[cold]
fn straddle(input: &VoiceInput<'_>, k: usize, o: &Open, n: u8, done: usize) -> Finding {
    let e = &input.events[k];
    Finding::new(
        Rule::Row,
        Some(input.voice),
        e.onset,
        format!(
            "a chord of {n} pitch classes would take {} of statement {} (from onset {}), which has only {} left: \
             a chord may not straddle two statements; expected at most {} pitch classes here",
            positions_text(o.pos, n),
            done + 1,
            input
                .events
                .get(o.first)
                .map_or_else(String::new, |f| time_text::format(f.onset)),
            12 - o.pos,
            12 - o.pos
        ),
    )
}

/// What the forms still fitting `o` expect at its next `n` positions.
fn expected_text(input: &VoiceInput<'_>, o: &Open, n: u8) -> String {
    let mut classes: Vec<(u16, String)> = Vec::new();
    for form in forms_in(o.forms) {
        let want = input.tables.window_mask(form, o.pos, n);
        match classes.iter_mut().find(|(m, _)| *m == want) {
            Some((_, labels)) => {
                let _ = write!(labels, ", {form}");
            }
            None => classes.push((want, form.to_string())),
        }
    }
    if classes.len() > 4 {
        return format!(
            "one of the {} continuations of the forms that fit so far",
            classes.len()
        );
    }
    classes
        .iter()
        .map(|(want, labels)| format!("{} (as in {labels})", mask_text(*want)))
        .collect::<Vec<_>>()
        .join(" or ")
}

#[cold]
fn row_break(
    input: &VoiceInput<'_>,
    k: usize,
    o: &Open,
    m: u16,
    tag: Option<Tag>,
    done: usize,
) -> Finding {
    let e = &input.events[k];
    let n = m.count_ones() as u8;
    let tagged = tag.map_or_else(String::new, |t| format!(" (tagged {t})"));
    Finding::new(
        Rule::Row,
        Some(input.voice),
        e.onset,
        format!(
            "statement {} (from onset {}) sounds {} and then {}{tagged} at {}: no form of the row goes this way; \
             expected {}",
            done + 1,
            input
                .events
                .get(o.first)
                .map_or_else(String::new, |f| time_text::format(f.onset)),
            prefix_text(input, o.first, k),
            mask_text(m),
            positions_text(o.pos, n),
            expected_text(input, o, n)
        ),
    )
}

#[cold]
fn tag_mismatch(input: &VoiceInput<'_>, k: usize, o: &Open, t: Tag, m: u16) -> Finding {
    let e = &input.events[k];
    let n = m.count_ones() as u8;
    let reason = if t.start != o.pos || t.len != n {
        format!(
            "tagged {t} ({}) but the event sounds {} of its statement",
            positions_text(t.start, t.len),
            positions_text(o.pos, n)
        )
    } else if input.tables.window_mask(t.form, t.start, t.len) != m {
        format!(
            "tagged {t} but sounds {}; {} has {} at {}",
            mask_text(m),
            t.form,
            mask_text(input.tables.window_mask(t.form, t.start, t.len)),
            positions_text(t.start, t.len)
        )
    } else {
        format!(
            "tagged {t} but the statement so far is {}; the tags change form mid-statement",
            labels_text(o.forms)
        )
    };
    Finding::new(Rule::Row, Some(input.voice), e.onset, reason)
}

#[cold]
fn tag_lie(input: &VoiceInput<'_>, k: usize, t: Tag, m: u16) -> Finding {
    let e = &input.events[k];
    Finding::new(
        Rule::Row,
        Some(input.voice),
        e.onset,
        format!(
            "tagged {t} (repeating the previous event's tag) but sounds {}; {} has {} at {}",
            mask_text(m),
            t.form,
            mask_text(input.tables.window_mask(t.form, t.start, t.len)),
            positions_text(t.start, t.len)
        ),
    )
}

#[cold]
fn incomplete(input: &VoiceInput<'_>, o: &Open, done: usize) -> Finding {
    let first = input.events.get(o.first);
    let onset = first.map_or_else(cantus_music::Time::default, |f| f.onset);
    let missing = !o.mask & 0x0FFF;
    let mut reason = format!(
        "the voice's last statement (statement {}, from onset {}) has only {} of 12 pitch classes ({}); missing {}",
        done + 1,
        time_text::format(onset),
        o.mask.count_ones(),
        prefix_text(input, o.first, input.events.len()),
        mask_text(missing)
    );
    if !o.broken && o.forms.count_ones() <= 2 && o.forms != 0 {
        let form = forms_in(o.forms)
            .next()
            .unwrap_or_else(|| super::tables::form_of_index(0));
        let rest = &input.tables.pcs(form)[usize::from(o.pos)..];
        let _ = write!(
            reason,
            "; it opens like {}, which continues {}",
            labels_text(o.forms),
            pcs_text(rest.iter().copied())
        );
    }
    Finding::new(Rule::RowComplete, Some(input.voice), onset, reason)
}
