//! Compressed MusicXML (`.mxl`): a zip archive whose `META-INF/container.xml`
//! names the score inside it (MuseScore, Finale and Dorico export this by
//! default).
//!
//! Decompression is bounded: no entry is inflated past [`MAX_MXL_XML_BYTES`],
//! whatever sizes the archive declares, so a zip bomb is refused with an error
//! instead of filling memory. Errors inside the score name the entry and the
//! line and column within it (`score.xml: line 3, column 5: …`).

use super::dom::Doc;
use super::read::{ReadReport, read_with};
use super::{MusicXmlError, utf8_text};
use crate::format::ReadOptions;
use crate::score::Score;
use std::io::{Cursor, Read};

/// Largest decompressed size of the container or the score read from an
/// archive (64 MiB; the largest published orchestral scores stay below 40 MiB).
pub const MAX_MXL_XML_BYTES: u64 = 64 << 20;

/// Media type of the MusicXML root file in `container.xml`.
const MUSICXML_MEDIA: &str = "application/vnd.recordare.musicxml+xml";

/// Reads compressed MusicXML: the score the container names (or, without a
/// container, the one `.musicxml`/`.xml` file at the top of the archive).
pub fn read_mxl(bytes: &[u8], opts: &ReadOptions) -> Result<(Score, ReadReport), MusicXmlError> {
    let archive_err = |what: String| MusicXmlError::Archive(what);
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| archive_err(format!("not a readable zip archive: {e}")))?;
    let mut warnings = Vec::new();
    let root = match entry_text(&mut archive, "META-INF/container.xml")? {
        Some(container) => {
            root_file(&container).map_err(|e| in_entry("META-INF/container.xml", e))?
        }
        None => {
            let root = sole_score(&archive)?;
            warnings.push(format!(
                "no META-INF/container.xml in the archive; read its one score, {root}"
            ));
            root
        }
    };
    let text = entry_text(&mut archive, &root)?.ok_or_else(|| {
        archive_err(format!(
            "META-INF/container.xml names {root:?}, which is not in the archive"
        ))
    })?;
    let (score, mut report) = read_with(&text, opts).map_err(|e| in_entry(&root, e))?;
    warnings.append(&mut report.warnings);
    report.warnings = warnings;
    Ok((score, report))
}

fn in_entry(entry: &str, source: MusicXmlError) -> MusicXmlError {
    MusicXmlError::InEntry {
        entry: entry.to_string(),
        source: Box::new(source),
    }
}

/// The UTF-8 text of the entry `name`, or `None` if the archive has no such
/// entry. Inflates at most [`MAX_MXL_XML_BYTES`] (+1 to see that it is more).
fn entry_text<R: Read + std::io::Seek>(
    archive: &mut zip::ZipArchive<R>,
    name: &str,
) -> Result<Option<String>, MusicXmlError> {
    let mut file = match archive.by_name(name) {
        Ok(file) => file,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => {
            return Err(MusicXmlError::Archive(format!("{name}: {e}")));
        }
    };
    let too_large = || {
        MusicXmlError::Archive(format!(
            "{name} decompresses to more than {} MiB; refused (a damaged archive or a zip bomb)",
            MAX_MXL_XML_BYTES >> 20
        ))
    };
    if file.size() > MAX_MXL_XML_BYTES {
        return Err(too_large());
    }
    // The declared size is only a hint: read with a hard limit.
    let declared = file.size();
    let bytes = read_bounded(&mut file, declared, MAX_MXL_XML_BYTES)
        .map_err(|e| MusicXmlError::Archive(format!("{name}: cannot decompress: {e}")))?
        .ok_or_else(too_large)?;
    let text = utf8_text(&bytes).map_err(|e| in_entry(name, e))?;
    Ok(Some(text.to_string()))
}

/// Everything `reader` yields if it is at most `limit` bytes, else `None`. The
/// buffer starts at the `hint` (capped) and never grows past `limit + 1`
/// bytes, so memory stays bounded whatever the archive claims.
fn read_bounded(reader: &mut impl Read, hint: u64, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
    let cap = usize::try_from(limit.saturating_add(1)).unwrap_or(usize::MAX);
    let mut bytes = Vec::with_capacity(usize::try_from(hint.min(1 << 20)).unwrap_or(0));
    let mut chunk = [0u8; 64 << 10];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => return Ok(Some(bytes)),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if bytes.len() + n > cap - 1 {
            return Ok(None);
        }
        if bytes.len() + n > bytes.capacity() {
            let grown = (bytes.capacity().max(1 << 16) * 2).min(cap);
            bytes.reserve_exact(grown - bytes.len());
        }
        bytes.extend_from_slice(&chunk[..n]);
    }
}

/// The `full-path` of the MusicXML `<rootfile>` in a container document.
fn root_file(container: &str) -> Result<String, MusicXmlError> {
    let doc = Doc::parse(container)?;
    let rootfiles = doc
        .child(doc.root, "rootfiles")
        .ok_or_else(|| doc.error_at(doc.root, "the container lists no <rootfiles>"))?;
    let mut first = None;
    for rf in doc.children_named(rootfiles, "rootfile") {
        let Some(path) = doc.attr(rf, "full-path") else {
            return Err(doc.error_at(rf, "a <rootfile> needs a full-path attribute"));
        };
        match doc.attr(rf, "media-type") {
            None | Some(MUSICXML_MEDIA) => return Ok(path.to_string()),
            Some(_) => {
                first.get_or_insert(rf);
            }
        }
    }
    match first {
        // Only other media types (a PDF, an image): no score to read.
        Some(rf) => Err(doc.error_at(rf, "the container names no MusicXML score")),
        None => Err(doc.error_at(rootfiles, "the container lists no <rootfile>")),
    }
}

/// Without a container: the one `.musicxml` or `.xml` entry outside `META-INF/`.
fn sole_score<R: Read + std::io::Seek>(
    archive: &zip::ZipArchive<R>,
) -> Result<String, MusicXmlError> {
    let candidates: Vec<&str> = archive
        .file_names()
        .filter(|n| !n.starts_with("META-INF/"))
        .filter(|n| {
            let lower = n.to_ascii_lowercase();
            lower.ends_with(".musicxml") || lower.ends_with(".xml")
        })
        .collect();
    match candidates.as_slice() {
        [one] => Ok((*one).to_string()),
        [] => Err(MusicXmlError::Archive(
            "the archive has no META-INF/container.xml and no .musicxml or .xml file".into(),
        )),
        many => Err(MusicXmlError::Archive(format!(
            "the archive has no META-INF/container.xml and {} candidate scores ({}); \
             which one is meant is not known",
            many.len(),
            many.join(", ")
        ))),
    }
}
