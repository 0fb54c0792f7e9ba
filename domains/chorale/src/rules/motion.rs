//! Rules about motion from one sonority to the next: parallel, contrary and hidden
//! perfect intervals, overlap, melodic intervals.
//!
//! A motion is judged where it arrives: every slice of the judged beat against the
//! slice before it (the first against the last of the beat before).
//!
//! Each rule's test of one pair of parts (or, for melodic intervals, of one part)
//! across one motion is a function of the tones alone, written once and called by
//! the rule and, through the catalogue ([`pair`]), by [`HardMotion`]: with them the
//! model's grammar
//! rules out a voicing that breaks a motion rule part by part, before pushing it as
//! a beat and judging it whole (what makes its proofs of dead ends affordable).

use super::{Flag, Profile};
use crate::analysis::{At, Slice};
use crate::pitch::{Interval, Part, Tone};
use cantus_framework::{RuleId, Severity};

/// What the four parts sound in one slice (soprano first).
pub(crate) type Tones = [Option<Tone>; 4];

/// Every (before, after) pair of slices arriving in the judged beat.
fn motions<'a>(at: &At<'a>) -> Vec<(&'a Slice, &'a Slice)> {
    at.slice_range()
        .filter_map(|k| Some((at.slice(k.checked_sub(1)?)?, at.slice(k)?)))
        .collect()
}

/// How a part moved: its tones before and after, when it sounds in both and moved.
fn moved(before: &Tones, after: &Tones, p: Part) -> Option<(Tone, Tone)> {
    let (a, b) = (before[p.index()]?, after[p.index()]?);
    (a.midi != b.midi).then_some((a, b))
}

/// Semitones from the lower to the upper of two tones (never negative).
fn span(a: Tone, b: Tone) -> i32 {
    (i32::from(a.midi) - i32::from(b.midi)).abs()
}

/// Both parts keep their pitch classes (each leaps an octave): the harmony is
/// re-spaced, not moved in parallel.
fn same_classes(u0: Tone, u1: Tone, l0: Tone, l1: Tone) -> bool {
    u0.pc() == u1.pc() && l0.pc() == l1.pc()
}

/// Pairs of parts, upper first.
fn pairs() -> impl Iterator<Item = (Part, Part)> {
    Part::ALL
        .into_iter()
        .enumerate()
        .flat_map(|(i, u)| Part::ALL[i + 1..].iter().map(move |&l| (u, l)))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Perfect {
    Fifth,
    Octave,
    Unison,
}

impl Perfect {
    fn of(semitones: i32) -> Option<Perfect> {
        match (semitones, semitones % 12) {
            (0, _) => Some(Perfect::Unison),
            (_, 0) => Some(Perfect::Octave),
            (_, 7) => Some(Perfect::Fifth),
            _ => None,
        }
    }

    fn plural(self) -> &'static str {
        match self {
            Perfect::Fifth => "fifths",
            Perfect::Octave => "octaves",
            Perfect::Unison => "unisons",
        }
    }
}

/// Parts `u` and `l` moving from a perfect interval to one of class `want` by
/// similar or contrary motion: their tones before and after, and the interval
/// they reach.
type Consecutive = (Tone, Tone, Tone, Tone, Perfect);

/// Whether `u` and `l` move from `before` to `after` from a perfect interval in
/// `want` to another, by contrary motion if `contrary` (else similar).
fn consecutive_between(
    before: &Tones,
    after: &Tones,
    (u, l): (Part, Part),
    want: &[Perfect],
    contrary: bool,
) -> Option<Consecutive> {
    let ((u0, u1), (l0, l1)) = (moved(before, after, u)?, moved(before, after, l)?);
    let (k0, k1) = (Perfect::of(span(u0, l0))?, Perfect::of(span(u1, l1))?);
    let similar = (u1.midi > u0.midi) == (l1.midi > l0.midi);
    (similar != contrary
        && want.contains(&k0)
        && want.contains(&k1)
        && !same_classes(u0, u1, l0, l1))
    .then_some((u0, u1, l0, l1, k1))
}

/// Every pair of parts moving from a perfect interval to one of class `want`
/// (octaves and unisons together when `octave_class`), by similar or contrary
/// motion.
fn consecutive(at: &At<'_>, want: &[Perfect], contrary: bool, what: &str, out: &mut Vec<Flag>) {
    for (before, after) in motions(at) {
        for (u, l) in pairs() {
            let Some((u0, u1, l0, l1, k1)) =
                consecutive_between(&before.tones, &after.tones, (u, l), want, contrary)
            else {
                continue;
            };
            let kind = if want.len() == 1 { k1.plural() } else { what };
            let mut location = at.location(after.start, vec![u, l]);
            location.from = Some(before.start);
            out.push(Flag {
                location,
                reason: format!(
                    "{u} and {l}: {kind} {u0}/{l0} → {u1}/{l1}{}",
                    if contrary { " by contrary motion" } else { "" }
                ),
            });
        }
    }
}

/// `CH-parallel-fifths`.
pub(super) fn parallel_fifths(at: &At<'_>, out: &mut Vec<Flag>) {
    consecutive(at, &[Perfect::Fifth], false, "fifths", out);
}

/// Whether `u` and `l` move from `before` to `after` in parallel octaves (an
/// octave to a compound octave and back included): their tones before and after.
fn octaves_between(
    before: &Tones,
    after: &Tones,
    (u, l): (Part, Part),
) -> Option<(Tone, Tone, Tone, Tone)> {
    let ((u0, u1), (l0, l1)) = (moved(before, after, u)?, moved(before, after, l)?);
    let (a, b) = (span(u0, l0), span(u1, l1));
    let similar = (u1.midi > u0.midi) == (l1.midi > l0.midi);
    (similar && a % 12 == 0 && b % 12 == 0 && (a, b) != (0, 0) && !same_classes(u0, u1, l0, l1))
        .then_some((u0, u1, l0, l1))
}

/// `CH-parallel-octaves` (an octave to a compound octave and back included).
pub(super) fn parallel_octaves(at: &At<'_>, out: &mut Vec<Flag>) {
    for (before, after) in motions(at) {
        for (u, l) in pairs() {
            if let Some((u0, u1, l0, l1)) = octaves_between(&before.tones, &after.tones, (u, l)) {
                let mut location = at.location(after.start, vec![u, l]);
                location.from = Some(before.start);
                out.push(Flag {
                    location,
                    reason: format!("{u} and {l}: octaves {u0}/{l0} → {u1}/{l1}"),
                });
            }
        }
    }
}

/// `CH-parallel-unisons`.
pub(super) fn parallel_unisons(at: &At<'_>, out: &mut Vec<Flag>) {
    consecutive(at, &[Perfect::Unison], false, "unisons", out);
}

/// `CH-contrary-fifths`.
pub(super) fn contrary_fifths(at: &At<'_>, out: &mut Vec<Flag>) {
    consecutive(at, &[Perfect::Fifth], true, "fifths", out);
}

/// `CH-contrary-octaves` (octaves and unisons).
pub(super) fn contrary_octaves(at: &At<'_>, out: &mut Vec<Flag>) {
    consecutive(
        at,
        &[Perfect::Octave, Perfect::Unison],
        true,
        "octaves",
        out,
    );
}

/// Whether soprano and bass move in one direction from `before` to `after` into a
/// perfect interval of `class` semitones (mod 12) from another interval, the
/// soprano leaping: their tones before and after.
fn hidden_between(before: &Tones, after: &Tones, class: i32) -> Option<(Tone, Tone, Tone)> {
    let (s0, s1) = moved(before, after, Part::Soprano)?;
    let (b0, b1) = moved(before, after, Part::Bass)?;
    let similar = (s1.midi > s0.midi) == (b1.midi > b0.midi);
    let (a, b) = (span(s0, b0), span(s1, b1));
    let leap = span(s0, s1) > 2;
    (similar && leap && b % 12 == class && a % 12 != class).then_some((s0, s1, b1))
}

/// Soprano and bass moving in one direction into a perfect interval of `class`
/// semitones (mod 12) from another interval, the soprano leaping.
fn hidden(at: &At<'_>, class: i32, what: &str, out: &mut Vec<Flag>) {
    for (before, after) in motions(at) {
        if let Some((s0, s1, b1)) = hidden_between(&before.tones, &after.tones, class) {
            let mut location = at.location(after.start, vec![Part::Soprano, Part::Bass]);
            location.from = Some(before.start);
            out.push(Flag {
                location,
                reason: format!(
                    "soprano and bass reach {what} {s1}/{b1} by similar motion, the soprano leaping from {s0}"
                ),
            });
        }
    }
}

/// `CH-hidden-fifths`.
pub(super) fn hidden_fifths(at: &At<'_>, out: &mut Vec<Flag>) {
    hidden(at, 7, "a fifth", out);
}

/// `CH-hidden-octaves`.
pub(super) fn hidden_octaves(at: &At<'_>, out: &mut Vec<Flag>) {
    hidden(at, 0, "an octave", out);
}

/// `CH-unequal-fifths`: a diminished fifth over the bass moving to a perfect fifth.
pub(super) fn unequal_fifths(at: &At<'_>, out: &mut Vec<Flag>) {
    for (before, after) in motions(at) {
        for u in [Part::Soprano, Part::Alto, Part::Tenor] {
            let (Some((u0, u1)), Some((l0, l1))) = (
                moved(&before.tones, &after.tones, u),
                moved(&before.tones, &after.tones, Part::Bass),
            ) else {
                continue;
            };
            let d5 = Interval::between(l0, u0);
            let p5 = Interval::between(l1, u1);
            if d5.generic.rem_euclid(7) == 4
                && d5.is_diminished()
                && p5.generic.rem_euclid(7) == 4
                && !p5.is_diminished()
                && !p5.is_augmented()
            {
                let mut location = at.location(after.start, vec![u, Part::Bass]);
                location.from = Some(before.start);
                out.push(Flag {
                    location,
                    reason: format!(
                        "{u} and bass: diminished fifth {u0}/{l0} to perfect fifth {u1}/{l1}"
                    ),
                });
            }
        }
    }
}

/// Why `u` (the upper) and `l` (the lower of two neighbouring parts) overlap
/// moving from `before` to `after`: one moves past where the other just was, both
/// moving (leaving a unison exempt).
fn overlap_between(before: &Tones, after: &Tones, (u, l): (Part, Part)) -> Option<String> {
    let ((u0, u1), (l0, l1)) = (moved(before, after, u)?, moved(before, after, l)?);
    if u0.midi == l0.midi {
        // Leaving a unison is no overlap.
        None
    } else if u1.midi < l0.midi {
        Some(format!("{u} moves to {u1}, below the {l}'s {l0} before it"))
    } else if l1.midi > u0.midi {
        Some(format!("{l} moves to {l1}, above the {u}'s {u0} before it"))
    } else {
        None
    }
}

/// Whether `u` and `l` are neighbours, upper first.
fn neighbours(u: Part, l: Part) -> bool {
    u.index() + 1 == l.index()
}

/// `CH-overlap`: a part moves past where its neighbour just was, both moving
/// (leaving a unison exempt).
pub(super) fn overlap(at: &At<'_>, out: &mut Vec<Flag>) {
    for (before, after) in motions(at) {
        for (u, l) in pairs().filter(|&(u, l)| neighbours(u, l)) {
            if let Some(why) = overlap_between(&before.tones, &after.tones, (u, l)) {
                let mut location = at.location(after.start, vec![u, l]);
                location.from = Some(before.start);
                out.push(Flag {
                    location,
                    reason: why,
                });
            }
        }
    }
}

/// Why a lower part moving from `prev` to `now` breaks `CH-melodic-interval`.
fn leap_fault(prev: Tone, now: Tone) -> Option<String> {
    let iv = Interval::between(prev, now);
    if iv.semitones.abs() > 12 {
        Some(format!("leaps {} semitones", iv.semitones.abs()))
    } else if iv.is_augmented() && iv.generic.rem_euclid(7) != 0 {
        Some(format!("moves by an augmented interval ({})", iv.name()))
    } else {
        None
    }
}

/// `CH-melodic-interval`: an augmented interval, or a leap beyond an octave, in the
/// alto, tenor or bass.
pub(super) fn melodic_interval(at: &At<'_>, out: &mut Vec<Flag>) {
    for s in at.slices() {
        for p in Part::LOWER {
            let (Some(n), true) = (s.note[p.index()], s.attack[p.index()]) else {
                continue;
            };
            let (Some(prev), Some(now)) = (at.prev_note(p, n), at.note(p, n)) else {
                continue;
            };
            if prev.end() != now.onset {
                continue;
            }
            let Some(why) = leap_fault(prev.tone, now.tone) else {
                continue;
            };
            let mut location = at.location(now.onset, vec![p]);
            location.from = Some(prev.onset);
            out.push(Flag {
                location,
                reason: format!("{p} {} → {} {why}", prev.tone, now.tone),
            });
        }
    }
}

/// One motion rule's test of a pair of parts across one motion: whether parts
/// `u` and `l` (upper first), moving from `before` to `after`, break it.
pub(super) type PairTest = fn(&Tones, &Tones, (Part, Part)) -> bool;

/// The tests of the motion rules a pair of parts can break on its own, named as
/// the rules: the catalogue gives each to its rule ([`super::Rule::pair_test`]),
/// and each calls the function the rule's judgement of a beat runs.
pub(super) mod pair {
    use super::*;

    pub(in crate::rules) fn parallel_fifths(b: &Tones, a: &Tones, p: (Part, Part)) -> bool {
        consecutive_between(b, a, p, &[Perfect::Fifth], false).is_some()
    }

    pub(in crate::rules) fn parallel_octaves(b: &Tones, a: &Tones, p: (Part, Part)) -> bool {
        octaves_between(b, a, p).is_some()
    }

    pub(in crate::rules) fn parallel_unisons(b: &Tones, a: &Tones, p: (Part, Part)) -> bool {
        consecutive_between(b, a, p, &[Perfect::Unison], false).is_some()
    }

    pub(in crate::rules) fn contrary_fifths(b: &Tones, a: &Tones, p: (Part, Part)) -> bool {
        consecutive_between(b, a, p, &[Perfect::Fifth], true).is_some()
    }

    pub(in crate::rules) fn contrary_octaves(b: &Tones, a: &Tones, p: (Part, Part)) -> bool {
        consecutive_between(b, a, p, &[Perfect::Octave, Perfect::Unison], true).is_some()
    }

    pub(in crate::rules) fn hidden_fifths(b: &Tones, a: &Tones, p: (Part, Part)) -> bool {
        p == (Part::Soprano, Part::Bass) && hidden_between(b, a, 7).is_some()
    }

    pub(in crate::rules) fn hidden_octaves(b: &Tones, a: &Tones, p: (Part, Part)) -> bool {
        p == (Part::Soprano, Part::Bass) && hidden_between(b, a, 0).is_some()
    }

    pub(in crate::rules) fn overlap(b: &Tones, a: &Tones, (u, l): (Part, Part)) -> bool {
        neighbours(u, l) && overlap_between(b, a, (u, l)).is_some()
    }
}

/// The motion rules hard under one profile, as tests of the tones: looked up in
/// the catalogue once, then run on every pair of parts of every candidate.
pub(crate) struct HardMotion {
    pairs: Vec<PairTest>,
    leaps: bool,
}

impl HardMotion {
    /// The motion rules hard under `profile`.
    pub(crate) fn of(profile: Profile) -> HardMotion {
        let hard = |id: RuleId| {
            super::rule_by_id(id).is_some_and(|r| profile.severity(r) == Severity::Hard)
        };
        HardMotion {
            pairs: super::CATALOGUE
                .iter()
                .filter(|r| profile.severity(r) == Severity::Hard)
                .filter_map(super::Rule::pair_test)
                .collect(),
            leaps: hard(super::CH_MELODIC_INTERVAL),
        }
    }

    /// Whether parts `u` and `l` (upper first), moving from `before` to `after`,
    /// break one of these rules — whatever the other parts do: a beat whose first
    /// slice is `after`, the slice before it `before`, breaks that rule.
    pub(crate) fn pair_breaks(&self, before: &Tones, after: &Tones, u: Part, l: Part) -> bool {
        self.pairs.iter().any(|test| test(before, after, (u, l)))
    }

    /// Whether a lower part moving from `prev` to `now` (the note after it, begun
    /// as it ends) breaks `CH-melodic-interval`, if that is one of these rules.
    pub(crate) fn leap_breaks(&self, prev: Tone, now: Tone) -> bool {
        self.leaps && leap_fault(prev, now).is_some()
    }
}
