//! `cantus-bounded`: reading files that come from outside within stated bounds — a
//! whole file up to a cap, or text line by line with a cap per line. It is its own
//! small crate (the standard library only) so that every crate can read through
//! it: the score formats, the experiment runner, the renderer, the backend's
//! configs. Every reader of the workspace that
//! takes a path from a user (a score, a spec, a bank of briefs, an experiment's
//! `results.jsonl`, a blind study's ratings) reads through here, so none of them can
//! be made to hold a symlink to `/dev/zero` or a 1 GB line in memory, and each error
//! says which cap was met.
//!
//! The caps are stated where each reader is (e.g. [`SCORE_FILE_CAP`]); the messages
//! name them in people's units ([`size_text`]).

use std::io::{self, BufRead, Read};
use std::path::Path;

/// One mebibyte.
pub const MIB: u64 = 1 << 20;

/// The most a score file may hold (any format; a compressed MusicXML file is
/// further held to 64 MiB inflated).
pub const SCORE_FILE_CAP: u64 = 64 * MIB;

/// The most a text file a user names may hold: a spec, a bank of briefs, an
/// experiment file, a `report.json`.
pub const TEXT_FILE_CAP: u64 = 16 * MIB;

/// `bytes` as people read a size: `64 MiB`, `16 KiB`, `100 bytes`.
pub fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= MIB && b % MIB == 0 => format!("{} MiB", b / MIB),
        b if b >= 1024 && b % 1024 == 0 => format!("{} KiB", b / 1024),
        1 => "1 byte".into(),
        b => format!("{b} bytes"),
    }
}

/// The error of a file over `cap`, a `what` (e.g. "score file").
pub fn too_large(cap: u64, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("larger than {}, the most a {what} may hold", size_text(cap)),
    )
}

/// The whole file at `path`, refused (an [`io::ErrorKind::FileTooLarge`] error
/// naming `cap` and `what`) when it holds more than `cap` bytes — also when it is a
/// device or a pipe that never ends: no more than `cap + 1` bytes are ever read.
pub fn read(path: &Path, cap: u64, what: &str) -> io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let declared = file.metadata().map(|m| m.len()).unwrap_or(0);
    if declared > cap {
        return Err(too_large(cap, what));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(declared).unwrap_or(0));
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(too_large(cap, what));
    }
    Ok(bytes)
}

/// The file at `path` as UTF-8 text, at most `cap` bytes (see [`read`]); bytes that
/// are not UTF-8 are an [`io::ErrorKind::InvalidData`] error naming the line and
/// byte offset of the first bad one.
pub fn read_text(path: &Path, cap: u64, what: &str) -> io::Result<String> {
    String::from_utf8(read(path, cap, what)?).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let line = 1 + e.as_bytes()[..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not UTF-8: line {line}, byte offset {offset}"),
        )
    })
}

/// One line of a file read by [`Lines`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// From 1.
    pub number: usize,
    /// Where the line starts in the file (bytes).
    pub offset: u64,
    /// Its length in the file, the newline included.
    pub length: u64,
    pub text: LineText,
}

/// What a line held.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineText {
    /// A line ended by a newline; the bytes without it.
    Whole(Vec<u8>),
    /// The last line, with no newline at its end (a writer killed mid-line, or a
    /// file whose last line is not ended): its bytes.
    Unfinished(Vec<u8>),
    /// Longer than the cap: skipped without being held in memory.
    TooLong,
}

/// The lines of a reader, each held to `cap` bytes (its newline aside): a longer
/// line is read through and reported as [`LineText::TooLong`], never held whole, so
/// memory stays within `cap` plus the reader's buffer however long a line is.
pub struct Lines<R> {
    reader: R,
    cap: usize,
    number: usize,
    offset: u64,
}

impl<R: BufRead> Lines<R> {
    /// The lines of `reader`, each held to `cap` bytes.
    pub fn new(reader: R, cap: usize) -> Lines<R> {
        Lines {
            reader,
            cap,
            number: 0,
            offset: 0,
        }
    }

    /// The cap per line.
    pub fn cap(&self) -> usize {
        self.cap
    }
}

impl<R: BufRead> Iterator for Lines<R> {
    type Item = io::Result<Line>;

    fn next(&mut self) -> Option<io::Result<Line>> {
        let mut held = Vec::new();
        let mut length = 0u64;
        let mut too_long = false;
        let ended = loop {
            let available = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Some(Err(e)),
            };
            if available.is_empty() {
                if length == 0 {
                    return None;
                }
                break false;
            }
            let (chunk, ended) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], true),
                None => (available, false),
            };
            if !too_long {
                if held.len() + chunk.len() > self.cap {
                    too_long = true;
                    held = Vec::new();
                } else {
                    held.extend_from_slice(chunk);
                }
            }
            let used = chunk.len() + usize::from(ended);
            length += used as u64;
            self.reader.consume(used);
            if ended {
                break true;
            }
        };
        self.number += 1;
        let line = Line {
            number: self.number,
            offset: self.offset,
            length,
            text: match (too_long, ended) {
                (true, _) => LineText::TooLong,
                (false, true) => LineText::Whole(held),
                (false, false) => LineText::Unfinished(held),
            },
        };
        self.offset += length;
        Some(Ok(line))
    }
}

/// Opens `path` for reading line by line, refusing what is not a regular file (a
/// device or a pipe could hold an endless line, which [`Lines`] would read through
/// forever); `Ok(None)` when there is no such file.
pub fn open_regular(path: &Path) -> io::Result<Option<io::BufReader<std::fs::File>>> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(Some(io::BufReader::new(file)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &[u8], cap: usize) -> Vec<Line> {
        // A tiny buffer, so lines cross buffer ends.
        let reader = io::BufReader::with_capacity(3, text);
        Lines::new(reader, cap).map(Result::unwrap).collect()
    }

    #[test]
    fn lines_are_numbered_and_placed_and_a_last_line_without_newline_is_unfinished() {
        let got = lines(b"ab\n\ncdef\ngh", 4);
        let texts: Vec<_> = got.iter().map(|l| l.text.clone()).collect();
        assert_eq!(
            texts,
            [
                LineText::Whole(b"ab".to_vec()),
                LineText::Whole(Vec::new()),
                LineText::Whole(b"cdef".to_vec()),
                LineText::Unfinished(b"gh".to_vec()),
            ]
        );
        let places: Vec<_> = got.iter().map(|l| (l.number, l.offset, l.length)).collect();
        assert_eq!(places, [(1, 0, 3), (2, 3, 1), (3, 4, 5), (4, 9, 2)]);
    }

    #[test]
    fn a_line_over_the_cap_is_skipped_and_the_next_one_read() {
        let mut text = vec![b'x'; 10_000];
        text.extend_from_slice(b"\nok\n");
        let got = lines(&text, 5);
        assert_eq!(got[0].text, LineText::TooLong);
        assert_eq!(got[0].length, 10_001);
        assert_eq!(got[1].text, LineText::Whole(b"ok".to_vec()));
        assert_eq!(got[1].offset, 10_001);
        // Exactly the cap is allowed.
        assert_eq!(
            lines(b"12345\n", 5)[0].text,
            LineText::Whole(b"12345".to_vec())
        );
        assert_eq!(lines(b"123456", 5)[0].text, LineText::TooLong);
    }

    #[test]
    fn a_whole_file_over_its_cap_is_refused_naming_the_cap_even_from_a_device() {
        let err = read(Path::new("/dev/zero"), 1024, "score file").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(
            err.to_string(),
            "larger than 1 KiB, the most a score file may hold"
        );
        assert!(open_regular(Path::new("/dev/zero")).is_err());
        assert!(open_regular(Path::new("/no/such/file")).unwrap().is_none());
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size_text(64 * MIB), "64 MiB");
        assert_eq!(size_text(64 * 1024), "64 KiB");
        assert_eq!(size_text(1000), "1000 bytes");
    }
}
