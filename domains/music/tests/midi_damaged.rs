//! Issue 17, items 7 and 11: damaged MIDI files are refused, naming the chunk,
//! the length it declares and the byte offset where the file (or track) ends;
//! a bad header names the field and its offset. Lenient reading keeps what is
//! there and says what was damaged, never silently.

use cantus_music::midi::{self, MidiError, MidiWarning};

/// A one-track format-1 file: header, then a track of `events` bytes with its
/// true length unless `declared` overrides it.
fn file(ntrks: u16, events: &[u8], declared: Option<u32>) -> Vec<u8> {
    let mut bytes = b"MThd\0\0\0\x06\0\x01".to_vec();
    bytes.extend(ntrks.to_be_bytes());
    bytes.extend(480u16.to_be_bytes());
    bytes.extend(b"MTrk");
    let len = declared.unwrap_or(u32::try_from(events.len()).expect("small"));
    bytes.extend(len.to_be_bytes());
    bytes.extend(events);
    bytes
}

/// Middle C for 480 ticks, then End of Track.
const NOTE: &[u8] = &[
    0x00, 0x90, 60, 80, // note on
    0x83, 0x60, 0x80, 60, 0, // 480 ticks later, note off
    0x00, 0xFF, 0x2F, 0x00, // end of track
];

fn strict_error(bytes: &[u8]) -> MidiError {
    midi::read(bytes).expect_err("a damaged file is refused")
}

#[test]
fn a_whole_file_reads_without_structure_warnings() {
    let (score, warnings) = midi::read_with_warnings(&file(1, NOTE, None)).expect("reads");
    assert_eq!(score.event_count(), 1);
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn a_track_longer_than_the_file_names_chunk_length_and_end() {
    // The track declares 220 bytes; 13 are there.
    let bytes = file(1, NOTE, Some(220));
    let err = strict_error(&bytes);
    assert_eq!(
        err,
        MidiError::Truncated {
            chunk: "track chunk 1 (MTrk at byte 14)".into(),
            declared: 220,
            present: 13,
            file_end: 35,
        }
    );
    let text = err.to_string();
    assert!(
        text.contains("declares 220 bytes") && text.contains("ends at byte 35"),
        "{text}"
    );
    // Lenient: the note is there, and the damage is said.
    let (score, warnings) = midi::read_with(&bytes, true).expect("lenient reads");
    assert_eq!(score.event_count(), 1);
    assert!(
        warnings.iter().any(
            |w| matches!(w, MidiWarning::Damaged { what } if what.contains("declares 220 bytes"))
        ),
        "{warnings:?}"
    );
}

#[test]
fn a_header_only_file_and_impossible_header_lengths_are_refused() {
    let header_only = &file(1, NOTE, None)[..14];
    let err = strict_error(header_only);
    assert!(
        matches!(&err, MidiError::Header { field: "ntrks", offset: 10, what } if what.contains("declares 1 track, but the file holds 0")),
        "{err}"
    );
    let mut huge = file(1, NOTE, None);
    huge[4..8].copy_from_slice(&0xFFFF_FFFFu32.to_be_bytes());
    let err = strict_error(&huge);
    assert!(
        matches!(&err, MidiError::Header { field: "header length", offset: 4, what } if what.contains("4294967295") && what.contains("ends at byte 35")),
        "{err}"
    );
    // Even lenient reading cannot go on without a header.
    assert!(midi::read_with(&huge, true).is_err());
    let err = strict_error(b"MThd\0\0");
    assert!(
        matches!(
            &err,
            MidiError::Header {
                field: "header length",
                offset: 4,
                ..
            }
        ),
        "{err}"
    );
    let mut format_9 = file(1, NOTE, None);
    format_9[9] = 9;
    assert!(matches!(
        strict_error(&format_9),
        MidiError::Header {
            field: "format",
            offset: 8,
            ..
        }
    ));
}

#[test]
fn meta_and_sysex_lengths_past_the_track_are_refused() {
    // A track name declaring 100 bytes, 3 present, and nothing after it.
    let meta = [0x00, 0xFF, 0x03, 100, b'a', b'b', b'c'];
    let err = strict_error(&file(1, &meta, None));
    let text = err.to_string();
    assert!(
        text.contains("meta event at byte 23 declares 100 bytes")
            && text.contains("track ends at byte 29"),
        "{text}"
    );
    // A sysex declaring 0x7F bytes before the note: it would swallow the note.
    let mut sysex = vec![0x00, 0xF0, 0x7F, 1, 2];
    sysex.extend(NOTE);
    let text = strict_error(&file(1, &sysex, None)).to_string();
    assert!(
        text.contains("sysex event at byte 23 declares 127 bytes"),
        "{text}"
    );
    let (_, warnings) = midi::read_with(&file(1, &sysex, None), true).expect("lenient");
    assert!(!warnings.is_empty());
}

#[test]
fn a_track_count_that_disagrees_with_the_file_is_refused() {
    for ntrks in [0u16, 2, 65535] {
        let err = strict_error(&file(ntrks, NOTE, None));
        assert!(
            matches!(&err, MidiError::Header { field: "ntrks", offset: 10, what } if what.contains(&format!("declares {ntrks} track"))),
            "{ntrks}: {err}"
        );
        let (score, warnings) = midi::read_with(&file(ntrks, NOTE, None), true).expect("lenient");
        assert_eq!(score.event_count(), 1, "{ntrks}");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
    }
}

#[test]
fn cut_events_and_stray_bytes_are_located() {
    // A note-on cut after its key.
    let text = strict_error(&file(1, &[0x00, 0x90, 60], None)).to_string();
    assert!(
        text.contains("channel message at byte 23 needs 2 data bytes"),
        "{text}"
    );
    // A data byte with no status before it.
    let text = strict_error(&file(1, &[0x00, 0x40, 0x40], None)).to_string();
    assert!(text.contains("follows no status byte"), "{text}");
    // A file ending inside the next chunk header.
    let mut bytes = file(1, NOTE, None);
    bytes.extend(b"MTr");
    let text = strict_error(&bytes).to_string();
    assert!(text.contains("chunk header starts at byte 35"), "{text}");
}

#[test]
fn harmless_oddities_are_warnings_in_strict_mode() {
    // No End of Track: the track's declared length is honest, so it reads, with a warning.
    let (score, warnings) = midi::read_with_warnings(&file(1, &NOTE[..9], None)).expect("reads");
    assert_eq!(score.event_count(), 1);
    assert!(
        warnings
            .iter()
            .any(|w| w.to_string().contains("no End of Track")),
        "{warnings:?}"
    );
}

/// Found by the fuzz harness: a timecode division with frame rate byte 0x80
/// made midly's parser overflow (a panic in debug builds); the division is now
/// read before midly sees the file.
#[test]
fn any_smpte_division_is_refused_without_reaching_the_parser() {
    for high in [0x80u8, 0x81, 0xE7, 0xFF] {
        let mut bytes = file(1, NOTE, None);
        bytes[12] = high;
        bytes[13] = 60;
        assert!(
            matches!(
                midi::read(&bytes),
                Err(MidiError::SmpteTiming { subframes: 60, .. })
            ),
            "{high:#x}"
        );
        assert!(midi::read_with(&bytes, true).is_err());
    }
    let mut zero = file(1, NOTE, None);
    zero[12..14].copy_from_slice(&[0, 0]);
    assert_eq!(midi::read(&zero), Err(MidiError::ZeroResolution));
}
