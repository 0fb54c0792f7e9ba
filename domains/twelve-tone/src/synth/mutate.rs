//! Mutations: copies of a score broken in one known way, with the place the gate
//! should report. They take any [`Score`] whose voices state complete, unbroken
//! statements (a synthetic piece, or a piece the engine released), so the same
//! helpers test the gate on both.

use crate::gate::Rule;
use cantus_music::{Event, Pitch, Score, Time};

/// The ways [`mutate`] breaks a piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MutationKind {
    /// One pitch changed to a pitch class another voice sounds at the same time
    /// (`TT-COLLISION` at the later-starting of the two; the changed voice's row
    /// breaks too).
    Collision,
    /// A note held over a rest into another voice's note of the same pitch class
    /// (`TT-COLLISION` at that note; the rows stay intact).
    SustainedCollision,
    /// An event split in two halves with the same pitches and tag: a tagged
    /// immediate repetition (`TT-REPEAT` at the second half in strict mode; let
    /// through by the relaxed gate).
    ImmediateRepetition,
    /// A note changed to a pitch class sounded earlier in its statement, not by the
    /// event just before (`TT-REPEAT`, and `TT-ROW`, at that note).
    PrematureRepetition,
    /// The pitch classes of two notes of one statement swapped, the first at order
    /// position 3 or later (`TT-ROW` at the first, unless another form happens to
    /// share the changed opening, in which case later).
    SwapPitchClasses,
    /// A whole statement transposed: still a form of the row, but not the planned one
    /// (`TT-SCHEDULE` with a plan; pitch classes of other voices may now collide).
    TransposeStatement,
    /// The second half of a statement transposed (`TT-ROW` and usually `TT-REPEAT`).
    TransposeTail,
    /// A pitch moved by octaves above its voice's register (`TT-REGISTER`).
    OutOfRegister,
    /// One note removed (the voice's statements fall out of step: `TT-ROW` or
    /// `TT-ROW-COMPLETE` from there on).
    DropNote,
    /// A note held past the voice's next onset (`TT-TEXTURE` at that onset).
    OverlapWithinVoice,
    /// The last note of a statement and the first of the next merged into one chord
    /// (`TT-ROW` at the chord: a chord may not straddle two statements).
    StraddlingChord,
}

impl MutationKind {
    /// Every kind.
    pub const ALL: [MutationKind; 11] = [
        MutationKind::Collision,
        MutationKind::SustainedCollision,
        MutationKind::ImmediateRepetition,
        MutationKind::PrematureRepetition,
        MutationKind::SwapPitchClasses,
        MutationKind::TransposeStatement,
        MutationKind::TransposeTail,
        MutationKind::OutOfRegister,
        MutationKind::DropNote,
        MutationKind::OverlapWithinVoice,
        MutationKind::StraddlingChord,
    ];
}

/// A mutated copy and where the gate should see the mutation.
#[derive(Clone, Debug, PartialEq)]
pub struct Mutation {
    pub kind: MutationKind,
    pub score: Score,
    /// The rule that must report it.
    pub rule: Rule,
    /// Voice index and onset of the expected violation (for `DropNote`: the event
    /// after the dropped one; the row may break later).
    pub voice: usize,
    pub onset: Time,
    /// What was changed, in words.
    pub note: String,
}

/// Where an event sits in its voice's statements.
#[derive(Clone, Copy, Debug)]
struct Place {
    index: usize,
    statement: usize,
    /// First order position and count of positions.
    start: u8,
    len: u8,
}

/// Statement positions of each event, counting distinct pitch classes.
fn places(events: &[Event]) -> Vec<Place> {
    let mut out = Vec::with_capacity(events.len());
    let (mut statement, mut pos) = (0usize, 0u8);
    for (index, e) in events.iter().enumerate() {
        let mask = e.pitches.iter().fold(0u16, |m, p| m | 1 << (p.midi % 12));
        let len = mask.count_ones() as u8;
        if pos + len > 12 {
            statement += 1;
            pos = 0;
        }
        out.push(Place {
            index,
            statement,
            start: pos,
            len,
        });
        pos += len;
        if pos >= 12 {
            statement += 1;
            pos = 0;
        }
    }
    out
}

/// The pitch of class `pc` nearest `near` (ties: lower), inside `register` if it
/// holds one, else within 0..=127.
fn nearest(near: u8, pc: u8, (low, high): (u8, u8)) -> u8 {
    let base = i32::from(near) - i32::from(near % 12) + i32::from(pc % 12);
    let candidates = [base - 24, base - 12, base, base + 12, base + 24];
    let pick = |lo: i32, hi: i32| {
        candidates
            .into_iter()
            .filter(|p| (lo..=hi).contains(p))
            .min_by_key(|&p| ((p - i32::from(near)).abs(), p))
            .and_then(|p| u8::try_from(p).ok())
    };
    pick(i32::from(low), i32::from(high))
        .or_else(|| pick(0, 127))
        .unwrap_or(near)
}

fn register(registers: &[(u8, u8)], voice: usize) -> (u8, u8) {
    registers.get(voice).copied().unwrap_or((0, 127))
}

fn set_single_pitch(e: &mut Event, midi: u8) {
    e.pitches = vec![Pitch::new(midi)];
}

fn pc(e: &Event) -> u8 {
    e.pitches.first().map_or(0, |p| p.midi % 12)
}

/// Breaks a copy of `score` in the way `kind` says, choosing where with `seed`.
/// `registers` are the voices' registers (for [`MutationKind::OutOfRegister`];
/// missing voices count as 0..=127). `None` if the piece offers no place for it.
pub fn mutate(
    score: &Score,
    kind: MutationKind,
    registers: &[(u8, u8)],
    seed: u64,
) -> Option<Mutation> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut voice_order: Vec<usize> = (0..score.voices.len()).collect();
    rng.shuffle(&mut voice_order);
    for v in voice_order {
        let found = match kind {
            MutationKind::Collision => collision(score, v, register(registers, v), &mut rng),
            MutationKind::SustainedCollision => sustained_collision(score, v, &mut rng),
            MutationKind::ImmediateRepetition => immediate_repetition(score, v, &mut rng),
            MutationKind::PrematureRepetition => {
                premature_repetition(score, v, register(registers, v), &mut rng)
            }
            MutationKind::SwapPitchClasses => swap(score, v, register(registers, v), &mut rng),
            MutationKind::TransposeStatement => {
                transpose(score, v, register(registers, v), &mut rng, false)
            }
            MutationKind::TransposeTail => {
                transpose(score, v, register(registers, v), &mut rng, true)
            }
            MutationKind::OutOfRegister => out_of_register(score, v, registers, &mut rng),
            MutationKind::DropNote => drop_note(score, v, &mut rng),
            MutationKind::OverlapWithinVoice => overlap(score, v, &mut rng),
            MutationKind::StraddlingChord => straddle(score, v, &mut rng),
        };
        if let Some((score, rule, voice, onset, note)) = found {
            return Some(Mutation {
                kind,
                score,
                rule,
                voice,
                onset,
                note,
            });
        }
    }
    None
}

type Found = Option<(Score, Rule, usize, Time, String)>;

/// Indices `0..n` starting at a random one, wrapping.
fn rotated(n: usize, rng: &mut fastrand::Rng) -> impl Iterator<Item = usize> + use<> {
    let first = if n == 0 { 0 } else { rng.usize(..n) };
    (0..n).map(move |i| (first + i) % n)
}

fn collision(score: &Score, v: usize, reg: (u8, u8), rng: &mut fastrand::Rng) -> Found {
    let events = &score.voices[v].events;
    for k in rotated(events.len(), rng) {
        let b = &events[k];
        if b.pitches.len() != 1 {
            continue;
        }
        if let Some((u, e)) = score.overlapping_others(v, b).next() {
            let target = pc(e);
            let mut out = score.clone();
            let near = b.pitches[0].midi;
            set_single_pitch(&mut out.voices[v].events[k], nearest(near, target, reg));
            // Reported at the later-starting event; together: at the higher voice.
            let (voice, onset) = if e.onset > b.onset || (e.onset == b.onset && u > v) {
                (u, e.onset)
            } else {
                (v, b.onset)
            };
            let note =
                format!("voice {v} event {k} set to pitch class {target}, sounding with voice {u}");
            return Some((out, Rule::Collision, voice, onset, note));
        }
    }
    None
}

fn sustained_collision(score: &Score, v: usize, rng: &mut fastrand::Rng) -> Found {
    let events = &score.voices[v].events;
    for k in rotated(events.len(), rng) {
        let a = &events[k];
        let free_until = events.get(k + 1).map(|n| n.onset);
        let a_mask = a.pitches.iter().fold(0u16, |m, p| m | 1 << (p.midi % 12));
        // The first event of another voice, starting in the rest after `a`, that shares a pitch class.
        let mut best: Option<(usize, &Event)> = None;
        for (u, other) in score.voices.iter().enumerate() {
            if u == v {
                continue;
            }
            for e in &other.events {
                let shares = e.pitches.iter().any(|p| a_mask & 1 << (p.midi % 12) != 0);
                let in_rest = e.onset > a.end() && free_until.is_none_or(|f| e.onset < f);
                if shares && in_rest && best.is_none_or(|(_, b)| e.onset < b.onset) {
                    best = Some((u, e));
                }
            }
        }
        if let Some((u, e)) = best {
            let end = free_until.map_or(e.end(), |f| f.min(e.end()));
            let mut out = score.clone();
            out.voices[v].events[k].duration = end - a.onset;
            let note = format!("voice {v} event {k} held until {end} into voice {u}'s note");
            return Some((out, Rule::Collision, u, e.onset, note));
        }
    }
    None
}

fn immediate_repetition(score: &Score, v: usize, rng: &mut fastrand::Rng) -> Found {
    let events = &score.voices[v].events;
    let places = places(events);
    for k in rotated(events.len(), rng) {
        let e = &events[k];
        let p = places[k];
        if p.start + p.len >= 12 {
            continue;
        }
        let half = e.duration / Time::from_integer(2);
        let mut out = score.clone();
        let mut second = e.clone();
        second.onset = e.onset + half;
        second.duration = half;
        out.voices[v].events[k].duration = half;
        out.voices[v].events.insert(k + 1, second);
        let note = format!("voice {v} event {k} split into a repeated pair");
        return Some((out, Rule::Repeat, v, e.onset + half, note));
    }
    None
}

fn premature_repetition(score: &Score, v: usize, reg: (u8, u8), rng: &mut fastrand::Rng) -> Found {
    let events = &score.voices[v].events;
    let places = places(events);
    for k in rotated(events.len(), rng) {
        let p = places[k];
        if events[k].pitches.len() != 1 || k < 2 || p.start < 2 {
            continue;
        }
        // An earlier event of the same statement, not the one just before.
        let earlier: Vec<usize> = (0..k - 1)
            .filter(|&j| places[j].statement == p.statement)
            .collect();
        let Some(&j) = earlier.get(rng.usize(..earlier.len().max(1))) else {
            continue;
        };
        let target = events[j]
            .pitches
            .get(rng.usize(..events[j].pitches.len().max(1)))?
            .midi
            % 12;
        let mut out = score.clone();
        let near = events[k].pitches[0].midi;
        set_single_pitch(&mut out.voices[v].events[k], nearest(near, target, reg));
        let note = format!(
            "voice {v} event {k} set to pitch class {target}, already sounded by event {j}"
        );
        return Some((out, Rule::Repeat, v, events[k].onset, note));
    }
    None
}

fn swap(score: &Score, v: usize, reg: (u8, u8), rng: &mut fastrand::Rng) -> Found {
    let events = &score.voices[v].events;
    let places = places(events);
    for k in rotated(events.len(), rng) {
        // From position 3 on, the opening already names the form: the row breaks here.
        if events[k].pitches.len() != 1 || places[k].start < 2 {
            continue;
        }
        let partner = (k + 1..events.len())
            .filter(|&j| places[j].statement == places[k].statement && events[j].pitches.len() == 1)
            .find(|&j| pc(&events[j]) != pc(&events[k]));
        let Some(j) = partner else {
            continue;
        };
        let mut out = score.clone();
        let (a, b) = (events[k].pitches[0].midi, events[j].pitches[0].midi);
        set_single_pitch(&mut out.voices[v].events[k], nearest(a, b % 12, reg));
        set_single_pitch(&mut out.voices[v].events[j], nearest(b, a % 12, reg));
        let note = format!("voice {v} events {k} and {j} swap pitch classes");
        return Some((out, Rule::Row, v, events[k].onset, note));
    }
    None
}

fn transpose(score: &Score, v: usize, reg: (u8, u8), rng: &mut fastrand::Rng, tail: bool) -> Found {
    let events = &score.voices[v].events;
    let places = places(events);
    let statements = places.last().map_or(0, |p| p.statement + 1);
    if statements == 0 {
        return None;
    }
    let s = rng.usize(..statements);
    let chosen: Vec<usize> = places
        .iter()
        .filter(|p| p.statement == s && (!tail || p.start >= 6))
        .map(|p| p.index)
        .collect();
    let first = *chosen.first()?;
    // Not onto the pitch classes of the event just before (that would read as a
    // repeated note rather than a wrong form).
    let set = |e: &Event, by: u8| {
        e.pitches
            .iter()
            .fold(0u16, |m, p| m | 1 << ((p.midi % 12 + by) % 12))
    };
    let before = first.checked_sub(1).map(|j| set(&events[j], 0));
    let mut steps: Vec<u8> = (1..12).collect();
    rng.shuffle(&mut steps);
    let by = steps
        .into_iter()
        .find(|&by| !tail || before != Some(set(&events[first], by)))?;
    let mut out = score.clone();
    for &k in &chosen {
        let e = &mut out.voices[v].events[k];
        for p in &mut e.pitches {
            p.midi = nearest(p.midi, (p.midi % 12 + by) % 12, reg);
            p.spelling = None;
        }
        e.normalise_pitches();
    }
    let (rule, what) = if tail {
        (Rule::Row, "the second half of")
    } else {
        (Rule::Schedule, "")
    };
    let note = format!("voice {v}: {what} statement {s} transposed by {by}");
    Some((out, rule, v, events[first].onset, note))
}

fn out_of_register(
    score: &Score,
    v: usize,
    registers: &[(u8, u8)],
    rng: &mut fastrand::Rng,
) -> Found {
    let events = &score.voices[v].events;
    let (_, high) = registers.get(v).copied().unwrap_or((0, 127));
    let k = rng.usize(..events.len().max(1));
    let e = events.get(k)?;
    let top = e.pitches.last()?.midi;
    let mut raised = u16::from(top);
    while raised <= u16::from(high) {
        raised += 12;
    }
    let raised = u8::try_from(raised).ok()?;
    let mut out = score.clone();
    let event = &mut out.voices[v].events[k];
    if let Some(p) = event.pitches.last_mut() {
        p.midi = raised;
        p.spelling = None;
    }
    event.normalise_pitches();
    let note = format!("voice {v} event {k}: MIDI {top} raised to {raised}, above {high}");
    Some((out, Rule::Register, v, e.onset, note))
}

fn drop_note(score: &Score, v: usize, rng: &mut fastrand::Rng) -> Found {
    let events = &score.voices[v].events;
    if events.len() < 2 {
        return None;
    }
    let k = rng.usize(..events.len() - 1);
    let mut out = score.clone();
    out.voices[v].events.remove(k);
    let note = format!("voice {v} event {k} removed");
    Some((out, Rule::Row, v, events[k + 1].onset, note))
}

fn overlap(score: &Score, v: usize, rng: &mut fastrand::Rng) -> Found {
    let events = &score.voices[v].events;
    if events.len() < 2 {
        return None;
    }
    let k = rng.usize(..events.len() - 1);
    let next = &events[k + 1];
    let mut out = score.clone();
    let e = &mut out.voices[v].events[k];
    e.duration = next.end() - e.onset;
    let note = format!("voice {v} event {k} held over event {}", k + 1);
    Some((out, Rule::Texture, v, next.onset, note))
}

fn straddle(score: &Score, v: usize, rng: &mut fastrand::Rng) -> Found {
    let events = &score.voices[v].events;
    let places = places(events);
    for k in rotated(events.len().saturating_sub(1), rng) {
        let (a, b) = (&events[k], &events[k + 1]);
        let ends_statement = places[k].start + places[k].len == 12;
        if !ends_statement || a.pitches.len() != 1 || b.pitches.len() != 1 || pc(a) == pc(b) {
            continue;
        }
        let mut out = score.clone();
        let chord = &mut out.voices[v].events[k];
        chord.pitches.push(b.pitches[0]);
        chord.normalise_pitches();
        out.voices[v].events.remove(k + 1);
        let note = format!(
            "voice {v} events {k} and {} merged into a chord across statements",
            k + 1
        );
        return Some((out, Rule::Row, v, a.onset, note));
    }
    None
}
