//! Motion between successive verticals: parallels, direct motion, battuta,
//! crossing, overlap, runs of imperfect consonances.

use super::{Flag, describe};
use crate::exercise::{Beat, Exercise};

fn span(ex: &Exercise, from: usize, to: usize, reason: String, out: &mut Vec<Flag>) {
    out.push(Flag {
        location: ex.span(from, to),
        reason,
    });
}

fn similar(du: i32, dl: i32) -> bool {
    du != 0 && dl != 0 && du.signum() == dl.signum()
}

fn contrary(du: i32, dl: i32) -> bool {
    du != 0 && dl != 0 && du.signum() != dl.signum()
}

/// The perfect class (`unisons/octaves` or `fifths`) both verticals share, if any.
fn same_perfect(ex: &Exercise, a: usize, b: usize) -> Option<&'static str> {
    let (h0, h1) = (ex.vertical(a), ex.vertical(b));
    (h0.is_perfect() && h1.is_perfect() && h0.simple() == h1.simple()).then(|| {
        if h1.simple() == 0 {
            "unisons/octaves"
        } else {
            "fifths"
        }
    })
}

/// FS-P-parallel-perfect.
pub(super) fn parallel_perfect(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    let Some((du, dl)) = ex.motion(i) else { return };
    if similar(du, dl)
        && let Some(kind) = same_perfect(ex, i - 1, i)
    {
        let why = format!(
            "parallel {kind}: {} then {}",
            describe(ex, i - 1),
            describe(ex, i)
        );
        span(ex, i - 1, i, why, out);
    }
}

/// FS-P-contrary-perfect.
pub(super) fn contrary_perfect(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    let Some((du, dl)) = ex.motion(i) else { return };
    if contrary(du, dl)
        && let Some(kind) = same_perfect(ex, i - 1, i)
    {
        let why = format!(
            "consecutive {kind} by contrary motion: {} then {}",
            describe(ex, i - 1),
            describe(ex, i)
        );
        span(ex, i - 1, i, why, out);
    }
}

/// FS-P-direct-perfect.
pub(super) fn direct_perfect(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    let Some((du, dl)) = ex.motion(i) else { return };
    if similar(du, dl) && ex.vertical(i).is_perfect() && same_perfect(ex, i - 1, i).is_none() {
        let why = format!(
            "{} reached by similar motion from {} (a perfect consonance is reached by contrary or oblique motion)",
            describe(ex, i),
            describe(ex, i - 1)
        );
        span(ex, i - 1, i, why, out);
    }
}

/// FS-P-battuta and SS-battuta: an octave from a tenth, the upper voice stepping
/// down, the lower leaping up; the final cadence is exempt (Fux Fig. 14).
pub(super) fn battuta(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    let Some((du, dl)) = ex.motion(i) else { return };
    let h1 = ex.vertical(i);
    let from = ex.vertical(i - 1).semitones;
    if !ex.is_last_bar(ex.moments[i].bar)
        && h1.simple() == 0
        && h1.semitones != 0
        && matches!(from, 15 | 16)
        && contrary(du, dl)
        && du < 0
        && du.abs() <= 2
    {
        let why = format!(
            "battuta: {} to {}, the upper voice stepping down into the octave",
            describe(ex, i - 1),
            describe(ex, i)
        );
        span(ex, i - 1, i, why, out);
    }
}

/// FS-V-crossing and SS-crossing.
pub(super) fn crossing(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    if ex.vertical(i).semitones < 0 {
        out.push(Flag {
            location: ex.location(i),
            reason: format!(
                "the voices cross: the counterpoint ({}) is {} the cantus ({})",
                ex.moments[i].counterpoint,
                match ex.position {
                    crate::exercise::Position::Above => "below",
                    crate::exercise::Position::Below => "above",
                },
                ex.moments[i].cantus
            ),
        });
    }
}

/// FS-V-overlap and SS-overlap: a voice moves past where the other just was;
/// leaving a unison is exempt (Fux Fig. 21).
pub(super) fn overlap(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    let Some(prev) = i.checked_sub(1) else { return };
    let (u0, l0) = ex.upper_lower(&ex.moments[prev]);
    let (u1, l1) = ex.upper_lower(&ex.moments[i]);
    if ex.vertical(prev).semitones == 0 {
        return;
    }
    let why = if u1.midi < l0.midi {
        Some(format!(
            "the upper voice moves to {u1}, below the lower voice's previous {l0}"
        ))
    } else if l1.midi > u0.midi {
        Some(format!(
            "the lower voice moves to {l1}, above the upper voice's previous {u0}"
        ))
    } else {
        None
    };
    if let Some(why) = why {
        span(ex, prev, i, format!("overlap: {why}"), out);
    }
}

/// The imperfect class of a vertical: thirds (and tenths) or sixths.
fn imperfect_class(ex: &Exercise, i: usize) -> Option<u8> {
    match ex.vertical(i).simple() {
        3 | 4 => Some(3),
        8 | 9 => Some(6),
        _ => None,
    }
}

/// FS-P-imperfect-run: flagged once per run, at its fourth vertical.
pub(super) fn imperfect_run(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    let Some(class) = imperfect_class(ex, i) else {
        return;
    };
    let mut count = 1;
    let mut k = i;
    while k >= 1
        && imperfect_class(ex, k - 1) == Some(class)
        && ex.motion(k).is_some_and(|(du, dl)| similar(du, dl))
    {
        count += 1;
        k -= 1;
    }
    if count == 4 {
        let name = if class == 3 { "thirds" } else { "sixths" };
        span(ex, i - 3, i, format!("four parallel {name} in a row"), out);
    }
}

/// SS-downbeat-parallels: fifths or octaves on successive downbeats by similar
/// motion, unless the upbeat between them leaps a fourth or more.
pub(super) fn downbeat_parallels(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    let m = ex.moments[i];
    if m.beat != Beat::Down || m.bar == 0 {
        return;
    }
    let Some(j) = (0..i)
        .rev()
        .find(|&j| ex.moments[j].beat == Beat::Down && ex.moments[j].bar + 1 == m.bar)
    else {
        return;
    };
    let (u0, l0) = ex.upper_lower(&ex.moments[j]);
    let (u1, l1) = ex.upper_lower(&m);
    let (du, dl) = (
        i32::from(u1.midi) - i32::from(u0.midi),
        i32::from(l1.midi) - i32::from(l0.midi),
    );
    let Some(kind) = same_perfect(ex, j, i) else {
        return;
    };
    let disguised = ex.moments.get(j + 1).is_some_and(|up| {
        up.beat == Beat::Up
            && (i32::from(up.counterpoint.midi) - i32::from(ex.moments[j].counterpoint.midi)).abs()
                >= 5
    });
    if similar(du, dl) && !disguised {
        let why = format!(
            "{kind} on successive downbeats: {} then {} (only an upbeat leap of a fourth or more disguises them)",
            describe(ex, j),
            describe(ex, i)
        );
        span(ex, j, i, why, out);
    }
}
