//! The twelve-tone [`Domain`]: how the engine plans, accepts, skips, reopens and finishes.

use crate::blueprint::{Blueprint, SectionPlan};
use crate::event::{Location, ToneEvent};
use crate::piece;
use crate::state::{CrossingTally, ToneState};
use cantus_framework::{Amend, Assemble, Domain, Owed, PlanError, Reopened};
use cantus_music::{Score, Time, time_text};
use serde::Serialize;

/// The twelve-tone domain. Its spec is a [`Blueprint`] (a spec already planned:
/// planning errors are reported before a run starts).
#[derive(Clone, Copy, Debug, Default)]
pub struct TwelveTone;

/// An edit a repair rung makes to accepted material: set the duration of the event of
/// `voice` starting at `onset` (the `yield` rung shortens another voice's note).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Amendment {
    pub voice: usize,
    #[serde(with = "time_text")]
    pub onset: Time,
    #[serde(with = "time_text")]
    pub duration: Time,
}

impl Domain for TwelveTone {
    type Spec = Blueprint;
    type Section = SectionPlan;
    type Event = ToneEvent;
    type State = ToneState;
    type Artefact = Score;
    type Location = Location;
    type Amendment = Amendment;

    fn name(&self) -> &str {
        "twelve-tone"
    }

    fn plan(&self, spec: &Blueprint) -> Result<Vec<SectionPlan>, PlanError> {
        if spec.sections.is_empty() {
            return Err(PlanError::new("the blueprint has no sections"));
        }
        Ok(spec.sections.clone())
    }

    fn initial_state(&self, spec: &Blueprint) -> ToneState {
        ToneState::new(spec)
    }

    /// A voice still inside an earlier statement (its last section came up short)
    /// jumps to this section's statement; the gate will report the short statement.
    fn begin_section(&self, state: &mut ToneState, section: &SectionPlan) {
        for line in &mut state.voices {
            line.before_drops = None;
            if line.cursor.statement < section.index {
                line.cursor.statement = section.index;
                line.cursor.position = 0;
                line.sounded = 0;
                line.tremolos = 0;
            }
        }
    }

    fn accept(&self, state: &mut ToneState, _section: &SectionPlan, event: &ToneEvent) {
        let line = &mut state.voices[event.voice];
        let repeat = line.last().is_some_and(|last| {
            last.tag == event.tag && u16::from(line.cursor.position) == event.tag.end()
        });
        if repeat {
            line.tremolos += 1;
            line.total_tremolos += 1;
        } else {
            line.sounded |= event.pc_set();
            line.advance(event.tag.len.max(1));
        }
        state.insert(event.clone());
    }

    fn skip(&self, state: &mut ToneState, _section: &SectionPlan, event: &ToneEvent) {
        if let Some(line) = state.voices.get_mut(event.voice) {
            let len = u8::try_from(event.pitches.len().max(1)).unwrap_or(12);
            line.skip(len);
        }
    }

    /// A voice's drops are taken back: its cursor returns to the first of them and
    /// the events it accepted since are withdrawn ([`ToneState::reopen`]), so `owed`
    /// names their order positions and the continue request asks that voice for
    /// them again, in order.
    fn reopen(
        &self,
        spec: &Blueprint,
        state: &mut ToneState,
        _section: &SectionPlan,
    ) -> Reopened<ToneEvent> {
        let mut reopened = Reopened::default();
        for voice in 0..state.voices.len() {
            if let Some((drops, withdrawn)) = state.reopen(voice, spec.limits.max_crossing) {
                reopened.drops += drops;
                reopened.withdrawn.extend(withdrawn);
            }
        }
        reopened
    }

    /// Every voice whose statement of this section's form is not finished owes the
    /// order positions from its cursor to the end of the row (a voice left out owes
    /// all twelve): the gate's `TT-ROW`/`TT-SCHEDULE` would refuse the section. Once
    /// every statement is complete, a bar of the section in which nothing sounds is
    /// owed too (`TT-BARS`): no continue request can add notes to a finished row, so
    /// the section is replanned, the silent bar named.
    fn owed(&self, _spec: &Blueprint, state: &ToneState, section: &SectionPlan) -> Vec<Owed> {
        let owed: Vec<Owed> = state
            .voices
            .iter()
            .enumerate()
            .filter(|(v, line)| *v < section.forms.len() && line.cursor.statement == section.index)
            .map(|(v, line)| Owed {
                part: v,
                name: voice_name(section, v),
                unit: "row position",
                positions: (u32::from(line.cursor.position)..12).collect(),
            })
            .collect();
        if !owed.is_empty() {
            return owed;
        }
        let silent = silent_bars(state, section);
        if silent.is_empty() {
            return Vec::new();
        }
        vec![Owed {
            part: 0,
            name: "the texture".to_owned(),
            unit: "sounding bar",
            positions: silent,
        }]
    }

    fn locate(&self, section: &SectionPlan, event: &ToneEvent) -> Location {
        Location {
            bar: section.bar_of(event.onset),
            voice: voice_name(section, event.voice),
            onset: event.onset,
        }
    }

    fn finish(&self, spec: &Blueprint, state: ToneState) -> Score {
        let events = state.voices.into_iter().flat_map(|l| l.events);
        piece::to_score(spec, events)
    }
}

/// The bars of `section` (0-based across the piece) in which no voice sounds.
fn silent_bars(state: &ToneState, section: &SectionPlan) -> Vec<u32> {
    let len = section.bar_length();
    (0..section.bars)
        .filter(|&b| {
            let from = section.start + len * Time::from_integer(i64::from(b));
            let to = from + len;
            state
                .voices
                .iter()
                .all(|l| l.overlapping(from, to).next().is_none())
        })
        .map(|b| section.first_bar - 1 + b)
        .collect()
}

/// The name of `voice` in `section` (`voice N` when the plan names none).
fn voice_name(section: &SectionPlan, voice: usize) -> String {
    section
        .voice_names
        .get(voice)
        .cloned()
        .unwrap_or_else(|| format!("voice {}", voice + 1))
}

impl Assemble for TwelveTone {
    fn assemble(&self, spec: &Blueprint, events: Vec<ToneEvent>) -> Score {
        piece::to_score(spec, events)
    }
}

impl Amend<ToneState> for Amendment {
    /// Sets the event's duration, keeping the crossing tally in step; the inverse
    /// restores the old duration. An amendment naming no accepted event changes nothing.
    fn apply(&self, state: &mut ToneState) -> Amendment {
        let a = self;
        let Some(line) = state.voices.get(a.voice) else {
            return a.clone();
        };
        let Some(index) = line.events.iter().position(|e| e.onset == a.onset) else {
            return a.clone();
        };
        let old = line.events[index].clone();
        let before = CrossingTally::contribution(&state.voices, a.voice, &old);
        state.crossing.sub(before);
        let mut new = old.clone();
        new.duration = a.duration;
        let after = CrossingTally::contribution(&state.voices, a.voice, &new);
        state.crossing.add(after);
        state.voices[a.voice].events[index] = new;
        Amendment {
            duration: old.duration,
            ..a.clone()
        }
    }
}
