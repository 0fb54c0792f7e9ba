//! One pass over a voice's events: exact tick times, the 12-bit pitch-class set of
//! each event, and the rules that need nothing but the event and its predecessor
//! (`TT-OCTAVE`, chord size and one-line-per-voice of `TT-TEXTURE`, `TT-REGISTER`,
//! the extent part of `TT-BARS`, durations of `TT-TIME`).
//!
//! Its output, one compact [`Slot`] per event, is all the later passes read on the
//! hot path; they go back to the score only to word a violation. The serial pass
//! ([`super::segment::Walker`]) is fed each slot as it is made, so a voice's events
//! are read once.

use super::findings::Findings;
use super::rules::{Finding, Rule, event_noun, mask_text};
use super::segment::{Statement, TagCounts, Walker};
use super::time::{GridProblem, Ticker, cmp_time, ticks_text};
use cantus_music::{Event, time_text};

/// What the later passes need of one event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Slot {
    /// Onset in ticks.
    pub onset: i64,
    /// End in ticks (= onset for an event without positive duration).
    pub end: i64,
    /// Pitch classes sounded (bit `pc`).
    pub mask: u16,
    /// Lowest and highest pitch (255 and 0 for an event without pitches).
    pub lo: u8,
    pub hi: u8,
    /// Number of pitches (saturating at 255).
    pub size: u8,
}

/// One voice, read.
#[derive(Debug, Default)]
pub(crate) struct VoiceSlots {
    pub slots: Vec<Slot>,
    /// Whether some of the voice's events overlap each other.
    pub overlaps: bool,
    /// When `overlaps`: `reach[k]` = latest end among events `0..=k` (else empty:
    /// then a slot's end is its reach).
    pub reach: Vec<i64>,
    /// The voice's statements (empty without a row).
    pub statements: Vec<Statement>,
    pub tags: TagCounts,
}

impl VoiceSlots {
    /// The latest end among events `0..=k`.
    #[inline]
    pub fn reach(&self, k: usize) -> i64 {
        if self.overlaps {
            self.reach.get(k).copied().unwrap_or(i64::MIN)
        } else {
            self.slots.get(k).map_or(i64::MIN, |s| s.end)
        }
    }
}

thread_local! {
    /// Slot buffers of earlier judgements on this thread, kept for reuse: a large
    /// fresh allocation costs a page fault per 4 KiB on first touch, which for a
    /// big piece is a good part of the judgement.
    static BUFFERS: std::cell::RefCell<Vec<Vec<Slot>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Most buffers kept per thread.
const KEPT_BUFFERS: usize = 8;

/// An empty slot buffer with room for `n` slots, reused when one is at hand.
fn take_buffer(n: usize) -> Vec<Slot> {
    let reused = BUFFERS.with(|b| {
        let mut pool = b.borrow_mut();
        let best = (0..pool.len()).max_by_key(|&i| pool[i].capacity())?;
        Some(pool.swap_remove(best))
    });
    let mut buffer = reused.unwrap_or_default();
    buffer.clear();
    buffer.reserve(n);
    buffer
}

/// Returns a slot buffer for reuse by later judgements on this thread.
pub(crate) fn give_back(buffer: Vec<Slot>) {
    BUFFERS.with(|b| {
        let mut pool = b.borrow_mut();
        if pool.len() < KEPT_BUFFERS {
            pool.push(buffer);
        }
    });
}

impl Drop for VoiceSlots {
    fn drop(&mut self) {
        give_back(std::mem::take(&mut self.slots));
    }
}

/// Limits the per-event rules apply to one voice.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EventLimits {
    pub max_chord: u8,
    pub low: u8,
    pub high: u8,
    /// End of the piece in ticks, when the piece declares its bars.
    pub piece_end: Option<i64>,
}

/// Why a voice's slots could not be built.
#[derive(Clone, Debug)]
pub(crate) enum SlotError {
    /// Events are not in onset order (the caller sorts a copy and tries again).
    Unsorted,
    /// The time of event `.0` cannot be placed on the grid.
    Grid(usize, GridProblem),
}

/// Reads one voice: its slots, the per-event findings, and (given a walker) the
/// serial rules.
///
/// Without a ticker (the times could not be placed) every slot gets onset 0 and
/// duration 1 tick, and the rules about time are left to the `TT-TIME` finding.
pub(crate) fn build_slots(
    voice: usize,
    events: &[Event],
    ticker: Option<Ticker>,
    limits: &EventLimits,
    mut walker: Option<Walker<'_>>,
    findings: &mut Findings,
) -> Result<VoiceSlots, SlotError> {
    let mut slots = take_buffer(events.len());
    let mut overlaps = false;
    let mut reach = i64::MIN;
    let mut reach_index = 0usize;
    let mut prev_onset = i64::MIN;
    let timed = ticker.is_some();
    let mut ticker = ticker;
    let per_quarter = ticker.as_ref().map_or(1, Ticker::per_quarter);
    for (k, e) in events.iter().enumerate() {
        let (onset, duration) = match &mut ticker {
            Some(tick) => (
                tick.ticks(e.onset).map_err(|p| SlotError::Grid(k, p))?,
                tick.ticks(e.duration).map_err(|p| SlotError::Grid(k, p))?,
            ),
            None => (0, 1),
        };
        let out_of_order = if timed {
            onset < prev_onset
        } else {
            k > 0 && cmp_time(e.onset, events[k - 1].onset).is_lt()
        };
        if out_of_order {
            return Err(SlotError::Unsorted);
        }
        prev_onset = onset;
        let mut mask = 0u16;
        let mut doubled = false;
        let mut lo = u8::MAX;
        let mut hi = 0u8;
        for p in &e.pitches {
            let bit = 1u16 << (p.midi % 12);
            doubled |= mask & bit != 0;
            mask |= bit;
            lo = lo.min(p.midi);
            hi = hi.max(p.midi);
        }
        let size = u8::try_from(e.pitches.len()).unwrap_or(u8::MAX);
        let end = if duration > 0 {
            onset + duration
        } else {
            onset
        };
        if doubled
            || size == 0
            || size > limits.max_chord
            || lo < limits.low
            || hi > limits.high
            || (duration <= 0 && !e.is_grace())
            || onset < 0
            || limits.piece_end.is_some_and(|p| end > p)
        {
            let times = (onset, duration, end, per_quarter);
            event_findings(voice, e, limits, times, findings);
        }
        if timed && onset < reach {
            overlaps = true;
            let earlier = (events[reach_index].onset, reach, per_quarter);
            overlap_finding(voice, e, earlier, findings);
        }
        if end > reach {
            reach = end;
            reach_index = k;
        }
        slots.push(Slot {
            onset,
            end,
            mask,
            lo,
            hi,
            size,
        });
        if let Some(w) = &mut walker {
            w.step(k, &slots, findings);
        }
    }
    let (statements, tags) = match walker {
        Some(w) => w.finish(&slots, findings),
        None => (Vec::new(), TagCounts::default()),
    };
    let reach = if overlaps {
        slots
            .iter()
            .scan(i64::MIN, |r, s| {
                *r = (*r).max(s.end);
                Some(*r)
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok(VoiceSlots {
        slots,
        overlaps,
        reach,
        statements,
        tags,
    })
}

#[cold]
fn event_findings(
    voice: usize,
    e: &Event,
    limits: &EventLimits,
    (onset, duration, end, per_quarter): (i64, i64, i64, i64),
    out: &mut Findings,
) {
    let at = |rule, reason: String| Finding::new(rule, Some(voice), e.onset, reason);
    if e.pitches.is_empty() {
        out.push(at(
            Rule::Texture,
            "the event sounds no pitch; every event must sound at least one".to_owned(),
        ));
    }
    if e.pitches.len() > usize::from(limits.max_chord) {
        out.push(at(
            Rule::Texture,
            format!(
                "{} sounds at once in this voice; at most {} may",
                event_noun(e.pitches.len()),
                limits.max_chord
            ),
        ));
    }
    let mut seen = 0u16;
    let mut doubled = 0u16;
    for p in &e.pitches {
        let bit = 1u16 << (p.midi % 12);
        if seen & bit != 0 {
            doubled |= bit;
        }
        seen |= bit;
    }
    if doubled != 0 {
        let pitches: Vec<String> = e
            .pitches
            .iter()
            .filter(|p| doubled & 1 << (p.midi % 12) != 0)
            .map(|p| p.midi.to_string())
            .collect();
        out.push(at(
            Rule::Octave,
            format!(
                "the chord doubles pitch class {} (MIDI {}); each pitch class may sound once per event, \
                 so the chord should have {} distinct pitch classes",
                mask_text(doubled),
                pitches.join(", "),
                e.pitches.len()
            ),
        ));
    }
    let outside: Vec<String> = e
        .pitches
        .iter()
        .filter(|p| p.midi < limits.low || p.midi > limits.high)
        .map(|p| p.midi.to_string())
        .collect();
    if !outside.is_empty() {
        out.push(at(
            Rule::Register,
            format!(
                "MIDI {} lies outside the voice's register {}..={}",
                outside.join(", "),
                limits.low,
                limits.high
            ),
        ));
    }
    // A grace note takes no time by definition (read only when asked for).
    if duration <= 0 && !e.is_grace() {
        out.push(at(
            Rule::Time,
            format!(
                "the event lasts {} quarter notes; every event must last a positive time",
                time_text::format(e.duration)
            ),
        ));
    }
    if onset < 0 {
        out.push(at(
            Rule::Bars,
            format!(
                "the event starts at onset {}, before the piece begins at 0",
                time_text::format(e.onset)
            ),
        ));
    }
    if let Some(piece_end) = limits.piece_end
        && end > piece_end
    {
        out.push(at(
            Rule::Bars,
            format!(
                "the event ends at {} quarter notes, after the last bar ends at {}",
                ticks_text(i128::from(end), per_quarter),
                ticks_text(i128::from(piece_end), per_quarter)
            ),
        ));
    }
}

#[cold]
fn overlap_finding(
    voice: usize,
    e: &Event,
    (earlier_onset, earlier_end, per_quarter): (cantus_music::Time, i64, i64),
    out: &mut Findings,
) {
    out.push(Finding::new(
        Rule::Texture,
        Some(voice),
        e.onset,
        format!(
            "the event starts while the voice's event from onset {} still sounds (until {}); \
             a voice is one line: its events may not overlap (write a chord as one event)",
            time_text::format(earlier_onset),
            ticks_text(i128::from(earlier_end), per_quarter)
        ),
    ));
}
