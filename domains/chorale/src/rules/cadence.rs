//! Cadences: how each phrase ends (judged at the last beat of its last soprano
//! note, the fermata, so the chords moving under a held note count) and how the
//! chorale ends.

use super::Flag;
use crate::analysis::At;
use crate::harmony::{Chord, Role};
use crate::pitch::{Part, Tonality};
use serde::Serialize;

/// The kinds of cadence a phrase may end with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CadenceKind {
    /// V(7) or vii° to I (a local tonic).
    Authentic,
    /// IV to I.
    Plagal,
    /// iv6 to V in minor: the bass falls a semitone to the dominant.
    Phrygian,
    /// Ends on a dominant.
    Half,
    /// V (or vii°) to vi.
    Deceptive,
}

impl CadenceKind {
    /// `authentic`, `plagal`, …
    pub fn as_str(self) -> &'static str {
        match self {
            CadenceKind::Authentic => "authentic",
            CadenceKind::Plagal => "plagal",
            CadenceKind::Phrygian => "phrygian",
            CadenceKind::Half => "half",
            CadenceKind::Deceptive => "deceptive",
        }
    }
}

/// How many beats back the chord before a cadence's last chord is looked for.
pub(crate) const LOOK_BACK: usize = 8;

/// A phrase ending as read: its last chord, the chord before it (the last one on
/// another root, at most [`LOOK_BACK`] beats back) and their beats.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ending {
    pub last: Chord,
    pub last_beat: usize,
    pub before: Option<(usize, Chord)>,
}

/// The ending of the phrase whose last soprano note ends in the judged beat.
pub(crate) fn ending(at: &At<'_>) -> Option<Ending> {
    at.beat().phrase_end?;
    let last = at.beat().chord?;
    // The last chord on another root (a Picardy third is no new chord), at most
    // `LOOK_BACK` beats back: the final chord may be held for a whole bar.
    let before = (at.b.saturating_sub(LOOK_BACK)..at.b).rev().find_map(|i| {
        let beat = at.beat_at(i)?;
        [beat.closing.map(|(_, c)| c), beat.chord]
            .into_iter()
            .flatten()
            .find(|c| c.root != last.root)
            .map(|c| (i, c))
    });
    Some(Ending {
        last,
        last_beat: at.b,
        before,
    })
}

/// The kind of cadence `e` is, and the key it cadences in, if it is one in a key
/// closely related to `home`. In this order: authentic (a dominant to its tonic),
/// deceptive (a dominant to its submediant), plagal on the home tonic (IV–I),
/// half (ending on the V of a closely related key; Phrygian when the bass falls a
/// semitone to it), plagal on another closely related tonic.
pub(crate) fn classify(
    e: &Ending,
    bass_before: Option<u8>,
    home: Tonality,
) -> Option<(CadenceKind, u8)> {
    let y = e.last;
    if !(y.quality.is_consonant_triad() && y.inversion() == Some(0)) {
        return None;
    }
    let related = home.closely_related();
    let is_tonic = |pc: u8| related.iter().any(|k| k.tonic_pc() == pc);
    let is_dominant = |pc: u8| related.iter().any(|k| (k.tonic_pc() + 7) % 12 == pc);
    let x = e.before.map(|(_, c)| c);
    let half = || {
        (y.quality == crate::harmony::Quality::Major && is_dominant(y.root)).then(|| {
            let phrygian = bass_before.is_some_and(|b| (b + 12 - y.root) % 12 == 1);
            let kind = if phrygian {
                CadenceKind::Phrygian
            } else {
                CadenceKind::Half
            };
            (kind, (y.root + 5) % 12)
        })
    };
    if let Some(x) = x {
        if x.is_dominant_of(y) && is_tonic(y.root) {
            return Some((CadenceKind::Authentic, y.root));
        }
        if let Some(t) = x.resolves_to()
            && is_tonic(t)
            && ((y.quality == crate::harmony::Quality::Minor && (y.root + 12 - t) % 12 == 9)
                || (y.quality == crate::harmony::Quality::Major && (y.root + 12 - t) % 12 == 8))
        {
            return Some((CadenceKind::Deceptive, t));
        }
        let plagal =
            x.quality.is_consonant_triad() && (x.root + 12 - y.root) % 12 == 5 && is_tonic(y.root);
        // IV–I on the home tonic is plagal; on another key's dominant it is a half
        // cadence there (i–V, not IV–I of V).
        if plagal && y.root == home.tonic_pc() {
            return Some((CadenceKind::Plagal, y.root));
        }
        if let Some(h) = half() {
            return Some(h);
        }
        if plagal {
            return Some((CadenceKind::Plagal, y.root));
        }
    }
    half()
}

/// The bass pitch class at the start of beat `i`.
fn bass_pc(at: &At<'_>, i: usize) -> Option<u8> {
    at.slices_of(i)
        .first()
        .and_then(|s| s.tone(Part::Bass))
        .map(|t| t.pc())
}

/// The cadence ending in the judged beat, if a phrase ends there and it is one.
pub(crate) fn cadence_at(at: &At<'_>) -> Option<(CadenceKind, u8)> {
    let e = ending(at)?;
    let bass_before = at.b.checked_sub(1).and_then(|i| bass_pc(at, i));
    classify(&e, bass_before, at.chorale().key)
}

/// `CH-cadence`: a phrase ends with no recognised cadence in a closely related key.
pub(super) fn cadence(at: &At<'_>, out: &mut Vec<Flag>) {
    let Some(e) = ending(at) else { return };
    if cadence_at(at).is_some() {
        return;
    }
    let key = at.chorale().key;
    let how = match e.before {
        Some((_, x)) => format!("{} → {}", x.roman(key), e.last.roman(key)),
        None => e.last.roman(key),
    };
    out.push(Flag {
        location: at.location(at.beat().start, Vec::new()),
        reason: format!(
            "the phrase ends {how}: no authentic, plagal, half, Phrygian or deceptive cadence on a root-position triad in a key closely related to {key}"
        ),
    });
}

/// `CH-cadence-complete`: the last chord of a phrase, and the dominant before it
/// in an authentic cadence, sound their root and third in their beats (a 4–3
/// suspension completes the dominant when it resolves).
pub(super) fn complete(at: &At<'_>, out: &mut Vec<Flag>) {
    let Some(e) = ending(at) else { return };
    let key = at.chorale().key;
    let mut chords = vec![(e.last_beat, e.last)];
    if let (Some((CadenceKind::Authentic, _)), Some(before)) = (cadence_at(at), e.before) {
        chords.push(before);
    }
    for (i, chord) in chords {
        let roles = super::vertical::sounding_roles(at, i, chord);
        let missing: Vec<&str> = [(Role::Root, "root"), (Role::Third, "third")]
            .into_iter()
            .filter(|(r, _)| !roles.contains(r))
            .map(|(_, n)| n)
            .collect();
        if missing.is_empty() {
            continue;
        }
        let Some(beat) = at.beat_at(i) else { continue };
        out.push(Flag {
            location: at.location(beat.start, Vec::new()),
            reason: format!(
                "the cadence's {} ({}) has no {}",
                chord,
                chord.roman(key),
                missing.join(" and no ")
            ),
        });
    }
}

/// What `CH-final-cadence` asks of the bass of the beat where the last phrase ends,
/// whatever its chords are labelled: a tonic in root position has the tonic in the
/// bass. So a voicing of that beat with another bass note breaks the rule, and the
/// grammar rules it out before judging it whole (a test holds the two together).
pub(crate) fn final_bass_fits(key: Tonality, bass_pc: u8) -> bool {
    bass_pc == key.tonic_pc()
}

/// What `CH-final-cadence` and `CH-non-chord-tone` ask together of the lower
/// parts' pitch classes `pcs` at the chorale's last beat, where the last phrase
/// ends: that chord is the tonic triad (major or minor), and a lower part's tone
/// outside it would be a non-chord tone with nothing after it to resolve to. So
/// the tones fit one of the two tonic triads, or the voicing breaks one of the two
/// rules, and the grammar rules it out before judging it whole (a test holds them
/// together).
pub(crate) fn final_tones_fit(key: Tonality, pcs: impl IntoIterator<Item = u8> + Clone) -> bool {
    let tonic = key.tonic_pc();
    [4u8, 3].into_iter().any(|third| {
        pcs.clone()
            .into_iter()
            .all(|pc| [0, third, 7].iter().any(|d| (tonic + d) % 12 == pc))
    })
}

/// `CH-final-cadence`: the last phrase ends V–I in the key, both in root position.
/// (Where the soprano ends — a perfect or an imperfect cadence — is the melody's,
/// which a harmonisation is given.)
pub(super) fn final_cadence(at: &At<'_>, out: &mut Vec<Flag>) {
    let c = at.chorale();
    if at
        .beat()
        .phrase_end
        .is_none_or(|k| k + 1 != c.phrase_ends.len())
    {
        return;
    }
    let key = c.key;
    let tonic = key.tonic_pc();
    let mut why = Vec::new();
    match ending(at) {
        None => why.push("its last beat holds no chord".to_owned()),
        Some(e) => {
            let y = e.last;
            if y.root != tonic || !y.quality.is_consonant_triad() {
                why.push(format!(
                    "it ends on {} ({}), not the tonic",
                    y,
                    y.roman(key)
                ));
            } else if y.inversion() != Some(0) {
                why.push(format!(
                    "the tonic is not in root position ({})",
                    y.roman(key)
                ));
            }
            match e.before {
                Some((_, x)) if x.quality.is_dominant() && x.is_dominant_of(y) => {
                    if x.inversion() != Some(0) {
                        why.push(format!("the dominant is inverted ({})", x.roman(key)));
                    }
                }
                Some((_, x)) => why.push(format!(
                    "the chord before the last is {} ({}), not the dominant",
                    x,
                    x.roman(key)
                )),
                None => why.push("no chord precedes the last".to_owned()),
            }
        }
    }
    if !why.is_empty() {
        out.push(Flag {
            location: at.location(at.beat().start, Vec::new()),
            reason: format!(
                "no authentic cadence in {key} at the end: {}",
                why.join("; ")
            ),
        });
    }
}
