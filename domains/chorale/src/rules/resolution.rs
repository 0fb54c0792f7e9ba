//! Tendency tones: the leading tone of a dominant and the seventh of a seventh
//! chord, judged where the harmony changes (at the first beat of the new chord).

use super::Flag;
use crate::analysis::At;
use crate::harmony::{Chord, Role};
use crate::pitch::{Part, Tone};

/// What happens in `part` across the change into the judged beat: the tone it
/// sounds at the end of the beat before, the tone at the judged beat's start, and
/// every tone it begins later in the judged beat.
fn across(at: &At<'_>, part: Part) -> Option<(Tone, Tone, Vec<Tone>)> {
    let before = at.slice_before(at.b)?.tone(part)?;
    let slices = at.slices();
    let first = slices.first()?.tone(part)?;
    let later = slices[1..]
        .iter()
        .filter(|s| s.attack[part.index()])
        .filter_map(|s| s.tone(part))
        .collect();
    Some((before, first, later))
}

/// The harmony change into the judged beat: the chord sounding at the end of the
/// beat before (its closing chord, if it has one) and the new one.
fn change(at: &At<'_>) -> Option<(Chord, Chord)> {
    let from = at.beat_at(at.b.checked_sub(1)?)?.last_chord()?;
    let to = at.chord(at.b)?;
    (!from.same_harmony(to)).then_some((from, to))
}

/// The tone before the note of `part` sounding at the end of the beat before.
fn came_from(at: &At<'_>, part: Part) -> Option<Tone> {
    let n = at.slice_before(at.b)?.note[part.index()]?;
    at.prev_note(part, n).map(|q| q.tone)
}

fn semitones(a: Tone, b: Tone) -> i32 {
    i32::from(b.midi) - i32::from(a.midi)
}

/// `CH-leading-tone`: a dominant (the key's V, an applied V, any V7, vii°, vii°7)
/// moves to its tonic or, deceptively, to its submediant; a part sounding its leading tone at the change must rise a
/// semitone to the tonic (at the beat, or after a non-chord tone within it). An
/// inner part may instead fall to the fifth of a root-position tonic. A leading
/// tone held into the new chord is a suspension, judged as one.
pub(super) fn leading_tone(at: &At<'_>, out: &mut Vec<Flag>) {
    let Some((from, to)) = change(at) else { return };
    let key = at.chorale().key;
    let Some(tonic) = from.resolves_to() else {
        return;
    };
    // A major triad is a dominant when it is the key's V or an applied dominant
    // (its third foreign to the key); III moving to VI is no resolution.
    let dominant = match from.quality {
        crate::harmony::Quality::Major => {
            from.root == (key.tonic_pc() + 7) % 12
                || from.pc_of(Role::Third).is_some_and(|t| !key.contains(t))
        }
        _ => true,
    };
    // The tonic, or the deceptive submediant (V–vi) of a dominant.
    let deceptive = from.quality.is_dominant()
        && ((to.quality == crate::harmony::Quality::Minor && (to.root + 12 - tonic) % 12 == 9)
            || (to.quality == crate::harmony::Quality::Major && (to.root + 12 - tonic) % 12 == 8));
    if !dominant || to.quality.is_leading_tone_chord() || !(to.root == tonic || deceptive) {
        return;
    }
    let lt = (tonic + 11) % 12;
    for p in Part::ALL {
        let Some((before, first, later)) = across(at, p) else {
            continue;
        };
        if before.pc() != lt || first.midi == before.midi {
            continue;
        }
        let rises = |t: &Tone| semitones(before, *t) == 1;
        let falls_to_fifth = !p.is_outer() && to.root == tonic && semitones(before, first) == -4;
        let ornamented = !to.contains(first.pc()) && later.iter().any(rises);
        if rises(&first) || falls_to_fifth || ornamented {
            continue;
        }
        let mut location = at.location(at.beat().start, vec![p]);
        location.from = at.slice_before(at.b).map(|s| s.start);
        out.push(Flag {
            location,
            reason: format!(
                "{p} {before}, the leading tone of {} ({}), moves to {first} instead of rising to the tonic as the harmony moves to {}",
                from,
                from.roman(key),
                to.roman(key)
            ),
        });
    }
}

/// `CH-seventh`: a seventh chord moves to another chord; a part sounding its
/// seventh at the change must fall by step (at the beat, or after a non-chord tone
/// within it), or hold it when the new chord contains it. A seventh may rise by
/// step over a bass rising by step (V4/3–I6); a seventh that passes upward by
/// step, or steps back to where it came from, is a passing or neighbour tone.
pub(super) fn seventh(at: &At<'_>, out: &mut Vec<Flag>) {
    let Some((from, to)) = change(at) else { return };
    let Some(seventh) = from.pc_of(Role::Seventh) else {
        return;
    };
    let key = at.chorale().key;
    let bass_rises_by_step =
        across(at, Part::Bass).is_some_and(|(b0, b1, _)| (1..=2).contains(&semitones(b0, b1)));
    for p in Part::ALL {
        let Some((before, first, later)) = across(at, p) else {
            continue;
        };
        if before.pc() != seventh || first.midi == before.midi {
            continue;
        }
        let falls = |t: &Tone| (-2..=-1).contains(&semitones(before, *t));
        let rises_over_bass = p != Part::Bass
            && from.inversion() == Some(2)
            && bass_rises_by_step
            && (1..=2).contains(&semitones(before, first));
        let ornamented = !to.contains(first.pc()) && later.iter().any(falls);
        // A seventh that passes upward by step, or steps back to where it came
        // from, is a passing or neighbour tone.
        let passing = (1..=2).contains(&semitones(before, first))
            && came_from(at, p)
                .is_some_and(|q| (1..=2).contains(&semitones(q, before)) || q.midi == first.midi);
        if falls(&first) || rises_over_bass || ornamented || passing {
            continue;
        }
        let mut location = at.location(at.beat().start, vec![p]);
        location.from = at.slice_before(at.b).map(|s| s.start);
        out.push(Flag {
            location,
            reason: format!(
                "{p} {before}, the seventh of {} ({}), moves to {first} instead of falling by step as the harmony moves to {}",
                from,
                from.roman(key),
                to.roman(key)
            ),
        });
    }
}
