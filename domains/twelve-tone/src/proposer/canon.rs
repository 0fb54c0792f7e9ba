//! Canons: deriving a follower's section from its leader's.
//!
//! The blueprint has already chosen the follower's form so that the leader's pitch
//! classes, mapped by the canon, ARE that form, position by position. So the follower
//! is the leader shifted by the delay, its pitch classes mapped, its tags relabelled
//! with its own form, and its octaves chosen in its own register so that each melodic
//! interval of the leader is kept (mirrored for an inversion canon) wherever the
//! register allows. A leader must finish early enough for every voice that follows
//! it, directly or down a chain, to finish inside the section: [`tail`] is that time.

use super::register::Register;
use crate::blueprint::{Blueprint, CanonPlan, PcMap, SectionPlan};
use crate::event::{Tag, ToneEvent};
use crate::row::RowForm;
use cantus_music::Time;

/// The time `voice` must leave free at the end of each section for the canons that
/// follow it (the longest chain of delays below it).
pub(crate) fn tail(canons: &[CanonPlan], voice: usize) -> Time {
    fn go(canons: &[CanonPlan], voice: usize, depth: usize) -> Time {
        if depth > canons.len() {
            return Time::default();
        }
        canons
            .iter()
            .filter(|c| c.leader == voice && c.follower != voice)
            .map(|c| c.delay + go(canons, c.follower, depth + 1))
            .max()
            .unwrap_or_default()
    }
    go(canons, voice, 0)
}

/// The follower's line in `section` from row position `position` on: its leader's
/// events `leader` (in order) shifted and mapped by canon `c`, in the follower's
/// form and register (the embedded proposer and the LLM proposer both derive
/// followers this way). `None` as for [`follow`].
pub(crate) fn follower_line(
    plan: &Blueprint,
    section: &SectionPlan,
    c: &CanonPlan,
    leader: &[ToneEvent],
    position: u8,
) -> Option<Vec<ToneEvent>> {
    let lead_form = *section.forms.get(c.leader)?;
    let form = *section.forms.get(c.follower)?;
    let map = c.map.in_section(plan.table.pcs(lead_form)[0]);
    let lead_reg = Register::of(plan.limits.voices.get(c.leader)?);
    let reg = Register::of(plan.limits.voices.get(c.follower)?);
    let line = follow(leader, c, map, form, lead_reg, reg)?;
    Some(
        line.into_iter()
            .filter(|e| e.tag.start >= position)
            .collect(),
    )
}

/// The follower's events for a section whose leader events are `leader` (in order).
/// `map` is the canon's pitch-class map in this section, `form` the follower's form;
/// `prev` the follower's last pitch before the section, if any. `None` when a mapped
/// pitch class has no place in the follower's register.
pub(crate) fn follow(
    leader: &[ToneEvent],
    canon: &CanonPlan,
    map: PcMap,
    form: RowForm,
    leader_reg: Register,
    reg: Register,
) -> Option<Vec<ToneEvent>> {
    let sign = match map {
        PcMap::Transpose(_) => 1,
        PcMap::Invert(_) => -1,
    };
    let mut out = Vec::with_capacity(leader.len());
    // (leader anchor, follower anchor) of the previous event.
    let mut prev: Option<(i32, i32)> = None;
    for e in leader {
        let &lead_anchor = e.pitches.first()?;
        let lead_anchor = i32::from(lead_anchor);
        let target = match prev {
            None => lead_anchor + reg.centre() - leader_reg.centre(),
            Some((l, f)) => f + sign * (lead_anchor - l),
        };
        let anchor_pc = map.apply(u8::try_from(lead_anchor.rem_euclid(12)).ok()?);
        let anchor = i32::from(reg.nearest(anchor_pc, target)?);
        let mut pitches = Vec::with_capacity(e.pitches.len());
        for &p in &e.pitches {
            let pc = map.apply(p % 12);
            let want = anchor + sign * (i32::from(p) - lead_anchor);
            pitches.push(reg.nearest(pc, want)?);
        }
        pitches.sort_unstable();
        pitches.dedup();
        prev = Some((lead_anchor, anchor));
        out.push(ToneEvent {
            voice: canon.follower,
            onset: e.onset + canon.delay,
            duration: e.duration,
            pitches,
            tag: Tag { form, ..e.tag },
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blueprint::CanonMap;

    fn canon(leader: usize, follower: usize, delay: i64) -> CanonPlan {
        CanonPlan {
            leader,
            follower,
            delay: Time::from_integer(delay),
            map: CanonMap::Transpose(0),
        }
    }

    #[test]
    fn tails_add_up_down_a_chain_and_take_the_longest_branch() {
        let canons = [canon(0, 1, 3), canon(1, 2, 4), canon(0, 3, 5)];
        assert_eq!(tail(&canons, 0), Time::from_integer(7));
        assert_eq!(tail(&canons, 1), Time::from_integer(4));
        assert_eq!(tail(&canons, 2), Time::default());
    }
}
