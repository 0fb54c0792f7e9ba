//! The piece as the analyser reads it: one list of *tones* across the whole texture.
//!
//! Real twelve-tone music passes a statement between voices, doubles notes at the
//! octave and writes segments as chords, so the analyser does not look at voices
//! first. Every pitch of every event becomes a note; notes that start together on the
//! same pitch class are one **tone** (an octave doubling, or a unison between
//! instruments, realises one order position once). Tones are sorted by onset; all the
//! tones starting at one onset form a **block**, inside which order is free (a chord,
//! or a segment spread over several instruments at once).
//!
//! Time is integer ticks on one grid (`gate::time`), so the search compares onsets
//! without rational arithmetic.
//!
//! **Grace notes** (events flagged `grace`, read when the caller asked for them) are
//! notes like any other, at the onset of the note they lead to, but they sound before
//! it: the grace notes written last before an onset form a block of their own just
//! before that onset's block, those written before them one before that, and so on
//! (across voices, the grace notes the same number of places before their note share
//! a block). So a row tone written as a grace note keeps its place in the order.

use crate::gate::time::{GridBuilder, GridProblem, Ticker};
use crate::row::PitchClass;
use cantus_music::{Score, Time};

/// One pitch of one event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Note {
    pub voice: u32,
    /// Index of the event in its voice.
    pub event: u32,
    pub midi: u8,
}

/// Notes starting at one onset on one pitch class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tone {
    pub onset: i64,
    /// 0 for notes that take time; `-k` for grace notes written `k` places before
    /// the note they lead to (they sound just before `onset`).
    pub grace: i8,
    /// Index of its block (its onset) in [`Texture::blocks`].
    pub block: u32,
    pub pc: PitchClass,
    /// Voices sounding it, as bits `voice % 64` (for continuity, not identity).
    pub voices: u64,
    /// The events sounding it, as bits `(voice * 7919 + event) % 64`: two tones of
    /// one chord share a bit (for chords, not identity).
    pub events: u64,
    /// Whether every note of it repeats a pitch class its voice sounded in one of
    /// its two previous events (a repeated note, a tremolo's return).
    pub echo: bool,
    /// Its notes: `Texture::notes[first..first + count]`, voice order.
    pub first: u32,
    pub count: u32,
    /// How long its first note's event lasts, in ticks (0 for a grace note).
    pub duration: i64,
}

/// The whole texture as tones.
#[derive(Clone, Debug)]
pub(crate) struct Texture {
    /// Every note, grouped by tone (tone order, then voice, then pitch).
    pub notes: Vec<Note>,
    /// Sorted by onset, then pitch class.
    pub tones: Vec<Tone>,
    /// `blocks[b]`: index of the first tone of block `b`.
    pub blocks: Vec<u32>,
    /// Tones of each pitch class, ascending.
    pub by_pc: [Vec<u32>; 12],
    /// Ticks per quarter note.
    pub per_quarter: i64,
    /// One bar, in ticks.
    pub bar: i64,
    /// Notes sounding, on average, at an onset (held notes included), at least 1: how
    /// many tones other statements put between two positions of one.
    pub density: u32,
    /// The tone at each (onset, grace place, pitch class).
    pub at: std::collections::HashMap<(i64, i8, PitchClass), u32>,
}

impl Texture {
    /// Reads `score`; fails only if its times fit on no integer grid.
    pub fn new(score: &Score) -> Result<Texture, GridProblem> {
        let mut grid = GridBuilder::default();
        grid.add(score.bar_length())?;
        for voice in &score.voices {
            for e in &voice.events {
                grid.add(e.onset)?;
                grid.add(e.duration)?;
            }
        }
        let mut ticker = Ticker::new(grid.finish());
        let bar = ticker.ticks(score.bar_length())?.max(1);
        let mut raw: Vec<(i64, i8, PitchClass, Note, i64)> =
            Vec::with_capacity(score.event_count());
        for (v, voice) in score.voices.iter().enumerate() {
            let graces = grace_places(&voice.events);
            for (k, e) in voice.events.iter().enumerate() {
                let onset = ticker.ticks(e.onset)?;
                let duration = ticker.ticks(e.duration)?;
                for p in &e.pitches {
                    let note = Note {
                        voice: u32::try_from(v).unwrap_or(u32::MAX),
                        event: u32::try_from(k).unwrap_or(u32::MAX),
                        midi: p.midi,
                    };
                    raw.push((onset, graces[k], p.midi % 12, note, duration));
                }
            }
        }
        raw.sort_by_key(|&(onset, grace, pc, n, _)| (onset, grace, pc, n.voice, n.midi, n.event));
        let mut tex = Texture {
            notes: Vec::with_capacity(raw.len()),
            tones: Vec::new(),
            blocks: Vec::new(),
            by_pc: Default::default(),
            per_quarter: ticker.per_quarter(),
            bar,
            density: 1,
            at: std::collections::HashMap::new(),
        };
        for (onset, grace, pc, note, duration) in raw {
            let index = u32::try_from(tex.notes.len()).unwrap_or(u32::MAX);
            tex.notes.push(note);
            match tex.tones.last_mut() {
                Some(t) if t.onset == onset && t.grace == grace && t.pc == pc => {
                    t.count += 1;
                    t.voices |= voice_bit(note.voice);
                    t.events |= event_bit(note);
                }
                _ => {
                    let same_block = tex
                        .tones
                        .last()
                        .is_some_and(|t| t.onset == onset && t.grace == grace);
                    let tone = u32::try_from(tex.tones.len()).unwrap_or(u32::MAX);
                    if !same_block {
                        tex.blocks.push(tone);
                    }
                    let block = u32::try_from(tex.blocks.len() - 1).unwrap_or(u32::MAX);
                    tex.by_pc[usize::from(pc)].push(tone);
                    tex.tones.push(Tone {
                        onset,
                        grace,
                        block,
                        pc,
                        voices: voice_bit(note.voice),
                        events: event_bit(note),
                        echo: false,
                        first: index,
                        count: 1,
                        duration,
                    });
                }
            }
        }
        tex.at = tex
            .tones
            .iter()
            .enumerate()
            .map(|(i, t)| ((t.onset, t.grace, t.pc), i as u32))
            .collect();
        tex.density = tex.sounding(score, &mut ticker)?;
        tex.mark_echoes(score);
        Ok(tex)
    }

    /// Sets [`Tone::echo`]: a note is an echo when its voice's previous event, or
    /// the one before, sounded its pitch class.
    fn mark_echoes(&mut self, score: &Score) {
        let mut masks: Vec<Vec<u16>> = score
            .voices
            .iter()
            .map(|v| {
                v.events
                    .iter()
                    .map(|e| e.pitches.iter().fold(0u16, |m, p| m | 1 << (p.midi % 12)))
                    .collect()
            })
            .collect();
        for tone in &mut self.tones {
            let first = tone.first as usize;
            tone.echo = self.notes[first..first + tone.count as usize]
                .iter()
                .all(|n| {
                    let Some(events) = masks.get_mut(n.voice as usize) else {
                        return false;
                    };
                    let k = n.event as usize;
                    let bit = 1u16 << tone.pc;
                    let before = |back: usize| {
                        k.checked_sub(back)
                            .and_then(|j| events.get(j))
                            .is_some_and(|&m| m & bit != 0)
                    };
                    before(1) || before(2)
                });
        }
    }

    /// The average number of notes sounding at an onset: each event's pitches times
    /// the onsets it holds through, over the number of onsets (rounded up).
    fn sounding(&self, score: &Score, ticker: &mut Ticker) -> Result<u32, GridProblem> {
        let onsets: Vec<i64> = self
            .blocks
            .iter()
            .map(|&t| self.tones[t as usize].onset)
            .collect();
        if onsets.is_empty() {
            return Ok(1);
        }
        let mut held: u64 = 0;
        for voice in &score.voices {
            for e in &voice.events {
                let start = ticker.ticks(e.onset)?;
                let end = start.saturating_add(ticker.ticks(e.duration).unwrap_or(0).max(1));
                let from = onsets.partition_point(|&o| o < start);
                let to = onsets.partition_point(|&o| o < end);
                held += (to - from) as u64 * e.pitches.len() as u64;
            }
        }
        let n = onsets.len() as u64;
        Ok(u32::try_from(held.div_ceil(n).max(1)).unwrap_or(u32::MAX))
    }

    /// The notes of tone `t`.
    pub fn notes_of(&self, t: u32) -> &[Note] {
        let tone = &self.tones[t as usize];
        let first = tone.first as usize;
        &self.notes[first..first + tone.count as usize]
    }

    /// Index of the first tone sounding at the onset of tone `t`.
    pub fn block_start(&self, t: u32) -> u32 {
        self.blocks[self.tones[t as usize].block as usize]
    }

    /// `ticks` as exact quarter notes.
    pub fn time(&self, ticks: i64) -> Time {
        crate::gate::time::to_time(i128::from(ticks), self.per_quarter)
    }
}

/// For each event of a voice (sorted, grace notes before the note they lead to):
/// 0, or for a grace note `-k`, `k` being its place counted back from the first
/// event at its onset that takes time (the last grace note before it is `-1`).
fn grace_places(events: &[cantus_music::Event]) -> Vec<i8> {
    let mut out = vec![0i8; events.len()];
    let mut k = events.len();
    let mut run = 0i8;
    while k > 0 {
        k -= 1;
        if !events[k].is_grace() {
            run = 0;
            continue;
        }
        // The event after it is at its onset: its note (run 0) or a later grace note.
        let same_onset = events
            .get(k + 1)
            .is_some_and(|e| e.onset == events[k].onset);
        run = if same_onset {
            run.saturating_sub(1)
        } else {
            -1
        };
        out[k] = run;
    }
    out
}

/// The continuity bit of a voice.
pub(crate) fn voice_bit(voice: u32) -> u64 {
    1 << (voice % 64)
}

/// The chord bit of a note's event.
fn event_bit(note: Note) -> u64 {
    let key = u64::from(note.voice) * 7919 + u64::from(note.event);
    1 << (key % 64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cantus_music::{Event, Pitch, Voice};

    fn ev(onset: i64, pitches: &[u8]) -> Event {
        Event::new(
            Time::from_integer(onset),
            Time::from_integer(1),
            pitches.iter().map(|&m| Pitch::new(m)).collect(),
        )
    }

    #[test]
    fn octave_doublings_merge_and_chords_share_a_block() {
        let score = Score {
            voices: vec![
                Voice {
                    name: "A".into(),
                    events: vec![ev(0, &[60, 64]), ev(1, &[62])],
                    ..Voice::default()
                },
                Voice {
                    name: "B".into(),
                    events: vec![ev(0, &[48]), ev(2, &[61])],
                    ..Voice::default()
                },
            ],
            ..Score::default()
        };
        let tex = Texture::new(&score).unwrap();
        // C (two notes, two voices) and E at onset 0; D at 1; C# at 2.
        let pcs: Vec<u8> = tex.tones.iter().map(|t| t.pc).collect();
        assert_eq!(pcs, vec![0, 4, 2, 1]);
        assert_eq!(tex.tones[0].count, 2);
        assert_eq!(tex.tones[0].voices, 0b11);
        assert_eq!(tex.blocks, vec![0, 2, 3]);
        assert_eq!(tex.block_start(1), 0);
        assert_eq!(tex.by_pc[0], vec![0]);
        assert_eq!(tex.notes_of(0).len(), 2);
    }
}
