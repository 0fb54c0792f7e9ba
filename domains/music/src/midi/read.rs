//! Standard MIDI File → score.
//!
//! Reading is forgiving where a file is odd but still meaningful (a note never
//! switched off, a stray note-off, a tempo change the single-tempo model cannot
//! hold) and reports those as [`MidiWarning`]s; it fails with a [`MidiError`] only
//! where no faithful score exists (unparseable bytes, SMPTE timing, format 2, a
//! time or key signature the model cannot hold). It never panics: only midly's
//! non-panicking parser is used and every number from the file is range-checked.

use super::MidiError;
use super::tempo::bpm_from_micros;
use crate::score::{Event, Key, Meter, Mode, Pitch, Score, Time, Voice, unique_name};
use midly::{Format, MetaMessage, MidiMessage, Smf, Timing, TrackEvent, TrackEventKind};
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::fmt;

/// Something odd in a file that [`read_with_warnings`] read anyway.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MidiWarning {
    /// A note-on with no matching note-off; the note ends at the end of its track.
    UnclosedNote {
        /// 0-based track index.
        track: usize,
        /// 0-based MIDI channel.
        channel: u8,
        /// MIDI key.
        key: u8,
        /// Tick of the note-on.
        onset_tick: u64,
        /// Tick of the end of the track, where the note now ends.
        end_tick: u64,
    },
    /// A note-off (or note-on with velocity 0) with no sounding note of its key.
    StrayNoteOff {
        /// 0-based track index.
        track: usize,
        /// 0-based MIDI channel.
        channel: u8,
        /// MIDI key.
        key: u8,
        /// Tick of the note-off.
        tick: u64,
    },
    /// A note that ends where it starts; it is left out.
    ZeroLengthNote {
        /// 0-based track index.
        track: usize,
        /// 0-based MIDI channel.
        channel: u8,
        /// MIDI key.
        key: u8,
        /// Tick of the note-on.
        tick: u64,
    },
    /// The same key twice with the same onset and end in one voice; kept once.
    DuplicateNote {
        /// Name of the voice (as read).
        voice: String,
        /// MIDI key.
        key: u8,
        /// Tick of the onsets.
        tick: u64,
    },
    /// A later tempo, time or key signature that differs from the first one; the
    /// score model has one of each, so it is ignored.
    IgnoredChange {
        /// 0-based track index.
        track: usize,
        /// Tick of the ignored event.
        tick: u64,
        /// `"tempo"`, `"time signature"` or `"key signature"`.
        what: &'static str,
    },
    /// The file's byte structure is damaged (lenient reading only, or harmless
    /// oddities such as a missing End of Track): what and where.
    Damaged {
        /// The fault, naming the chunk and byte offsets.
        what: String,
    },
}

impl fmt::Display for MidiWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MidiWarning::UnclosedNote {
                track,
                channel,
                key,
                onset_tick,
                end_tick,
            } => write!(
                f,
                "track {track}, channel {channel}: key {key} switched on at tick {onset_tick} is never switched off; ended at the end of the track (tick {end_tick})"
            ),
            MidiWarning::StrayNoteOff {
                track,
                channel,
                key,
                tick,
            } => write!(
                f,
                "track {track}, channel {channel}: note-off for key {key} at tick {tick} with no sounding note; ignored"
            ),
            MidiWarning::ZeroLengthNote {
                track,
                channel,
                key,
                tick,
            } => write!(
                f,
                "track {track}, channel {channel}: key {key} at tick {tick} has zero length; left out"
            ),
            MidiWarning::DuplicateNote { voice, key, tick } => write!(
                f,
                "voice {voice:?}: key {key} sounds twice from tick {tick} with the same length; kept once"
            ),
            MidiWarning::IgnoredChange { track, tick, what } => write!(
                f,
                "track {track}, tick {tick}: {what} change ignored (a score has one {what})"
            ),
            MidiWarning::Damaged { what } => write!(f, "damaged file: {what}; read what is there"),
        }
    }
}

/// Reads a Standard MIDI File (format 0 or 1) into a score; see
/// [`read_with_warnings`] for what is read and how.
pub fn read(bytes: &[u8]) -> Result<Score, MidiError> {
    read_with_warnings(bytes).map(|(score, _)| score)
}

/// Reads a Standard MIDI File (format 0 or 1) into a score, with warnings about
/// what was odd in it.
///
/// * Time: ticks become exact quarter notes, `ticks / ppq`.
/// * Voices: one per track that holds notes, in track order; a track that uses
///   several channels gives one voice per channel (in channel order) named
///   `"<track name> (channel N)"`, N counted from 1. Voice names are the track
///   names; an unnamed track gives `"Voice N"` (N = the voice's 1-based position);
///   a repeated name gets `" #2"`, `" #3"`, ….
/// * Notes: note-on/note-off pairs per (track, channel, key), first in first out;
///   a note-on with velocity 0 is a note-off. A note never switched off ends at
///   the end of its track. Notes of one voice with the same onset and duration
///   become one chord event.
/// * Metadata: the first (earliest) tempo, time signature and key signature;
///   later differing ones are ignored with a warning. No tempo gives
///   `tempo: None`, no time signature gives 4/4, no key signature `key: None`.
///   The title is the name of the first track if that track holds no notes (the
///   conductor track of format 1). MIDI carries no spellings, tags or bar count:
///   pitches are unspelled, tags and `bars` are `None`.
pub fn read_with_warnings(bytes: &[u8]) -> Result<(Score, Vec<MidiWarning>), MidiError> {
    read_with(bytes, false)
}

/// [`read_with_warnings`], and with `lenient` a damaged file (a chunk or event
/// longer than the data, a wrong track count) is read as far as it goes, each
/// fault a [`MidiWarning::Damaged`], instead of refused.
pub fn read_with(bytes: &[u8], lenient: bool) -> Result<(Score, Vec<MidiWarning>), MidiError> {
    let mut warnings = super::check::check(bytes, lenient)?;
    let smf = Smf::parse(bytes).map_err(|e| MidiError::Malformed(e.to_string()))?;
    let ppq = match smf.header.timing {
        Timing::Metrical(ppq) => ppq.as_int(),
        Timing::Timecode(fps, subframes) => {
            return Err(MidiError::SmpteTiming {
                fps: fps.as_int(),
                subframes,
            });
        }
    };
    if ppq == 0 {
        return Err(MidiError::ZeroResolution);
    }
    if smf.header.format == Format::Sequential {
        return Err(MidiError::SequentialFormat);
    }
    let ppq = i64::from(ppq);

    let mut metas = Metas::default();
    let mut title = None;
    let mut voices: Vec<Voice> = Vec::new();
    let mut used_names = HashSet::new();
    for (index, events) in smf.tracks.iter().enumerate() {
        let track = scan_track(index, events, &mut metas, &mut warnings)?;
        if track.notes.is_empty() {
            if index == 0 {
                title = track.name;
            }
            continue;
        }
        let split = track.notes.len() > 1;
        for (channel, notes) in track.notes {
            let base = match &track.name {
                Some(name) => name.clone(),
                None => format!("Voice {}", voices.len() + 1),
            };
            let name = if split {
                format!("{base} (channel {})", u16::from(channel) + 1)
            } else {
                base
            };
            let name = unique_name(name, &mut used_names);
            voices.push(build_voice(name, &notes, index, ppq, &mut warnings)?);
        }
    }
    let score = Score {
        title,
        key: metas.key(&mut warnings)?,
        meter: metas.meter(&mut warnings)?,
        tempo: metas.tempo(&mut warnings)?,
        bars: None,
        voices,
    };
    Ok((score, warnings))
}

/// One note as read: key sounding over `[on, off)` ticks.
struct RawNote {
    on: u64,
    off: u64,
    key: u8,
}

/// What one track holds.
struct ScannedTrack {
    name: Option<String>,
    /// Notes by channel.
    notes: BTreeMap<u8, Vec<RawNote>>,
}

/// A meta event as found: where, and its value.
struct Found<T> {
    track: usize,
    tick: u64,
    value: T,
}

/// Every tempo, time and key signature in the file, in file order.
#[derive(Default)]
struct Metas {
    tempi: Vec<Found<u32>>,
    meters: Vec<Found<(u8, u8)>>,
    keys: Vec<Found<(i8, bool)>>,
}

impl Metas {
    fn tempo(&self, warnings: &mut Vec<MidiWarning>) -> Result<Option<Time>, MidiError> {
        let Some(first) = first_of(&self.tempi, "tempo", warnings) else {
            return Ok(None);
        };
        bpm_from_micros(first.value)
            .map(Some)
            .ok_or_else(|| MidiError::InvalidMeta {
                track: first.track,
                tick: first.tick,
                what: "tempo of 0 µs per quarter note".into(),
            })
    }

    fn meter(&self, warnings: &mut Vec<MidiWarning>) -> Result<Meter, MidiError> {
        let Some(first) = first_of(&self.meters, "time signature", warnings) else {
            return Ok(Meter::default());
        };
        let (num, den_power) = first.value;
        let den = 1u32
            .checked_shl(u32::from(den_power))
            .filter(|_| den_power < 32);
        match den {
            Some(den) if num > 0 => Ok(Meter::new(u32::from(num), den)),
            _ => Err(MidiError::InvalidMeta {
                track: first.track,
                tick: first.tick,
                what: format!("time signature {num}/2^{den_power} is not a meter"),
            }),
        }
    }

    fn key(&self, warnings: &mut Vec<MidiWarning>) -> Result<Option<Key>, MidiError> {
        let Some(first) = first_of(&self.keys, "key signature", warnings) else {
            return Ok(None);
        };
        let (fifths, minor) = first.value;
        if !(-7..=7).contains(&fifths) {
            return Err(MidiError::InvalidMeta {
                track: first.track,
                tick: first.tick,
                what: format!("key signature with {fifths} sharps (must be -7..=7)"),
            });
        }
        let mode = if minor { Mode::Minor } else { Mode::Major };
        Ok(Some(Key::from_fifths(i32::from(fifths), mode)))
    }
}

/// The earliest of `found` (the first track wins ties); warns about every later
/// one whose value differs.
fn first_of<'a, T: PartialEq>(
    found: &'a [Found<T>],
    what: &'static str,
    warnings: &mut Vec<MidiWarning>,
) -> Option<&'a Found<T>> {
    let first = found
        .iter()
        .enumerate()
        .min_by_key(|(i, f)| (f.tick, *i))
        .map(|(_, f)| f)?;
    let mut last_warned = None;
    for other in found {
        let at = Some((other.track, other.tick));
        if other.value != first.value && last_warned != at {
            // One warning per place, however many events a file repeats there.
            last_warned = at;
            warnings.push(MidiWarning::IgnoredChange {
                track: other.track,
                tick: other.tick,
                what,
            });
        }
    }
    Some(first)
}

fn scan_track(
    track: usize,
    events: &[TrackEvent<'_>],
    metas: &mut Metas,
    warnings: &mut Vec<MidiWarning>,
) -> Result<ScannedTrack, MidiError> {
    let mut name = None;
    let mut notes: BTreeMap<u8, Vec<RawNote>> = BTreeMap::new();
    // Onset ticks of sounding notes per (channel, key), oldest first.
    let mut open: BTreeMap<(u8, u8), VecDeque<u64>> = BTreeMap::new();
    let mut tick = 0u64;
    for event in events {
        tick = tick
            .checked_add(u64::from(event.delta.as_int()))
            .ok_or(MidiError::TooLong { track, tick })?;
        match event.kind {
            TrackEventKind::Midi { channel, message } => {
                let channel = channel.as_int();
                let (key, is_on) = match message {
                    MidiMessage::NoteOn { key, vel } => (key.as_int(), vel.as_int() > 0),
                    MidiMessage::NoteOff { key, .. } => (key.as_int(), false),
                    _ => continue,
                };
                let queue = open.entry((channel, key)).or_default();
                if is_on {
                    queue.push_back(tick);
                } else if let Some(on) = queue.pop_front() {
                    close(track, channel, key, on, tick, &mut notes, warnings);
                } else {
                    warnings.push(MidiWarning::StrayNoteOff {
                        track,
                        channel,
                        key,
                        tick,
                    });
                }
            }
            TrackEventKind::Meta(MetaMessage::TrackName(bytes)) if name.is_none() => {
                let text = String::from_utf8_lossy(bytes).trim().to_string();
                if !text.is_empty() {
                    name = Some(text);
                }
            }
            TrackEventKind::Meta(MetaMessage::Tempo(micros)) => metas.tempi.push(Found {
                track,
                tick,
                value: micros.as_int(),
            }),
            TrackEventKind::Meta(MetaMessage::TimeSignature(num, den_power, _, _)) => {
                metas.meters.push(Found {
                    track,
                    tick,
                    value: (num, den_power),
                })
            }
            TrackEventKind::Meta(MetaMessage::KeySignature(fifths, minor)) => {
                metas.keys.push(Found {
                    track,
                    tick,
                    value: (fifths, minor),
                })
            }
            _ => {}
        }
    }
    // Notes never switched off end with the track.
    for ((channel, key), onsets) in open {
        for on in onsets {
            if tick > on {
                warnings.push(MidiWarning::UnclosedNote {
                    track,
                    channel,
                    key,
                    onset_tick: on,
                    end_tick: tick,
                });
            }
            close(track, channel, key, on, tick, &mut notes, warnings);
        }
    }
    Ok(ScannedTrack { name, notes })
}

/// Records the note `[on, off)`, or warns and drops it if it has no length.
fn close(
    track: usize,
    channel: u8,
    key: u8,
    on: u64,
    off: u64,
    notes: &mut BTreeMap<u8, Vec<RawNote>>,
    warnings: &mut Vec<MidiWarning>,
) {
    if off > on {
        notes
            .entry(channel)
            .or_default()
            .push(RawNote { on, off, key });
    } else {
        warnings.push(MidiWarning::ZeroLengthNote {
            track,
            channel,
            key,
            tick: on,
        });
    }
}

/// Groups one voice's notes into chord events of exact time.
fn build_voice(
    name: String,
    notes: &[RawNote],
    track: usize,
    ppq: i64,
    warnings: &mut Vec<MidiWarning>,
) -> Result<Voice, MidiError> {
    let mut chords: BTreeMap<(u64, u64), Vec<u8>> = BTreeMap::new();
    for note in notes {
        chords
            .entry((note.on, note.off))
            .or_default()
            .push(note.key);
    }
    let quarters = |tick: u64| {
        i64::try_from(tick)
            .map(|t| Time::new(t, ppq))
            .map_err(|_| MidiError::TooLong { track, tick })
    };
    let mut voice = Voice::new(name);
    for ((on, off), mut keys) in chords {
        keys.sort_unstable();
        let mut doubled: Vec<u8> = keys
            .windows(2)
            .filter(|pair| pair[0] == pair[1])
            .map(|pair| pair[0])
            .collect();
        doubled.dedup();
        for key in doubled {
            warnings.push(MidiWarning::DuplicateNote {
                voice: voice.name.clone(),
                key,
                tick: on,
            });
        }
        let onset = quarters(on)?;
        let duration = quarters(off - on)?;
        let pitches = keys.into_iter().map(Pitch::new).collect();
        voice.events.push(Event::new(onset, duration, pitches));
    }
    voice.sort();
    Ok(voice)
}
