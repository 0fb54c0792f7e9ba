//! Rules about chords and the tones outside them: every beat a chord, every
//! non-chord tone of a recognised kind and treated as that kind requires, 6/4
//! chords only where they belong.
//!
//! The kinds, by how a tone outside the chord is reached and left (in its own part):
//!
//! | kind | reached | left |
//! |---|---|---|
//! | suspension | held or repeated from a chord tone | step down (a retardation: semitone up) |
//! | passing | step | step on, the same way |
//! | neighbour | step | step back |
//! | anticipation | step (off the beat) | repeated (a tone of the next chord, or a suspension in it) |
//! | escape | step (off the beat) | leap the other way |
//! | appoggiatura | leap | step the other way |

use super::Flag;
use crate::analysis::At;
use crate::chorale::Note;
use crate::harmony::Chord;
use crate::pitch::Part;
use std::cmp::Ordering;

/// `CH-chord`: a tone on the beat outside its chord that is neither prepared nor
/// reached by step, or more than two tones outside it.
pub(super) fn chord(at: &At<'_>, out: &mut Vec<Flag>) {
    let beat = at.beat();
    let (Some(chord), Some(first)) = (beat.chord, at.slices().first()) else {
        return;
    };
    let key = at.chorale().key;
    let mut outside = Vec::new();
    for p in Part::ALL {
        let (Some(t), Some(n)) = (first.tone(p), first.note[p.index()]) else {
            continue;
        };
        if chord.contains(t.pc()) {
            continue;
        }
        outside.push(p);
        let Some(note) = at.note(p, n) else { continue };
        let prev = at.prev_note(p, n);
        let prepared = note.onset < beat.start
            || prev.is_some_and(|q| q.end() == note.onset && q.tone.midi == t.midi);
        let by_step = prev.is_some_and(|q| step(q, note).is_some());
        if !prepared && !by_step {
            out.push(Flag {
                location: at.location(beat.start, vec![p]),
                reason: format!(
                    "{p} {t} is not in {} ({}) and was neither prepared nor reached by step",
                    chord,
                    chord.roman(key)
                ),
            });
        }
    }
    if outside.len() > 2 {
        out.push(Flag {
            location: at.location(beat.start, outside.clone()),
            reason: format!(
                "{} tones on the beat are outside {} ({}): no triad or seventh chord",
                outside.len(),
                chord,
                chord.roman(key)
            ),
        });
    }
}

/// The direction of a step (1 or 2 semitones) from `a` to `b`.
fn step(a: &Note, b: &Note) -> Option<Ordering> {
    let d = i32::from(b.tone.midi) - i32::from(a.tone.midi);
    (1..=2).contains(&d.abs()).then(|| d.cmp(&0))
}

/// The chords a note sounds against while it lasts (within the view) that do not
/// contain it: `(beat index, chord, whether it sounds at that beat's start)`.
fn clashes(at: &At<'_>, note: &Note) -> Vec<(usize, Chord, bool)> {
    let Some(first) = at.beat_index(note.onset) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for i in first..=at.b {
        let Some(beat) = at.beat_at(i) else { break };
        if beat.start >= note.end() {
            break;
        }
        let chord = if note.onset > beat.start {
            beat.chord_for(note.onset)
        } else {
            beat.chord
        };
        if let Some(c) = chord
            && !c.contains(note.tone.pc())
        {
            out.push((i, c, note.sounds_at(beat.start)));
        }
    }
    out
}

/// Why a non-chord tone `note` (of `part`, the `n`-th) is badly treated, given the
/// note after it (`None`: nothing follows, or a rest does); `None` when its
/// treatment is one of the recognised kinds.
fn mistreated(
    at: &At<'_>,
    part: Part,
    n: usize,
    note: &Note,
    next: Option<&Note>,
) -> Option<String> {
    let prev = at.prev_note(part, n).filter(|q| q.end() == note.onset);
    let next = next.filter(|m| m.onset == note.end());
    let Some(next) = next else {
        return Some("is not resolved: nothing follows it in its part".into());
    };
    let held_in = clashes(at, note)
        .first()
        .is_some_and(|&(i, _, on)| on && at.beat_at(i).is_some_and(|b| note.onset < b.start));
    let repeated = prev.is_some_and(|q| q.tone.midi == note.tone.midi);
    let out_step = step(note, next);
    if held_in || repeated {
        // A suspension (a retardation when it rises a semitone).
        let d = i32::from(next.tone.midi) - i32::from(note.tone.midi);
        return match d {
            0 => None,
            -2 | -1 | 1 => None,
            _ => Some(format!(
                "is a suspension left by {} to {} instead of a step down",
                if d > 0 { "a move up" } else { "a leap down" },
                next.tone
            )),
        };
    }
    let Some(prev) = prev else {
        return match out_step {
            Some(_) => None,
            None => Some(format!(
                "enters from silence and is left by leap to {}",
                next.tone
            )),
        };
    };
    let in_step = step(prev, note);
    let out_dir = next.tone.midi.cmp(&note.tone.midi);
    let in_dir = note.tone.midi.cmp(&prev.tone.midi);
    match (in_step, out_step) {
        // Passing or neighbour.
        (Some(_), Some(_)) => None,
        // Anticipation: off the beat, repeated into the next chord — as a tone of
        // it, or as a suspension, which is judged in its turn.
        (Some(_), None) if out_dir == Ordering::Equal && !on_a_beat(at, note) => None,
        (Some(_), None) if out_dir == Ordering::Equal => Some(format!(
            "is reached by step on the beat and repeated into {}: no accented tone is an anticipation",
            next.tone
        )),
        // Escape tone: off the beat, left by leap the other way.
        (Some(_), None) if out_dir != in_dir && !on_a_beat(at, note) => None,
        (Some(_), None) => Some(format!(
            "is reached by step from {} and left by leap to {}",
            prev.tone, next.tone
        )),
        // Appoggiatura: leapt to, left by step the other way.
        (None, Some(_)) if out_dir != in_dir => None,
        (None, _) => Some(format!(
            "is leapt to from {} and left to {}, not by step the other way",
            prev.tone, next.tone
        )),
    }
}

/// Whether a note begins on a beat.
fn on_a_beat(at: &At<'_>, note: &Note) -> bool {
    let c = at.chorale();
    (note.onset / c.beat).is_integer()
}

/// `CH-non-chord-tone`: a tone outside its chord, located at the tone. A tone of
/// the alto, tenor or bass is judged in the beat where it ends — where the note
/// after it in its part begins, or a rest does — (or at the end of the piece). A
/// tone left into a rest is judged when the rest begins, not when the part next
/// sings: so a search that looks one beat past a cadence sees a cadence note left
/// unresolved, whatever rests follow it.
///
/// A tone of the soprano is judged in the first beat whose chord it is outside:
/// the soprano is the given melody, known whole from the start (online as in the
/// gate), and how a non-chord tone is treated depends only on the notes around it
/// and the first chord it is outside. So a voicing that makes a melody note a
/// non-chord tone it cannot be (a note left by leap, on the beat) breaks the rule
/// in its own beat, not a beat later whatever follows.
pub(super) fn non_chord_tone(at: &At<'_>, out: &mut Vec<Flag>) {
    let (start, horizon) = (at.beat().start, at.horizon());
    for p in Part::LOWER {
        let notes = &at.chorale().parts[p.index()];
        // The notes ending in this beat, with the note beginning where each ends;
        // at the end of the piece, the notes still sounding.
        let mut judged: Vec<(usize, Option<&Note>)> = Vec::new();
        let from = notes.partition_point(|note| note.end() < start);
        for (n, note) in notes.iter().enumerate().skip(from) {
            if note.onset >= horizon {
                break;
            }
            let end = note.end();
            if (start..horizon).contains(&end) || (at.is_last() && end >= horizon) {
                judged.push((n, at.note(p, n + 1).filter(|m| m.onset == end)));
            }
        }
        for (n, next) in judged {
            judge_tone(at, p, n, next, None, out);
        }
    }
    // The melody's notes sounding in this beat, each judged here if this is the
    // first beat whose chord it is outside (the note after it is the melody's).
    let melody = &at.chorale().parts[Part::Soprano.index()];
    let from = melody.partition_point(|note| note.end() <= start);
    for (n, note) in melody.iter().enumerate().skip(from) {
        if note.onset >= horizon {
            break;
        }
        let next = melody.get(n + 1).filter(|m| m.onset == note.end());
        judge_tone(at, Part::Soprano, n, next, Some(at.b), out);
    }
}

/// Flags note `n` of `part` if it is a non-chord tone badly treated, given the
/// note after it; with `first_clash_at`, only if the first chord it is outside is
/// that beat's.
fn judge_tone(
    at: &At<'_>,
    p: Part,
    n: usize,
    next: Option<&Note>,
    first_clash_at: Option<usize>,
    out: &mut Vec<Flag>,
) {
    let key = at.chorale().key;
    let Some(note) = at.note(p, n) else { return };
    let Some(&(i, chord, _)) = clashes(at, note).first() else {
        return;
    };
    if first_clash_at.is_some_and(|b| b != i) {
        return;
    }
    if let Some(why) = mistreated(at, p, n, note, next) {
        let mut location = at.location(note.onset, vec![p]);
        if let Some(beat) = at.beat_at(i)
            && beat.start > note.onset
        {
            location = at.location(beat.start, vec![p]);
            location.from = Some(note.onset);
        }
        out.push(Flag {
            location,
            reason: format!(
                "{p} {}, outside {} ({}), {why}",
                note.tone,
                chord,
                chord.roman(key)
            ),
        });
    }
}

/// `CH-six-four`: the 6/4 chord of the beat before is neither cadential, passing,
/// a pedal nor an arpeggiation of the chord before it (judged when the chord after
/// it is known).
pub(super) fn six_four(at: &At<'_>, out: &mut Vec<Flag>) {
    let Some(i) = at.b.checked_sub(1) else { return };
    let Some(six_four) = at.chord(i) else { return };
    if !(six_four.quality.is_consonant_triad() && six_four.inversion() == Some(2)) {
        return;
    }
    let bass_at = |j: usize| {
        at.slices_of(j)
            .first()
            .and_then(|s| s.tone(Part::Bass))
            .map(|t| t.midi)
    };
    let Some(bass) = bass_at(i) else { return };
    let next = at.chord(at.b);
    let before = i
        .checked_sub(1)
        .and_then(|j| Some((at.chord(j)?, bass_at(j)?)));
    let after = bass_at(at.b);
    let cadential = next.is_some_and(|c| c.root == bass % 12 && c.quality.is_dominant());
    let pedal = before.is_some_and(|(_, b)| b == bass) && after == Some(bass);
    let passing = match (before, after) {
        (Some((_, b0)), Some(b2)) => {
            let (d0, d1) = (
                i32::from(bass) - i32::from(b0),
                i32::from(b2) - i32::from(bass),
            );
            (1..=2).contains(&d0.abs()) && (1..=2).contains(&d1.abs()) && d0.signum() == d1.signum()
        }
        _ => false,
    };
    let arpeggiated = before.is_some_and(|(c, _)| c.same_harmony(six_four))
        || next.is_some_and(|c| c.same_harmony(six_four));
    if !(cadential || pedal || passing || arpeggiated) {
        let Some(beat) = at.beat_at(i) else { return };
        out.push(Flag {
            location: at.location(beat.start, vec![Part::Bass]),
            reason: format!(
                "{} is a 6/4 chord that is not cadential, passing, a pedal or an arpeggiation",
                six_four.roman(at.chorale().key)
            ),
        });
    }
}
