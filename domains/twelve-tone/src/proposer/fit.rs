//! How well a placed event fits the accepted material — the cost the patch and
//! rewrite answers minimise.
//!
//! The cost mirrors the online predicates so a patch clears what the verifier would
//! flag: a pitch class shared with an overlapping note of another voice, too many
//! pitches sounding at once, crossing another voice (worst when it pushes the running
//! crossed share over the spec's limit), or overlapping the voice's own previous note.
//! Softer terms keep the line singable (wide leaps cost) and the answer close to
//! what was proposed (moves and changes of length cost a little). Costs are integers,
//! so the choice is exact and reproducible.

use crate::blueprint::Blueprint;
use crate::event::ToneEvent;
use crate::state::{CrossingTally, ToneState};

/// Each pitch class shared with an overlapping note of another voice.
const COLLISION: i64 = 100_000;
/// Overlapping the voice's own accepted notes.
const OWN_OVERLAP: i64 = 100_000;
/// More pitches sounding at once than the texture allows.
const CROWDED: i64 = 50_000;
/// A crossing that takes the running crossed share over the limit.
const CROSSING_OVER: i64 = 50_000;
/// Any crossed time, per quarter note crossed.
const CROSSING: i64 = 2_000;
/// Per semitone of a melodic leap beyond a fifth.
const LEAP: i64 = 40;

/// Scores placements of one voice's events against a state.
pub(crate) struct Scorer<'a> {
    pub plan: &'a Blueprint,
    pub state: &'a ToneState,
}

impl Scorer<'_> {
    /// The hard part of the cost: what the verifier would refuse.
    pub fn hard(&self, e: &ToneEvent) -> i64 {
        let mut cost = 0;
        let mine = e.pc_set();
        for (u, line) in self.state.voices.iter().enumerate() {
            let overlapping = line.overlapping(e.onset, e.end());
            if u == e.voice {
                cost += OWN_OVERLAP * overlapping.count() as i64;
                continue;
            }
            for other in overlapping {
                cost += COLLISION * i64::from((mine & other.pc_set()).count_ones());
            }
        }
        let limits = &self.plan.limits;
        if e.pitches.len() > usize::from(limits.max_chord) {
            cost += CROWDED;
        }
        if crate::predicates::peak_sounding(self.state, e) > usize::from(limits.max_sounding) {
            cost += CROWDED;
        }
        let add = CrossingTally::contribution(&self.state.voices, e.voice, e);
        if add.crossed > cantus_music::Time::default() {
            let mut total = self.state.crossing;
            total.add(add);
            if total.share() > limits.max_crossing {
                cost += CROSSING_OVER;
            }
            cost += (add.crossed * cantus_music::Time::from_integer(CROSSING))
                .ceil()
                .to_integer();
        }
        cost
    }

    /// The melodic part: cost of leaping from `prev` to `e`'s first pitch.
    pub fn leap(prev: Option<u8>, e: &ToneEvent) -> i64 {
        match (prev, e.pitches.first()) {
            (Some(p), Some(&m)) => {
                let d = (i64::from(m) - i64::from(p)).abs();
                LEAP * (d - 7).max(0) + if d == 0 { 2 * LEAP } else { 0 }
            }
            _ => 0,
        }
    }
}
