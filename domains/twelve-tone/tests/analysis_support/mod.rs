//! Planting ground truth for the analyser: a released piece's statements (read from
//! its row tags) disguised the way composers write them — passed between voices,
//! with repeated notes and tremolos, octave doublings, adjacent positions sounded as
//! chords, elisions, missing notes and row tones written as grace notes — each change
//! recorded, so the analysis can be checked against what was planted. `canons.rs`
//! plants canons whose strands interleave note by note.
#![allow(dead_code)]

pub mod canons;
pub mod disguise;

use cantus_music::{Event, Pitch, Score, Time, Voice};
use cantus_twelve_tone::Tag;
use cantus_twelve_tone::row::{FormTable, RowForm};
use std::collections::HashMap;

/// One note: a pitch and the statement position it sounds, if any (doublings and
/// repetitions sound none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Note {
    pub midi: u8,
    pub at: Option<(usize, u8)>,
}

/// One event of the working piece.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ev {
    pub voice: usize,
    pub onset: Time,
    pub duration: Time,
    pub notes: Vec<Note>,
    /// A grace note (duration zero, before the note at its onset).
    pub grace: bool,
}

/// A statement as planted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planted {
    pub form: RowForm,
    /// Positions (1-based) deliberately removed.
    pub missing: Vec<u8>,
    /// The statement that follows it in its voice (for elisions).
    pub next: Option<usize>,
    /// Whether its first positions are shared with the statement before it.
    pub elided: u8,
}

/// A piece being disguised.
#[derive(Clone, Debug)]
pub struct Working {
    pub voices: Vec<String>,
    pub template: Score,
    pub events: Vec<Ev>,
    pub statements: Vec<Planted>,
    pub table: FormTable,
    /// Counts of each kind of change made.
    pub planted: HashMap<&'static str, usize>,
}

impl Working {
    /// Reads a released piece: each voice's tagged events, a statement starting at
    /// every tag that begins at position 1.
    pub fn from_released(score: &Score, table: FormTable) -> Working {
        let mut events = Vec::new();
        let mut statements: Vec<Planted> = Vec::new();
        for (v, voice) in score.voices.iter().enumerate() {
            let mut current: Option<usize> = None;
            for e in &voice.events {
                let tag: Tag = e
                    .tag
                    .as_deref()
                    .expect("released events are tagged")
                    .parse()
                    .expect("released tags read");
                if tag.start == 0 || current.is_none() {
                    let id = statements.len();
                    if let Some(prev) = current {
                        statements[prev].next = Some(id);
                    }
                    statements.push(Planted {
                        form: tag.form,
                        missing: Vec::new(),
                        next: None,
                        elided: 0,
                    });
                    current = Some(id);
                }
                let s = current.unwrap_or_default();
                let notes = e
                    .pitches
                    .iter()
                    .map(|p| Note {
                        midi: p.midi,
                        at: Some((s, table.position_of(tag.form, p.midi % 12))),
                    })
                    .collect();
                events.push(Ev {
                    voice: v,
                    onset: e.onset,
                    duration: e.duration,
                    notes,
                    grace: false,
                });
            }
        }
        let mut template = score.clone();
        for v in &mut template.voices {
            v.events.clear();
        }
        Working {
            voices: score.voices.iter().map(|v| v.name.clone()).collect(),
            template,
            events,
            statements,
            table,
            planted: HashMap::new(),
        }
    }

    /// The piece as a score (untagged: the analyser reads pitches only). Grace notes
    /// of one onset keep the order they have in `events`.
    pub fn score(&self) -> Score {
        let mut score = self.template.clone();
        for e in &self.events {
            let pitches = e.notes.iter().map(|n| Pitch::new(n.midi)).collect();
            let event = if e.grace {
                Event::grace_note(e.onset, pitches, cantus_music::Grace::Acciaccatura)
            } else {
                Event::new(e.onset, e.duration, pitches)
            };
            score.voices[e.voice].events.push(event);
        }
        score.sort();
        score
    }

    /// Indices of the events holding positions of statement `s`, by position.
    pub fn events_of(&self, s: usize) -> Vec<usize> {
        let mut found: Vec<(u8, usize)> = Vec::new();
        for (i, e) in self.events.iter().enumerate() {
            for n in &e.notes {
                if let Some((t, k)) = n.at
                    && t == s
                {
                    found.push((k, i));
                }
            }
        }
        found.sort();
        let mut out: Vec<usize> = found.into_iter().map(|(_, i)| i).collect();
        out.dedup();
        out
    }

    /// The position notes of statement `s`: (position 1-based, voice, onset, midi).
    pub fn notes_of(&self, s: usize) -> Vec<(u8, usize, Time, u8)> {
        let mut out = Vec::new();
        for e in &self.events {
            for n in &e.notes {
                if let Some((t, k)) = n.at
                    && t == s
                {
                    out.push((k + 1, e.voice, e.onset, n.midi));
                }
            }
        }
        // An elided statement's first positions are its predecessor's last ones.
        let elided = self.statements[s].elided;
        if elided > 0
            && let Some(prev) = self.statements.iter().position(|p| p.next == Some(s))
        {
            for (k, v, t, m) in self.notes_of(prev) {
                if k > 12 - elided {
                    out.push((k - (12 - elided), v, t, m));
                }
            }
        }
        out.sort();
        out
    }

    /// Whether what was planted is the only right reading: no two statements sound
    /// a position at the same onset on the same pitch class (which would make them
    /// one tone), no extra note (doubling, repetition) lands on another statement's
    /// tone, and no note of a left-out position's pitch class sounds anywhere
    /// between that position's neighbours (else the texture itself completes the
    /// statement, and no analyst could say it is incomplete).
    pub fn is_unambiguous(&self) -> bool {
        self.no_shared_tones() && self.gaps_are_empty()
    }

    fn gaps_are_empty(&self) -> bool {
        for (s, planted) in self.statements.iter().enumerate() {
            if planted.missing.is_empty() {
                continue;
            }
            let notes = self.notes_of(s);
            let pcs = self.table.pcs(planted.form);
            for &m in &planted.missing {
                let before = notes.iter().filter(|n| n.0 < m).map(|n| n.2).max();
                let after = notes.iter().filter(|n| n.0 > m).map(|n| n.2).min();
                let (Some(lo), Some(hi)) = (before, after) else {
                    return false;
                };
                let pc = pcs[usize::from(m - 1)];
                let crowded = self.events.iter().any(|e| {
                    e.onset >= lo && e.onset <= hi && e.notes.iter().any(|n| n.midi % 12 == pc)
                });
                if crowded {
                    return false;
                }
            }
        }
        true
    }

    fn no_shared_tones(&self) -> bool {
        let mut owner: HashMap<(Time, u8), usize> = HashMap::new();
        for e in &self.events {
            for n in &e.notes {
                if let Some((s, _)) = n.at {
                    let key = (e.onset, n.midi % 12);
                    if *owner.entry(key).or_insert(s) != s {
                        return false;
                    }
                }
            }
        }
        for e in &self.events {
            let here: Vec<usize> = e.notes.iter().filter_map(|n| n.at.map(|a| a.0)).collect();
            for n in e.notes.iter().filter(|n| n.at.is_none()) {
                if let Some(&s) = owner.get(&(e.onset, n.midi % 12))
                    && !here.contains(&s)
                    && !self.doubles_own(e, n, s)
                {
                    return false;
                }
            }
        }
        true
    }

    /// Whether extra note `n` of `e` doubles a position of statement `s` sounding at
    /// the same onset (planted doublings in another voice).
    fn doubles_own(&self, e: &Ev, n: &Note, s: usize) -> bool {
        self.events.iter().any(|f| {
            f.onset == e.onset
                && f.notes
                    .iter()
                    .any(|m| m.at.map(|a| a.0) == Some(s) && m.midi % 12 == n.midi % 12)
        })
    }

    pub fn count(&mut self, kind: &'static str) {
        *self.planted.entry(kind).or_default() += 1;
    }
}

/// A voice name list as `Voice`s (for building scores by hand).
pub fn voices(names: &[String]) -> Vec<Voice> {
    names.iter().map(Voice::new).collect()
}
