//! What the embedded proposer chooses from at a beat: the chords a harmony class
//! would put under the melody note (the key's own triads and sevenths, and applied
//! dominants), each in every voicing the textbook's shape allows — parts in their
//! ranges and order, upper parts within an octave, root and third present — with
//! a static cost (how usual the chord, the inversion, the doubling, the register).
//!
//! The rules are not consulted here; the search judges each voicing it tries. The
//! vocabulary only keeps the search to voicings worth trying, ordered by taste.

use crate::analysis::Analysis;
use crate::domain::Voicing;
use crate::harmony::{Chord, Quality, Role};
use crate::pitch::{Part, Tonality, Tone};
use cantus_music::Mode;

/// One voicing the proposer may write, with its chord and static cost.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Choice {
    pub voicing: Voicing,
    pub chord: Chord,
    pub cost: f64,
}

/// How usual a chord is in `key` (lower is more usual); `None` when it is not in
/// the proposer's vocabulary.
fn chord_cost(key: Tonality, root: u8, quality: Quality) -> Option<f64> {
    let off = (root + 12 - key.tonic_pc()) % 12;
    let chord = Chord {
        root,
        quality,
        bass: root,
        root_spelling: key.spell(root),
    };
    let diatonic = chord.members().all(|pc| key.contains(pc));
    let minor = key.mode == Mode::Minor;
    if diatonic {
        let cost = match (off, quality, minor) {
            (0, Quality::Major, false) | (0, Quality::Minor, true) => 0.0,
            (7, Quality::Major, _) => 0.0,
            (7, Quality::Dominant7, _) => 0.3,
            (5, Quality::Major, false) | (5, Quality::Minor, true) => 0.1,
            (2, Quality::Minor, false) | (2, Quality::Diminished, true) => 0.3,
            (2, Quality::Minor7, false) | (2, Quality::HalfDiminished7, true) => 0.5,
            (9, Quality::Minor, false) | (8, Quality::Major, true) => 0.3,
            (4, Quality::Minor, false) | (3, Quality::Major, true) => 0.8,
            (11, Quality::Diminished, _) => 0.6,
            (11, Quality::Diminished7, true) => 0.7,
            (10, Quality::Major, true) => 0.9,
            (_, Quality::Major | Quality::Minor, _) => 1.2,
            _ => return None,
        };
        return Some(cost);
    }
    // An applied dominant: V or V7 of one of the key's major or minor triads.
    if matches!(quality, Quality::Major | Quality::Dominant7) {
        let target = (root + 5) % 12;
        let target_off = (target + 12 - key.tonic_pc()) % 12;
        if target_off != 0 && key.degree_of(target).is_some() {
            return Some(0.8);
        }
        // The tonic triad of the other mode (a Picardy third).
        if off == 0 && quality == Quality::Major {
            return Some(0.6);
        }
    }
    None
}

/// Every chord of the vocabulary containing pitch class `pc` (any chord when
/// `None`), with its cost.
fn chords_with(key: Tonality, pc: Option<u8>) -> Vec<(Chord, f64)> {
    let mut out = Vec::new();
    for quality in [
        Quality::Major,
        Quality::Minor,
        Quality::Diminished,
        Quality::Dominant7,
        Quality::Minor7,
        Quality::HalfDiminished7,
        Quality::Diminished7,
    ] {
        for root in 0..12u8 {
            let Some(cost) = chord_cost(key, root, quality) else {
                continue;
            };
            let chord = Chord {
                root,
                quality,
                bass: root,
                root_spelling: key.spell(root),
            };
            if pc.is_none_or(|pc| chord.contains(pc)) {
                out.push((chord, cost));
            }
        }
    }
    out
}

/// The static cost of a voicing of `chord` under `soprano`.
fn shape_cost(chord: Chord, soprano: Option<Tone>, v: &Voicing) -> Option<f64> {
    let pcs: Vec<u8> = soprano
        .iter()
        .chain([&v.alto, &v.tenor, &v.bass])
        .map(|t| t.pc())
        .collect();
    let count = |role: Role| {
        chord
            .pc_of(role)
            .map_or(0, |pc| pcs.iter().filter(|&&p| p == pc).count())
    };
    if count(Role::Root) == 0 || count(Role::Third) == 0 {
        return None;
    }
    if chord.quality.is_seventh() && count(Role::Seventh) != 1 {
        return None;
    }
    let bass = Chord {
        bass: v.bass.pc(),
        ..chord
    };
    let mut cost = match (bass.inversion(), chord.quality) {
        (Some(0), Quality::Diminished) => 1.2,
        (Some(1), Quality::Diminished) => 0.0,
        (Some(0), _) => 0.0,
        (Some(1), _) => 0.35,
        (Some(2), q) if q.is_seventh() => 0.5,
        (Some(2), _) => 1.5,
        (Some(3), _) => 0.6,
        _ => return None,
    };
    if chord.quality == Quality::Major && count(Role::Third) > 1 {
        cost += 0.8;
    }
    if count(Role::Fifth) == 0 && !chord.quality.is_seventh() {
        cost += 0.4;
    }
    // A comfortable register: tenor about C4, alto about G4.
    cost += 0.02 * (f64::from(v.tenor.midi) - 59.0).abs();
    cost += 0.02 * (f64::from(v.alto.midi) - 66.0).abs();
    Some(cost)
}

/// The pitches of `part` within its range that are members of `chord`, below
/// `ceiling` and at or above `floor`.
fn pitches(part: Part, chord: Chord, floor: u8, ceiling: u8) -> impl Iterator<Item = u8> {
    let (lo, hi) = part.range();
    (lo.max(floor)..=hi.min(ceiling)).filter(move |m| chord.contains(m % 12))
}

/// Every voicing the vocabulary offers at beat `b` of `a` (the soprano at the
/// beat's start fixed), with its chord and static cost; cheapest first.
pub(crate) fn choices(a: &Analysis, b: usize) -> Vec<Choice> {
    let c = &a.chorale;
    let key = c.key;
    let start = c.beat_start(a.number_of(b));
    let at = c.note_at(Part::Soprano, start);
    let soprano = at.map(|n| c.parts[0][n].tone);
    let ceiling = soprano.map_or(Part::Alto.range().1, |s| s.midi);
    let tone = |midi: u8| key.tone(midi);
    // A melody note begun on the beat between two steps may be an accented
    // passing or neighbour tone: then chords without it are offered too.
    let passing = at.is_some_and(|n| {
        let notes = &c.parts[0];
        let step = |x: &crate::chorale::Note, y: &crate::chorale::Note| {
            x.end() == y.onset
                && (1..=2).contains(&(i32::from(x.tone.midi) - i32::from(y.tone.midi)).abs())
        };
        notes[n].onset == start
            && n > 0
            && notes.get(n + 1).is_some_and(|next| step(&notes[n], next))
            && step(&notes[n - 1], &notes[n])
    });
    let mut offered = chords_with(key, soprano.map(Tone::pc));
    if passing {
        offered.extend(
            chords_with(key, None)
                .into_iter()
                .filter(|(ch, _)| soprano.is_some_and(|s| !ch.contains(s.pc())))
                .map(|(ch, cost)| (ch, cost + 1.2)),
        );
    }
    let mut out = Vec::new();
    for (chord, chord_cost) in offered {
        for alto in pitches(Part::Alto, chord, ceiling.saturating_sub(12), ceiling) {
            for tenor in pitches(Part::Tenor, chord, alto.saturating_sub(12), alto) {
                for bass in pitches(Part::Bass, chord, 0, tenor) {
                    let voicing = Voicing {
                        beat: b,
                        alto: tone(alto),
                        tenor: tone(tenor),
                        bass: tone(bass),
                    };
                    if let Some(shape) = shape_cost(chord, soprano, &voicing) {
                        out.push(Choice {
                            voicing,
                            chord: Chord {
                                bass: bass % 12,
                                ..chord
                            },
                            cost: chord_cost + shape,
                        });
                    }
                }
            }
        }
    }
    out.sort_by(|x, y| x.cost.total_cmp(&y.cost));
    out
}
