//! Reading an exercise from any score: which voice is the cantus, which species,
//! which position, and where each counterpoint note sits.
//!
//! A file that cannot be an exercise at all (not two voices, no cantus voice,
//! chords, a cantus with rests or overlaps) is an [`ExerciseError`]: bad input.
//! A counterpoint whose rhythm is not the species' (a note off the beat, a missing
//! or extra note, a wrong duration) is read as far as it goes and each problem is
//! returned as a [`RhythmProblem`], which the gate reports as the hard rule
//! `SP-rhythm`.
//!
//! Spelling: pitches written with a spelling (text grammar, MusicXML) keep it;
//! pitches without one (MIDI) are spelled by the cantus's modal collection and the
//! usual ficta (see [`Modality::spell`](crate::pitch::Modality::spell)), and the
//! reading says so in [`SpellingSource`].

use crate::exercise::{Beat, Exercise, Moment, Position, Species};
use crate::pitch::{Modality, Note};
use cantus_music::{Event, Score, Time, Voice};
use serde::Serialize;

/// What the reader is told; everything else is inferred.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    pub species: Option<Species>,
    /// The cantus voice's name; default: the voice whose name starts with "Cantus"
    /// (any case), or is "CF".
    pub cantus_voice: Option<String>,
    pub position: Option<Position>,
    /// The severities to judge by (Fux's by default).
    pub profile: crate::rules::Profile,
}

/// Where the spellings of an exercise came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpellingSource {
    /// Every pitch was spelled in the file.
    Written,
    /// No pitch was spelled (e.g. MIDI): all inferred from the mode and the ficta.
    InferredFromMode,
    /// Some were spelled; the rest were inferred from the mode.
    Mixed,
}

/// A counterpoint note (or missing note) that does not fit the species' rhythm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RhythmProblem {
    /// Bar index from 0.
    pub bar: usize,
    pub onset: Time,
    pub reason: String,
}

/// An exercise read from a score.
#[derive(Clone, Debug)]
pub struct Reading {
    pub exercise: Exercise,
    pub rhythm: Vec<RhythmProblem>,
    pub spelling: SpellingSource,
    /// Whether a second-species counterpoint opens with a half rest.
    pub rest_start: bool,
    /// What was inferred rather than given, in words.
    pub inferred: Vec<String>,
}

/// Why a score is not a two-voice species exercise.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct ExerciseError(pub String);

fn names(voices: &[&Voice]) -> String {
    voices
        .iter()
        .map(|v| format!("\"{}\"", v.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a voice name marks the cantus firmus: it starts with "Cantus" (any case);
/// the common abbreviation "CF" is accepted too.
pub fn is_cantus_name(name: &str) -> bool {
    let name = name.trim().to_ascii_lowercase();
    name.starts_with("cantus") || name == "cf"
}

/// Chooses the cantus voice and the counterpoint voice.
fn split<'s>(
    score: &'s Score,
    opts: &ReadOptions,
) -> Result<(&'s Voice, &'s Voice), ExerciseError> {
    let voices: Vec<&Voice> = score
        .voices
        .iter()
        .filter(|v| !v.events.is_empty())
        .collect();
    if voices.len() != 2 {
        return Err(ExerciseError(format!(
            "a two-voice exercise needs exactly two voices with notes; found {} ({})",
            voices.len(),
            names(&voices)
        )));
    }
    let is_cantus = |v: &&&Voice| match &opts.cantus_voice {
        Some(name) => v.name.eq_ignore_ascii_case(name.trim()),
        None => is_cantus_name(&v.name),
    };
    let found: Vec<usize> = (0..2).filter(|&i| is_cantus(&&voices[i])).collect();
    match (found.as_slice(), &opts.cantus_voice) {
        ([i], _) => Ok((voices[*i], voices[1 - *i])),
        ([], Some(name)) => Err(ExerciseError(format!(
            "no voice named \"{name}\" (voices: {})",
            names(&voices)
        ))),
        ([], None) => Err(ExerciseError(format!(
            "no voice name starts with \"Cantus\" (voices: {}); say which is the cantus with --cantus-voice NAME",
            names(&voices)
        ))),
        _ => Err(ExerciseError(format!(
            "both voices could be the cantus ({}); say which with --cantus-voice NAME",
            names(&voices)
        ))),
    }
}

/// The single pitch of an event, or an error naming where the chord is.
fn single(score: &Score, voice: &Voice, e: &Event) -> Result<cantus_music::Pitch, ExerciseError> {
    match e.pitches.as_slice() {
        [p] => Ok(*p),
        _ => Err(ExerciseError(format!(
            "bar {}: voice \"{}\" has a chord; species counterpoint is two single lines",
            score.bar_of(e.onset),
            voice.name
        ))),
    }
}

/// Reads a score as a species exercise.
pub fn read_exercise(score: &Score, opts: &ReadOptions) -> Result<Reading, ExerciseError> {
    let (cf_voice, cp_voice) = split(score, opts)?;
    let mut inferred = Vec::new();
    // The cantus: contiguous single notes, one per bar.
    let mut cf_events: Vec<&Event> = Vec::new();
    for e in &cf_voice.events {
        single(score, cf_voice, e)?;
        if let Some(prev) = cf_events.last()
            && e.onset != prev.end()
        {
            let what = if e.onset < prev.end() {
                "overlapping notes"
            } else {
                "a rest"
            };
            return Err(ExerciseError(format!(
                "bar {}: the cantus firmus (\"{}\") has {what}; it must be one note per bar without rests",
                score.bar_of(e.onset),
                cf_voice.name
            )));
        }
        cf_events.push(e);
    }
    let cf_pitches: Vec<_> = cf_events
        .iter()
        .filter_map(|e| e.pitches.first().copied())
        .collect();
    if cf_pitches.len() < crate::cantus::MIN_NOTES {
        return Err(ExerciseError(format!(
            "the cantus firmus (\"{}\") has {} notes; an exercise needs at least {}",
            cf_voice.name,
            cf_pitches.len(),
            crate::cantus::MIN_NOTES
        )));
    }
    let final_pc = cf_pitches.last().map_or(0, |p| p.pc());
    let pcs: Vec<u8> = cf_pitches.iter().map(|p| p.pc()).collect();
    let modality =
        Modality::infer(&pcs, final_pc, score.key.map(|k| k.fifths())).ok_or_else(|| {
            ExerciseError(
                "the cantus firmus fits no diatonic collection, so its mode is unknown".into(),
            )
        })?;
    let cantus: Vec<Note> = cf_pitches.iter().map(|&p| modality.note_of(p)).collect();
    // The counterpoint: each note placed under a cantus note.
    let mut placed: Vec<(usize, &Event, cantus_music::Pitch)> = Vec::new();
    let mut rhythm = Vec::new();
    for e in &cp_voice.events {
        let p = single(score, cp_voice, e)?;
        // The cantus is contiguous and sorted: the note sounding at the onset is the
        // last one starting at or before it.
        let under = cf_events
            .partition_point(|c| c.onset <= e.onset)
            .checked_sub(1)
            .filter(|&i| cf_events[i].sounds_at(e.onset));
        match under {
            Some(bar) => placed.push((bar, e, p)),
            None => rhythm.push(RhythmProblem {
                bar: cf_events.len().saturating_sub(1),
                onset: e.onset,
                reason: format!(
                    "{} sounds where the cantus firmus has no note",
                    modality.note_of(p)
                ),
            }),
        }
    }
    let species = opts.species.unwrap_or_else(|| {
        let inner = cf_events.len().saturating_sub(1);
        let doubled = (0..inner)
            .filter(|&b| placed.iter().filter(|(bar, ..)| *bar == b).count() >= 2)
            .count();
        let s = if doubled * 2 >= inner.max(1) {
            Species::Second
        } else {
            Species::First
        };
        inferred.push(format!(
            "species {} (from the counterpoint's rhythm)",
            s.number()
        ));
        s
    });
    let mut moments: Vec<Moment> = Vec::new();
    let (mut written, mut total) = (0usize, 0usize);
    for &(bar, e, p) in &placed {
        let cf = cf_events[bar];
        let half = cf.duration / 2;
        let last = bar + 1 == cf_events.len();
        let beat = if e.onset == cf.onset {
            Beat::Down
        } else if species == Species::Second && e.onset == cf.onset + half && !last {
            Beat::Up
        } else {
            let want = match species {
                Species::First => "one note with each cantus note",
                Species::Second if last => "one whole note in the last bar",
                Species::Second => "notes on the two halves of the bar",
            };
            rhythm.push(RhythmProblem {
                bar,
                onset: e.onset,
                reason: format!(
                    "a note off the beat; species {} puts {want}",
                    species.number()
                ),
            });
            continue;
        };
        let expected = if species == Species::First || last {
            cf.duration
        } else {
            half
        };
        if e.duration != expected {
            rhythm.push(RhythmProblem {
                bar,
                onset: e.onset,
                reason: format!(
                    "lasts {} quarter notes; species {} wants {} here",
                    e.duration,
                    species.number(),
                    expected
                ),
            });
        }
        if moments
            .last()
            .is_some_and(|m| (m.bar, m.beat) >= (bar, beat))
        {
            rhythm.push(RhythmProblem {
                bar,
                onset: e.onset,
                reason: "two counterpoint notes start together".into(),
            });
            continue;
        }
        total += 1;
        written += usize::from(p.spelling.is_some());
        moments.push(Moment {
            bar,
            beat,
            onset: e.onset,
            cantus: cantus[bar],
            counterpoint: modality.note_of(p),
        });
    }
    let rest_start = species == Species::Second
        && moments
            .first()
            .is_some_and(|m| m.bar == 0 && m.beat == Beat::Up);
    let filled: std::collections::BTreeSet<(usize, Beat)> =
        moments.iter().map(|m| (m.bar, m.beat)).collect();
    for (bar, beat) in Exercise::slots(species, cantus.len(), rest_start) {
        if !filled.contains(&(bar, beat)) {
            let onset = cf_events[bar].onset
                + if beat == Beat::Up {
                    cf_events[bar].duration / 2
                } else {
                    Time::from_integer(0)
                };
            let which = if beat == Beat::Down {
                "downbeat"
            } else {
                "upbeat"
            };
            rhythm.push(RhythmProblem {
                bar,
                onset,
                reason: format!("no counterpoint note on the {which}"),
            });
        }
    }
    rhythm.sort_by_key(|r| (r.bar, r.onset));
    let position = opts.position.unwrap_or_else(|| {
        let above = moments
            .iter()
            .filter(|m| m.counterpoint.midi > m.cantus.midi)
            .count();
        let below = moments
            .iter()
            .filter(|m| m.counterpoint.midi < m.cantus.midi)
            .count();
        let cp_first = score.voices.iter().position(|v| v.name == cp_voice.name)
            < score.voices.iter().position(|v| v.name == cf_voice.name);
        let p = if above > below || (above == below && cp_first) {
            Position::Above
        } else {
            Position::Below
        };
        inferred.push(format!("counterpoint {p} the cantus (from the pitches)"));
        p
    });
    let spelling = match (written, total) {
        (w, t) if w == t && cf_pitches.iter().all(|p| p.spelling.is_some()) => {
            SpellingSource::Written
        }
        (0, _) if cf_pitches.iter().all(|p| p.spelling.is_none()) => {
            SpellingSource::InferredFromMode
        }
        _ => SpellingSource::Mixed,
    };
    Ok(Reading {
        exercise: Exercise {
            species,
            position,
            modality,
            cantus,
            moments,
            cantus_voice: cf_voice.name.clone(),
            counterpoint_voice: cp_voice.name.clone(),
        },
        rhythm,
        spelling,
        rest_start,
        inferred,
    })
}
