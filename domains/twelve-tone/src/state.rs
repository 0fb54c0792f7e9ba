//! The online state of a twelve-tone run: accepted events per voice, each voice's row
//! cursor, and the running tally of voice crossing.
//!
//! The cursor is what keeps a voice in lockstep with the blueprint: statement `k` of a
//! voice is its form in section `k`, and `position` is the next order position to
//! sound. Accepting an event advances it by the positions the event realises; dropping
//! one advances it the same way (`Domain::skip`), so the events after a drop still
//! line up with the row.
//!
//! A drop need not stay a hole: the line keeps where it stood before its first drop
//! of the section ([`BeforeDrops`]), and `Domain::reopen` puts it back there once the
//! reply is settled, so the positions are owed again and a continue request asks
//! for them instead of the whole section being replanned. Events the voice accepted
//! after that drop sit at later row positions than the hole, so they are taken out
//! with it ([`ToneState::reopen`]) and asked for again in order: the row is stated
//! whole, in time order, or not at all.

use crate::blueprint::Blueprint;
use crate::event::ToneEvent;
use crate::row::RowForm;
use cantus_music::Time;

/// Where a voice is in its schedule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowCursor {
    /// Index of the statement being sounded (= section index).
    pub statement: usize,
    /// Next order position to sound, 0..=11.
    pub position: u8,
}

/// One voice's accepted material and cursor.
#[derive(Clone, Debug, Default)]
pub struct VoiceLine {
    /// Accepted events, sorted by onset.
    pub events: Vec<ToneEvent>,
    pub cursor: RowCursor,
    /// Pitch classes sounded so far in the current statement (bit `pc`).
    pub sounded: u16,
    /// Immediate repetitions accepted in the current statement.
    pub tremolos: u8,
    /// Immediate repetitions accepted in the whole piece.
    pub total_tremolos: u32,
    /// Where the line stood before its first drop of the section.
    pub before_drops: Option<BeforeDrops>,
}

/// A voice's line before its first drop of the section, and how many drops followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BeforeDrops {
    pub cursor: RowCursor,
    pub sounded: u16,
    pub tremolos: u8,
    pub total_tremolos: u32,
    /// How many events the voice had accepted.
    pub events: usize,
    pub dropped: usize,
}

impl VoiceLine {
    /// The last accepted event, if any.
    pub fn last(&self) -> Option<&ToneEvent> {
        self.events.last()
    }

    /// End of the last accepted event (0 if none).
    pub fn last_end(&self) -> Time {
        self.events
            .iter()
            .map(ToneEvent::end)
            .max()
            .unwrap_or_default()
    }

    /// Accepted events overlapping `[onset, end)` by a positive amount.
    ///
    /// Accepted events of one voice never overlap (the verifier refuses it), so
    /// their ends are sorted like their onsets and both bounds are binary searches.
    pub fn overlapping(&self, onset: Time, end: Time) -> impl Iterator<Item = &ToneEvent> {
        let upto = self.events.partition_point(|e| e.onset < end);
        let from = self.events[..upto].partition_point(|e| e.end() <= onset);
        // `filter` keeps this exact even if a caller breaks the invariant.
        self.events[from..upto]
            .iter()
            .filter(move |e| e.end() > onset)
    }

    /// Moves the cursor past a dropped event of `len` positions, remembering where the
    /// line stood before its first drop.
    pub fn skip(&mut self, len: u8) {
        let before = self.before_drops.get_or_insert(BeforeDrops {
            cursor: self.cursor,
            sounded: self.sounded,
            tremolos: self.tremolos,
            total_tremolos: self.total_tremolos,
            events: self.events.len(),
            dropped: 0,
        });
        before.dropped += 1;
        self.advance(len);
    }

    /// Advances the cursor past `len` positions (rolling into the next statement).
    pub fn advance(&mut self, len: u8) {
        let next = self.cursor.position.saturating_add(len);
        if next >= 12 {
            self.cursor.statement += 1;
            self.cursor.position = 0;
            self.sounded = 0;
            self.tremolos = 0;
        } else {
            self.cursor.position = next;
        }
    }
}

/// The running crossing tally, summed over pairs of voices: the time they sound
/// together, and the part of it during which the upper voice is below the lower one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CrossingTally {
    pub together: Time,
    pub crossed: Time,
}

impl CrossingTally {
    /// What `event` in `voice` adds against the voices' accepted events.
    pub fn contribution(voices: &[VoiceLine], voice: usize, event: &ToneEvent) -> CrossingTally {
        let mut t = CrossingTally::default();
        for (u, line) in voices.iter().enumerate() {
            if u == voice {
                continue;
            }
            for other in line.overlapping(event.onset, event.end()) {
                let len = event.end().min(other.end()) - event.onset.max(other.onset);
                t.together += len;
                let (upper, lower) = if voice < u {
                    (event, other)
                } else {
                    (other, event)
                };
                if crosses(upper, lower) {
                    t.crossed += len;
                }
            }
        }
        t
    }

    /// Crossed share of the time together (0 when nothing sounds together).
    pub fn share(self) -> num_rational::Ratio<i64> {
        if self.together == Time::default() {
            Time::default()
        } else {
            self.crossed / self.together
        }
    }

    pub fn add(&mut self, other: CrossingTally) {
        self.together += other.together;
        self.crossed += other.crossed;
    }

    pub fn sub(&mut self, other: CrossingTally) {
        self.together -= other.together;
        self.crossed -= other.crossed;
    }
}

/// Whether the upper voice's event sounds below the lower voice's (its lowest pitch
/// under the other's highest).
pub fn crosses(upper: &ToneEvent, lower: &ToneEvent) -> bool {
    match (upper.pitches.first(), lower.pitches.last()) {
        (Some(u), Some(l)) => u < l,
        _ => false,
    }
}

/// Everything accepted so far. The blueprint it follows is the run's spec, which the
/// engine hands to every predicate and proposer by reference; it is not copied here.
#[derive(Clone, Debug)]
pub struct ToneState {
    pub voices: Vec<VoiceLine>,
    pub crossing: CrossingTally,
}

impl ToneState {
    /// The empty state for a blueprint.
    pub fn new(plan: &Blueprint) -> Self {
        ToneState {
            voices: vec![VoiceLine::default(); plan.limits.voices.len()],
            crossing: CrossingTally::default(),
        }
    }

    /// The form `voice` must state at its cursor in `plan`, or `None` past its schedule.
    pub fn expected_form(&self, plan: &Blueprint, voice: usize) -> Option<RowForm> {
        let line = self.voices.get(voice)?;
        plan.sections
            .get(line.cursor.statement)
            .and_then(|s| s.forms.get(voice).copied())
    }

    /// Takes `voice` back to where it stood before its first drop of the section:
    /// its cursor, and the events it accepted since (returned, with the number of
    /// drops), so their positions are owed again. Refused (`None`) where there was
    /// no drop, or where taking those events out would leave the voices crossed for
    /// more than `max_crossing` of their time together: the crossing rule is judged
    /// on the running total, and a released piece must pass it whole.
    pub fn reopen(
        &mut self,
        voice: usize,
        max_crossing: num_rational::Ratio<i64>,
    ) -> Option<(usize, Vec<ToneEvent>)> {
        let before = self.voices.get(voice)?.before_drops?;
        let line = &self.voices[voice];
        let kept = before.events.min(line.events.len());
        let mut crossing = self.crossing;
        for event in &line.events[kept..] {
            crossing.sub(CrossingTally::contribution(&self.voices, voice, event));
        }
        if kept < line.events.len() && crossing.share() > max_crossing {
            return None;
        }
        self.crossing = crossing;
        let line = &mut self.voices[voice];
        let withdrawn = line.events.split_off(kept);
        line.cursor = before.cursor;
        line.sounded = before.sounded;
        line.tremolos = before.tremolos;
        line.total_tremolos = before.total_tremolos;
        line.before_drops = None;
        Some((before.dropped, withdrawn))
    }

    /// Inserts an accepted event into its voice, keeping onset order, and tallies
    /// its crossings.
    pub fn insert(&mut self, event: ToneEvent) {
        let add = CrossingTally::contribution(&self.voices, event.voice, &event);
        self.crossing.add(add);
        let line = &mut self.voices[event.voice];
        let at = line.events.partition_point(|e| e.onset <= event.onset);
        line.events.insert(at, event);
    }
}
