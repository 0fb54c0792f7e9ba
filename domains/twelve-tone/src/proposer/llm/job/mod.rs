//! What one model request asks for, worked out once from the proposal request and
//! shared by the prompt, the decoding grammar and the reply reader: the time span
//! (a section as one block of numbered slots), and for each voice the notes it owes —
//! the pitch classes of its row form from the cursor on, in order — with the slot
//! windows each note may use.
//!
//! A section is written as ONE block of slots counted from its start (bar 5 of a 4/4
//! piece in a four-bar section starting at bar 5 is slots 1–16, bar 6 is 17–32 …), so
//! a voice's whole line is one line of tokens: that keeps the reply simple for a
//! small model and lets the grammar fix each voice's sequence of pitch classes.

use super::line::Line;
use crate::blueprint::{Blueprint, CanonPlan, SectionPlan};
use crate::event::{Tag, ToneEvent};
use crate::proposer::canon;
use crate::row::{PitchClass, RowForm};
use crate::state::ToneState;
use cantus_framework::ProposerError;
use cantus_music::{Meter, Time};

/// Most slots a span may hold (keeps prompts, grammars and numbers small).
pub(crate) const MAX_SLOTS: u32 = 4096;

/// A stretch of time written as numbered slots: slot `s` (1-based) starts at
/// `start + (s − 1) · 4/grid` quarter notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub start: Time,
    /// Slots per whole note (16 = sixteenths).
    pub grid: u32,
    /// Slots in the span.
    pub slots: u32,
    /// Slots per bar.
    pub bar_slots: u32,
    pub first_bar: u32,
    pub bars: u32,
    pub meter: Meter,
}

impl Span {
    /// The span of a section: sixteenths (or the meter's own unit when finer),
    /// refined until the section holds at least `min_slots` slots.
    pub fn of_section(
        meter: Meter,
        section: &SectionPlan,
        min_slots: u32,
    ) -> Result<Span, ProposerError> {
        let mut grid = 16u32.max(meter.den);
        loop {
            // Whole slots per bar: the grid is a multiple of the (power-of-two) denominator.
            let bar_slots = u64::from(grid) * u64::from(meter.num) / u64::from(meter.den.max(1));
            let slots = bar_slots * u64::from(section.bars);
            if slots > u64::from(MAX_SLOTS) || bar_slots == 0 {
                return Err(ProposerError::Unsupported(
                    "sections longer than 4096 slots in a model prompt; use shorter sections",
                ));
            }
            // The reader needs the span as a meter of at most 1000/1000 whole notes.
            let whole = num_rational::Ratio::new(slots, u64::from(grid));
            if *whole.numer() > 1000 || *whole.denom() > 1000 {
                return Err(ProposerError::Unsupported(
                    "sections this long or this finely divided in a model prompt; use shorter sections",
                ));
            }
            if slots >= u64::from(min_slots) || grid >= 256 {
                return Ok(Span {
                    start: section.start,
                    grid,
                    slots: u32::try_from(slots).unwrap_or(MAX_SLOTS),
                    bar_slots: u32::try_from(bar_slots).unwrap_or(MAX_SLOTS),
                    first_bar: section.first_bar,
                    bars: section.bars,
                    meter,
                });
            }
            grid *= 2;
        }
    }

    /// The span as one meter (`num/den` whole notes), for the reader's header.
    pub fn meter_text(&self) -> String {
        let whole = num_rational::Ratio::new(u64::from(self.slots), u64::from(self.grid.max(1)));
        format!("{}/{}", whole.numer(), whole.denom())
    }

    /// Length of one slot in quarter notes.
    pub fn slot(&self) -> Time {
        Time::new(4, i64::from(self.grid.max(1)))
    }

    /// Length of the span.
    pub fn len(&self) -> Time {
        self.slot() * Time::from_integer(i64::from(self.slots))
    }

    /// End of the span.
    pub fn end(&self) -> Time {
        self.start + self.len()
    }

    /// The 0-based slot holding `t`, rounded down and clamped to the span.
    pub fn floor_slot(&self, t: Time) -> u32 {
        self.clamp(((t - self.start) / self.slot()).floor().to_integer())
    }

    /// The first 0-based slot starting at or after `t`, clamped to `0..=slots`.
    pub fn ceil_slot(&self, t: Time) -> u32 {
        self.clamp(((t - self.start) / self.slot()).ceil().to_integer())
    }

    fn clamp(&self, x: i64) -> u32 {
        u32::try_from(x.clamp(0, i64::from(self.slots))).unwrap_or(0)
    }
}

/// What kind of answer a job asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JobKind {
    /// Every voice's notes for a section.
    Section,
    /// One note replacing a refused one.
    Patch,
    /// One voice's notes from a refused one to the end of its segment.
    Rewrite,
}

impl JobKind {
    pub fn label(self) -> &'static str {
        match self {
            JobKind::Section => "section",
            JobKind::Patch => "patch",
            JobKind::Rewrite => "rewrite",
        }
    }
}

/// Where one note may sit, as 0-based slot offsets in the span: onset in
/// `onset_lo..=onset_hi`, length `min_len..=max_len` slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    pub onset_lo: u32,
    pub onset_hi: u32,
    pub min_len: u32,
    pub max_len: u32,
}

/// One note a voice owes: the pitch classes (one, or a chord for a patch of a
/// multi-position event) and the tag it will carry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Owed {
    pub pcs: Vec<PitchClass>,
    pub tag: Tag,
    pub window: Window,
    /// A narrower pitch range than the voice's for this note (the register plan's),
    /// or `None`: anywhere in the voice's range.
    pub register: Option<(u8, u8)>,
}

/// One voice's part of a job.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct VoiceJob {
    pub voice: usize,
    pub name: String,
    pub low: u8,
    pub high: u8,
    pub form: RowForm,
    /// The notes owed, in order.
    pub notes: Vec<Owed>,
    /// Under `freedom = "rules"`, everything the rules leave open for the line (the
    /// constraint, the membership test and the bit count); `None` holds the notes to
    /// their windows (`freedom = "plan"`, or a line the rules cannot place).
    pub line: Option<Line>,
}

impl VoiceJob {
    /// Keeps the line to the notes still asked for (after [`Job::fit`] cut some): the
    /// rest become its tail, which must still fit after them.
    fn cut_line(&mut self) {
        let (Some(line), Some(last)) = (self.line.take(), self.notes.last()) else {
            return;
        };
        let to = u8::try_from(last.tag.end()).unwrap_or(12);
        self.line = line.cut(to);
    }

    /// The pitch range note `note` may use: its own, else the voice's.
    pub fn range_of(&self, note: &Owed) -> (u8, u8) {
        note.register.unwrap_or((self.low, self.high))
    }

    /// The pitch classes owed, flattened in order.
    pub fn pcs(&self) -> impl Iterator<Item = PitchClass> + '_ {
        self.notes.iter().flat_map(|n| n.pcs.iter().copied())
    }
}

/// Everything a model request is about.
#[derive(Clone, Debug)]
pub(crate) struct Job {
    pub kind: JobKind,
    pub section: usize,
    pub span: Span,
    pub voices: Vec<VoiceJob>,
    /// Events returned unchanged after the model's (a rewrite keeps the other
    /// voices' pending events).
    pub keep: Vec<ToneEvent>,
    /// Canons whose follower is not asked of the model but derived from its leader's
    /// answer ([`Job::followers_of`]), in the order to derive them (leaders first).
    pub followers: Vec<CanonPlan>,
    /// The plan's events for the voices held only to the rules: advice for the prompt,
    /// never part of the constraint.
    pub plan: Vec<ToneEvent>,
    /// The planner's events for every voice asked, whatever the freedom: what an
    /// answer is measured against ([`Job::as_planned`]). Empty for a patch or rewrite.
    pub planned: Vec<ToneEvent>,
}

/// Voices one section or continue request asks for under `freedom = "rules"`
/// ([`Job::first_voices`]): the rest are owed and asked next, held clear of these.
pub(crate) const VOICES_PER_REQUEST: usize = 3;

/// Reply tokens per note of the grammar (`C#4@13>2 `) for SmolLM2's tokenizer,
/// measured with llama-server's `/tokenize`: a twelve-note line with its voice name
/// is 90 tokens, one note 8 (one- or two-digit slot) to 10 (three digits).
pub(crate) const TOKENS_PER_NOTE: u32 = 9;
/// Reply tokens per voice line beyond its notes: the name, the colon, the newline.
pub(crate) const TOKENS_PER_LINE: u32 = 6;
/// Reply tokens on top of the estimate (end of turn, stray spaces), before the 1/8
/// proportional margin.
pub(crate) const TOKEN_MARGIN: u32 = 16;

impl Job {
    /// How many of the pitches of `answer` (the model's events, before derived
    /// followers) the planner has too: same voice, onset and pitch.
    pub fn as_planned(&self, answer: &[ToneEvent]) -> u32 {
        let planned: std::collections::BTreeSet<(usize, Time, u8)> = self
            .planned
            .iter()
            .flat_map(|e| e.pitches.iter().map(move |&p| (e.voice, e.onset, p)))
            .collect();
        let matching = answer
            .iter()
            .flat_map(|e| e.pitches.iter().map(move |&p| (e.voice, e.onset, p)))
            .filter(|n| planned.contains(n))
            .count();
        u32::try_from(matching).unwrap_or(u32::MAX)
    }

    /// The reply tokens this job needs: notes × [`TOKENS_PER_NOTE`], lines ×
    /// [`TOKENS_PER_LINE`], plus an eighth and [`TOKEN_MARGIN`].
    pub fn tokens_needed(&self) -> u32 {
        let notes: usize = self.voices.iter().map(|v| v.notes.len()).sum();
        let notes = u32::try_from(notes).unwrap_or(u32::MAX);
        let lines = u32::try_from(self.voices.len()).unwrap_or(u32::MAX);
        let raw = notes
            .saturating_mul(TOKENS_PER_NOTE)
            .saturating_add(lines.saturating_mul(TOKENS_PER_LINE));
        raw.saturating_add(raw / 8).saturating_add(TOKEN_MARGIN)
    }

    /// The events of this job's derived canon followers, given the model's `events`:
    /// each follower's line from its leader's events in this section (accepted ones
    /// from `state`, then those in `events` or derived before it), from the
    /// follower's row cursor on. A follower whose line cannot be derived (a mapped
    /// pitch class has no place in its register) stays owed, and the engine's
    /// continue request then asks the model for it.
    pub fn followers_of(
        &self,
        plan: &Blueprint,
        state: &ToneState,
        events: &[ToneEvent],
    ) -> Vec<ToneEvent> {
        let Some(section) = plan.sections.get(self.section) else {
            return Vec::new();
        };
        let mut derived: Vec<ToneEvent> = Vec::new();
        for c in &self.followers {
            let accepted = state
                .voices
                .get(c.leader)
                .map_or(&[][..], |l| &l.events[..]);
            let mut leader: Vec<ToneEvent> = accepted
                .iter()
                .filter(|e| e.onset >= section.start && e.onset < section.end)
                .chain(
                    events
                        .iter()
                        .chain(&derived)
                        .filter(|e| e.voice == c.leader),
                )
                .cloned()
                .collect();
            leader.sort_by_key(|e| e.tag.start);
            let position = state.voices.get(c.follower).map_or(0, |l| {
                if l.cursor.statement == section.index {
                    l.cursor.position
                } else {
                    0
                }
            });
            if let Some(line) = canon::follower_line(plan, section, c, &leader, position) {
                derived.extend(line);
            }
        }
        derived
    }

    /// The job cut to its first `count` voices asked (a canon's followers go with
    /// their leaders): the rest stays owed, and the engine's continue request asks
    /// for it once these are fixed. A grammar holds each voice clear of the pitch
    /// classes of voices already fixed, but cannot hold voices asked together clear
    /// of each other; asked in groups, every later group's grammar knows the earlier
    /// groups' notes. (Of SmolLM2's 5–6-voice sections asked whole, most attempts
    /// lost a note to a collision between voices of one answer.)
    pub fn first_voices(mut self, count: usize) -> Job {
        if self.voices.len() <= count {
            return self;
        }
        self.voices.truncate(count.max(1));
        let asked: Vec<usize> = self.voices.iter().map(|v| v.voice).collect();
        // Followers come leaders first, so a follower's leader is decided before it.
        let mut followers: Vec<CanonPlan> = Vec::new();
        for c in std::mem::take(&mut self.followers) {
            if asked.contains(&c.leader) || followers.iter().any(|f| f.follower == c.leader) {
                followers.push(c);
            }
        }
        self.followers = followers;
        self.plan.retain(|e| asked.contains(&e.voice));
        self.planned.retain(|e| asked.contains(&e.voice));
        self
    }

    /// The job cut to what a reply of `ceiling` tokens holds: whole voices in order
    /// while they fit, then as many leading notes of the next voice as fit (at least
    /// one note in all). What is cut off stays owed, and the engine's continue request
    /// asks for it next — a request split by voice, then by notes, never a reply cut
    /// off mid-line.
    pub fn fit(mut self, ceiling: u32) -> Job {
        if self.tokens_needed() <= ceiling {
            return self;
        }
        let mut kept: Vec<VoiceJob> = Vec::new();
        for mut voice in std::mem::take(&mut self.voices) {
            let trial = Job {
                voices: kept.iter().cloned().chain([voice.clone()]).collect(),
                ..self.clone()
            };
            if trial.tokens_needed() <= ceiling {
                kept.push(voice);
                continue;
            }
            // Leading notes of this voice, as many as fit.
            while voice.notes.len() > 1 {
                voice.notes.pop();
                voice.cut_line();
                let trial = Job {
                    voices: kept.iter().cloned().chain([voice.clone()]).collect(),
                    ..self.clone()
                };
                if trial.tokens_needed() <= ceiling {
                    break;
                }
            }
            let fits = Job {
                voices: kept.iter().cloned().chain([voice.clone()]).collect(),
                ..self.clone()
            }
            .tokens_needed()
                <= ceiling;
            if fits || kept.is_empty() {
                kept.push(voice);
            }
            break;
        }
        self.voices = kept;
        self
    }
}

/// Splits `[lo, hi)` into `n` windows in order, so the notes follow each other
/// without overlapping: each onset lies in the first half of its share and each
/// length ends by the start of the next share.
pub(crate) fn windows(lo: u32, hi: u32, n: usize) -> Vec<Window> {
    let n64 = u64::try_from(n.max(1)).unwrap_or(1);
    let width = u64::from(hi.saturating_sub(lo).max(1));
    (0..n64)
        .map(|i| {
            let a = u64::from(lo) + i * width / n64;
            let b = (u64::from(lo) + (i + 1) * width / n64).max(a + 1);
            let share = b - a;
            let half = share.div_ceil(2);
            let to_u32 = |x: u64| u32::try_from(x).unwrap_or(u32::MAX);
            Window {
                onset_lo: to_u32(a),
                onset_hi: to_u32(a + half - 1),
                min_len: 1,
                max_len: to_u32(share - half + 1),
            }
        })
        .collect()
}

mod build;
pub(crate) use build::{continue_job, patch_job, rewrite_job, section_job};

#[cfg(test)]
mod tests {
    use super::*;

    fn voice(v: usize, notes: usize) -> VoiceJob {
        let form = RowForm {
            kind: crate::row::FormKind::P,
            n: 0,
        };
        VoiceJob {
            voice: v,
            name: format!("V{v}"),
            low: 48,
            high: 72,
            form,
            notes: windows(0, 64, notes)
                .into_iter()
                .enumerate()
                .map(|(i, window)| Owed {
                    pcs: vec![0],
                    tag: Tag {
                        form,
                        start: u8::try_from(i).unwrap(),
                        len: 1,
                    },
                    window,
                    register: None,
                })
                .collect(),
            line: None,
        }
    }

    fn job(voices: &[usize]) -> Job {
        Job {
            kind: JobKind::Section,
            section: 0,
            span: Span {
                start: Time::default(),
                grid: 16,
                slots: 64,
                bar_slots: 16,
                first_bar: 1,
                bars: 4,
                meter: Meter { num: 4, den: 4 },
            },
            voices: voices
                .iter()
                .enumerate()
                .map(|(v, &n)| voice(v, n))
                .collect(),
            keep: Vec::new(),
            followers: Vec::new(),
            plan: Vec::new(),
            planned: Vec::new(),
        }
    }

    #[test]
    fn a_job_is_sized_by_its_notes_and_cut_to_the_ceiling_by_voice_then_by_note() {
        let four = job(&[12, 12, 12, 12]);
        let need = four.tokens_needed();
        // 48 notes × 9 + 4 lines × 6 = 456, + 1/8 + 16.
        assert_eq!(need, 456 + 57 + 16);
        assert_eq!(
            four.clone().fit(need).voices.len(),
            4,
            "a job that fits is whole"
        );
        // Room for two whole voices and part of a third.
        let one = job(&[12]).tokens_needed();
        let cut = four.clone().fit(2 * one + 40);
        assert_eq!(cut.voices.len(), 3);
        assert_eq!(
            cut.voices[..2].iter().map(|v| v.notes.len()).sum::<usize>(),
            24
        );
        assert!(
            (1..12).contains(&cut.voices[2].notes.len()),
            "{}",
            cut.voices[2].notes.len()
        );
        assert!(cut.tokens_needed() <= 2 * one + 40);
        // The notes kept are the first ones, in row order.
        assert_eq!(cut.voices[2].notes[0].tag.start, 0);
        // A ceiling too small for one note still asks for one note.
        let tiny = four.fit(1);
        assert_eq!((tiny.voices.len(), tiny.voices[0].notes.len()), (1, 1));
    }

    #[test]
    fn a_job_asks_its_first_voices_and_a_follower_only_with_its_leader() {
        let mut five = job(&[12, 12, 12, 12, 12]);
        let canon = |leader, follower| CanonPlan {
            leader,
            follower,
            delay: Time::new(1, 4),
            map: crate::blueprint::CanonMap::Transpose(0),
        };
        five.followers = vec![canon(1, 5), canon(4, 6)];
        let event = |voice| ToneEvent {
            voice,
            onset: Time::default(),
            duration: Time::new(1, 16),
            pitches: vec![60],
            tag: five.voices[0].notes[0].tag,
        };
        five.planned = (0..5).map(event).collect();
        five.plan = five.planned.clone();
        let three = five.clone().first_voices(3);
        assert_eq!(
            three.voices.iter().map(|v| v.voice).collect::<Vec<_>>(),
            [0, 1, 2]
        );
        assert_eq!(
            three.followers,
            [canon(1, 5)],
            "voice 4's follower waits for it"
        );
        assert_eq!(three.planned.len(), 3);
        assert_eq!(three.plan.len(), 3);
        assert_eq!(five.clone().first_voices(5).voices.len(), 5, "all fit");
        assert_eq!(five.first_voices(0).voices.len(), 1, "never none");
    }

    #[test]
    fn an_answer_is_as_planned_note_by_note_by_voice_onset_and_pitch() {
        let event = |voice: usize, slot: i64, pitches: &[u8]| ToneEvent {
            voice,
            onset: Time::new(slot, 16),
            duration: Time::new(1, 16),
            pitches: pitches.to_vec(),
            tag: Tag {
                form: RowForm {
                    kind: crate::row::FormKind::P,
                    n: 0,
                },
                start: 0,
                len: u8::try_from(pitches.len()).unwrap(),
            },
        };
        let mut j = job(&[3, 3]);
        j.planned = vec![
            event(0, 0, &[60]),
            event(0, 2, &[62, 67]),
            event(1, 0, &[48]),
        ];
        // The plan's line, one note longer: all of it as planned.
        let same = [
            event(0, 0, &[60]),
            event(0, 2, &[62, 67]),
            event(1, 0, &[48]),
        ];
        assert_eq!(j.as_planned(&same), 4);
        // An octave moved, a chord note moved, a voice's onset moved: one of four kept.
        let moved = [
            event(0, 0, &[72]),
            event(0, 2, &[62, 68]),
            event(1, 1, &[48]),
        ];
        assert_eq!(j.as_planned(&moved), 1);
        // Another voice's planned note is not this voice's.
        assert_eq!(j.as_planned(&[event(1, 0, &[60])]), 0);
        // Without a plan (a patch, a rewrite) nothing is as planned.
        j.planned.clear();
        assert_eq!(j.as_planned(&same), 0);
    }

    #[test]
    fn windows_follow_each_other_without_overlap() {
        for (lo, hi, n) in [
            (0, 64, 12),
            (10, 64, 7),
            (0, 12, 12),
            (52, 64, 12),
            (3, 4, 1),
        ] {
            let ws = windows(lo, hi, n);
            assert_eq!(ws.len(), n);
            for w in &ws {
                assert!(w.onset_lo <= w.onset_hi && w.max_len >= 1, "{w:?}");
            }
            for pair in ws.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                assert!(
                    a.onset_hi + a.max_len <= b.onset_lo,
                    "{a:?} runs into {b:?}"
                );
            }
            assert_eq!(ws[0].onset_lo, lo);
            let last = ws[n - 1];
            assert!(last.onset_hi + last.max_len <= hi);
        }
    }
}
