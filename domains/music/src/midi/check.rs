//! The byte structure of a Standard MIDI File, checked before any event is read.
//!
//! midly's parser forgives damage silently: a track whose declared length runs
//! past the end of the file is read as far as it goes, a header-only file gives
//! no tracks, a meta event whose length runs past its track swallows the rest.
//! A file damaged like that must not be verified as if it were whole, so this
//! walk finds every such fault and names where it is: the chunk, the length it
//! declares and the byte offset where the data (file or track) ends. Strict
//! reading refuses the first fault; lenient reading turns each into a
//! [`MidiWarning::Damaged`] and lets midly read what it can.
//!
//! The walk reads each byte once and allocates nothing but its warnings.

use super::MidiError;
use super::read::MidiWarning;

/// Bytes of a chunk header: a 4-byte type and a 4-byte big-endian length.
const CHUNK_HEADER: usize = 8;

/// Most structural warnings kept in lenient mode.
const MAX_FAULTS: usize = 100;

/// Checks the structure of `bytes`. Strict: the first fault is an error.
/// Lenient: every fault becomes a warning (at most [`MAX_FAULTS`]). Either
/// way, what is odd but harmless (no End of Track, bytes after it) is a warning.
pub(crate) fn check(bytes: &[u8], lenient: bool) -> Result<Vec<MidiWarning>, MidiError> {
    let mut walker = Walker {
        lenient,
        warnings: Vec::new(),
    };
    walker.walk(bytes)?;
    Ok(walker.warnings)
}

/// The walk's mode and what it has found.
struct Walker {
    lenient: bool,
    warnings: Vec<MidiWarning>,
}

impl Walker {
    /// A fault: an error in strict mode (`error` builds it), a warning when lenient.
    fn fault(
        &mut self,
        message: String,
        error: impl FnOnce(String) -> MidiError,
    ) -> Result<(), MidiError> {
        if !self.lenient {
            return Err(error(message));
        }
        self.note(message);
        Ok(())
    }

    /// Something odd but harmless: a warning in either mode.
    fn note(&mut self, message: String) {
        if self.warnings.len() < MAX_FAULTS {
            self.warnings.push(MidiWarning::Damaged { what: message });
        }
    }
}

/// Reads a big-endian field of `N` bytes at `at`, if the file holds it.
fn field<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..at + N)?.try_into().ok()
}

impl Walker {
    /// Walks the header and every chunk. Problems that leave nothing to read
    /// past (no usable header) are errors even when lenient.
    fn walk(&mut self, bytes: &[u8]) -> Result<(), MidiError> {
        let len = bytes.len();
        let header = |name: &'static str, offset: usize| {
            move |what: String| MidiError::Header {
                field: name,
                offset,
                what,
            }
        };
        if field::<4>(bytes, 0) != Some(*b"MThd") {
            return Err(header("chunk type", 0)(if len < 4 {
                format!("the file is {len} bytes long, too short for the `MThd` header")
            } else {
                "the file does not start with `MThd`; it is not a Standard MIDI File".into()
            }));
        }
        let Some(declared) = field::<4>(bytes, 4).map(u32::from_be_bytes) else {
            return Err(header("header length", 4)(format!(
                "the file ends at byte {len}, inside the header"
            )));
        };
        let declared = u64::from(declared);
        if declared < 6 {
            return Err(header("header length", 4)(format!(
                "declares {declared} bytes; a header holds at least 6"
            )));
        }
        let header_end = CHUNK_HEADER as u64 + declared;
        if header_end > len as u64 {
            return Err(header("header length", 4)(format!(
                "declares {declared} bytes, but the file ends at byte {len} ({} bytes present)",
                len.saturating_sub(CHUNK_HEADER)
            )));
        }
        // Within the file, so it fits usize.
        let header_end = header_end as usize;
        let format = u16::from_be_bytes([bytes[8], bytes[9]]);
        let ntrks = u16::from_be_bytes([bytes[10], bytes[11]]);
        if format > 2 {
            return Err(header("format", 8)(format!(
                "is {format}; only formats 0, 1 and 2 exist"
            )));
        }
        // Timing is read here, not by midly: its SMPTE branch overflows on
        // frame rates such as -128, and neither kind of file can be read anyway.
        let division = u16::from_be_bytes([bytes[12], bytes[13]]);
        if division & 0x8000 != 0 {
            let [high, subframes] = division.to_be_bytes();
            let fps = (-i16::from(high as i8)).clamp(0, 255) as u8;
            return Err(MidiError::SmpteTiming { fps, subframes });
        }
        if division == 0 {
            return Err(MidiError::ZeroResolution);
        }
        let mut at = header_end;
        let mut tracks = 0u32;
        while at < len {
            let Some(kind) = field::<4>(bytes, at) else {
                return self.fault(
                    format!(
                        "a chunk header starts at byte {at}, but the file ends at byte {len}, {} bytes later",
                        len - at
                    ),
                    MidiError::Damaged,
                );
            };
            let Some(declared) = field::<4>(bytes, at + 4).map(u32::from_be_bytes) else {
                return self.fault(
                    format!(
                        "chunk `{}` at byte {at}: the file ends at byte {len}, inside its length field",
                        chunk_name(kind)
                    ),
                    MidiError::Damaged,
                );
            };
            let data = at + CHUNK_HEADER;
            let end = data as u64 + u64::from(declared);
            let is_track = kind == *b"MTrk";
            let name = if is_track {
                tracks += 1;
                format!("track chunk {tracks} (MTrk at byte {at})")
            } else {
                format!("chunk `{}` at byte {at}", chunk_name(kind))
            };
            if end > len as u64 {
                let chunk = name.clone();
                self.fault(
                    format!(
                        "{name} declares {declared} bytes, but the file ends at byte {len} ({} bytes present)",
                        len - data
                    ),
                    |_| MidiError::Truncated {
                        chunk,
                        declared: u64::from(declared),
                        present: len - data,
                        file_end: len,
                    },
                )?;
                if is_track {
                    self.events(&bytes[data..], data, &name)?;
                }
                break;
            }
            let end = end as usize;
            if is_track {
                self.events(&bytes[data..end], data, &name)?;
            }
            at = end;
        }
        if u32::from(ntrks) != tracks || ntrks == 0 {
            let message = if ntrks == 0 {
                format!("declares 0 tracks (the file holds {tracks})")
            } else {
                format!(
                    "declares {}, but the file holds {tracks} (it ends at byte {len})",
                    crate::counted(ntrks, "track", "tracks")
                )
            };
            self.fault(message, header("ntrks", 10))?;
        }
        if format == 0 && tracks > 1 {
            self.fault(
                format!("format 0 holds one track, but the file holds {tracks}"),
                header("format", 8),
            )?;
        }
        Ok(())
    }

    /// Walks the events of one track (`data`, starting at file offset `base`):
    /// every length must stay inside the track.
    fn events(&mut self, data: &[u8], base: usize, track: &str) -> Result<(), MidiError> {
        let end = base + data.len();
        let mut at = 0;
        let mut running: Option<u8> = None;
        while at < data.len() {
            let Some((_, used)) = vlq(data, at) else {
                return self.fault(
                    format!(
                        "{track}: the delta time at byte {} runs past the end of the track (byte {end}) or past 4 bytes",
                        base + at
                    ),
                    MidiError::Damaged,
                );
            };
            at += used;
            let Some(&status) = data.get(at) else {
                return self.fault(
                    format!(
                        "{track}: the track ends at byte {end} after a delta time, with no event"
                    ),
                    MidiError::Damaged,
                );
            };
            let event_at = base + at;
            let meta_type = data.get(at + 1).copied();
            let (kind, length_at) = match status {
                0xFF => ("meta event", at + 2),
                0xF0 | 0xF7 => ("sysex event", at + 1),
                0x00..=0xEF => {
                    let (status, first) = if status >= 0x80 {
                        running = Some(status);
                        (status, at + 1)
                    } else if let Some(status) = running {
                        (status, at)
                    } else {
                        return self.fault(
                            format!(
                                "{track}: data byte {status:#04x} at byte {event_at} follows no status byte"
                            ),
                            MidiError::Damaged,
                        );
                    };
                    let needed = channel_data(status);
                    if first + needed > data.len() {
                        return self.fault(
                            format!(
                                "{track}: the channel message at byte {event_at} needs {needed} data bytes, but the track ends at byte {end}"
                            ),
                            MidiError::Damaged,
                        );
                    }
                    at = first + needed;
                    continue;
                }
                _ => {
                    return self.fault(
                        format!(
                            "{track}: status byte {status:#04x} at byte {event_at} is not a track event"
                        ),
                        MidiError::Damaged,
                    );
                }
            };
            running = None;
            let Some((length, used)) = vlq(data, length_at) else {
                return self.fault(
                    format!(
                        "{track}: the {kind} at byte {event_at} has its length cut off by the end of the track (byte {end})"
                    ),
                    MidiError::Damaged,
                );
            };
            let data_start = length_at + used;
            let data_end = data_start as u64 + u64::from(length);
            if data_end > data.len() as u64 {
                return self.fault(
                    format!(
                        "{track}: the {kind} at byte {event_at} declares {length} bytes, but the track ends at byte {end} ({} bytes present)",
                        data.len() - data_start
                    ),
                    MidiError::Damaged,
                );
            }
            at = data_start + length as usize;
            if status == 0xFF && meta_type == Some(0x2F) {
                if at < data.len() {
                    self.note(format!(
                        "{track}: {} bytes after the End of Track event at byte {event_at} were not read",
                        data.len() - at
                    ));
                }
                return Ok(());
            }
        }
        self.note(format!(
            "{track}: no End of Track event; the track ends at byte {end}"
        ));
        Ok(())
    }
}

/// A chunk type for messages: its bytes if printable ASCII, else hex.
fn chunk_name(kind: [u8; 4]) -> String {
    if kind.iter().all(|b| b.is_ascii_graphic()) {
        kind.iter().map(|&b| char::from(b)).collect()
    } else {
        kind.iter()
            .map(|b| format!("{b:02X}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A variable-length quantity at `at` of `data`: its value and length, or
/// `None` when the data ends inside it or it runs past four bytes.
fn vlq(data: &[u8], at: usize) -> Option<(u32, usize)> {
    let mut value = 0u32;
    for k in 0..4 {
        let b = *data.get(at + k)?;
        value = (value << 7) | u32::from(b & 0x7F);
        if b & 0x80 == 0 {
            return Some((value, k + 1));
        }
    }
    None
}

/// Data bytes after a channel status byte.
fn channel_data(status: u8) -> usize {
    match status & 0xF0 {
        0xC0 | 0xD0 => 1,
        _ => 2,
    }
}
