//! Which chord a beat holds, from the tones sounding in it and how each arrived.
//!
//! Every candidate chord (12 roots × 9 qualities) is scored by what it leaves
//! unexplained, and the cheapest wins. A tone on the beat outside the chord costs
//! little when it was prepared (held or repeated: a suspension), more when it was
//! reached by step (an accented passing or neighbour tone), most when it was leapt
//! to; a tone later in the beat outside the chord is a cheap passing tone. A chord
//! missing its root or third costs; a seventh chord must have its seventh on the
//! beat and its third. Small priors prefer triads, the key's own notes, root
//! position, a spelling in thirds.
//!
//! The label depends only on the beat itself and the chord before it — never on
//! what follows — so the online verifier, which sees a beat when it is written,
//! and the gate, which sees the whole chorale, label every beat alike. Whether a
//! non-chord tone is then treated properly (resolved by step, …) is judged by the
//! rules once the note after it is known.

use super::{Chord, Quality, spelling_among};
use crate::pitch::{Tonality, Tone};
use std::cell::RefCell;
use std::collections::HashMap;

/// One tone sounding in a beat, with how it arrived.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sounding {
    pub tone: Tone,
    /// Sounding at the beat's start (else attacked later in the beat).
    pub on_beat: bool,
    /// Held into the beat, or repeated from the note just before it.
    pub prepared: bool,
    /// Reached by a step (1 or 2 semitones) from the part's previous note.
    pub by_step: bool,
    /// Whether the part is the bass (the lowest sounding at the beat).
    pub bass: bool,
    /// Share of the beat it sounds for (0..=1).
    pub weight: f64,
}

/// What a chord of `quality` costs before its tones are read: the priors that
/// prefer triads.
fn prior(quality: Quality) -> f64 {
    match quality {
        Quality::Major | Quality::Minor => 0.0,
        Quality::Diminished => 0.3,
        Quality::Dominant7 => 0.3,
        Quality::Diminished7 => 0.4,
        Quality::Minor7 | Quality::HalfDiminished7 => 0.5,
        Quality::Major7 => 0.9,
        Quality::Augmented => 2.5,
    }
}

/// The most a chord sounding as the harmony before it is credited (see [`cost`]).
const SAME_HARMONY: f64 = 0.2;

/// How much a chord leaves unexplained; lower is better.
fn cost(chord: Chord, tones: &[Sounding], prev: Option<Chord>, key: Tonality) -> f64 {
    let mut cost = prior(chord.quality);
    let mut present = [false; 4];
    for t in tones {
        let member = chord.members().position(|m| m == t.tone.pc());
        match member {
            Some(k) => {
                if t.on_beat || k < 3 {
                    present[k] = true;
                }
            }
            None if t.on_beat => {
                cost += if t.prepared {
                    1.2
                } else if t.by_step {
                    2.0
                } else {
                    4.0
                };
                if t.bass {
                    cost += 1.5;
                }
            }
            None => cost += 0.4 + 0.6 * t.weight,
        }
    }
    if !present[0] {
        cost += 3.0;
    }
    if !present[1] {
        cost += 1.5;
    }
    if !present[2] {
        cost += 0.2;
    }
    if chord.quality.is_seventh() && !(present[3] && present[1]) {
        // A seventh that only passes later in the beat is a passing tone of the
        // triad; a seventh chord may leave out its fifth, never its third.
        return f64::INFINITY;
    }
    // Spelled as a stack of thirds from this root (what tells the four roots of a
    // diminished seventh, or an augmented triad, apart).
    if !stacked(chord, tones) {
        cost += 0.5;
    }
    cost += 0.25 * chord.members().filter(|&pc| !key.contains(pc)).count() as f64;
    cost += match chord.inversion() {
        Some(0) => 0.0,
        Some(1) => 0.1,
        Some(2) => 0.4,
        Some(_) => 0.2,
        None => 0.0,
    };
    if prev.is_some_and(|p| p.same_harmony(chord)) {
        cost -= SAME_HARMONY;
    }
    cost
}

/// Whether every member sounding is spelled a third, fifth or seventh (by letter)
/// above the root's spelling.
fn stacked(chord: Chord, tones: &[Sounding]) -> bool {
    let root = Tone {
        midi: chord.root,
        spelling: chord.root_spelling,
    }
    .step();
    tones
        .iter()
        .all(|t| match chord.members().position(|m| m == t.tone.pc()) {
            Some(k) => (t.tone.step() - root).rem_euclid(7) == (2 * k as i32) % 7,
            None => true,
        })
}

/// Everything [`cost`] adds for a chord of `quality` on `root` (its members as
/// bits of `members`) but the spelling in thirds, from bit masks: the pitch classes
/// sounding in the beat (`sounding`) and the key's (`key_pcs`), and the bass's
/// pitch class. Never more than the
/// cost, so a candidate whose floor is no better than the best so far is passed
/// over; `INFINITY` where the cost is.
fn floor(
    (quality, root, members): (Quality, u8, u16),
    tones: &[Sounding],
    (sounding, bass, key_pcs): (u16, u8, u16),
    prev: Option<Chord>,
) -> f64 {
    let bit = |k: usize| 1u16 << ((root + quality.intervals()[k]) % 12);
    let missing = |k: usize, what: f64| if sounding & bit(k) == 0 { what } else { 0.0 };
    let mut floor = prior(quality) + missing(0, 3.0) + missing(1, 1.5) + missing(2, 0.2);
    if quality.is_seventh()
        && !(sounding & bit(1) != 0
            && tones
                .iter()
                .any(|t| t.on_beat && 1 << t.tone.pc() == bit(3)))
    {
        return f64::INFINITY;
    }
    for t in tones.iter().filter(|t| members & 1 << t.tone.pc() == 0) {
        floor += match (t.on_beat, t.prepared, t.by_step) {
            (false, ..) => 0.4 + 0.6 * t.weight,
            (true, true, _) => 1.2,
            (true, false, true) => 2.0,
            (true, false, false) => 4.0,
        };
        if t.on_beat && t.bass {
            floor += 1.5;
        }
    }
    floor += 0.25 * f64::from((members & !key_pcs).count_ones());
    let off = (bass + 12 - root) % 12;
    let inversion = quality.intervals().iter().position(|&i| i == off);
    floor += match inversion {
        Some(1) => 0.1,
        Some(2) => 0.4,
        Some(3) => 0.2,
        _ => 0.0,
    };
    if prev.is_some_and(|p| p.root == root && p.quality == quality) {
        floor -= SAME_HARMONY;
    }
    floor
}

/// What a label is a function of: the beat's tones (each with how it arrived and
/// its weight's bits), the chord before, the key.
#[derive(PartialEq, Eq, Hash)]
struct Asked {
    tones: Vec<(Tone, u8, u64)>,
    prev: Option<Chord>,
    key: Tonality,
}

/// Labels kept on a thread at most; the memo is emptied when it is full.
const MEMO_CAP: usize = 1 << 18;

thread_local! {
    /// Labels already made on this thread (see [`label`]).
    static MEMO: RefCell<HashMap<Asked, Option<Chord>>> = RefCell::new(HashMap::new());
}

/// The chord of a beat: the candidate that leaves least unexplained (ties: the
/// earlier quality in [`Quality::ALL`], then the lower root). `None` when nothing
/// sounds at the beat's start.
///
/// Every beat the grammar and the search try is labelled, so this is the hot path
/// of the domain, and the grammar's proofs label one beat the same way many times
/// over (the same voicing after the same chord, reached by other prefixes): a label
/// is a function of its arguments alone, so each is made once per thread and
/// remembered ([`MEMO_CAP`] at most).
pub(crate) fn label(tones: &[Sounding], prev: Option<Chord>, key: Tonality) -> Option<Chord> {
    let asked = Asked {
        tones: tones
            .iter()
            .map(|t| {
                let flags = u8::from(t.on_beat)
                    | u8::from(t.prepared) << 1
                    | u8::from(t.by_step) << 2
                    | u8::from(t.bass) << 3;
                (t.tone, flags, t.weight.to_bits())
            })
            .collect(),
        prev,
        key,
    };
    if let Some(known) = MEMO.with_borrow(|memo| memo.get(&asked).copied()) {
        return known;
    }
    let chord = choose(tones, prev, key);
    MEMO.with_borrow_mut(|memo| {
        if memo.len() >= MEMO_CAP {
            memo.clear();
        }
        memo.insert(asked, chord);
    });
    chord
}

/// [`label`], made: a candidate whose [`floor`] already costs as much as the best
/// so far is passed over without being costed (it cannot win: only a strictly lower
/// cost does), and each root is spelled once.
fn choose(tones: &[Sounding], prev: Option<Chord>, key: Tonality) -> Option<Chord> {
    let bass = tones.iter().find(|t| t.bass && t.on_beat)?.tone;
    let spelled: Vec<Tone> = tones.iter().map(|t| t.tone).collect();
    let mask = |on_beat_only: bool| {
        tones
            .iter()
            .filter(|t| t.on_beat || !on_beat_only)
            .fold(0u16, |m, t| m | 1 << t.tone.pc())
    };
    let (on_beat, sounding) = (mask(true), mask(false));
    let key_pcs = (0..12u8)
        .filter(|&pc| key.contains(pc))
        .fold(0u16, |m, pc| m | 1 << pc);
    let spellings: [_; 12] = std::array::from_fn(|root| spelling_among(root as u8, &spelled, key));
    let mut best: Option<(f64, Chord)> = None;
    for quality in Quality::ALL {
        for root in 0..12u8 {
            let members = quality
                .intervals()
                .iter()
                .fold(0u16, |m, i| m | 1 << ((root + i) % 12));
            if members & on_beat == 0 {
                continue;
            }
            // What `cost` adds but for the spelling in thirds: a lower bound.
            let floor = floor(
                (quality, root, members),
                tones,
                (sounding, bass.pc(), key_pcs),
                prev,
            );
            if best.is_some_and(|(b, _)| floor >= b - 1e-9) {
                continue;
            }
            let chord = Chord {
                root,
                quality,
                bass: bass.pc(),
                root_spelling: spellings[usize::from(root)],
            };
            let c = cost(chord, tones, prev, key);
            if c.is_finite() && best.is_none_or(|(b, _)| c < b - 1e-9) {
                best = Some((c, chord));
            }
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cantus_music::{Key, Mode, Pitch};

    fn key() -> Tonality {
        Tonality::of(Key::from_fifths(0, Mode::Major))
    }

    fn s(text: &str, bass: bool) -> Sounding {
        let p = Pitch::parse(text).expect("pitch");
        Sounding {
            tone: Tone {
                midi: p.midi,
                spelling: p.spelling.expect("spelled"),
            },
            on_beat: true,
            prepared: false,
            by_step: false,
            bass,
            weight: 1.0,
        }
    }

    fn name(tones: &[Sounding]) -> String {
        label(tones, None, key()).map_or("-".into(), |c| c.roman(key()))
    }

    #[test]
    fn triads_sevenths_and_inversions() {
        assert_eq!(
            name(&[
                s("C3", true),
                s("G3", false),
                s("E4", false),
                s("C5", false)
            ]),
            "I"
        );
        assert_eq!(
            name(&[
                s("B2", true),
                s("G3", false),
                s("D4", false),
                s("F4", false)
            ]),
            "V65"
        );
        assert_eq!(
            name(&[
                s("F3", true),
                s("A3", false),
                s("D4", false),
                s("D5", false)
            ]),
            "ii6"
        );
        assert_eq!(
            name(&[
                s("F#3", true),
                s("A3", false),
                s("C4", false),
                s("Eb4", false)
            ]),
            "vii°7/V"
        );
    }

    #[test]
    fn a_prepared_fourth_is_a_suspension_not_a_new_chord() {
        // G3 C4 D4 G4 with the C held over: V with a 4-3 suspension, not a Csus chord.
        let mut held = s("C4", false);
        held.prepared = true;
        let tones = [s("G2", true), s("D4", false), held, s("G4", false)];
        assert_eq!(name(&tones), "V");
        // A passing seventh later in the beat does not make a seventh chord.
        let mut passing = s("F4", false);
        passing.on_beat = false;
        passing.weight = 0.5;
        let tones = [
            s("G2", true),
            s("B3", false),
            s("D4", false),
            s("G4", false),
            passing,
        ];
        assert_eq!(name(&tones), "V");
    }

    /// The plain search the labeller prunes: every candidate costed.
    fn every_candidate(tones: &[Sounding], prev: Option<Chord>, key: Tonality) -> Option<Chord> {
        let bass = tones.iter().find(|t| t.bass && t.on_beat)?.tone;
        let spelled: Vec<Tone> = tones.iter().map(|t| t.tone).collect();
        let mut best: Option<(f64, Chord)> = None;
        for quality in Quality::ALL {
            for root in 0..12u8 {
                let chord = Chord {
                    root,
                    quality,
                    bass: bass.pc(),
                    root_spelling: spelling_among(root, &spelled, key),
                };
                if !chord
                    .members()
                    .any(|m| tones.iter().any(|t| t.on_beat && t.tone.pc() == m))
                {
                    continue;
                }
                let c = cost(chord, tones, prev, key);
                if c.is_finite() && best.is_none_or(|(b, _)| c < b - 1e-9) {
                    best = Some((c, chord));
                }
            }
        }
        best.map(|(_, c)| c)
    }

    /// Seeded draws below `n` (xorshift): the random beats of the tests below.
    fn draws(mut state: u64) -> impl FnMut(u64) -> u64 {
        move |n| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        }
    }

    /// Pruning changes no label: on 20,000 beats of random tones (spelled in
    /// the key or not, on or off the beat, prepared, by step or leapt to, with
    /// and without a chord before), the pruned labeller and the plain search agree.
    #[test]
    fn pruning_changes_no_label() {
        let mut next = draws(0x2545_f491_4f6c_dd1du64);
        let names = [
            "C", "C#", "Db", "D", "D#", "Eb", "E", "F", "F#", "Gb", "G", "G#", "Ab", "A", "A#",
            "Bb", "B",
        ];
        let mut differ = 0;
        for _ in 0..20_000 {
            let n = 3 + next(3) as usize;
            let mut tones: Vec<Sounding> = (0..n)
                .map(|i| {
                    let name = names[next(names.len() as u64) as usize];
                    let mut t = s(&format!("{name}{}", 2 + next(3)), i == 0);
                    t.on_beat = i < 4 || next(2) == 0;
                    t.prepared = next(4) == 0;
                    t.by_step = next(2) == 0;
                    t.weight = if t.on_beat { 1.0 } else { 0.5 };
                    t
                })
                .collect();
            tones[0].on_beat = true;
            let prev = if next(2) == 0 {
                None
            } else {
                every_candidate(&tones[1..], None, key())
            };
            let k = if next(3) == 0 {
                Tonality::of(Key::from_fifths(-3, Mode::Minor))
            } else {
                key()
            };
            if label(&tones, prev, k) != every_candidate(&tones, prev, k) {
                differ += 1;
            }
        }
        assert_eq!(differ, 0);
    }

    #[test]
    fn the_memo_tells_apart_every_argument_a_label_depends_on() {
        // Random beats, each asked again with one thing changed — a tone's weight,
        // one of how it arrived, the chord before, the key — right after it: were
        // that thing left out of the memo's key, the twin would be handed the
        // first's label. Every label must be the labeller's, and for every kind of
        // change some twin must be labelled apart (else the test proves nothing).
        let mut next = draws(0x9e37_79b9_7f4a_7c15u64);
        let names = [
            "C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B",
        ];
        let keys = [key(), Tonality::of(Key::from_fifths(-3, Mode::Minor))];
        let mut apart = [0usize; 7];
        for _ in 0..4000 {
            let n = 3 + next(3) as usize;
            let tones: Vec<Sounding> = (0..n)
                .map(|i| {
                    let name = names[next(names.len() as u64) as usize];
                    let mut t = s(&format!("{name}{}", 2 + next(3)), i == 0);
                    t.on_beat = i < 3 || next(2) == 0;
                    t.prepared = next(3) == 0;
                    t.by_step = next(2) == 0;
                    t.weight = if t.on_beat { 1.0 } else { 0.5 };
                    t
                })
                .collect();
            let mut any_chord = || {
                let root = next(12) as usize;
                Some(Chord {
                    root: root as u8,
                    quality: Quality::ALL[next(9) as usize],
                    bass: 0,
                    root_spelling: s(&format!("{}3", names[root]), false).tone.spelling,
                })
            };
            let (prev, other) = (any_chord(), any_chord());
            let k = keys[next(2) as usize];
            let j = 1 + next(n as u64 - 1) as usize;
            let base = label(&tones, prev, k);
            assert_eq!(base, choose(&tones, prev, k));
            for (kind, apart) in apart.iter_mut().enumerate() {
                let (mut t, mut p, mut kk) = (tones.clone(), prev, k);
                match kind {
                    0 => t[j].weight = 0.25,
                    1 => t[j].on_beat = !t[j].on_beat,
                    2 => t[j].prepared = !t[j].prepared,
                    3 => t[j].by_step = !t[j].by_step,
                    4 => t[0].bass = false,
                    5 => p = other,
                    _ => kk = keys[usize::from(k == keys[0])],
                }
                let twin = label(&t, p, kk);
                assert_eq!(twin, choose(&t, p, kk), "change {kind}");
                *apart += usize::from(twin != base);
            }
        }
        assert!(apart.iter().all(|&n| n > 0), "{apart:?}");
    }
}
