//! The canonical writer: one text per score, which the strict reader reads back
//! to the same score.
//!
//! Each bar holding onsets gets the coarsest grid that places every onset and
//! every duration of the events starting in it exactly; a score that no grid
//! can hold is refused with a [`WriteError`] naming the event, never rounded.
//! All arithmetic on the score's times is done in `i128`, so no score, however
//! odd its numbers, makes the writer overflow or panic.

use super::lexical::strip_comment;
use super::{MAX_BAR, MAX_GRID, MAX_METER};
use crate::score::{Event, Grace, Meter, Pitch, Score, Time, Voice};
use std::cmp::Ordering;
use std::fmt::Write as _;

/// Grids the writer prefers, coarsest first: binary 4…64 and triplet 6, 12, 24,
/// then the mixed grids 48 and 96 (`48t`, `96t`) for bars where triplets meet
/// sixteenths or thirty-seconds in another voice (a Cantus extension of the
/// original's set; only such polyrhythmic bars get them). A bar none of them
/// holds (128th notes, quintuplets, septuplets) gets the coarsest grid that
/// does, up to [`MAX_GRID`](super::MAX_GRID), as a `(grid:N)` override.
pub const WRITER_GRIDS: [u32; 10] = [4, 6, 8, 12, 16, 24, 32, 48, 64, 96];

/// Why a score cannot be written as grammar text without losing something.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// One event cannot be written (named by voice, bar and onset).
    #[error("voice `{voice}`, bar {bar}, onset {onset} (quarter notes): {reason}")]
    Event {
        voice: String,
        bar: i64,
        onset: Time,
        reason: String,
    },
    /// A voice name the grammar cannot carry.
    #[error("voice name `{name}` cannot be written: {reason}")]
    VoiceName { name: String, reason: String },
    /// A meter the grammar cannot carry.
    #[error("meter {meter} cannot be written: {reason}")]
    Meter { meter: Meter, reason: String },
    /// A tempo that is not a positive number.
    #[error("tempo {tempo} cannot be written: it must be above 0")]
    Tempo { tempo: Time },
}

/// A time as an exact `i128` fraction `n/d` with `d > 0`; `None` if the denominator is 0.
fn wide(t: Time) -> Option<(i128, i128)> {
    let (n, d) = (i128::from(*t.numer()), i128::from(*t.denom()));
    match d.cmp(&0) {
        Ordering::Equal => None,
        Ordering::Less => Some((-n, -d)),
        Ordering::Greater => Some((n, d)),
    }
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The smallest `m` such that `n/d` quarter notes is a whole number of slots on
/// every grid that is a multiple of `m` (slot = 4/G quarter notes).
fn grid_requirement(n: i128, d: i128) -> i128 {
    let four_d = 4 * d;
    four_d / gcd(four_d, n)
}

/// Longest duration written, in quarter notes: 2^26, so that its slot count
/// on any writer grid fits the reader's `u32`.
const MAX_DURATION_QUARTERS: i128 = 1 << 26;

/// One event placed in its bar.
struct Placed {
    bar: u32,
    /// Offset from the bar start, as `n/d` quarter notes.
    offset: (i128, i128),
    duration: (i128, i128),
}

/// Writes `score` as canonical grammar text (see the module docs of [`super`]).
pub fn write(score: &Score) -> Result<String, WriteError> {
    let meter = score.meter;
    check_meter(meter)?;
    if let Some(tempo) = score.tempo
        && wide(tempo).is_none_or(|(n, _)| n <= 0)
    {
        return Err(WriteError::Tempo { tempo });
    }
    check_voice_names(&score.voices)?;
    let (bar_n, bar_d) = (4 * i128::from(meter.num), i128::from(meter.den));

    // Place every event: bar number, offset in the bar, duration.
    let mut placed: Vec<Vec<(usize, Placed)>> = Vec::with_capacity(score.voices.len());
    let mut last_onset_bar = 0;
    for voice in &score.voices {
        let mut order: Vec<usize> = (0..voice.events.len()).collect();
        if !voice
            .events
            .is_sorted_by(|a, b| sort_key(a, b) != Ordering::Greater)
        {
            order.sort_by(|&a, &b| sort_key(&voice.events[a], &voice.events[b]));
        }
        let mut list = Vec::with_capacity(order.len());
        for i in order {
            let e = &voice.events[i];
            let fail = |bar: i64, reason: String| WriteError::Event {
                voice: voice.name.clone(),
                bar,
                onset: e.onset,
                reason,
            };
            let (on_n, on_d) =
                wide(e.onset).ok_or_else(|| fail(0, "its onset has a zero denominator".into()))?;
            let index = (on_n * bar_d).div_euclid(on_d * bar_n);
            let bar = i64::try_from(index + 1).unwrap_or(i64::MAX);
            if on_n < 0 {
                return Err(fail(
                    bar,
                    "it starts before the piece (negative onset)".into(),
                ));
            }
            let bar_u = u32::try_from(bar)
                .ok()
                .filter(|b| *b <= MAX_BAR)
                .ok_or_else(|| {
                    fail(
                        bar,
                        format!("it starts after bar {MAX_BAR}, the last bar the grammar reads"),
                    )
                })?;
            let offset = (on_n * bar_d - index * bar_n * on_d, on_d * bar_d);
            let duration = match wide(e.duration) {
                Some((n, d)) if n > 0 || (n == 0 && e.is_grace()) => (n, d),
                _ => {
                    return Err(fail(
                        bar,
                        format!(
                            "its duration {} is not above 0 (only a grace note has none)",
                            e.duration
                        ),
                    ));
                }
            };
            if duration.0 > MAX_DURATION_QUARTERS * duration.1 {
                return Err(fail(
                    bar,
                    format!(
                        "its duration {} is longer than {MAX_DURATION_QUARTERS} quarter notes",
                        e.duration
                    ),
                ));
            }
            check_pitches(e).map_err(|reason| fail(bar, reason))?;
            if let Some(tag) = &e.tag
                && let Some(reason) = tag_problem(tag)
            {
                return Err(fail(bar, reason));
            }
            last_onset_bar = last_onset_bar.max(bar_u);
            list.push((
                i,
                Placed {
                    bar: bar_u,
                    offset,
                    duration,
                },
            ));
        }
        placed.push(list);
    }

    // Choose each bar's grid, in bar order across voices.
    let mut bars: Vec<(u32, u32)> = Vec::new();
    let mut cursors = vec![0usize; placed.len()];
    while let Some(bar) = next_bar(&placed, &cursors) {
        let mut need: i128 = 1;
        for (v, list) in placed.iter().enumerate() {
            while let Some((i, p)) = list.get(cursors[v]).filter(|(_, p)| p.bar == bar) {
                let alone = lcm_capped(
                    grid_requirement(p.offset.0, p.offset.1),
                    grid_requirement(p.duration.0, p.duration.1),
                );
                let together = lcm_capped(need, alone);
                if choose_grid(together, meter).is_none() {
                    let e = &score.voices[v].events[*i];
                    let reason = if choose_grid(alone, meter).is_none() {
                        format!(
                            "its onset or duration ({}) lies on no grid of at most {MAX_GRID} slots per whole note in {meter}",
                            e.duration
                        )
                    } else {
                        format!(
                            "no single grid holds it together with the earlier onsets of bar {bar}"
                        )
                    };
                    return Err(WriteError::Event {
                        voice: score.voices[v].name.clone(),
                        bar: i64::from(bar),
                        onset: e.onset,
                        reason,
                    });
                }
                need = together;
                cursors[v] += 1;
            }
        }
        let grid = choose_grid(need, meter).unwrap_or(16);
        bars.push((bar, grid));
    }

    // The header grid is the most common bar grid (ties: the smaller); every bar
    // grid fits the meter, so it does too.
    let mut counts: std::collections::BTreeMap<u32, usize> = std::collections::BTreeMap::new();
    for (_, g) in &bars {
        *counts.entry(*g).or_default() += 1;
    }
    let most_common = counts
        .iter()
        .max_by_key(|&(g, n)| (*n, std::cmp::Reverse(*g)))
        .map(|(g, _)| *g);
    let header_grid = match most_common {
        Some(g) => g,
        None if grid_fits(16, meter) => 16,
        None => choose_grid(1, meter).ok_or_else(|| WriteError::Meter {
            meter,
            reason: format!(
                "no grid of at most {MAX_GRID} slots per whole note cuts its bar into whole slots"
            ),
        })?,
    };

    let mut out = String::with_capacity(64 + 16 * score.event_count());
    write_header(&mut out, score, header_grid, last_onset_bar);
    let mut cursors = vec![0usize; placed.len()];
    for (bar, grid) in bars {
        out.push('@');
        push_num(&mut out, bar);
        out.push_str(" [-]");
        if grid != header_grid {
            out.push_str(" (grid:");
            push_num(&mut out, grid);
            if is_triplet(grid) {
                out.push('t');
            }
            out.push(')');
        }
        out.push('\n');
        for (v, list) in placed.iter().enumerate() {
            let voice = &score.voices[v];
            let mut first = true;
            while let Some((i, p)) = list.get(cursors[v]).filter(|(_, p)| p.bar == bar) {
                if first {
                    out.push_str("  ");
                    out.push_str(&voice.name);
                    out.push(':');
                    first = false;
                }
                out.push(' ');
                write_token(&mut out, &voice.events[*i], p, grid).map_err(|reason| {
                    WriteError::Event {
                        voice: voice.name.clone(),
                        bar: i64::from(bar),
                        onset: voice.events[*i].onset,
                        reason,
                    }
                })?;
                cursors[v] += 1;
            }
            if !first {
                out.push('\n');
            }
        }
    }
    Ok(out)
}

/// The order of [`Voice::sort`]: onset, then grace notes (in written order: they
/// compare equal and the sort is stable), then duration, then lowest pitch.
fn sort_key(a: &Event, b: &Event) -> Ordering {
    a.onset
        .cmp(&b.onset)
        .then_with(|| b.is_grace().cmp(&a.is_grace()))
        .then_with(|| {
            if a.is_grace() {
                return Ordering::Equal;
            }
            a.duration.cmp(&b.duration).then(
                a.pitches
                    .first()
                    .map(|p| p.midi)
                    .cmp(&b.pitches.first().map(|p| p.midi)),
            )
        })
}

/// `lcm(a, b)`, saturating at a value no writer grid is a multiple of.
fn lcm_capped(a: i128, b: i128) -> i128 {
    const CAP: i128 = 1 << 20;
    let (a, b) = (a.clamp(1, CAP), b.clamp(1, CAP));
    (a / gcd(a, b) * b).min(CAP)
}

fn grid_fits(grid: u32, meter: Meter) -> bool {
    (u64::from(grid) * u64::from(meter.num)) % u64::from(meter.den) == 0
}

/// The coarsest writer grid that is a multiple of `need` and fits the meter;
/// failing those (128th notes, quintuplets, septuplets), the coarsest multiple
/// of `need` that fits, up to the largest grid the reader reads.
fn choose_grid(need: i128, meter: Meter) -> Option<u32> {
    WRITER_GRIDS
        .into_iter()
        .find(|&g| i128::from(g) % need == 0 && grid_fits(g, meter))
        .or_else(|| {
            let need = u32::try_from(need).ok().filter(|n| *n <= MAX_GRID)?;
            (1..=MAX_GRID / need)
                .map(|k| k * need)
                .find(|&g| grid_fits(g, meter))
        })
}

fn is_triplet(grid: u32) -> bool {
    grid.is_multiple_of(3)
}

/// The smallest bar any voice's cursor points at.
fn next_bar(placed: &[Vec<(usize, Placed)>], cursors: &[usize]) -> Option<u32> {
    placed
        .iter()
        .zip(cursors)
        .filter_map(|(list, &c)| list.get(c).map(|(_, p)| p.bar))
        .min()
}

fn check_meter(meter: Meter) -> Result<(), WriteError> {
    let ok = |n: u32| (1..=MAX_METER).contains(&n);
    if ok(meter.num) && ok(meter.den) {
        Ok(())
    } else {
        Err(WriteError::Meter {
            meter,
            reason: format!("numerator and denominator must lie in 1..={MAX_METER}"),
        })
    }
}

fn check_voice_names(voices: &[Voice]) -> Result<(), WriteError> {
    for (i, v) in voices.iter().enumerate() {
        if let Some(reason) = voice_name_problem(&v.name, &voices[..i]) {
            return Err(WriteError::VoiceName {
                name: v.name.clone(),
                reason: reason.into(),
            });
        }
    }
    Ok(())
}

/// Why the grammar cannot carry `name` after the voices `earlier`, if it cannot:
/// the rules of the reader's VOICES line, plus what would break the line itself.
pub(crate) fn voice_name_problem(name: &str, earlier: &[Voice]) -> Option<&'static str> {
    if name.is_empty() {
        Some("it is empty")
    } else if name.trim() != name {
        Some("it begins or ends with whitespace")
    } else if name.contains([',', ':']) {
        Some("it contains `,` or `:`")
    } else if name.starts_with('@') {
        Some("it starts with `@`, which marks bar lines")
    } else if name.chars().any(char::is_control) {
        Some("it contains a control character or a line break")
    } else if strip_comment(name) != name {
        Some("a `%` at its start or after a space would begin a comment")
    } else if earlier.iter().any(|w| w.name == name) {
        Some("another voice has the same name")
    } else {
        None
    }
}

/// Why an event's pitches cannot be written, if they cannot.
fn check_pitches(e: &Event) -> Result<(), String> {
    if e.pitches.is_empty() {
        return Err("it has no pitches".into());
    }
    for w in e.pitches.windows(2) {
        if w[0].midi >= w[1].midi {
            return Err(format!(
                "its pitches are not ascending without repeats (MIDI {} then {}); call Event::normalise_pitches",
                w[0].midi, w[1].midi
            ));
        }
    }
    for p in &e.pitches {
        if p.midi > 127 {
            return Err(format!("MIDI pitch {} is above 127", p.midi));
        }
        let s = p.spelling_or_default();
        let residue = i32::from(p.midi) - i32::from(s.alter) - s.letter.pitch_class();
        if residue.rem_euclid(12) != 0 {
            return Err(format!(
                "MIDI pitch {} cannot be spelled {}{:+} (letter and alteration give another pitch class)",
                p.midi,
                s.letter.as_char(),
                s.alter
            ));
        }
    }
    Ok(())
}

/// Why a tag cannot be written, if it cannot.
fn tag_problem(tag: &str) -> Option<String> {
    if tag.is_empty() {
        Some("its tag is empty".into())
    } else if tag.contains('}') || tag.chars().any(char::is_whitespace) {
        Some(format!("its tag `{tag}` contains `}}` or whitespace"))
    } else {
        None
    }
}

/// Appends the decimal digits of `n` (the hot path of the writer; cheaper than `fmt`).
fn push_num(out: &mut String, n: impl Into<i64>) {
    let n: i64 = n.into();
    if n < 0 {
        out.push('-');
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n.unsigned_abs();
    loop {
        at -= 1;
        // `rest % 10` is below 10, so the cast cannot truncate.
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

fn push_accidentals(out: &mut String, alter: i8) {
    let mark = if alter > 0 { '#' } else { 'b' };
    for _ in 0..alter.unsigned_abs() {
        out.push(mark);
    }
}

fn write_pitch(out: &mut String, p: Pitch) {
    let s = p.spelling_or_default();
    out.push(s.letter.as_char());
    push_accidentals(out, s.alter);
    push_num(out, s.octave_for(p.midi));
}

/// Writes `pitch+pitch@slot>dur{tag}` for `e` placed at `p` on `grid`.
fn write_token(out: &mut String, e: &Event, p: &Placed, grid: u32) -> Result<(), String> {
    for (k, pitch) in e.pitches.iter().enumerate() {
        if k > 0 {
            out.push('+');
        }
        write_pitch(out, *pitch);
    }
    let g = i128::from(grid);
    let slot = p.offset.0 * g / (4 * p.offset.1) + 1;
    let slot =
        u32::try_from(slot).map_err(|_| format!("its onset slot {slot} is too large to write"))?;
    let dur = p.duration.0 * g / (4 * p.duration.1);
    let dur = u32::try_from(dur)
        .map_err(|_| format!("its duration {} is too long to write", e.duration))?;
    out.push('@');
    push_num(out, slot);
    out.push('>');
    match e.grace {
        Some(Grace::Acciaccatura) => out.push_str("g/"),
        Some(Grace::Appoggiatura) => out.push('g'),
        None => push_num(out, dur),
    }
    if let Some(tag) = &e.tag {
        out.push('{');
        out.push_str(tag);
        out.push('}');
    }
    Ok(())
}

fn write_header(out: &mut String, score: &Score, grid: u32, last_onset_bar: u32) {
    out.push_str("KEY: ");
    match score.key {
        None => out.push('?'),
        Some(key) => write_key(out, key),
    }
    let _ = write!(
        out,
        " | METER: {}/{} | TEMPO: ",
        score.meter.num, score.meter.den
    );
    match score.tempo {
        None => out.push('?'),
        Some(t) => write_tempo(out, t),
    }
    let _ = write!(
        out,
        " | GRID: {grid}{}",
        if is_triplet(grid) { "t" } else { "th" }
    );
    let bars = match score.bars {
        Some(b) => b.max(last_onset_bar),
        None => score.bar_count(),
    };
    let _ = writeln!(out, " | BARS: {bars}");
    out.push_str("VOICES:");
    for (i, v) in score.voices.iter().enumerate() {
        out.push_str(if i == 0 { " " } else { ", " });
        out.push_str(&v.name);
        if let Some(key) = v.key {
            out.push_str(" (KEY: ");
            write_key(out, key);
            out.push(')');
        }
    }
    out.push('\n');
}

/// `F major`, `Bb minor`.
fn write_key(out: &mut String, key: crate::score::Key) {
    out.push(key.tonic.letter.as_char());
    push_accidentals(out, key.tonic.alter);
    out.push_str(match key.mode {
        crate::score::Mode::Major => " major",
        crate::score::Mode::Minor => " minor",
    });
}

/// An integer, else a terminating decimal of at most 18 places, else `n/d`.
fn write_tempo(out: &mut String, t: Time) {
    let (n, d) = wide(t).unwrap_or((0, 1));
    let g = gcd(n, d).max(1);
    let (n, d) = (n / g, d / g);
    if d == 1 {
        let _ = write!(out, "{n}");
        return;
    }
    let (mut rest, mut twos, mut fives) = (d, 0u32, 0u32);
    while rest % 2 == 0 {
        rest /= 2;
        twos += 1;
    }
    while rest % 5 == 0 {
        rest /= 5;
        fives += 1;
    }
    let places = twos.max(fives);
    if rest == 1 && places <= 18 {
        let scale = 10_i128.pow(places);
        let scaled = n * (scale / d);
        // The reader reads `whole.frac` into an i64 numerator over 10^places.
        if i64::try_from(scaled).is_ok() {
            let _ = write!(
                out,
                "{}.{:0width$}",
                scaled / scale,
                scaled % scale,
                width = places as usize
            );
            return;
        }
    }
    let _ = write!(out, "{n}/{d}");
}
