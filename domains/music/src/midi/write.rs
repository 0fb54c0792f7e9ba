//! Score → Standard MIDI File (format 1).
//!
//! Kept apart from reading because the two directions make different promises:
//! writing is strict (an unrepresentable time is an error, never rounded), reading
//! is forgiving (odd but meaningful files still give a score, with warnings).

use super::tempo::micros_per_quarter;
use super::{MidiError, NOTE_ON_VELOCITY, TICKS_PER_QUARTER};
use crate::score::{Mode, Score, Time, Voice};
use midly::num::{u4, u7, u15, u24, u28};
use midly::{
    Format, Header, MetaMessage, MidiMessage, Smf, Timing, Track, TrackEvent, TrackEventKind,
};
use num_traits::CheckedAdd;
use std::collections::BTreeMap;

/// Channels voices are assigned to, in order: every channel but 9 (General MIDI
/// drums). The 16th voice wraps round to channel 0; voices stay apart because each
/// has its own track.
const VOICE_CHANNELS: [u8; 15] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15];

/// MIDI clocks per metronome click and 32nd notes per quarter written in every
/// time signature (the usual values: one click per quarter).
const CLOCKS_PER_CLICK: u8 = 24;
const THIRTY_SECONDS_PER_QUARTER: u8 = 8;

/// Writes `score` as a Standard MIDI File, format 1, at [`TICKS_PER_QUARTER`].
///
/// * Track 0 is the conductor: the title as track name (if any), the time
///   signature, the key signature (if any), the tempo (if any) and an End of Track
///   at the end of the last bar, so players keep trailing rests. With no tempo,
///   no tempo event is written: MIDI players then use the standard default of
///   120 bpm, and [`read`](super::read) gives back `tempo: None`. A tempo that is
///   not a whole number of µs per quarter is rounded to the nearest µs (see
///   the tempo module).
/// * Then one track per voice, named after the voice, on its own channel
///   (0, 1, …, 8, 10, …, 15, skipping the drum channel 9; the 16th voice wraps
///   to channel 0 on its own track). Every pitch of every event sounds from onset
///   to end: note-on velocity [`NOTE_ON_VELOCITY`], note-off velocity 0; at equal
///   ticks note-offs come first, so repeated notes re-strike.
/// * Same-pitch overlaps within a voice: a channel has one key per pitch, so the
///   key is struck at every onset of that pitch and held until the next onset of
///   that pitch or the end of the last overlapping note, whichever comes first.
///   The sounding time is kept; reading back gives non-overlapping notes (two
///   events on one onset with one pitch give one note of the longer length).
///
/// Errors: an onset or end that is not a whole number of ticks (naming voice and
/// onset); a negative onset, non-positive duration, no pitches or a key above 127;
/// a meter whose denominator is not a power of two or whose numerator is 0 or above
/// 255; a key signature beyond 7 sharps or flats; an unwritable tempo; more than
/// 65 534 voices.
pub fn write(score: &Score) -> Result<Vec<u8>, MidiError> {
    if score.voices.len() >= usize::from(u16::MAX) {
        return Err(MidiError::Unwritable(format!(
            "{} voices: a MIDI file holds at most 65 534 voice tracks",
            score.voices.len()
        )));
    }
    let mut tracks: Vec<Track<'_>> = Vec::with_capacity(score.voices.len() + 1);
    tracks.push(conductor_track(score)?);
    for (index, voice) in score.voices.iter().enumerate() {
        let channel = VOICE_CHANNELS[index % VOICE_CHANNELS.len()];
        tracks.push(voice_track(voice, channel)?);
    }
    let smf = Smf {
        header: Header::new(
            Format::Parallel,
            Timing::Metrical(u15::new(TICKS_PER_QUARTER)),
        ),
        tracks,
    };
    let mut bytes = Vec::new();
    smf.write(&mut bytes)
        .map_err(|e| MidiError::Encode(e.to_string()))?;
    Ok(bytes)
}

/// `t` in ticks, if it is a whole, non-negative number of ticks.
pub(crate) fn ticks_of(t: Time) -> Option<u64> {
    let (n, d) = (i128::from(*t.numer()), i128::from(*t.denom()));
    let scaled = n.checked_mul(i128::from(TICKS_PER_QUARTER))?;
    if d <= 0 || scaled % d != 0 {
        return None;
    }
    u64::try_from(scaled / d).ok()
}

fn conductor_track(score: &Score) -> Result<Track<'_>, MidiError> {
    let mut timed: Vec<(u64, TrackEventKind<'_>)> = Vec::new();
    if let Some(title) = &score.title {
        timed.push((0, meta(MetaMessage::TrackName(title.as_bytes()))));
    }
    let meter = score.meter;
    let numerator = u8::try_from(meter.num)
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            MidiError::Unwritable(format!("meter {meter}: the numerator must be 1..=255"))
        })?;
    if !meter.den.is_power_of_two() {
        return Err(MidiError::Unwritable(format!(
            "meter {meter}: MIDI time signatures need a power-of-two denominator"
        )));
    }
    // den is a power of two in u32, so its exponent is at most 31.
    let den_power = u8::try_from(meter.den.trailing_zeros()).unwrap_or(u8::MAX);
    timed.push((
        0,
        meta(MetaMessage::TimeSignature(
            numerator,
            den_power,
            CLOCKS_PER_CLICK,
            THIRTY_SECONDS_PER_QUARTER,
        )),
    ));
    if let Some(key) = score.key {
        let fifths = i8::try_from(key.fifths())
            .ok()
            .filter(|f| (-7..=7).contains(f))
            .ok_or_else(|| {
                MidiError::Unwritable(format!(
                    "key with {} fifths: MIDI key signatures hold -7..=7",
                    key.fifths()
                ))
            })?;
        timed.push((
            0,
            meta(MetaMessage::KeySignature(fifths, key.mode == Mode::Minor)),
        ));
    }
    if let Some(bpm) = score.tempo {
        let micros = micros_per_quarter(bpm)?;
        timed.push((0, meta(MetaMessage::Tempo(u24::new(micros)))));
    }
    // End the conductor with the last bar when that is a whole number of ticks.
    let bar_end = Time::from_integer(i64::from(score.bar_count())) * score.bar_length();
    let end = ticks_of(bar_end).unwrap_or(0);
    to_track(timed, end, "conductor")
}

/// One note of one key as it will be written: `[on, off)` in ticks.
struct Note {
    on: u64,
    off: u64,
    key: u8,
}

fn voice_track(voice: &Voice, channel: u8) -> Result<Track<'_>, MidiError> {
    // Sounding spans per key, in ticks.
    let mut spans: BTreeMap<u8, Vec<(u64, u64)>> = BTreeMap::new();
    for event in &voice.events {
        let invalid = |what: String| MidiError::InvalidEvent {
            voice: voice.name.clone(),
            onset: event.onset,
            what,
        };
        if event.onset < Time::from_integer(0) {
            return Err(invalid("negative onset".into()));
        }
        if event.is_grace() {
            return Err(invalid(
                "a grace note: MIDI has none (a conversion leaves them out)".into(),
            ));
        }
        if event.duration <= Time::from_integer(0) {
            return Err(invalid(format!(
                "duration {} is not positive",
                event.duration
            )));
        }
        if event.pitches.is_empty() {
            return Err(invalid("event has no pitches".into()));
        }
        let unrepresentable = |what: &'static str, value: Time| MidiError::NotRepresentable {
            voice: voice.name.clone(),
            onset: event.onset,
            what,
            value,
        };
        let on = ticks_of(event.onset).ok_or_else(|| unrepresentable("onset", event.onset))?;
        let end = event
            .onset
            .checked_add(&event.duration)
            .ok_or_else(|| invalid("end time overflows".into()))?;
        let off = ticks_of(end).ok_or_else(|| unrepresentable("end", end))?;
        for pitch in &event.pitches {
            if pitch.midi > 127 {
                return Err(invalid(format!("MIDI key {} is above 127", pitch.midi)));
            }
            spans.entry(pitch.midi).or_default().push((on, off));
        }
    }
    let mut notes = Vec::new();
    for (key, mut key_spans) in spans {
        key_spans.sort_unstable();
        restrike(&key_spans, key, &mut notes);
    }

    let mut timed: Vec<(u64, TrackEventKind<'_>)> = Vec::with_capacity(2 * notes.len() + 1);
    timed.push((0, meta(MetaMessage::TrackName(voice.name.as_bytes()))));
    // Note-offs before note-ons at the same tick; `sort_by_key` is stable.
    let mut key_events: Vec<(u64, bool, u8)> = Vec::with_capacity(2 * notes.len());
    for note in &notes {
        key_events.push((note.off, false, note.key));
        key_events.push((note.on, true, note.key));
    }
    key_events.sort_unstable();
    let channel = u4::new(channel);
    for (tick, is_on, key) in key_events {
        let key = u7::new(key);
        let message = if is_on {
            MidiMessage::NoteOn {
                key,
                vel: u7::new(NOTE_ON_VELOCITY),
            }
        } else {
            MidiMessage::NoteOff {
                key,
                vel: u7::new(0),
            }
        };
        timed.push((tick, TrackEventKind::Midi { channel, message }));
    }
    let end = timed.last().map_or(0, |(tick, _)| *tick);
    to_track(timed, end, &voice.name)
}

/// Turns the sorted spans of one key into non-overlapping notes: struck at every
/// onset, held to the next onset or the end of the sounding span.
fn restrike(spans: &[(u64, u64)], key: u8, notes: &mut Vec<Note>) {
    let mut current: Option<(u64, u64)> = None;
    for &(on, off) in spans {
        current = Some(match current {
            None => (on, off),
            // Same onset: one strike, held to the later end.
            Some((start, end)) if on == start => (start, end.max(off)),
            // Overlap: cut at the new onset, strike again, keep sounding to the later end.
            Some((start, end)) if on < end => {
                notes.push(Note {
                    on: start,
                    off: on,
                    key,
                });
                (on, end.max(off))
            }
            Some((start, end)) => {
                notes.push(Note {
                    on: start,
                    off: end,
                    key,
                });
                (on, off)
            }
        });
    }
    if let Some((on, off)) = current {
        notes.push(Note { on, off, key });
    }
}

fn meta(message: MetaMessage<'_>) -> TrackEventKind<'_> {
    TrackEventKind::Meta(message)
}

/// Absolute-tick events (sorted) → delta-time track ending with End of Track at
/// `end` (or at the last event, if later).
fn to_track<'a>(
    timed: Vec<(u64, TrackEventKind<'a>)>,
    end: u64,
    track: &str,
) -> Result<Track<'a>, MidiError> {
    let mut events = Vec::with_capacity(timed.len() + 1);
    let mut last = 0u64;
    let delta = |from: u64, to: u64| {
        u32::try_from(to - from)
            .ok()
            .and_then(u28::try_from)
            .ok_or_else(|| {
                MidiError::Unwritable(format!(
                    "track {track:?}: a gap of {} ticks exceeds MIDI's delta-time limit",
                    to - from
                ))
            })
    };
    for (tick, kind) in timed {
        events.push(TrackEvent {
            delta: delta(last, tick)?,
            kind,
        });
        last = tick;
    }
    events.push(TrackEvent {
        delta: delta(last, end.max(last))?,
        kind: meta(MetaMessage::EndOfTrack),
    });
    Ok(events)
}
