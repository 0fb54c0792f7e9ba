//! The counterpoint as a melody: intervals, leaps, range, climax, ficta.

use super::Flag;
use crate::exercise::Exercise;
use crate::pitch::Interval;

fn direction(m: Interval) -> &'static str {
    if m.semitones > 0 { "up" } else { "down" }
}

fn leap_text(ex: &Exercise, i: usize, m: Interval) -> String {
    format!(
        "{} {} ({} -> {})",
        m.name(),
        direction(m),
        ex.moments[i - 1].counterpoint,
        ex.moments[i].counterpoint
    )
}

/// FS-M-interval: allowed sizes, correctly spelled; repetition is left to the
/// species' own rule.
pub(super) fn interval(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    let Some(m) = ex.melodic(i) else { return };
    if m.semitones == 0 && m.steps == 0 {
        return;
    }
    let size_ok = matches!(m.semitones.abs(), 1 | 2 | 3 | 4 | 5 | 7 | 12) || m.semitones == 8;
    let reason = if !size_ok {
        Some(match m.semitones {
            -8 => "a descending minor sixth is not allowed (only the rising one)".to_owned(),
            s if s.abs() > 12 => "a leap larger than an octave".to_owned(),
            6 | -6 => "a melodic tritone".to_owned(),
            _ => "a forbidden melodic interval".to_owned(),
        })
    } else if !m.is_proper() {
        Some("an augmented or diminished melodic interval".to_owned())
    } else {
        None
    };
    if let Some(r) = reason {
        out.push(Flag {
            location: ex.span(i - 1, i),
            reason: format!("{}: {r}", leap_text(ex, i, m)),
        });
    }
}

/// SS-no-repeat.
pub(super) fn no_repeat(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    if ex.melodic(i).is_some_and(|m| m.semitones == 0) {
        out.push(Flag {
            location: ex.span(i - 1, i),
            reason: format!("{} repeated", ex.moments[i].counterpoint),
        });
    }
}

/// The two melodic intervals ending at moment `i`.
fn pair(ex: &Exercise, i: usize) -> Option<(Interval, Interval)> {
    Some((ex.melodic(i.checked_sub(1)?)?, ex.melodic(i)?))
}

/// FS-M-leap-recovery.
pub(super) fn leap_recovery(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    let Some((a, b)) = pair(ex, i) else { return };
    if a.semitones.abs() >= 5 && !(b.semitones != 0 && b.semitones.signum() != a.semitones.signum())
    {
        out.push(Flag {
            location: ex.span(i - 1, i),
            reason: format!(
                "the leap {} is not followed by a turn",
                leap_text(ex, i - 1, a)
            ),
        });
    }
}

/// FS-M-double-leap.
pub(super) fn double_leap(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    let Some((a, b)) = pair(ex, i) else { return };
    if a.semitones.abs() >= 3
        && b.semitones.abs() >= 3
        && a.semitones.signum() == b.semitones.signum()
    {
        out.push(Flag {
            location: ex.span(i - 1, i),
            reason: format!(
                "two leaps {}: {} then {}",
                direction(b),
                leap_text(ex, i - 1, a),
                leap_text(ex, i, b)
            ),
        });
    }
}

/// FS-M-chromatic.
pub(super) fn chromatic(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    let Some((a, b)) = pair(ex, i) else { return };
    if a.semitones.abs() == 1 && b.semitones == a.semitones {
        out.push(Flag {
            location: ex.span(i - 2, i),
            reason: format!(
                "two semitones {} in a row ({} -> {} -> {})",
                direction(b),
                ex.moments[i - 2].counterpoint,
                ex.moments[i - 1].counterpoint,
                ex.moments[i].counterpoint
            ),
        });
    }
}

/// FS-M-ficta.
pub(super) fn ficta(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    let m = ex.moments[i];
    let pc = m.counterpoint.pc();
    let md = ex.modality;
    let allowed = md.is_diatonic(pc)
        || pc == md.flat_seven()
        || (md.cadence_ficta().contains(&pc) && ex.is_penultimate_bar(m.bar));
    if !allowed {
        out.push(Flag {
            location: ex.location(i),
            reason: format!(
                "{} is outside the mode (only the raised leading tone at the cadence and the flat seventh are usual)",
                m.counterpoint
            ),
        });
    }
}

/// FS-M-repetition: more than one immediate repetition.
pub(super) fn repetition(ex: &Exercise, out: &mut Vec<Flag>) {
    let repeats: Vec<usize> = (1..ex.moments.len())
        .filter(|&i| ex.melodic(i).is_some_and(|m| m.semitones == 0))
        .collect();
    if let [_, second, ..] = repeats.as_slice() {
        out.push(Flag {
            location: ex.span(second - 1, *second),
            reason: format!(
                "{} immediate repetitions; at most one is the preference",
                repeats.len()
            ),
        });
    }
}

/// FS-M-range.
pub(super) fn range(ex: &Exercise, out: &mut Vec<Flag>) {
    let lo = (0..ex.moments.len()).min_by_key(|&i| ex.moments[i].counterpoint.midi);
    let hi = (0..ex.moments.len()).max_by_key(|&i| ex.moments[i].counterpoint.midi);
    if let (Some(lo), Some(hi)) = (lo, hi) {
        let (a, b) = (ex.moments[lo].counterpoint, ex.moments[hi].counterpoint);
        if b.midi - a.midi > 16 {
            out.push(Flag {
                location: ex.span(0, ex.moments.len() - 1),
                reason: format!(
                    "the counterpoint spans {a} to {b} ({} semitones), more than a tenth",
                    b.midi - a.midi
                ),
            });
        }
    }
}

/// FS-M-climax.
pub(super) fn climax(ex: &Exercise, out: &mut Vec<Flag>) {
    let Some(top) = ex.moments.iter().map(|m| m.counterpoint.midi).max() else {
        return;
    };
    let at: Vec<usize> = (0..ex.moments.len())
        .filter(|&i| ex.moments[i].counterpoint.midi == top)
        .collect();
    if let [first, second, ..] = at.as_slice() {
        out.push(Flag {
            location: ex.span(*first, *second),
            reason: format!(
                "the highest note {} sounds {} times; a single climax is the preference",
                ex.moments[*first].counterpoint,
                at.len()
            ),
        });
    }
}

/// FS-M-outlined-tritone: between consecutive turning points (first note, local
/// extremes, last note), repeated notes merged.
pub(super) fn outlined_tritone(ex: &Exercise, out: &mut Vec<Flag>) {
    let mut line: Vec<usize> = Vec::new();
    for i in 0..ex.moments.len() {
        if line
            .last()
            .is_none_or(|&k| ex.moments[k].counterpoint.midi != ex.moments[i].counterpoint.midi)
        {
            line.push(i);
        }
    }
    let pitch = |k: usize| i32::from(ex.moments[line[k]].counterpoint.midi);
    let mut turns = Vec::new();
    for k in 0..line.len() {
        let turning = k == 0
            || k + 1 == line.len()
            || (pitch(k) - pitch(k - 1)).signum() != (pitch(k + 1) - pitch(k)).signum();
        if turning {
            turns.push(line[k]);
        }
    }
    for w in turns.windows(2) {
        let (a, b) = (ex.moments[w[0]].counterpoint, ex.moments[w[1]].counterpoint);
        if (i32::from(b.midi) - i32::from(a.midi)).abs() == 6 {
            out.push(Flag {
                location: ex.span(w[0], w[1]),
                reason: format!("the line outlines a tritone from {a} to {b}"),
            });
        }
    }
}
