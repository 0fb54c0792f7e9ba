//! Vertical rules: what may sound together.

use super::{Flag, describe};
use crate::exercise::{Beat, Exercise, Position};
use crate::pitch::{Interval, Note};

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
    // Online, before the note after it is written, a passing tone must still have
    // somewhere to pass to: the second on in its direction lands on the next bar's
    // downbeat, which must be a consonance with the cantus there. Where neither second
    // is, the upbeat is already lost, and saying so now lets its own bar repair it
    // (a later bar's replans cannot). A whole exercise has the note after every
    // upbeat, so the gate never needs this half.
    if dissonant_upbeat(i)
        && i + 1 == ex.moments.len()
        && let Some(approach) = step(ex, i)
        && let Some(&next) = ex.cantus.get(ex.moments[i].bar + 1)
        && !can_pass(ex, i, approach, next)
    {
        let why = format!(
            "{} on the upbeat is a passing tone with nowhere to pass: a second {} is a dissonance over the next bar's {next}",
            describe(ex, i),
            if approach > 0 { "up" } else { "down" }
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

/// Whether a second from moment `i`'s counterpoint in `direction` (±1) makes a
/// consonance with `cantus`, the next bar's note.
fn can_pass(ex: &Exercise, i: usize, direction: i32, cantus: Note) -> bool {
    let from = ex.moments[i].counterpoint;
    [1, 2].iter().any(|&semitones| {
        let Ok(midi) = u8::try_from(i32::from(from.midi) + direction * semitones) else {
            return false;
        };
        let to = ex.modality.note(midi);
        let (upper, lower) = match ex.position {
            Position::Above => (to, cantus),
            Position::Below => (cantus, to),
        };
        Interval::between(from, to).steps == direction
            && Interval::between(lower, upper).is_consonant()
    })
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

#[cfg(test)]
mod tests {
    use crate::cantus::Cantus;
    use crate::domain::Assignment;
    use crate::exercise::{Beat, Exercise, Moment, Position, Species};
    use crate::pitch::ModeName;

    /// Fux's Dorian cantus (D F E D G F A G F E D), second species above, with the
    /// counterpoint's bar 2 (the cantus's F4; E4 follows) as `down` then `up`.
    fn bar_two(down: u8, up: u8) -> Exercise {
        let a = Assignment::new(
            Cantus::fux(ModeName::Dorian),
            Species::Second,
            Position::Above,
        );
        let mut ex = a.empty_exercise();
        for (beat, midi) in [(Beat::Down, down), (Beat::Up, up)] {
            ex.moments.push(Moment {
                bar: 1,
                beat,
                onset: Exercise::onset(1, beat),
                cantus: ex.cantus[1],
                counterpoint: ex.modality.note(midi),
            });
        }
        ex
    }

    fn passing_flags(ex: &Exercise) -> Vec<String> {
        crate::rules::judge_moment(ex, ex.moments.len() - 1)
            .into_iter()
            .filter(|f| f.predicate.as_str() == "SS-upbeat-passing")
            .map(|f| f.reason)
            .collect()
    }

    #[test]
    fn a_passing_tone_with_nowhere_to_pass_is_refused_before_the_next_bar() {
        // A5 (M10 over F4) down to G5 (M9, dissonant): the second on, F5, is a
        // minor ninth over the next bar's E4 — no consonance to pass to.
        let flags = passing_flags(&bar_two(81, 79));
        assert_eq!(flags.len(), 1, "{flags:?}");
        assert!(flags[0].contains("nowhere to pass"), "{flags:?}");
        // A4 (M3) up to B4 (A4, dissonant): on to C5, a minor sixth over E4.
        assert_eq!(passing_flags(&bar_two(69, 71)), Vec::<String>::new());
    }
}
