//! Rules about one sonority at a time: ranges, spacing, crossing, doubling,
//! complete chords.

use super::Flag;
use crate::analysis::At;
use crate::harmony::{Chord, Quality, Role};
use crate::pitch::{Part, Tone};

/// `CH-range`: a note begun in the beat lies outside its part's range.
pub(super) fn range(at: &At<'_>, out: &mut Vec<Flag>) {
    for s in at.slices() {
        for p in Part::ALL {
            let (Some(t), true) = (s.tone(p), s.attack[p.index()]) else {
                continue;
            };
            let (lo, hi) = p.range();
            let side = if t.midi < lo {
                "below"
            } else if t.midi > hi {
                "above"
            } else {
                continue;
            };
            out.push(Flag {
                location: at.location(s.start, vec![p]),
                reason: format!(
                    "{p} {t} is {side} its range ({}–{})",
                    at.chorale().key.tone(lo),
                    at.chorale().key.tone(hi)
                ),
            });
        }
    }
}

/// The adjacent pairs of parts a spacing or crossing rule compares, upper first.
const ADJACENT: [(Part, Part); 3] = [
    (Part::Soprano, Part::Alto),
    (Part::Alto, Part::Tenor),
    (Part::Tenor, Part::Bass),
];

/// `CH-spacing`: soprano–alto or alto–tenor wider than an octave (once per pair and beat).
pub(super) fn spacing(at: &At<'_>, out: &mut Vec<Flag>) {
    for (up, lo) in &ADJACENT[..2] {
        let wide = at.slices().iter().find_map(|s| {
            let (u, l) = (s.tone(*up)?, s.tone(*lo)?);
            (i32::from(u.midi) - i32::from(l.midi) > 12).then_some((s.start, u, l))
        });
        if let Some((start, u, l)) = wide {
            out.push(Flag {
                location: at.location(start, vec![*up, *lo]),
                reason: format!(
                    "{up} {u} and {lo} {l} are {} semitones apart, more than an octave",
                    i32::from(u.midi) - i32::from(l.midi)
                ),
            });
        }
    }
}

/// `CH-crossing`: a part below the part under it (once per pair and beat).
pub(super) fn crossing(at: &At<'_>, out: &mut Vec<Flag>) {
    for (up, lo) in ADJACENT {
        let crossed = at.slices().iter().find_map(|s| {
            let (u, l) = (s.tone(up)?, s.tone(lo)?);
            (u.midi < l.midi).then_some((s.start, u, l))
        });
        if let Some((start, u, l)) = crossed {
            out.push(Flag {
                location: at.location(start, vec![up, lo]),
                reason: format!("{up} {u} is below {lo} {l}"),
            });
        }
    }
}

/// The tones sounding at the beat's start, with their parts.
fn on_beat(at: &At<'_>) -> Vec<(Part, Tone)> {
    at.slices().first().map_or_else(Vec::new, |s| {
        Part::ALL
            .iter()
            .filter_map(|&p| s.tone(p).map(|t| (p, t)))
            .collect()
    })
}

/// Which members of `chord` sound anywhere in the beat.
pub(super) fn sounding_roles(at: &At<'_>, i: usize, chord: Chord) -> Vec<Role> {
    let mut roles = Vec::new();
    for s in at.slices_of(i) {
        for t in s.tones.iter().flatten() {
            if let Some(r) = chord.role(t.pc())
                && !roles.contains(&r)
            {
                roles.push(r);
            }
        }
    }
    roles
}

/// `CH-incomplete-chord`: the beat's chord lacks its third.
pub(super) fn incomplete(at: &At<'_>, out: &mut Vec<Flag>) {
    let Some(chord) = at.beat().chord else { return };
    if on_beat(at).len() < 3 {
        return;
    }
    if !sounding_roles(at, at.b, chord).contains(&Role::Third) {
        out.push(Flag {
            location: at.location(at.beat().start, Vec::new()),
            reason: format!("{} ({}) has no third", chord, chord.roman(at.chorale().key)),
        });
    }
}

/// The leading tone of a chord that has one: the third of V/V7 of the key or of
/// any dominant seventh, the root of vii° (of the key, or applied).
fn leading_tone_of(at: &At<'_>, chord: Chord) -> Option<u8> {
    let key = at.chorale().key;
    match chord.quality {
        Quality::Dominant7 => chord.pc_of(Role::Third),
        Quality::Major if chord.root == (key.tonic_pc() + 7) % 12 => chord.pc_of(Role::Third),
        // A leading-tone chord of the key, or an applied one (its root foreign to it).
        q if q.is_leading_tone_chord()
            && (chord.root == key.leading_tone() || !key.contains(chord.root)) =>
        {
            Some(chord.root)
        }
        _ => None,
    }
}

/// `CH-doubled-leading-tone`: two parts sound a dominant's leading tone at the beat.
pub(super) fn doubled_leading_tone(at: &At<'_>, out: &mut Vec<Flag>) {
    let Some(chord) = at.beat().chord else { return };
    let Some(lt) = leading_tone_of(at, chord) else {
        return;
    };
    let parts: Vec<Part> = on_beat(at)
        .into_iter()
        .filter(|(_, t)| t.pc() == lt)
        .map(|(p, _)| p)
        .collect();
    if parts.len() >= 2 {
        let name = at.chorale().key.spell(lt);
        out.push(Flag {
            location: at.location(at.beat().start, parts),
            reason: format!(
                "the leading tone {}{} of {} ({}) is doubled",
                name.letter.as_char(),
                match name.alter {
                    1 => "#",
                    -1 => "b",
                    _ => "",
                },
                chord,
                chord.roman(at.chorale().key)
            ),
        });
    }
}

/// `CH-doubling`: a root-position major triad doubling its third; any doubled seventh.
pub(super) fn doubling(at: &At<'_>, out: &mut Vec<Flag>) {
    let Some(chord) = at.beat().chord else { return };
    let tones = on_beat(at);
    if tones.len() < 4 {
        return;
    }
    let doubled = |role: Role| -> Vec<Part> {
        let pc = chord.pc_of(role);
        tones
            .iter()
            .filter(|(_, t)| Some(t.pc()) == pc)
            .map(|(p, _)| *p)
            .collect()
    };
    let mut check = |role: Role, why: &str| {
        let parts = doubled(role);
        if parts.len() >= 2 {
            out.push(Flag {
                location: at.location(at.beat().start, parts),
                reason: format!("{} ({}): {why}", chord, chord.roman(at.chorale().key)),
            });
        }
    };
    if chord.quality == Quality::Major && chord.inversion() == Some(0) {
        check(
            Role::Third,
            "the third of a root-position major triad is doubled",
        );
    }
    if chord.quality.is_seventh() {
        check(Role::Seventh, "the seventh is doubled");
    }
}
