//! The chorale [`Domain`]: a melody to harmonise is the spec, one section per beat
//! (grouped in phrases), one event per beat — the alto, tenor and bass under the
//! given soprano — and the chorale written so far, analysed, as the online state.
//!
//! Events carry their own beat, so [`Domain::skip`] records nothing: a dropped
//! voicing leaves its beat owed, the verifier refuses any later beat until it is
//! filled (`CH-structure` online), and the engine's continue request asks for it.

use crate::analysis::Analysis;
use crate::chorale::{Chorale, Location, Note};
use crate::pitch::{Part, Tone};
use cantus_framework::{Assemble, Domain, NoAmendment, Owed, PlanError};
use cantus_music::{Score, Time};
use serde::Serialize;

/// What to write: a melody (the soprano of `melody`), in its key, meter and
/// phrases.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Harmonisation {
    /// A name for reports (`r001_bwv269`).
    pub id: String,
    /// The melody alone: only the soprano holds notes.
    pub melody: Chorale,
}

impl Harmonisation {
    /// The harmonisation of `chorale`'s soprano (its other parts are set aside).
    pub fn of(id: impl Into<String>, chorale: &Chorale) -> Harmonisation {
        let mut melody = chorale.clone();
        for part in &mut melody.parts[1..] {
            part.clear();
        }
        Harmonisation {
            id: id.into(),
            melody,
        }
    }

    /// An analysis of the melody holding no beat yet.
    pub fn open(&self) -> Analysis {
        Analysis::open(self.melody.clone())
    }

    /// The last beat of every phrase (where its cadence is judged: the beat its
    /// last soprano note ends in), ascending; the piece's last beat always.
    pub fn cadence_beats(&self) -> Vec<usize> {
        let a = self.open();
        let c = &self.melody;
        let mut beats: Vec<usize> = c
            .phrase_ends
            .iter()
            .filter_map(|&t| {
                let end = c
                    .note_at(Part::Soprano, t)
                    .map_or(t, |n| c.parts[0][n].end());
                a.beat_index(end - Time::new(1, 1_000_000))
                    .or_else(|| a.total().checked_sub(1))
            })
            .chain(a.total().checked_sub(1))
            .collect();
        beats.sort_unstable();
        beats.dedup();
        beats
    }

    /// A title for the written score.
    pub fn title(&self) -> String {
        match &self.melody.title {
            Some(t) => format!("{t} (harmonised in {})", self.melody.key),
            None => format!("{} harmonised in {}", self.id, self.melody.key),
        }
    }
}

/// One beat to fill: its index among the piece's beats, its phrase, and whether
/// the phrase's cadence is judged there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BeatPlan {
    /// Index of the beat in the analysis (from 0).
    pub beat: usize,
    /// The phrase (from 0) the beat belongs to.
    pub phrase: usize,
    /// The last beat of the phrase: its cadence is judged here.
    pub cadence: bool,
    /// Where the beat is (bar, beat in the bar, onset), for traces.
    pub at: Location,
}

/// The alto, tenor and bass of one beat, each a note lasting the beat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Voicing {
    /// Index of the beat in the analysis.
    pub beat: usize,
    pub alto: Tone,
    pub tenor: Tone,
    pub bass: Tone,
}

impl Voicing {
    /// The three tones, alto first.
    pub fn tones(&self) -> [(Part, Tone); 3] {
        [
            (Part::Alto, self.alto),
            (Part::Tenor, self.tenor),
            (Part::Bass, self.bass),
        ]
    }

    /// `G4 E4 C3` (alto, tenor, bass).
    pub fn names(&self) -> String {
        format!("{} {} {}", self.alto, self.tenor, self.bass)
    }
}

/// Adds `v` to `a` as the next beat: its notes, then the beat's analysis. Returns
/// false (and changes nothing) when `v` is not for the next beat.
pub(crate) fn push_voicing(a: &mut Analysis, v: &Voicing) -> bool {
    if v.beat != a.beats.len() || v.beat >= a.total() {
        return false;
    }
    let start = a.chorale.beat_start(a.number_of(v.beat));
    let duration = a.chorale.beat;
    for (part, tone) in v.tones() {
        a.chorale.parts[part.index()].push(Note {
            onset: start,
            duration,
            tone,
        });
    }
    a.push_beat();
    true
}

/// Undoes [`push_voicing`].
pub(crate) fn pop_voicing(a: &mut Analysis) {
    a.pop_beat();
    for part in Part::LOWER {
        a.chorale.parts[part.index()].pop();
    }
}

/// What `test` says of `a` with `v` pushed as its next beat, `a` left as it was;
/// `false` where `v` cannot be pushed ([`push_voicing`]).
pub(crate) fn with_voicing(
    a: &mut Analysis,
    v: &Voicing,
    test: impl FnOnce(&mut Analysis) -> bool,
) -> bool {
    if !push_voicing(a, v) {
        return false;
    }
    let holds = test(a);
    pop_voicing(a);
    holds
}

/// The online state: the chorale written so far, analysed up to its last beat.
#[derive(Clone, Debug)]
pub struct ChState {
    pub analysis: Analysis,
    /// Voicings of a beat shown to be dead ends behind what is written before it:
    /// the loop stepped back from them ([`Budget::backtracks`](cantus_framework::Budget),
    /// [`Domain::dead_end`]), and no proposer gives them again there.
    pub dead: Vec<Voicing>,
    /// What the grammar's proofs learnt in this run (shared by the state's clones).
    pub(crate) proofs: crate::proposer::Proofs,
}

impl ChState {
    /// The voicings of beat `beat` known to be dead ends.
    pub fn dead_at(&self, beat: usize) -> Vec<Voicing> {
        self.dead
            .iter()
            .filter(|v| v.beat == beat)
            .copied()
            .collect()
    }

    /// The analysis with `v` added as the next beat, and that beat's index; `None`
    /// when `v` is not for the next beat.
    pub fn with_candidate(&self, v: &Voicing) -> Option<(Analysis, usize)> {
        let mut a = self.analysis.clone();
        push_voicing(&mut a, v).then_some((a, v.beat))
    }
}

/// The chorale harmonisation domain.
#[derive(Clone, Copy, Debug, Default)]
pub struct ChoraleDomain;

/// The name the domain goes by.
pub const DOMAIN: &str = "chorale";

impl Domain for ChoraleDomain {
    type Spec = Harmonisation;
    type Section = BeatPlan;
    type Event = Voicing;
    type State = ChState;
    type Artefact = Score;
    type Location = Location;
    type Amendment = NoAmendment;

    fn name(&self) -> &str {
        DOMAIN
    }

    fn plan(&self, spec: &Harmonisation) -> Result<Vec<BeatPlan>, PlanError> {
        let a = spec.open();
        if a.total() == 0 {
            return Err(PlanError::new("the melody has no notes"));
        }
        let c = &spec.melody;
        let last_beats = spec.cadence_beats();
        let mut phrase = 0;
        Ok((0..a.total())
            .map(|beat| {
                let cadence = last_beats.contains(&beat);
                let plan = BeatPlan {
                    beat,
                    phrase,
                    cadence,
                    at: Location::at(c, c.beat_start(a.number_of(beat)), Part::LOWER.to_vec()),
                };
                if cadence {
                    phrase += 1;
                }
                plan
            })
            .collect())
    }

    fn initial_state(&self, spec: &Harmonisation) -> ChState {
        ChState {
            analysis: spec.open(),
            dead: Vec::new(),
            proofs: Default::default(),
        }
    }

    fn accept(&self, state: &mut ChState, _section: &BeatPlan, event: &Voicing) {
        push_voicing(&mut state.analysis, event);
    }

    /// What the beat had written led nowhere: its voicing is not given again there.
    fn dead_end(&self, state: &mut ChState, section: &BeatPlan, withdrawn: &[Voicing]) {
        state
            .dead
            .extend(withdrawn.iter().filter(|v| v.beat == section.beat));
    }

    /// Nothing to advance: every voicing names its own beat.
    fn skip(&self, _state: &mut ChState, _section: &BeatPlan, _event: &Voicing) {}

    /// The beat's voicing, while it is not written.
    fn owed(&self, _spec: &Harmonisation, state: &ChState, section: &BeatPlan) -> Vec<Owed> {
        if state.analysis.beats.len() > section.beat {
            return Vec::new();
        }
        vec![Owed {
            part: 0,
            name: "alto, tenor and bass".into(),
            unit: "beat",
            positions: vec![u32::try_from(section.beat).unwrap_or(u32::MAX)],
        }]
    }

    fn locate(&self, section: &BeatPlan, _event: &Voicing) -> Location {
        section.at.clone()
    }

    fn finish(&self, spec: &Harmonisation, state: ChState) -> Score {
        score_of(spec, state.analysis.chorale)
    }
}

/// The written score of a chorale harmonising `spec`: its title, a fermata over
/// every soprano note that ends a phrase.
pub(crate) fn score_of(spec: &Harmonisation, mut chorale: Chorale) -> Score {
    chorale.title = Some(spec.title());
    let mut score = chorale.to_score();
    for e in &mut score.voices[0].events {
        e.fermata = chorale.phrase_ends.contains(&e.onset);
    }
    score
}

impl Assemble for ChoraleDomain {
    fn assemble(&self, spec: &Harmonisation, events: Vec<Voicing>) -> Score {
        let mut a = spec.open();
        let mut events = events;
        events.sort_by_key(|v| v.beat);
        for v in &events {
            push_voicing(&mut a, v);
        }
        score_of(spec, a.chorale)
    }
}
