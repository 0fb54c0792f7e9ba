//! Patch and rewrite answers: new timing and octaves for events the verifier refused,
//! chosen against what has been accepted so far.
//!
//! The row order never changes here — every answer keeps its tag's form and
//! positions and sounds exactly the tagged pitch classes. What moves is time (inside
//! the room the voice has: after its last accepted note, before the candidate's own
//! end for a patch, before the section's end for a rewrite, on the bar's grid) and
//! octave (inside the register). Each option is scored by [`super::fit::Scorer`]; the
//! cheapest wins, with a little seeded noise by attempt so repeated asks differ.
//! Canon voices keep their onsets (moving one would break the canon) and may only
//! shorten and change octave.

use super::fit::Scorer;
use super::grid::{self, Clock};
use super::register::Register;
use crate::blueprint::Blueprint;
use crate::event::{Tag, ToneEvent};
use crate::row::PitchClass;
use crate::state::ToneState;
use cantus_framework::ProposerError;

/// Note values a repair may use, in ticks (sixteenth to dotted half, triplet eighths).
const VALUES: [i64; 9] = [12, 16, 24, 32, 36, 48, 72, 96, 144];
/// Cost per tick of moving an onset away from the proposal.
const MOVE: i64 = 3;
/// Cost per tick of changing a length.
const STRETCH: i64 = 1;
/// Cost per semitone of moving a pitch away from the proposal.
const SHIFT: i64 = 4;
/// Extra cost of values shorter than an eighth (they sound fussy when not needed).
const FUSSY: i64 = 60;

/// The context of one patch or rewrite request.
pub(crate) struct Repairer<'a> {
    pub plan: &'a Blueprint,
    pub section: &'a crate::blueprint::SectionPlan,
    pub state: &'a ToneState,
    pub clock: Clock,
    pub rng: fastrand::Rng,
    pub attempt: u32,
}

/// Time room for one event: earliest onset, latest end, and whether the onset is fixed.
#[derive(Clone, Copy, Debug)]
struct Room {
    lo: i64,
    hi: i64,
    fixed_onset: Option<i64>,
    max_duration: Option<i64>,
}

impl Repairer<'_> {
    fn reg(&self, voice: usize) -> Result<Register, ProposerError> {
        self.plan
            .limits
            .voices
            .get(voice)
            .map(Register::of)
            .ok_or_else(|| ProposerError::BadOutput(format!("voice {} does not exist", voice + 1)))
    }

    /// The pitch classes a tag names, in row order.
    fn tag_pcs(&self, tag: Tag) -> Result<Vec<PitchClass>, ProposerError> {
        let range = usize::from(tag.start)..usize::from(tag.start) + usize::from(tag.len);
        self.plan
            .table
            .pcs(tag.form)
            .get(range)
            .filter(|s| !s.is_empty())
            .map(<[PitchClass]>::to_vec)
            .ok_or_else(|| {
                ProposerError::BadOutput(format!(
                    "the tag {tag} names positions past the row's end"
                ))
            })
    }

    /// Whether the voice takes part in a canon (its onsets must stay put).
    fn in_canon(&self, voice: usize) -> bool {
        self.plan
            .canons
            .iter()
            .any(|c| c.leader == voice || c.follower == voice)
    }

    /// The earliest tick the voice may sound again.
    fn voice_free_from(&self, voice: usize) -> i64 {
        let last = self
            .state
            .voices
            .get(voice)
            .map(|l| l.last_end())
            .unwrap_or_default();
        grid::ceil_ticks(last).unwrap_or(0).max(self.clock.start)
    }

    /// The voice's last accepted pitch.
    fn prev_pitch(&self, voice: usize) -> Option<u8> {
        self.state
            .voices
            .get(voice)?
            .last()?
            .pitches
            .first()
            .copied()
    }

    /// Onset and duration options inside `room`, on the bar grids.
    fn timings(&self, room: Room) -> Vec<(i64, i64)> {
        let onsets: Vec<i64> = match room.fixed_onset {
            Some(t) => vec![t],
            None => (room.lo..room.hi)
                .filter(|&t| {
                    let rel = t - self.clock.start;
                    let unit = self.clock.unit(t);
                    rel % unit == 0 && (!self.clock.is_triplet(t) || rel % 16 == 0 || rel % 24 == 0)
                })
                .collect(),
        };
        let mut out = Vec::new();
        for t in onsets {
            for d in VALUES {
                let end = t + d;
                if end <= room.hi
                    && room.max_duration.is_none_or(|m| d <= m)
                    && self.clock.fits(t, end)
                {
                    out.push((t, d));
                }
            }
        }
        out
    }

    /// Voicings of `pcs` in the register: every octave of the first, the others
    /// within a tenth-and-a-bit of it; ascending.
    fn voicings(&self, reg: Register, pcs: &[PitchClass]) -> Vec<Vec<u8>> {
        let mut out: Vec<Vec<u8>> = vec![Vec::new()];
        for &pc in pcs {
            let mut next = Vec::new();
            for partial in &out {
                for m in reg.octaves_of(pc) {
                    let near = partial
                        .first()
                        .is_none_or(|&a| (i32::from(m) - i32::from(a)).abs() <= 16);
                    if near {
                        let mut v = partial.clone();
                        v.push(m);
                        next.push(v);
                    }
                }
            }
            out = next;
        }
        for v in &mut out {
            v.sort_unstable();
        }
        out
    }

    /// The cheapest placement of `tag` in `room`, measured against the state;
    /// `like` is the event proposed before (moves away from it cost a little).
    fn best(
        &mut self,
        like: &ToneEvent,
        tag: Tag,
        room: Room,
        prev: Option<u8>,
    ) -> Result<Option<(ToneEvent, i64)>, ProposerError> {
        let voice = like.voice;
        let reg = self.reg(voice)?;
        let pcs = self.tag_pcs(tag)?;
        let voicings = self.voicings(reg, &pcs);
        let orig_on = grid::floor_ticks(like.onset).unwrap_or(room.lo);
        let orig_dur = grid::floor_ticks(like.duration).unwrap_or(0);
        let mut timings = self.timings(room);
        // Nearest the proposal first, so the bound below prunes early.
        timings.sort_by_key(|&(t, d)| MOVE * (t - orig_on).abs() + STRETCH * (d - orig_dur).abs());
        let scorer = Scorer {
            plan: self.plan,
            state: self.state,
        };
        let noise = i64::from(self.attempt) * 150;
        let mut best: Option<(ToneEvent, i64)> = None;
        for &(t, d) in &timings {
            for pitches in &voicings {
                let e = ToneEvent {
                    voice,
                    onset: grid::to_time(t),
                    duration: grid::to_time(d),
                    pitches: pitches.clone(),
                    tag,
                };
                let shift: i64 = pitches
                    .iter()
                    .zip(&like.pitches)
                    .map(|(&a, &b)| (i64::from(a) - i64::from(b)).abs())
                    .sum();
                let soft = Scorer::leap(prev, &e)
                    + MOVE * (t - orig_on).abs()
                    + STRETCH * (d - orig_dur).abs()
                    + SHIFT * shift
                    + if d < 24 { FUSSY } else { 0 };
                // Every other term is non-negative: skip what cannot win.
                if best.as_ref().is_some_and(|(_, c)| soft >= *c) {
                    continue;
                }
                let cost = soft
                    + scorer.hard(&e)
                    + if noise > 0 {
                        self.rng.i64(0..=noise)
                    } else {
                        0
                    };
                if best.as_ref().is_none_or(|(_, c)| cost < *c) {
                    best = Some((e, cost));
                }
            }
        }
        Ok(best)
    }

    /// One event replacing `candidate`, same tag, new timing and/or octaves.
    pub fn patch(&mut self, candidate: &ToneEvent) -> Result<Vec<ToneEvent>, ProposerError> {
        let room = self.room_for(candidate, candidate_end(candidate, &self.clock));
        let prev = self.prev_pitch(candidate.voice);
        Ok(self
            .best(candidate, candidate.tag, room, prev)?
            .map(|(e, _)| vec![e])
            .unwrap_or_default())
    }

    /// The room an event of this voice has, ending by `hi`.
    fn room_for(&self, e: &ToneEvent, hi: i64) -> Room {
        let lo = self.voice_free_from(e.voice);
        if self.in_canon(e.voice) {
            let onset = grid::floor_ticks(e.onset).unwrap_or(lo);
            return Room {
                lo: onset,
                hi: self.clock.end,
                fixed_onset: Some(onset),
                max_duration: grid::floor_ticks(e.duration),
            };
        }
        let dur = grid::floor_ticks(e.duration).unwrap_or(0);
        Room {
            lo,
            hi: hi.max(lo + dur).min(self.clock.end),
            fixed_onset: None,
            max_duration: None,
        }
    }

    /// The candidate and the rest of its voice's segment, re-timed and re-voiced
    /// one after another (a dyad where merging two neighbours fits better), then the
    /// other voices' pending events unchanged and in order.
    pub fn rewrite(
        &mut self,
        candidate: &ToneEvent,
        pending: &[ToneEvent],
    ) -> Result<Vec<ToneEvent>, ProposerError> {
        let voice = candidate.voice;
        let segment: Vec<&ToneEvent> = std::iter::once(candidate)
            .chain(pending.iter().filter(|e| e.voice == voice))
            .collect();
        let others = pending.iter().filter(|e| e.voice != voice).cloned();
        let mut variants = vec![segment.iter().map(|e| (*e, e.tag)).collect::<Vec<_>>()];
        if let Some(merged) = merge_first(&segment, self.plan.limits.max_chord) {
            variants.push(merged);
        }
        let mut best: Option<(Vec<ToneEvent>, i64)> = None;
        for variant in variants {
            let Some((events, cost)) = self.lay_out(&variant)? else {
                continue;
            };
            if best.as_ref().is_none_or(|(_, c)| cost < *c) {
                best = Some((events, cost));
            }
        }
        let mut out = best.map(|(e, _)| e).unwrap_or_default();
        let fixed: Vec<&ToneEvent> = self
            .state
            .voices
            .iter()
            .flat_map(|l| l.overlapping(self.section.start, self.section.end))
            .chain(pending.iter().filter(|e| e.voice != voice))
            .collect();
        super::section::cover_silent_bars_around(&mut out, &fixed, self.section);
        out.extend(others);
        Ok(out)
    }

    /// Places a segment greedily, each event after the previous one, leaving room
    /// for those still to come; the events and their total cost, or `None` when a
    /// merged chord finds no room.
    fn lay_out(
        &mut self,
        segment: &[(&ToneEvent, Tag)],
    ) -> Result<Option<(Vec<ToneEvent>, i64)>, ProposerError> {
        let mut out = Vec::with_capacity(segment.len());
        let mut total = 0;
        let Some((first, _)) = segment.first() else {
            return Ok(Some((out, 0)));
        };
        let mut cursor = self.voice_free_from(first.voice);
        let mut prev = self.prev_pitch(first.voice);
        for (i, &(like, tag)) in segment.iter().enumerate() {
            let after = i64::try_from(segment.len() - i - 1).unwrap_or(0);
            let canon = self.in_canon(like.voice);
            let mut room = self.room_for(like, self.clock.end);
            if !canon {
                // From the end of the previous event to a bar past where this one was.
                let was = grid::ceil_ticks(like.end()).unwrap_or(cursor);
                room.lo = cursor;
                room.hi = (self.clock.end - after * 24).min(was.max(cursor) + self.clock.bar);
            }
            let placed = self.best(like, tag, room, prev)?;
            let (e, cost) = match placed {
                Some(found) => found,
                // No room: a merged chord is no option; a plain event stays as it was.
                None if tag != like.tag => return Ok(None),
                None => (
                    (*like).clone(),
                    Scorer {
                        plan: self.plan,
                        state: self.state,
                    }
                    .hard(like),
                ),
            };
            cursor = cursor.max(grid::ceil_ticks(e.end()).unwrap_or(cursor));
            prev = e.pitches.first().copied();
            total += cost;
            out.push(e);
        }
        Ok(Some((out, total)))
    }
}

/// The candidate's end in ticks (its patch may not run past it).
fn candidate_end(e: &ToneEvent, clock: &Clock) -> i64 {
    grid::floor_ticks(e.end()).unwrap_or(clock.end)
}

/// The segment with its first two events merged into one chord, if their positions
/// are consecutive and the chord fits `max_chord`.
fn merge_first<'e>(segment: &[&'e ToneEvent], max_chord: u8) -> Option<Vec<(&'e ToneEvent, Tag)>> {
    let (a, b) = (segment.first()?, segment.get(1)?);
    let (a_end, b_start) = (
        u16::from(a.tag.start) + u16::from(a.tag.len),
        u16::from(b.tag.start),
    );
    let fits = a.tag.form == b.tag.form
        && a_end == b_start
        && u16::from(a.tag.len) + u16::from(b.tag.len) <= u16::from(max_chord);
    if !fits {
        return None;
    }
    let merged = Tag {
        len: a.tag.len + b.tag.len,
        ..a.tag
    };
    let mut out = vec![(*a, merged)];
    out.extend(segment[2..].iter().map(|e| (*e, e.tag)));
    Some(out)
}
