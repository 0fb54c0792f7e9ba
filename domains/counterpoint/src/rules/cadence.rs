//! Beginning and end: the first vertical, the cadence, the final.

use super::{Flag, describe};
use crate::exercise::{Beat, Exercise, Position, Species};

fn flag(ex: &Exercise, i: usize, reason: String, out: &mut Vec<Flag>) {
    out.push(Flag {
        location: ex.location(i),
        reason,
    });
}

fn is_first_note(ex: &Exercise, i: usize) -> bool {
    i == 0 && ex.moments[0].bar == 0
}

/// FS-B-start-perfect.
pub(super) fn start_perfect(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    if is_first_note(ex, i) && !ex.vertical(i).is_perfect() {
        let why = format!(
            "{}: the first vertical must be a perfect consonance",
            describe(ex, i)
        );
        flag(ex, i, why, out);
    }
}

/// Degree of the counterpoint's pitch class above the final, in semitones.
fn above_final(ex: &Exercise, i: usize) -> i32 {
    (i32::from(ex.moments[i].counterpoint.pc()) - i32::from(ex.modality.final_pc)).rem_euclid(12)
}

/// FS-B-start-final-above.
pub(super) fn start_final_above(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    if is_first_note(ex, i)
        && ex.position == Position::Above
        && !matches!(above_final(ex, i), 0 | 7)
    {
        let why = format!(
            "the counterpoint above begins on {}, not on the final or its fifth",
            ex.moments[i].counterpoint
        );
        flag(ex, i, why, out);
    }
}

/// FS-B-start-final-below.
pub(super) fn start_final_below(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    if is_first_note(ex, i) && ex.position == Position::Below && above_final(ex, i) != 0 {
        let why = format!(
            "the counterpoint below begins on {}, not on the final (a fifth below puts it in another mode)",
            ex.moments[i].counterpoint
        );
        flag(ex, i, why, out);
    }
}

fn is_last(ex: &Exercise, i: usize) -> bool {
    ex.is_last_bar(ex.moments[i].bar)
}

/// FS-B-end-octave.
pub(super) fn end_octave(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    let h = ex.vertical(i);
    if is_last(ex, i) && !(h.simple() == 0 && h.is_proper()) {
        let why = format!(
            "{}: the last vertical must be a unison or an octave",
            describe(ex, i)
        );
        flag(ex, i, why, out);
    }
}

/// FS-B-end-final.
pub(super) fn end_final(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    if is_last(ex, i) && above_final(ex, i) != 0 {
        let why = format!(
            "the counterpoint ends on {}, not on the final",
            ex.moments[i].counterpoint
        );
        flag(ex, i, why, out);
    }
}

/// Whether the move into moment `i` is by step in contrary motion in both voices.
fn contrary_steps(ex: &Exercise, i: usize) -> Option<String> {
    let (du, dl) = ex.motion(i)?;
    let step = |d: i32| matches!(d.abs(), 1 | 2);
    if step(du) && step(dl) && du.signum() == -dl.signum() {
        None
    } else {
        Some(format!(
            "the final is reached with the upper voice moving {du:+} and the lower {dl:+} semitones; both must step, in contrary motion"
        ))
    }
}

/// FS-B-cadence-step-contrary.
pub(super) fn step_contrary(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    if is_last(ex, i)
        && i > 0
        && let Some(why) = contrary_steps(ex, i)
    {
        out.push(Flag {
            location: ex.span(i - 1, i),
            reason: why,
        });
    }
}

/// The penultimate interval a position needs: major sixth above, minor third below.
fn cadence_sixth_or_third(ex: &Exercise, i: usize) -> Option<String> {
    let h = ex.vertical(i);
    let (want, simple) = match ex.position {
        Position::Above => ("a major sixth (6-8)", 9),
        Position::Below => ("a minor third (3-1)", 3),
    };
    (!(h.simple() == simple && h.is_proper())).then(|| {
        format!(
            "{}: the cadence needs {want} before the final",
            describe(ex, i)
        )
    })
}

/// FS-B-cadence-6-8-or-3-1.
pub(super) fn six_eight_three_one(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    if ex.is_penultimate_bar(ex.moments[i].bar)
        && let Some(why) = cadence_sixth_or_third(ex, i)
    {
        flag(ex, i, why, out);
    }
}

/// SS-start.
pub(super) fn ss_start(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    if i != 0 || ex.moments[0].bar != 0 {
        return;
    }
    let mut problems = Vec::new();
    if !ex.vertical(i).is_perfect() {
        problems.push("it is not a perfect consonance".to_owned());
    }
    let degree = above_final(ex, i);
    match ex.position {
        Position::Above if !matches!(degree, 0 | 7) => {
            problems.push("a counterpoint above begins on the final or its fifth".into())
        }
        Position::Below if degree != 0 => {
            problems.push("a counterpoint below begins on the final".into())
        }
        _ => {}
    }
    if !problems.is_empty() {
        let why = format!("first note {}: {}", describe(ex, i), problems.join("; "));
        flag(ex, i, why, out);
    }
}

/// SS-cadence: penultimate downbeat 5th (above) or 5th/6th (below), penultimate
/// upbeat M6 or m3, last bar the final at the unison or octave by contrary step.
pub(super) fn ss_cadence(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    debug_assert_eq!(ex.species, Species::Second);
    let m = ex.moments[i];
    if ex.is_penultimate_bar(m.bar) {
        let h = ex.vertical(i);
        match m.beat {
            Beat::Down => {
                let ok = h.is_proper()
                    && match ex.position {
                        Position::Above => h.simple() == 7,
                        Position::Below => matches!(h.simple(), 7..=9),
                    };
                if !ok {
                    let want = match ex.position {
                        Position::Above => "a fifth (5-6-8)",
                        Position::Below => "a fifth or a sixth (5-3-8, 6-3-1)",
                    };
                    let why = format!(
                        "{}: the penultimate downbeat should be {want}",
                        describe(ex, i)
                    );
                    flag(ex, i, why, out);
                }
            }
            Beat::Up => {
                if let Some(why) = cadence_sixth_or_third(ex, i) {
                    flag(ex, i, why, out);
                }
            }
        }
    }
    if ex.is_last_bar(m.bar) {
        let h = ex.vertical(i);
        let mut problems = Vec::new();
        if !(h.simple() == 0 && h.is_proper()) {
            problems.push("the last vertical must be a unison or an octave".to_owned());
        }
        if above_final(ex, i) != 0 {
            problems.push("the counterpoint must end on the final".into());
        }
        if let Some(why) = i.checked_sub(1).and_then(|_| contrary_steps(ex, i)) {
            problems.push(why);
        }
        if !problems.is_empty() {
            let why = format!("{}: {}", describe(ex, i), problems.join("; "));
            flag(ex, i, why, out);
        }
    }
}
