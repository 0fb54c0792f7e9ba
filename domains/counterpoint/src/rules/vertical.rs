//! Vertical rules: what may sound together.

use super::{Flag, describe};
use crate::exercise::{Beat, Exercise};

fn flag(ex: &Exercise, i: usize, reason: String, out: &mut Vec<Flag>) {
    out.push(Flag {
        location: ex.location(i),
        reason,
    });
}

/// FS-H-consonance.
pub(super) fn consonance(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    if !ex.vertical(i).is_consonant() {
        let why = format!("{} is a dissonance", describe(ex, i));
        flag(ex, i, why, out);
    }
}

/// FS-H-unison-inner.
pub(super) fn unison_inner(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    let bar = ex.moments[i].bar;
    if ex.vertical(i).semitones == 0 && bar != 0 && !ex.is_last_bar(bar) {
        let why = format!(
            "{}: a unison inside the exercise (only the first and last bars may hold one)",
            describe(ex, i)
        );
        flag(ex, i, why, out);
    }
}

/// SS-downbeat-consonant.
pub(super) fn downbeat_consonant(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    if ex.moments[i].beat == Beat::Down && !ex.vertical(i).is_consonant() {
        let why = format!("{} on the downbeat is a dissonance", describe(ex, i));
        flag(ex, i, why, out);
    }
}

/// SS-unison.
pub(super) fn ss_unison(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    let m = &ex.moments[i];
    if m.beat == Beat::Down && ex.vertical(i).semitones == 0 && m.bar != 0 && !ex.is_last_bar(m.bar)
    {
        let why = format!(
            "{}: a unison on a downbeat inside the exercise (allowed on upbeats, and in the first and last bars)",
            describe(ex, i)
        );
        flag(ex, i, why, out);
    }
}

/// The counterpoint's step (±1 or ±2 semitones, a second) from moment `a` to `b`, if it is one.
fn step(ex: &Exercise, b: usize) -> Option<i32> {
    let m = ex.melodic(b)?;
    (matches!(m.semitones.abs(), 1 | 2) && m.steps.abs() == 1).then_some(m.semitones.signum())
}

/// SS-upbeat-passing: judged on the upbeat (the approach) and on the note after it
/// (the departure), so an online check sees each half as soon as it can.
pub(super) fn upbeat_passing(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    let dissonant_upbeat =
        |k: usize| ex.moments[k].beat == Beat::Up && !ex.vertical(k).is_consonant();
    if dissonant_upbeat(i) && step(ex, i).is_none() {
        let why = format!(
            "{} on the upbeat is a dissonance not reached by step (only a passing tone may be dissonant)",
            describe(ex, i)
        );
        flag(ex, i, why, out);
    }
    if let Some(p) = i.checked_sub(1)
        && dissonant_upbeat(p)
        && let Some(approach) = step(ex, p)
        && step(ex, i) != Some(approach)
    {
        out.push(Flag {
            location: ex.location(p),
            reason: format!(
                "{} on the upbeat is a dissonance not left by step in the same direction (to {}; a passing tone fills a third)",
                describe(ex, p),
                ex.moments[i].counterpoint
            ),
        });
    }
}

/// FS-V-spacing: more than a twelfth apart.
pub(super) fn spacing(ex: &Exercise, i: usize, out: &mut Vec<Flag>) {
    if ex.vertical(i).semitones.abs() > 19 {
        let why = format!(
            "{}: the voices are more than a twelfth apart",
            describe(ex, i)
        );
        flag(ex, i, why, out);
    }
}

/// FS-H-prefer-imperfect: over the downbeats, perfect consonances must be fewer
/// than half.
pub(super) fn prefer_imperfect(ex: &Exercise, out: &mut Vec<Flag>) {
    let downs: Vec<usize> = (0..ex.moments.len())
        .filter(|&i| ex.moments[i].beat == Beat::Down)
        .collect();
    let perfect = downs
        .iter()
        .filter(|&&i| ex.vertical(i).is_perfect())
        .count();
    if let (Some(&first), Some(&last)) = (downs.first(), downs.last())
        && perfect * 2 >= downs.len()
    {
        out.push(Flag {
            location: ex.span(first, last),
            reason: format!(
                "{perfect} of {} downbeat verticals are perfect consonances; fewer than half is the preference",
                downs.len()
            ),
        });
    }
}
