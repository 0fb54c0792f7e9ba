//! Section answers: every voice's statement of its scheduled form, planned voice by
//! voice and independently of the other voices.
//!
//! Independence is deliberate: the proposer is the "propose" of propose → verify →
//! repair, and a proposer that pre-avoided every clash would leave the repair ladder
//! nothing to show. Each voice groups its twelve order positions into events (mostly
//! single notes, a minority of dyads or chords), draws a rhythm for them from the
//! palette ([`super::rhythm`]) and octaves from its register ([`super::register`]).
//! A canon follower is derived from its leader ([`super::canon`]).

use super::canon;
use super::grid::{self, Clock};
use super::register::{Contour, Register, voice_chord};
use super::rhythm::{Slot, Style, even_rhythm, line_rhythm};
use crate::blueprint::{Blueprint, SectionPlan};
use crate::event::{Tag, ToneEvent};
use cantus_framework::ProposerError;
use cantus_music::Time;

/// Where one voice stands when its section begins.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VoiceStart {
    /// Whether the voice still has to state this section's form.
    pub active: bool,
    /// First order position still to sound (0 at a fresh statement).
    pub position: u8,
    /// No onset before this (the end of the voice's last note).
    pub not_before: Time,
    /// The voice's last pitch, for a smooth join.
    pub prev: Option<u8>,
}

impl VoiceStart {
    /// A voice at the start of its statement with nothing sounding.
    pub fn fresh(prev: Option<u8>) -> VoiceStart {
        VoiceStart {
            active: true,
            position: 0,
            not_before: Time::default(),
            prev,
        }
    }
}

/// What one section answer is drawn from.
pub(crate) struct SectionJob<'a> {
    pub plan: &'a Blueprint,
    pub section: &'a SectionPlan,
    pub seed: u64,
    /// Varies the answer between replans, rounds and `Whole` requests.
    pub salt: u64,
    pub style: Style,
}

impl SectionJob<'_> {
    /// The events of every active voice, voice-major, each voice in row order.
    pub fn compose(&self, starts: &[VoiceStart]) -> Result<Vec<ToneEvent>, ProposerError> {
        let clock = Clock::new(self.plan, self.section, self.seed)?;
        let voices = self.section.forms.len().min(self.plan.limits.voices.len());
        let mut lines: Vec<Vec<ToneEvent>> = vec![Vec::new(); voices];
        for v in 0..voices {
            let Some(start) = starts.get(v).copied().filter(|s| s.active) else {
                continue;
            };
            let followed = self.plan.canon_following(v).and_then(|c| {
                let leader = lines.get(c.leader).filter(|l| !l.is_empty())?;
                self.follower_line(c, leader, start.position)
            });
            lines[v] = match followed {
                Some(line) => line,
                None => self.free_line(&clock, v, start)?,
            };
        }
        cover_silent_bars(&mut lines, self.section);
        Ok(lines.into_iter().flatten().collect())
    }

    fn voice_name(&self, v: usize) -> String {
        self.plan
            .limits
            .voices
            .get(v)
            .map_or_else(|| format!("voice {}", v + 1), |s| s.name.clone())
    }

    /// A follower's line: its leader's, shifted and mapped, from `position` on.
    fn follower_line(
        &self,
        c: &crate::blueprint::CanonPlan,
        leader: &[ToneEvent],
        position: u8,
    ) -> Option<Vec<ToneEvent>> {
        canon::follower_line(self.plan, self.section, c, leader, position)
    }

    /// A voice's own line: positions grouped into events, a rhythm, octaves.
    fn free_line(
        &self,
        clock: &Clock,
        v: usize,
        start: VoiceStart,
    ) -> Result<Vec<ToneEvent>, ProposerError> {
        let name = self.voice_name(v);
        let section = self.section;
        let form = section.forms[v];
        let pcs = self.plan.table.pcs(form);
        let reg = self
            .plan
            .limits
            .voices
            .get(v)
            .map(Register::of)
            .ok_or_else(|| ProposerError::BadOutput(format!("{name} has no register")))?;
        let tail = canon::tail(&self.plan.canons, v);
        let late = |t: Time| {
            ProposerError::BadOutput(format!("cannot count time {t} in {name}'s section"))
        };
        let from = grid::ceil_ticks(start.not_before.max(section.start))
            .ok_or_else(|| late(start.not_before))?;
        let to = grid::floor_ticks(section.end - tail).ok_or_else(|| late(section.end - tail))?;
        let mut rng = super::rng_for(
            self.seed,
            &[0x5EC7, section.index as u64, self.salt, v as u64],
        );
        let max_chord = self.plan.limits.max_chord.max(1);
        let mut groups =
            group_positions(&mut rng, start.position, max_chord, self.style.chord_rate);
        let slots = loop {
            let tries = (0..4)
                .find_map(|_| line_rhythm(&mut rng, clock, from, to, groups.len(), self.style));
            if let Some(slots) = tries {
                break slots;
            }
            if !merge_one(&mut groups, max_chord) {
                break even_rhythm(clock, from, to, groups.len()).ok_or_else(|| {
                    ProposerError::BadOutput(format!(
                        "{name} cannot fit {} events of its row into section {} ({} to {})",
                        groups.len(),
                        section.index + 1,
                        grid::to_time(from),
                        grid::to_time(to)
                    ))
                })?;
            }
        };
        let mut contour = Contour::after(start.prev);
        let mut line = Vec::with_capacity(groups.len());
        for (&(first, len), slot) in groups.iter().zip(&slots) {
            let chord = pcs
                .get(usize::from(first)..usize::from(first + len))
                .unwrap_or(&[]);
            let no_place = || {
                ProposerError::BadOutput(format!(
                    "{name}'s register has no place for a pitch class of {form}"
                ))
            };
            let (&lead, others) = chord.split_first().ok_or_else(no_place)?;
            let anchor = contour.next(&mut rng, reg, lead).ok_or_else(no_place)?;
            let pitches = voice_chord(&mut rng, reg, anchor, others).ok_or_else(no_place)?;
            line.push(event(
                v,
                *slot,
                pitches,
                Tag {
                    form,
                    start: first,
                    len,
                },
            ));
        }
        Ok(line)
    }
}

fn event(voice: usize, slot: Slot, pitches: Vec<u8>, tag: Tag) -> ToneEvent {
    ToneEvent {
        voice,
        onset: grid::to_time(slot.onset),
        duration: grid::to_time(slot.duration),
        pitches,
        tag,
    }
}

/// Groups order positions `from..12` into events `(start, len)`: single notes, and
/// at rate `chord_rate` a dyad (rarely a larger chord) up to `max_chord`.
pub(crate) fn group_positions(
    rng: &mut fastrand::Rng,
    from: u8,
    max_chord: u8,
    chord_rate: f64,
) -> Vec<(u8, u8)> {
    let mut out = Vec::new();
    let mut p = from.min(12);
    while p < 12 {
        let room = (12 - p).min(max_chord.max(1));
        let len = if room >= 2 && rng.f64() < chord_rate {
            if room >= 3 && rng.f64() < 0.2 { 3 } else { 2 }
        } else {
            1
        };
        out.push((p, len));
        p += len;
    }
    out
}

/// Makes one event fewer: merges the first pair of neighbouring events whose sizes
/// add up to at most `max_chord`, or else re-packs the positions into one group fewer
/// with sizes as even as possible. `false` if the events are already as few as
/// `max_chord` allows.
pub(crate) fn merge_one(groups: &mut Vec<(u8, u8)>, max_chord: u8) -> bool {
    let pair = (0..groups.len().saturating_sub(1))
        .filter(|&i| groups[i].1 + groups[i + 1].1 <= max_chord)
        .min_by_key(|&i| groups[i].1 + groups[i + 1].1);
    if let Some(i) = pair {
        groups[i].1 += groups[i + 1].1;
        groups.remove(i + 1);
        return true;
    }
    let Some(&(from, _)) = groups.first() else {
        return false;
    };
    let total = usize::from(12u8.saturating_sub(from));
    let count = groups.len().saturating_sub(1);
    if count == 0 || count * usize::from(max_chord.max(1)) < total {
        return false;
    }
    let mut p = from;
    *groups = (0..count)
        .map(|i| {
            let len = u8::try_from(total / count + usize::from(i < total % count)).unwrap_or(1);
            let g = (p, len);
            p += len;
            g
        })
        .collect();
    true
}

/// A whole piece, state-unaware: every section from the start of its statements,
/// each voice joining smoothly onto its own previous section.
pub(crate) fn compose_whole(
    plan: &Blueprint,
    seed: u64,
    salt: u64,
    style: Style,
) -> Result<Vec<ToneEvent>, ProposerError> {
    let voices = plan.limits.voices.len();
    let mut prev: Vec<Option<u8>> = vec![None; voices];
    let mut events = Vec::new();
    for section in &plan.sections {
        let starts: Vec<VoiceStart> = prev.iter().map(|&p| VoiceStart::fresh(p)).collect();
        let job = SectionJob {
            plan,
            section,
            seed,
            salt,
            style,
        };
        let answer = job.compose(&starts)?;
        for e in &answer {
            if let Some(slot) = prev.get_mut(e.voice) {
                *slot = e.pitches.first().copied();
            }
        }
        events.extend(answer);
    }
    Ok(events)
}

/// The release gate refuses a bar in which nothing sounds, and independent voices
/// with rests can leave one. For each silent bar of the section, the first note after
/// it (in whichever voice enters first) is moved back to the barline, keeping its end;
/// with nothing after it, the last note before it is held through the bar. Pitches,
/// tags and the order of each voice are unchanged.
pub(crate) fn cover_silent_bars(lines: &mut [Vec<ToneEvent>], section: &SectionPlan) {
    for_each_silent_bar(section, |start, end| {
        let sounding = lines
            .iter()
            .flatten()
            .any(|e| e.onset < end && e.end() > start);
        if !sounding {
            let mut movable: Vec<&mut ToneEvent> = lines.iter_mut().flatten().collect();
            cover(&mut movable, start, end, section.end);
        }
    });
}

/// [`cover_silent_bars`] for a segment rewrite: only `movable` (the rewritten
/// voice's events) may change; `fixed` is everything else sounding in the section.
pub(crate) fn cover_silent_bars_around(
    movable: &mut [ToneEvent],
    fixed: &[&ToneEvent],
    section: &SectionPlan,
) {
    for_each_silent_bar(section, |start, end| {
        let sounding = movable
            .iter()
            .chain(fixed.iter().copied())
            .any(|e| e.onset < end && e.end() > start);
        if !sounding {
            let mut refs: Vec<&mut ToneEvent> = movable.iter_mut().collect();
            cover(&mut refs, start, end, section.end);
        }
    });
}

fn for_each_silent_bar(section: &SectionPlan, mut f: impl FnMut(Time, Time)) {
    let bar = section.bar_length();
    for b in 0..section.bars {
        let start = section.start + bar * Time::from_integer(i64::from(b));
        f(start, start + bar);
    }
}

/// Moves the first event after the silent bar `[start, end)` back to `start`, or
/// holds the last event before it through the bar.
fn cover(events: &mut [&mut ToneEvent], start: Time, end: Time, section_end: Time) {
    if let Some(e) = events
        .iter_mut()
        .filter(|e| e.onset >= end)
        .min_by_key(|e| e.onset)
    {
        let fixed_end = e.end();
        e.onset = start;
        e.duration = fixed_end - start;
        return;
    }
    if let Some(e) = events
        .iter_mut()
        .filter(|e| e.end() <= start)
        .max_by_key(|e| e.end())
    {
        e.duration = end.min(section_end) - e.onset;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_cover_the_remaining_positions_in_order() {
        let mut rng = fastrand::Rng::with_seed(9);
        for from in [0, 5, 11] {
            let groups = group_positions(&mut rng, from, 3, 0.5);
            let mut next = from;
            for (start, len) in &groups {
                assert_eq!(*start, next);
                assert!((1..=3).contains(len));
                next += len;
            }
            assert_eq!(next, 12);
        }
        let mut groups = vec![(6, 2), (8, 1), (9, 1), (10, 2)];
        assert!(merge_one(&mut groups, 2));
        assert_eq!(groups, vec![(6, 2), (8, 2), (10, 2)]);
        assert!(!merge_one(&mut groups, 2));
        let mut groups = vec![(7, 1), (8, 2), (10, 1), (11, 1)];
        assert!(merge_one(&mut groups, 2));
        assert_eq!(groups, vec![(7, 1), (8, 2), (10, 2)]);
        let mut groups = vec![(7, 1), (8, 2), (10, 2)];
        assert!(merge_one(&mut groups, 3));
        assert_eq!(groups, vec![(7, 3), (10, 2)]);
        let mut groups = vec![(0, 1), (1, 2), (3, 2), (5, 2), (7, 2), (9, 2), (11, 1)];
        assert!(merge_one(&mut groups, 2));
        assert_eq!(groups.len(), 6);
        assert!(groups.iter().all(|g| g.1 == 2) && groups[0].0 == 0);
    }
}
