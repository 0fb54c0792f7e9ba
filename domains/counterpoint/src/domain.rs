//! The counterpoint [`Domain`]: one section per bar of the cantus, one event per
//! counterpoint note, the exercise so far as the online state.
//!
//! Events carry their own place (bar and beat), so there is no cursor to keep in
//! lockstep: [`Domain::skip`] records nothing. A dropped note leaves its slot owed,
//! and the verifier refuses any later note until it is filled (`SP-rhythm` online),
//! so the engine's continue request asks for the rest of the bar from there; only
//! a bar still short after that replans (see [`crate::compose::budget`]).

use crate::cantus::Cantus;
use crate::exercise::{Beat, Exercise, Location, Moment, Position, Species};
use cantus_framework::{Assemble, Domain, NoAmendment, Owed, PlanError};
use cantus_music::{Score, Spelling};
use serde::Serialize;

/// What to write: a cantus, a species, a position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Assignment {
    pub cantus: Cantus,
    pub species: Species,
    pub position: Position,
    /// Second species only: open with a half rest (Fux's usual practice).
    pub rest_start: bool,
}

impl Assignment {
    /// An assignment; second species opens with a half rest, as Fux's do.
    pub fn new(cantus: Cantus, species: Species, position: Position) -> Self {
        Assignment {
            cantus,
            species,
            position,
            rest_start: species == Species::Second,
        }
    }

    /// The slots to fill, in order.
    pub fn slots(&self) -> Vec<(usize, Beat)> {
        Exercise::slots(self.species, self.cantus.len(), self.rest_start)
    }

    /// An exercise with this cantus and no counterpoint yet.
    pub fn empty_exercise(&self) -> Exercise {
        Exercise::empty(
            self.species,
            self.position,
            self.cantus.modality,
            self.cantus.notes.clone(),
        )
    }

    /// A title for the written score.
    pub fn title(&self) -> String {
        format!(
            "{} cantus ({}), species {}, counterpoint {}",
            self.cantus.mode().map_or("modal", |m| m.as_str()),
            self.cantus.id,
            self.species.number(),
            self.position
        )
    }
}

/// One counterpoint note at its place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CpEvent {
    /// Bar index from 0.
    pub bar: usize,
    pub beat: Beat,
    pub midi: u8,
    pub spelling: Spelling,
}

impl CpEvent {
    /// The moment this event makes against `cantus` (none if the bar does not exist).
    pub fn moment(&self, cantus: &[crate::pitch::Note]) -> Option<Moment> {
        Some(Moment {
            bar: self.bar,
            beat: self.beat,
            onset: Exercise::onset(self.bar, self.beat),
            cantus: *cantus.get(self.bar)?,
            counterpoint: crate::pitch::Note {
                midi: self.midi,
                spelling: self.spelling,
            },
        })
    }

    /// The event of a moment.
    pub fn of(m: &Moment) -> CpEvent {
        CpEvent {
            bar: m.bar,
            beat: m.beat,
            midi: m.counterpoint.midi,
            spelling: m.counterpoint.spelling,
        }
    }
}

/// One bar to fill and the beats it holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BarPlan {
    /// Bar index from 0.
    pub bar: usize,
    pub beats: Vec<Beat>,
}

/// The online state: the exercise accepted so far. (The assignment is the run's spec,
/// which the engine hands to predicates and proposers by reference.)
#[derive(Clone, Debug)]
pub struct CpState {
    pub exercise: Exercise,
}

impl CpState {
    /// The exercise with `event` appended, and the candidate's index in it; `None`
    /// when the event's bar is not in the cantus.
    pub fn with_candidate(&self, event: &CpEvent) -> Option<(Exercise, usize)> {
        let m = event.moment(&self.exercise.cantus)?;
        let mut ex = self.exercise.clone();
        ex.moments.push(m);
        let i = ex.moments.len() - 1;
        Some((ex, i))
    }
}

/// The species counterpoint domain.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counterpoint;

impl Domain for Counterpoint {
    type Spec = Assignment;
    type Section = BarPlan;
    type Event = CpEvent;
    type State = CpState;
    type Artefact = Score;
    type Location = Location;
    type Amendment = NoAmendment;

    fn name(&self) -> &str {
        "counterpoint"
    }

    fn plan(&self, spec: &Assignment) -> Result<Vec<BarPlan>, PlanError> {
        if spec.cantus.len() < crate::cantus::MIN_NOTES {
            return Err(PlanError::new(format!(
                "the cantus firmus has {} notes; at least {} are needed",
                spec.cantus.len(),
                crate::cantus::MIN_NOTES
            )));
        }
        let mut bars: Vec<BarPlan> = Vec::new();
        for (bar, beat) in spec.slots() {
            match bars.last_mut() {
                Some(b) if b.bar == bar => b.beats.push(beat),
                _ => bars.push(BarPlan {
                    bar,
                    beats: vec![beat],
                }),
            }
        }
        Ok(bars)
    }

    fn initial_state(&self, spec: &Assignment) -> CpState {
        CpState {
            exercise: spec.empty_exercise(),
        }
    }

    fn accept(&self, state: &mut CpState, _section: &BarPlan, event: &CpEvent) {
        if let Some(m) = event.moment(&state.exercise.cantus) {
            state.exercise.moments.push(m);
        }
    }

    /// Nothing to advance: every event names its own bar and beat.
    fn skip(&self, _state: &mut CpState, _section: &BarPlan, _event: &CpEvent) {}

    /// The required events of a bar: every beat it plans that holds no accepted
    /// note (`SP-rhythm` at the gate). Positions count the bar's beats from 0.
    fn owed(&self, _spec: &Assignment, state: &CpState, section: &BarPlan) -> Vec<Owed> {
        let positions: Vec<u32> = section
            .beats
            .iter()
            .enumerate()
            .filter(|(_, beat)| {
                !state
                    .exercise
                    .moments
                    .iter()
                    .any(|m| m.bar == section.bar && m.beat == **beat)
            })
            .map(|(i, _)| u32::try_from(i).unwrap_or(u32::MAX))
            .collect();
        if positions.is_empty() {
            return Vec::new();
        }
        vec![Owed {
            part: 0,
            name: crate::exercise::COUNTERPOINT_VOICE.to_owned(),
            unit: "beat",
            positions,
        }]
    }

    fn locate(&self, _section: &BarPlan, event: &CpEvent) -> Location {
        Location {
            bar: event.bar as u32 + 1,
            voice: crate::exercise::COUNTERPOINT_VOICE.to_owned(),
            onset: Exercise::onset(event.bar, event.beat),
            from_bar: None,
        }
    }

    fn finish(&self, spec: &Assignment, state: CpState) -> Score {
        state.exercise.to_score(Some(spec.title()))
    }
}

impl Assemble for Counterpoint {
    fn assemble(&self, spec: &Assignment, events: Vec<CpEvent>) -> Score {
        let mut ex = spec.empty_exercise();
        let mut events = events;
        events.sort_by_key(|e| (e.bar, e.beat));
        ex.moments = events.iter().filter_map(|e| e.moment(&ex.cantus)).collect();
        ex.to_score(Some(spec.title()))
    }
}
