//! The example plugins as a symbolic twelve-tone proposer: when a request's
//! `context.domain` is `"twelve-tone"`, the plugin answers the LLM proposer's section,
//! patch and rewrite requests with exactly the voice lines its reply reader takes
//! (`Name: PITCH@SLOT>LENGTH …`, chords joined by `+`, slots counted from 1 at the
//! section start), deterministically, from the structured context alone.
//!
//! It exists to show that a plugin needs no language model to drive the whole harness
//! (propose → verify → repair → release) and to give tests a backend whose pieces can
//! be released. The verifier remains the judge: the plugin only sees the request, not
//! the notes accepted before it, so it cannot know every collision.
//!
//! The rules, shared word for word with the Python example:
//!
//! 0. A note the planner advises (an entry of `context.plan` with the note's voice and
//!    tag, sent when the voice is held to the rules only) takes the advised onset slot
//!    as its window and at most the advised length, where its window allows them.
//! 1. Voices are placed in the order the context lists them; each voice's notes in order.
//! 2. Timing: the earliest onset in the note's window, and at it the longest length
//!    (at most `max_length`, never past the next owed note's earliest onset or the
//!    section's end) that sounds no owed pitch class together with a note of the same
//!    pitch class already placed in another voice. When every onset collides, the
//!    window's first onset and its longest length.
//! 3. Pitch: for each pitch class, the pitches of it inside the register, nearest first
//!    to the voice's previous note (for its first note, `previous_pitch` — its last
//!    accepted note — else the register's middle, rounded down), then to the middle,
//!    then lower first; the first that crosses no note of another voice sounding with
//!    it (an upper voice — lower index — stays at or above a lower one). When all
//!    cross, the nearest.
//! 4. A chord's pitches are written low to high; the previous note for the next one is
//!    the pitch chosen for the chord's first pitch class.

mod read;

pub use read::{Job, MAX_SLOTS, OwedNote, VoiceJob, job_from_context, valid_voice};

use serde_json::{Map, Value, json};

const SHARP_NAMES: [&str; 12] = [
    "C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B",
];

/// A note the plugin has written: its voice index, onset slot (1-based), length in
/// slots and MIDI pitches (low to high).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    /// The voice's index in the piece (lower = upper voice).
    pub voice: u32,
    /// Onset slot, counted from 1 at the section start.
    pub onset: u32,
    /// Length in slots (at least 1).
    pub length: u32,
    /// MIDI pitches, low to high.
    pub pitches: Vec<u8>,
}

impl Placed {
    /// The first slot after the note.
    fn end(&self) -> u32 {
        self.onset + self.length
    }

    /// Whether the note sounds during any of slots `onset..onset + length`.
    fn overlaps(&self, onset: u32, length: u32) -> bool {
        self.onset < onset + length && onset < self.end()
    }

    /// Whether the note sounds one of `pcs`.
    fn shares(&self, pcs: &[u8]) -> bool {
        self.pitches.iter().any(|p| pcs.contains(&(p % 12)))
    }
}

/// The onset and length of `note` (rule 2), given the earliest onset of the voice's
/// next note (or the slot after the section) and the notes other voices hold.
fn timing(note: &OwedNote, next_onset: u32, others: &[Placed]) -> (u32, u32) {
    let room = |onset: u32| note.max_length.min(next_onset.saturating_sub(onset));
    for onset in note.onset_lo..=note.onset_hi {
        let mut longest = room(onset);
        if longest == 0 {
            continue;
        }
        let rivals = || others.iter().filter(|o| o.shares(&note.pcs));
        if rivals().any(|o| o.overlaps(onset, 1)) {
            continue;
        }
        for rival in rivals().filter(|o| o.onset > onset) {
            longest = longest.min(rival.onset - onset);
        }
        return (onset, longest);
    }
    (note.onset_lo, room(note.onset_lo).max(1))
}

/// Whether `pitch` in voice `voice` crosses a note of `other` (rule 3).
fn crosses(pitch: u8, voice: u32, other: &Placed) -> bool {
    let (Some(&lowest), Some(&highest)) = (other.pitches.first(), other.pitches.last()) else {
        return false;
    };
    (other.voice < voice && pitch > lowest) || (other.voice > voice && pitch < highest)
}

/// The pitch of `pc` for `voice` (rule 3), or `None` when its register holds none.
fn pitch(pc: u8, target: u8, voice: &VoiceJob, sounding: &[&Placed]) -> Option<u8> {
    let middle = (u16::from(voice.low) + u16::from(voice.high)) / 2;
    let mut candidates: Vec<u8> = (voice.low..=voice.high).filter(|p| p % 12 == pc).collect();
    candidates.sort_by_key(|&p| (p.abs_diff(target), u16::from(p).abs_diff(middle), p));
    candidates
        .iter()
        .copied()
        .find(|&p| !sounding.iter().any(|o| crosses(p, voice.voice, o)))
        .or_else(|| candidates.first().copied())
}

/// The name of a MIDI pitch with sharps, C4 = 60.
pub fn pitch_name(midi: u8) -> String {
    format!(
        "{}{}",
        SHARP_NAMES[usize::from(midi % 12)],
        i32::from(midi / 12) - 1
    )
}

/// Every voice's notes for `job`, in the context's voice order (rules 1–4), or why a
/// voice cannot sound what it owes.
pub fn place(job: &Job) -> Result<Vec<Vec<Placed>>, String> {
    let mut placed: Vec<Placed> = Vec::new();
    let mut lines = Vec::with_capacity(job.voices.len());
    for (i, voice) in job.voices.iter().enumerate() {
        let middle = ((u16::from(voice.low) + u16::from(voice.high)) / 2) as u8;
        let mut previous: Option<u8> = voice.previous;
        let mut line: Vec<Placed> = Vec::with_capacity(voice.notes.len());
        for (j, note) in voice.notes.iter().enumerate() {
            let next_onset = voice
                .notes
                .get(j + 1)
                .map_or(job.slots + 1, |n| n.onset_lo)
                .min(job.slots + 1);
            let (onset, length) = timing(note, next_onset, &placed);
            let sounding: Vec<&Placed> = placed
                .iter()
                .filter(|o| o.voice != voice.voice && o.overlaps(onset, length))
                .collect();
            let target = previous.unwrap_or(middle);
            let mut pitches = Vec::with_capacity(note.pcs.len());
            for &pc in &note.pcs {
                let p = pitch(pc, target, voice, &sounding).ok_or_else(|| {
                    format!(
                        "context.voices[{i}].register [{}, {}] holds no pitch of pitch class {pc} \
                         (owed by context.voices[{i}].notes[{j}])",
                        voice.low, voice.high
                    )
                })?;
                pitches.push(p);
            }
            previous = pitches.first().copied();
            pitches.sort_unstable();
            line.push(Placed {
                voice: voice.voice,
                onset,
                length,
                pitches,
            });
        }
        placed.extend(line.iter().cloned());
        lines.push(line);
    }
    Ok(lines)
}

/// The reply text: one line per voice that owes notes, `Name: PITCH@SLOT>LENGTH …`.
pub fn write(job: &Job, lines: &[Vec<Placed>]) -> String {
    let mut text = String::new();
    for (voice, line) in job.voices.iter().zip(lines) {
        if line.is_empty() {
            continue;
        }
        let tokens: Vec<String> = line
            .iter()
            .map(|n| {
                let names: Vec<String> = n.pitches.iter().map(|&p| pitch_name(p)).collect();
                format!("{}@{}>{}", names.join("+"), n.onset, n.length)
            })
            .collect();
        text.push_str(&voice.name);
        text.push_str(": ");
        text.push_str(&tokens.join(" "));
        text.push('\n');
    }
    text
}

/// The reply JSON to a twelve-tone context, or why it cannot be answered.
pub fn answer(ctx: &Map<String, Value>) -> Result<Value, String> {
    let job = job_from_context(ctx)?;
    let lines = place(&job)?;
    Ok(json!({
        "text": write(&job, &lines),
        "model": "example-serial",
        "stop_reason": "stop",
    }))
}
