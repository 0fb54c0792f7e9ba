//! The vertical rules in one sweep over all voices: `TT-COLLISION`, the
//! pitches-at-once part of `TT-TEXTURE`, `TT-CROSSING`, and silent bars (`TT-BARS`).
//!
//! Each voice's events are already in onset order, so a k-way merge visits every
//! event of the piece once, in onset order (ties: lower voice first). When an event
//! enters, the events of the other voices still sounding at its onset are found by
//! walking back from each voice's last entered event while that voice's running
//! latest end (`VoiceSlots::reach`) lies after the onset — for a voice that never
//! overlaps itself, just its last entered event. Every pair of
//! overlapping events is met exactly once, at the later-starting event (at the
//! higher voice when both start together), which is where a collision is reported.
//! The same pair feeds the crossing tally exactly as
//! [`crate::state::CrossingTally`] sums it online: the time both sound, and the part
//! of it during which the upper voice's lowest pitch lies below the lower voice's
//! highest. All in integer ticks; no float decides anything.
//!
//! When no voice overlaps itself (a valid piece), each voice's last entered event
//! is the only one of it that can sound, and the pairs are taken branch-free over
//! those; the per-voice state sits in arrays of the exact voice count (up to 8), so
//! the loops unroll. The pitches sounding at an onset are first bounded by summing
//! event sizes; only when that sum exceeds the limit are distinct pitches counted
//! from the score, once every event starting then has entered.

use super::events::{Slot, VoiceSlots};
use super::findings::Findings;
use super::rules::{Finding, Rule, mask_text, quarters};
use super::time::{ratio_text, share_exceeds, ticks_text, to_time};
use cantus_music::{Event, Voice, time_text};
use num_rational::Ratio;

/// What the sweep needs besides the slots.
pub(crate) struct VerticalInput<'a> {
    pub lines: &'a [VoiceSlots],
    pub voices: &'a [Voice],
    pub max_sounding: u8,
    pub max_crossing: Ratio<i64>,
    pub per_quarter: i64,
    /// Bar length in ticks (> 0).
    pub bar_ticks: i64,
    /// Number of bars in the piece.
    pub bars: u32,
}

/// The crossing tally over the whole piece, in ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Crossing {
    pub together: i128,
    pub crossed: i128,
}

/// The first crossed overlap: event `k` of voice `v` (the later-starting one)
/// against event `j` of voice `u`.
#[derive(Clone, Copy, Debug)]
struct FirstCrossing {
    v: usize,
    k: usize,
    u: usize,
    j: usize,
}

/// A run of instants with too many pitches sounding.
#[derive(Clone, Copy, Debug)]
struct Crowd {
    start: i64,
    /// The last crowded onset so far.
    last: i64,
    voice: usize,
    event: usize,
    most: u32,
}

/// An instant at which the pitches sounding may exceed the limit (their sizes
/// summed do), to be counted exactly once every event starting then has entered:
/// its onset, the instant before it, and the event that tipped it over.
#[derive(Clone, Copy, Debug)]
struct Suspect {
    t: i64,
    before: i64,
    voice: usize,
    event: usize,
}

/// A placeholder end before a voice's first event: below every tick count (ticks
/// lie within ±2^58), and far enough from `i64::MIN` that subtracting an onset from
/// it cannot overflow.
const NEVER: i64 = -(1 << 62);

/// Runs the sweep, pushing findings; returns the crossing tally.
pub(crate) fn sweep(input: &VerticalInput<'_>, findings: &mut Findings) -> Crossing {
    // Per-voice state lives in arrays of the exact voice count where it is small, so
    // the loops over voices unroll; a Vec holds it for larger scores.
    macro_rules! fixed {
        ($n:literal) => {
            sweep_in(input, findings, [0usize; $n], [DONE; $n], [SILENT; $n])
        };
    }
    let nv = input.lines.len();
    match nv {
        1 => fixed!(1),
        2 => fixed!(2),
        3 => fixed!(3),
        4 => fixed!(4),
        5 => fixed!(5),
        6 => fixed!(6),
        7 => fixed!(7),
        8 => fixed!(8),
        _ => sweep_in(
            input,
            findings,
            vec![0usize; nv],
            vec![DONE; nv],
            vec![SILENT; nv],
        ),
    }
}

/// The last entered event of a voice before its first.
const SILENT: Slot = Slot {
    onset: NEVER,
    end: NEVER,
    mask: 0,
    lo: u8::MAX,
    hi: 0,
    size: 0,
};

/// The next event of a voice that has none left.
const DONE: Slot = Slot {
    onset: i64::MAX,
    ..SILENT
};

/// The sweep over per-voice state `head` (entered events), `next` (the next event,
/// [`DONE`] when none is left) and `current` (last entered event), one entry per voice.
fn sweep_in<H, N, C>(
    input: &VerticalInput<'_>,
    findings: &mut Findings,
    mut head: H,
    mut next: N,
    mut current: C,
) -> Crossing
where
    H: AsMut<[usize]> + AsRef<[usize]>,
    N: AsMut<[Slot]>,
    C: AsMut<[Slot]>,
{
    let lines = input.lines;
    let next = next.as_mut();
    let current = current.as_mut();
    for (slot, line) in next.iter_mut().zip(lines) {
        *slot = line.slots.first().copied().unwrap_or(DONE);
    }
    // Only when some voice overlaps itself can more than each voice's last entered
    // event sound at once; the common case takes the branch-free path.
    let lines_only = lines.iter().all(|l| !l.overlaps);
    let head = head.as_mut();
    let limit = u32::from(input.max_sounding);
    let mut tally = Crossing::default();
    let mut first_crossing: Option<FirstCrossing> = None;
    let mut covered: i64 = 0;
    // The current and the previous distinct onset, and the instant awaiting its
    // exact count.
    let (mut now, mut before) = (i64::MIN, i64::MIN);
    let mut suspect: Option<Suspect> = None;
    let mut crowd: Option<Crowd> = None;
    loop {
        // The voice whose next event starts first (ties: the lower voice).
        let mut v = 0;
        let mut t = next.first().map_or(i64::MAX, |s| s.onset);
        for (u, s) in next.iter().enumerate().skip(1) {
            let earlier = s.onset < t;
            t = if earlier { s.onset } else { t };
            v = if earlier { u } else { v };
        }
        if t == i64::MAX {
            break;
        }
        let e = next[v];
        let k = head[v];
        head[v] = k + 1;
        next[v] = lines[v].slots.get(k + 1).copied().unwrap_or(DONE);
        if let Some(i) = suspect
            && i.t != t
        {
            count_suspect(input, head, i, &mut crowd, findings);
            suspect = None;
        }
        before = if t != now { now } else { before };
        now = t;
        if t > covered {
            silent_bars(input, covered, t, findings);
        }
        covered = covered.max(e.end);
        let mut sounding = u32::from(e.size) * u32::from(e.end > t);
        if lines_only {
            // Every voice's last entered event, this voice's previous one included
            // (it ended by t, so it adds nothing).
            let mut together: i128 = 0;
            let mut crossed_time: i128 = 0;
            for (u, c) in current.iter().enumerate() {
                sounding += u32::from(c.size) * u32::from(c.end > t);
                let len = (e.end.min(c.end) - t).max(0);
                let (upper_lo, lower_hi) = if u < v { (c.lo, e.hi) } else { (e.lo, c.hi) };
                let crossed = (upper_lo < lower_hi) & (len > 0);
                together += i128::from(len);
                crossed_time += i128::from(len & -i64::from(crossed));
                let clash = (e.mask & c.mask != 0) & (len > 0);
                if clash | (crossed & first_crossing.is_none()) {
                    let j = head[u] - 1;
                    if clash {
                        collision(input, (v, k), (u, j), e.mask & c.mask, len, findings);
                    }
                    if crossed && first_crossing.is_none() {
                        first_crossing = Some(FirstCrossing { v, k, u, j });
                    }
                }
            }
            tally.together += together;
            tally.crossed += crossed_time;
        } else {
            sounding += general_pairs(
                input,
                head,
                (v, k, e),
                &mut tally,
                &mut first_crossing,
                findings,
            );
        }
        current[v] = e;
        if sounding > limit && suspect.is_none() {
            suspect = Some(Suspect {
                t,
                before,
                voice: v,
                event: k,
            });
        }
    }
    if let Some(i) = suspect {
        count_suspect(input, head, i, &mut crowd, findings);
    }
    close_crowd(input, &mut crowd, findings);
    let end = i64::from(input.bars).saturating_mul(input.bar_ticks);
    if end > covered {
        silent_bars(input, covered, end, findings);
    }
    let (mut p, mut q) = (
        i128::from(*input.max_crossing.numer()),
        i128::from(*input.max_crossing.denom()),
    );
    if q < 0 {
        (p, q) = (-p, -q);
    }
    if let Some(first) = first_crossing
        && share_exceeds(tally.crossed, tally.together, p, q)
    {
        findings.push(crossing(input, first, tally));
    }
    tally
}

/// The pairs of event `k` of voice `v` (starting at `e.onset`) when some voice
/// overlaps itself: walks back over every event that may still sound, its own
/// voice's included. Returns the pitches those events sound at the onset.
fn general_pairs(
    input: &VerticalInput<'_>,
    head: &[usize],
    (v, k, e): (usize, usize, Slot),
    tally: &mut Crossing,
    first_crossing: &mut Option<FirstCrossing>,
    findings: &mut Findings,
) -> u32 {
    let t = e.onset;
    let mut sounding = 0;
    for (u, line) in input.lines.iter().enumerate() {
        // Own voice: the events before this one.
        let mut j = if u == v { k } else { head[u] };
        while j > 0 {
            j -= 1;
            if line.reach(j) <= t {
                break;
            }
            let c = line.slots[j];
            if c.end > t {
                sounding += u32::from(c.size);
                if u != v {
                    pair(input, (v, k, e), (u, j, c), tally, first_crossing, findings);
                }
            }
        }
    }
    sounding
}

/// One overlapping pair met by the general walk: collision, time together, crossing.
fn pair(
    input: &VerticalInput<'_>,
    (v, k, e): (usize, usize, Slot),
    (u, j, c): (usize, usize, Slot),
    tally: &mut Crossing,
    first_crossing: &mut Option<FirstCrossing>,
    findings: &mut Findings,
) {
    let len = e.end.min(c.end) - e.onset;
    if len <= 0 {
        return;
    }
    if e.mask & c.mask != 0 {
        collision(input, (v, k), (u, j), e.mask & c.mask, len, findings);
    }
    tally.together += i128::from(len);
    let (upper, lower) = if u < v { (c, e) } else { (e, c) };
    if upper.lo < lower.hi {
        tally.crossed += i128::from(len);
        if first_crossing.is_none() {
            *first_crossing = Some(FirstCrossing { v, k, u, j });
        }
    }
}

/// After every event starting at `i.t` entered: counts the distinct pitches then
/// sounding; if too many, the instant joins the run of crowded instants (when it
/// directly follows the run's last one) or starts a new run.
fn count_suspect(
    input: &VerticalInput<'_>,
    head: &[usize],
    i: Suspect,
    crowd: &mut Option<Crowd>,
    findings: &mut Findings,
) {
    let count = distinct_pitches(input, head, i.t);
    if count <= u32::from(input.max_sounding) {
        return;
    }
    if let Some(c) = crowd
        && c.last == i.before
    {
        c.most = c.most.max(count);
        c.last = i.t;
        return;
    }
    close_crowd(input, crowd, findings);
    *crowd = Some(Crowd {
        start: i.t,
        last: i.t,
        voice: i.voice,
        event: i.event,
        most: count,
    });
}

/// Distinct MIDI pitches sounding at `t` (the exact count, read from the score).
#[cold]
fn distinct_pitches(input: &VerticalInput<'_>, head: &[usize], t: i64) -> u32 {
    let mut set = [0u128; 2];
    for (u, line) in input.lines.iter().enumerate() {
        let mut j = head[u];
        while j > 0 {
            j -= 1;
            let c = line.slots[j];
            if line.reach(j) <= t {
                break;
            }
            if c.end > t
                && let Some(e) = event(input, u, j)
            {
                for p in &e.pitches {
                    set[usize::from(p.midi >> 7)] |= 1 << (p.midi & 127);
                }
            }
        }
    }
    set[0].count_ones() + set[1].count_ones()
}

fn event<'a>(input: &VerticalInput<'a>, voice: usize, index: usize) -> Option<&'a Event> {
    input.voices.get(voice).and_then(|v| v.events.get(index))
}

fn onset_of(input: &VerticalInput<'_>, voice: usize, index: usize) -> cantus_music::Time {
    event(input, voice, index).map_or_else(cantus_music::Time::default, |e| e.onset)
}

fn name(input: &VerticalInput<'_>, voice: usize) -> String {
    input
        .voices
        .get(voice)
        .map_or_else(|| format!("voice {}", voice + 1), |v| v.name.clone())
}

fn close_crowd(input: &VerticalInput<'_>, crowd: &mut Option<Crowd>, findings: &mut Findings) {
    let Some(c) = crowd.take() else {
        return;
    };
    let q = input.per_quarter;
    let (count, when) = if c.start == c.last {
        (
            format!("{} distinct pitches sound", c.most),
            format!("at onset {}", ticks_text(i128::from(c.start), q)),
        )
    } else {
        (
            format!("up to {} distinct pitches sound", c.most),
            format!(
                "at every onset from {} to {}",
                ticks_text(i128::from(c.start), q),
                ticks_text(i128::from(c.last), q)
            ),
        )
    };
    findings.push(Finding::new(
        Rule::Texture,
        Some(c.voice),
        onset_of(input, c.voice, c.event),
        format!("{count} at once {when}; at most {} may", input.max_sounding),
    ));
}

/// Records the collision of event `k` of voice `v` with event `j` of voice `u`
/// (its reason is written only if it is listed: a piece can collide once per pair).
#[cold]
fn collision(
    input: &VerticalInput<'_>,
    (v, k): (usize, usize),
    (u, j): (usize, usize),
    shared: u16,
    len: i64,
    findings: &mut Findings,
) {
    let pitches = |voice, index| {
        event(input, voice, index).map_or_else(String::new, |e: &Event| {
            e.pitches
                .iter()
                .filter(|p| shared & 1 << (p.midi % 12) != 0)
                .map(|p| p.midi.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        })
    };
    findings.push_with(Rule::Collision, Some(v), onset_of(input, v, k), || {
        format!(
            "pitch class {} sounds here (MIDI {}) while {} sounds it too (MIDI {}, from onset {}) for {}; \
             voices sounding together must not share a pitch class",
            mask_text(shared),
            pitches(v, k),
            name(input, u),
            pitches(u, j),
            time_text::format(onset_of(input, u, j)),
            quarters(&ticks_text(i128::from(len), input.per_quarter))
        )
    });
}

#[cold]
fn crossing(input: &VerticalInput<'_>, first: FirstCrossing, tally: Crossing) -> Finding {
    let q = input.per_quarter;
    let (upper, lower) = if first.u < first.v {
        ((first.u, first.j), (first.v, first.k))
    } else {
        ((first.v, first.k), (first.u, first.j))
    };
    let low = event(input, upper.0, upper.1)
        .and_then(|e| e.pitches.iter().map(|p| p.midi).min())
        .unwrap_or_default();
    let high = event(input, lower.0, lower.1)
        .and_then(|e| e.pitches.iter().map(|p| p.midi).max())
        .unwrap_or_default();
    Finding::new(
        Rule::Crossing,
        Some(first.v),
        onset_of(input, first.v, first.k),
        format!(
            "the voices are crossed for {} of the {} they sound together (a share of {}), \
             more than the {} allowed; the first crossing is here: {} (lowest MIDI {low}) sounds below {} \
             (highest MIDI {high})",
            ticks_text(tally.crossed, q),
            quarters(&ticks_text(tally.together, q)),
            ratio_text(tally.crossed, tally.together),
            time_text::format(input.max_crossing),
            name(input, upper.0),
            name(input, lower.0)
        ),
    )
}

/// Reports the bars lying wholly inside the silent gap `[from, to)` (ticks).
fn silent_bars(input: &VerticalInput<'_>, from: i64, to: i64, findings: &mut Findings) {
    let b = input.bar_ticks;
    if b <= 0 {
        return;
    }
    // Bar i (0-based) spans [i*b, (i+1)*b).
    let first = from.div_euclid(b) + i64::from(from.rem_euclid(b) != 0);
    let last = to.div_euclid(b).min(i64::from(input.bars));
    let first = first.max(0);
    if first >= last {
        return;
    }
    let reason = if last - first == 1 {
        format!("bar {} is silent: nothing sounds in it", first + 1)
    } else {
        format!(
            "bars {}–{} are silent: nothing sounds in them",
            first + 1,
            last
        )
    };
    findings.push(Finding::new(
        Rule::Bars,
        None,
        to_time(i128::from(first) * i128::from(b), input.per_quarter),
        reason,
    ));
}
