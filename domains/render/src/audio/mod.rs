//! Hearing a score: its notes played through a General MIDI SoundFont by
//! rustysynth, a pure-Rust SoundFont synthesiser, and encoded as WAV, FLAC or
//! Ogg Vorbis.
//!
//! # Why rustysynth
//!
//! It is a maintained port of MeltySynth with no dependency but the standard
//! library: nothing to install beyond the SoundFont, no subprocess, and the
//! same samples on every machine. The notes are sent to it directly at the
//! sample their onset falls on under the [`TempoMap`] (no MIDI file in between),
//! so the audio lasts exactly as long as the score: its bars × beats at the
//! tempo (the last note's release is cut at the final barline, with a short
//! fade so it does not click).
//!
//! # Voices
//!
//! Voice `i` plays on MIDI channel `i` (skipping the drum channel 9, wrapping
//! after 15 voices) with the program [`program_for`] picks from its name. A
//! pitch struck again while still sounding in its channel is re-struck and held
//! until its last overlapping note ends.

mod encode;
mod instrument;
mod tempo;

pub use encode::{AudioFormat, encode};
pub use instrument::program_for;
pub use tempo::{DEFAULT_BPM, TempoMap};

use crate::error::{RenderError, Result};
use cantus_music::{Score, Time};
use rustysynth::{SoundFont, Synthesizer, SynthesizerSettings};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// Sample rate of every rendering.
pub const SAMPLE_RATE: u32 = 44_100;

/// Longest audio rendered, in seconds (its samples are held in memory: 10 minutes
/// of stereo is about 200 MB).
pub const MAX_SECONDS: f64 = 600.0;

/// Shortest audio rendered, in seconds: a piece over sooner (a tempo of a
/// billion beats a minute) would be an empty file, not a rendering.
pub const MIN_SECONDS: f64 = 0.1;

/// Velocity of every note (as the MIDI writer's).
const VELOCITY: i32 = cantus_music::midi::NOTE_ON_VELOCITY as i32;

/// Channels voices take, in order (no drum channel).
const CHANNELS: [i32; 15] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15];

/// Length of the fade at the end, in samples (10 ms).
const FADE: usize = SAMPLE_RATE as usize / 100;

/// A SoundFont loaded once and used for many renderings.
#[derive(Clone)]
pub struct Instrument {
    font: Arc<SoundFont>,
    path: std::path::PathBuf,
}

impl Instrument {
    /// Loads a SoundFont file.
    pub fn load(path: &Path) -> Result<Instrument> {
        let mut file = std::fs::File::open(path).map_err(|e| RenderError::io(path, e))?;
        let font = SoundFont::new(&mut file).map_err(|e| RenderError::Synth {
            path: path.to_path_buf(),
            message: format!("not a readable SoundFont: {e:?}"),
        })?;
        Ok(Instrument {
            font: Arc::new(font),
            path: path.to_path_buf(),
        })
    }

    /// The SoundFont's file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Stereo samples of a rendered score.
#[derive(Clone, Debug)]
pub struct Audio {
    pub left: Vec<f32>,
    pub right: Vec<f32>,
    pub rate: u32,
}

impl Audio {
    /// Length in seconds.
    pub fn seconds(&self) -> f64 {
        self.left.len() as f64 / f64::from(self.rate)
    }
}

/// The score's length in seconds: its bars (declared, or enough for every note)
/// × the bar length, under the tempo map.
pub fn score_seconds(score: &Score, tempo: &TempoMap) -> f64 {
    let bars = Time::from_integer(i64::from(score.bar_count().max(1)));
    tempo.seconds_at(score.bar_length() * bars)
}

/// Plays `score` through the instrument under `tempo`.
pub fn synthesise(score: &Score, tempo: &TempoMap, instrument: &Instrument) -> Result<Audio> {
    let seconds = score_seconds(score, tempo);
    if !(seconds.is_finite() && seconds <= MAX_SECONDS) {
        return Err(RenderError::Duration(format!(
            "the score lasts {seconds:.0} s; at most {MAX_SECONDS:.0} s are rendered"
        )));
    }
    if seconds < MIN_SECONDS {
        return Err(RenderError::Duration(format!(
            "the score lasts {seconds:.2e} s at its tempo; at least {MIN_SECONDS} s are \
             rendered (is the tempo right?)"
        )));
    }
    let total = (seconds * f64::from(SAMPLE_RATE)).round() as usize;
    let settings = SynthesizerSettings::new(SAMPLE_RATE as i32);
    let mut synth =
        Synthesizer::new(&instrument.font, &settings).map_err(|e| RenderError::Synth {
            path: instrument.path.clone(),
            message: format!("{e:?}"),
        })?;
    for (i, voice) in score.voices.iter().enumerate().take(CHANNELS.len()) {
        let program = i32::from(program_for(&voice.name));
        synth.process_midi_message(CHANNELS[i], 0xC0, program, 0);
    }

    // (sample, order, channel, key): note-offs (order 0) before note-ons at a sample.
    let mut messages: Vec<(usize, u8, i32, i32)> = Vec::new();
    let sample = |t: Time| (tempo.seconds_at(t) * f64::from(SAMPLE_RATE)).round() as usize;
    for (i, voice) in score.voices.iter().enumerate() {
        let channel = CHANNELS[i % CHANNELS.len()];
        for event in &voice.events {
            let (on, off) = (sample(event.onset), sample(event.end()).min(total));
            if on >= total {
                continue;
            }
            for p in &event.pitches {
                messages.push((on, 1, channel, i32::from(p.midi.min(127))));
                messages.push((off, 0, channel, i32::from(p.midi.min(127))));
            }
        }
    }
    messages.sort_unstable();

    let mut left = vec![0f32; total];
    let mut right = vec![0f32; total];
    let mut sounding: HashMap<(i32, i32), u32> = HashMap::new();
    let mut cursor = 0usize;
    for (at, order, channel, key) in messages {
        let at = at.min(total);
        if at > cursor {
            synth.render(&mut left[cursor..at], &mut right[cursor..at]);
            cursor = at;
        }
        let count = sounding.entry((channel, key)).or_insert(0);
        if order == 1 {
            if *count > 0 {
                synth.note_off(channel, key);
            }
            synth.note_on(channel, key, VELOCITY);
            *count += 1;
        } else {
            *count = count.saturating_sub(1);
            if *count == 0 {
                synth.note_off(channel, key);
            }
        }
    }
    if cursor < total {
        synth.render(&mut left[cursor..], &mut right[cursor..]);
    }
    normalise_and_fade(&mut left, &mut right);
    Ok(Audio {
        left,
        right,
        rate: SAMPLE_RATE,
    })
}

/// Scales the samples down if they would clip, and fades out the last 10 ms.
fn normalise_and_fade(left: &mut [f32], right: &mut [f32]) {
    let peak = left
        .iter()
        .chain(right.iter())
        .fold(0f32, |m, x| m.max(x.abs()));
    if peak > 0.98 {
        let scale = 0.98 / peak;
        left.iter_mut()
            .chain(right.iter_mut())
            .for_each(|x| *x *= scale);
    }
    let n = left.len();
    let fade = FADE.min(n);
    for k in 0..fade {
        let gain = k as f32 / fade as f32;
        left[n - 1 - k] *= gain;
        right[n - 1 - k] *= gain;
    }
}

/// Renders and encodes in one step.
pub fn render(
    score: &Score,
    tempo: &TempoMap,
    instrument: &Instrument,
    format: AudioFormat,
) -> Result<Vec<u8>> {
    let audio = synthesise(score, tempo, instrument)?;
    encode(&audio.left, &audio.right, audio.rate, format)
}
