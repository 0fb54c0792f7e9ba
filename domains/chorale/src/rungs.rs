//! The repair ladder, least change first; after it the engine drops the voicing
//! and asks for the beat again (a continue request), then replans.
//!
//! 1. `re-space` — each part keeps its pitch class and moves by octaves (up to one
//!    each way): the harmony and its doubling stay, the spacing changes.
//! 2. `exchange-voices` — the alto, tenor and bass exchange their notes, as they
//!    are or each in the octave nearest its old note: the same chord tones, another
//!    distribution (a different bass is a different inversion).
//! 3. `revoice` — any voicing of the candidate's chord (as the analysis labels it),
//!    nearest first: another doubling, another inversion.
//! 4. `proposer-patch` — the framework's [`AskProposer`] for this one beat.
//!
//! A rung's voicing must break no hard moment rule of the profile at its beat;
//! among equals the nearest to the candidate (fewest semitones moved) wins, then
//! the one with fewest soft findings, then the lowest.

use crate::chorale::Location;
use crate::domain::{ChState, ChoraleDomain, Voicing};
use crate::pitch::{Part, Tone};
use crate::rules::{self, Profile};
use cantus_framework::{
    AskProposer, CheckContext, Ladder, PatchScope, RepairRung, RungAction, RungId, Severity,
    Violation,
};

/// The patch rung is retired for the rest of a run once at least this many of its
/// answers have repaired fewer than 1 in this many.
pub const FRUITLESS_ASKS: u32 = 16;

/// The ladder in order, judging by `profile`.
pub fn ladder(profile: Profile) -> Ladder<ChoraleDomain> {
    Ladder::new()
        .then(Respace(profile))
        .then(ExchangeVoices(profile))
        .then(Revoice(profile))
        .then(
            AskProposer::new(RungId::new("proposer-patch"), PatchScope::Event)
                .retiring_after(FRUITLESS_ASKS),
        )
}

/// How far a voicing lies from another: semitones moved, summed over the parts.
fn distance(a: &Voicing, b: &Voicing) -> i32 {
    a.tones()
        .iter()
        .zip(b.tones())
        .map(|((_, x), (_, y))| (i32::from(x.midi) - i32::from(y.midi)).abs())
        .sum()
}

/// The first of `candidates` (nearest to `from` first) that breaks no hard rule of
/// `profile` at its beat, preferring fewer soft findings at equal distance.
fn first_clean(
    state: &ChState,
    from: &Voicing,
    mut candidates: Vec<Voicing>,
    profile: Profile,
) -> Option<Voicing> {
    candidates.retain(|c| c != from);
    candidates.sort_by_key(|c| (distance(c, from), c.bass.midi, c.tenor.midi, c.alto.midi));
    let mut best: Option<(i32, usize, Voicing)> = None;
    for c in candidates {
        let d = distance(&c, from);
        if best.is_some_and(|(bd, _, _)| d > bd) {
            break;
        }
        let Some((a, b)) = state.with_candidate(&c) else {
            continue;
        };
        let mut found = rules::judge_beat(&a, b);
        profile.apply(&mut found);
        if found.iter().any(|f| f.severity == Severity::Hard) {
            continue;
        }
        if best.as_ref().is_none_or(|(_, soft, _)| found.len() < *soft) {
            best = Some((d, found.len(), c));
        }
    }
    best.map(|(_, _, v)| v)
}

/// `tone` moved by `semitones`, spelled as before.
fn moved(tone: Tone, semitones: i32) -> Option<Tone> {
    let midi = u8::try_from(i32::from(tone.midi) + semitones).ok()?;
    (midi <= 127).then_some(Tone {
        midi,
        spelling: tone.spelling,
    })
}

/// `re-space`: octave shifts of each part.
pub struct Respace(pub Profile);

impl Respace {
    /// This rung's id in traces, totals and conditions.
    pub const ID: RungId = RungId::new("re-space");
}

impl RepairRung<ChoraleDomain> for Respace {
    fn id(&self) -> RungId {
        Self::ID
    }

    fn repair(
        &self,
        ctx: CheckContext<'_, ChoraleDomain>,
        v: &Voicing,
        _vs: &[Violation<Location>],
    ) -> RungAction<ChoraleDomain> {
        let shifts = [-12, 0, 12];
        let mut candidates = Vec::new();
        for a in shifts {
            for t in shifts {
                for b in shifts {
                    if let (Some(alto), Some(tenor), Some(bass)) =
                        (moved(v.alto, a), moved(v.tenor, t), moved(v.bass, b))
                    {
                        candidates.push(Voicing {
                            alto,
                            tenor,
                            bass,
                            ..*v
                        });
                    }
                }
            }
        }
        match first_clean(ctx.state, v, candidates, self.0) {
            Some(c) => RungAction::candidate(c),
            None => {
                RungAction::give_up("no octave placement of these pitch classes keeps the rules")
            }
        }
    }
}

/// The octave of pitch class `pc` nearest `near` (ties: the lower), spelled by `like`
/// when it has that pitch class, else in `key`.
fn nearest(pc: u8, near: u8, like: &[Tone], key: crate::pitch::Tonality) -> Option<Tone> {
    let base = i32::from(near) - i32::from(near % 12) + i32::from(pc);
    let midi = [base - 12, base, base + 12]
        .into_iter()
        .filter(|m| (0..=127).contains(m))
        .min_by_key(|m| ((m - i32::from(near)).abs(), *m))?;
    let midi = u8::try_from(midi).ok()?;
    let spelling = like
        .iter()
        .find(|t| t.pc() == pc)
        .map_or_else(|| key.spell(pc), |t| t.spelling);
    Some(Tone { midi, spelling })
}

/// `exchange-voices`: the parts exchange their pitch classes.
pub struct ExchangeVoices(pub Profile);

impl ExchangeVoices {
    /// This rung's id in traces, totals and conditions.
    pub const ID: RungId = RungId::new("exchange-voices");
}

impl RepairRung<ChoraleDomain> for ExchangeVoices {
    fn id(&self) -> RungId {
        Self::ID
    }

    fn repair(
        &self,
        ctx: CheckContext<'_, ChoraleDomain>,
        v: &Voicing,
        _vs: &[Violation<Location>],
    ) -> RungAction<ChoraleDomain> {
        let key = ctx.spec.melody.key;
        let tones = [v.alto, v.tenor, v.bass];
        const ORDERS: [[usize; 3]; 5] = [[0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
        // Each part takes another's note as it is, or its pitch class in the
        // octave nearest its own note.
        let exact = ORDERS.iter().map(|o| Voicing {
            alto: tones[o[0]],
            tenor: tones[o[1]],
            bass: tones[o[2]],
            ..*v
        });
        let near = ORDERS.iter().filter_map(|o| {
            Some(Voicing {
                alto: nearest(tones[o[0]].pc(), v.alto.midi, &tones, key)?,
                tenor: nearest(tones[o[1]].pc(), v.tenor.midi, &tones, key)?,
                bass: nearest(tones[o[2]].pc(), v.bass.midi, &tones, key)?,
                ..*v
            })
        });
        let candidates = exact.chain(near).collect();
        match first_clean(ctx.state, v, candidates, self.0) {
            Some(c) => RungAction::candidate(c),
            None => RungAction::give_up("no exchange of the parts' pitch classes keeps the rules"),
        }
    }
}

/// `revoice`: another voicing of the same chord.
pub struct Revoice(pub Profile);

impl Revoice {
    /// This rung's id in traces, totals and conditions.
    pub const ID: RungId = RungId::new("revoice");
}

impl RepairRung<ChoraleDomain> for Revoice {
    fn id(&self) -> RungId {
        Self::ID
    }

    fn repair(
        &self,
        ctx: CheckContext<'_, ChoraleDomain>,
        v: &Voicing,
        _vs: &[Violation<Location>],
    ) -> RungAction<ChoraleDomain> {
        let Some((a, b)) = ctx.state.with_candidate(v) else {
            return RungAction::give_up("the voicing is not for the next beat");
        };
        let Some(chord) = a.beats[b].chord else {
            return RungAction::give_up("the beat holds no chord");
        };
        let key = ctx.spec.melody.key;
        let tones = [v.alto, v.tenor, v.bass];
        let members: Vec<u8> = chord.members().collect();
        let pitches = |part: Part, near: u8| -> Vec<Tone> {
            let (lo, hi) = part.range();
            (lo..=hi)
                .filter(|m| members.contains(&(m % 12)))
                .filter(|m| (i32::from(*m) - i32::from(near)).abs() <= 12)
                .filter_map(|m| nearest(m % 12, m, &tones, key))
                .collect()
        };
        let mut candidates = Vec::new();
        for alto in pitches(Part::Alto, v.alto.midi) {
            for tenor in pitches(Part::Tenor, v.tenor.midi) {
                for bass in pitches(Part::Bass, v.bass.midi) {
                    candidates.push(Voicing {
                        alto,
                        tenor,
                        bass,
                        ..*v
                    });
                }
            }
        }
        match first_clean(ctx.state, v, candidates, self.0) {
            Some(c) => RungAction::candidate(c),
            None => RungAction::give_up(format!(
                "no voicing of {chord} within an octave of each part keeps the rules"
            )),
        }
    }
}
