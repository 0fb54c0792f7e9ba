//! `cantus analyze DIR`: the serial analysis of every score in a directory, one row
//! per piece — the row found (given, inferred and named, or none), the share of notes
//! explained, the statements and the canons — so a corpus reads at a glance and its
//! numbers can be compared with the literature's.
//!
//! Every file the format layer reads (`.txt`, `.mid`, `.musicxml`, `.xml`, `.mxl`,
//! `.mei`) directly in the directory is analysed, in name order, with its grace notes;
//! a file that cannot be read or analysed is a row with its error, never the end of
//! the run.

use cantus_music::ReadOptions;
use cantus_music::format::{Format, read_path_with};
use cantus_twelve_tone::analysis::{Options, RowSource, Verdict, analyze, percent};
use serde::Serialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// One piece of the corpus, analysed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Piece {
    /// The file's name within the directory.
    pub file: String,
    /// The score's title, when the file names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Notes (every pitch of every event, grace notes included).
    pub notes: usize,
    /// Of them, grace notes.
    pub grace_notes: usize,
    /// The row the statements are labelled against (`None`: none found).
    pub row: Option<String>,
    /// The historical row it is a form of, if any.
    pub row_name: Option<String>,
    pub row_source: Option<RowSource>,
    /// Notes some statement explains.
    pub explained: usize,
    /// `explained / notes` (0 for a piece without notes).
    pub share: f64,
    /// Notes complete statements explain: what the verdict weighs.
    pub explained_by_complete: usize,
    /// `explained_by_complete / notes`.
    pub complete_share: f64,
    /// The same share in the highest of the piece's shuffled copies (the verdict's
    /// control); `None` when no control was computed.
    pub control_complete_share: Option<f64>,
    pub statements: usize,
    /// Of them, complete ones.
    pub complete: usize,
    pub canons: usize,
    pub verdict: Option<Verdict>,
    /// Warnings the reader gave (skipped notation, …).
    pub warnings: usize,
    /// Why the piece could not be read or analysed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A directory of pieces, analysed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Corpus {
    pub dir: PathBuf,
    pub pieces: Vec<Piece>,
}

/// Why a directory could not be analysed at all.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error("{}: {source}", dir.display())]
    Io {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: no score file in the directory (.txt, .mid, .musicxml, .xml, .mxl, .mei)", dir.display())]
    Empty { dir: PathBuf },
}

/// The score files directly in `dir` (those the format layer reads), in name order.
pub fn score_files(dir: &Path) -> Result<Vec<PathBuf>, CorpusError> {
    let io = |source| CorpusError::Io {
        dir: dir.to_owned(),
        source,
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && Format::from_path(p).is_ok_and(|f| f != Format::LilyPond))
        .collect();
    if files.is_empty() {
        return Err(CorpusError::Empty {
            dir: dir.to_owned(),
        });
    }
    files.sort();
    Ok(files)
}

/// Analyses every score file in `dir` with `options` (read with `read`, grace notes
/// kept).
pub fn analyze_dir(
    dir: &Path,
    read: &ReadOptions,
    options: &Options,
) -> Result<Corpus, CorpusError> {
    let read = ReadOptions {
        grace_notes: true,
        ..*read
    };
    let pieces = score_files(dir)?
        .iter()
        .map(|path| piece(path, &read, options))
        .collect();
    Ok(Corpus {
        dir: dir.to_owned(),
        pieces,
    })
}

fn piece(path: &Path, read: &ReadOptions, options: &Options) -> Piece {
    let file = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut out = Piece {
        file,
        title: None,
        notes: 0,
        grace_notes: 0,
        row: None,
        row_name: None,
        row_source: None,
        explained: 0,
        share: 0.0,
        explained_by_complete: 0,
        complete_share: 0.0,
        control_complete_share: None,
        statements: 0,
        complete: 0,
        canons: 0,
        verdict: None,
        warnings: 0,
        error: None,
    };
    let loaded = match read_path_with(path, read) {
        Ok(l) => l,
        Err(e) => {
            out.error = Some(e.to_string());
            return out;
        }
    };
    out.title = loaded.score.title.clone();
    out.warnings = loaded.warnings.len();
    out.grace_notes = loaded
        .score
        .voices
        .iter()
        .flat_map(|v| &v.events)
        .filter(|e| e.is_grace())
        .map(|e| e.pitches.len())
        .sum();
    let analysis = match analyze(&loaded.score, options) {
        Ok(a) => a,
        Err(e) => {
            out.error = Some(e.to_string());
            return out;
        }
    };
    out.notes = analysis.notes;
    out.row = analysis.row.map(|r| r.to_string());
    out.row_name = analysis.row_name.clone();
    out.row_source = Some(analysis.row_source);
    out.explained = analysis.explained;
    let share = |part: usize, whole: usize| {
        if whole == 0 {
            0.0
        } else {
            part as f64 / whole as f64
        }
    };
    out.share = share(analysis.explained, analysis.notes);
    out.explained_by_complete = analysis.explained_by_complete;
    out.complete_share = share(analysis.explained_by_complete, analysis.notes);
    out.control_complete_share = analysis
        .control
        .highest()
        .map(|c| share(c.explained_by_complete, c.notes));
    out.statements = analysis.statements.len();
    out.complete = analysis.statements.iter().filter(|s| s.complete).count();
    out.canons = analysis.canons.len();
    out.verdict = Some(analysis.verdict);
    out
}

impl Corpus {
    /// The corpus as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// The table: one Markdown row per piece, then the totals.
impl fmt::Display for Corpus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "| piece | notes | row found | explained | statements (complete) | canons | verdict | in complete statements | shuffled copies (highest) |"
        )?;
        writeln!(f, "|---|---|---|---|---|---|---|---|---|")?;
        for p in &self.pieces {
            if let Some(e) = &p.error {
                writeln!(
                    f,
                    "| {} | – | error: {} | – | – | – | – | – | – |",
                    p.file,
                    cell(e)
                )?;
                continue;
            }
            let explained = if p.notes == 0 {
                "–".to_owned()
            } else {
                percent(p.explained, p.notes)
            };
            let row = match (&p.row, &p.row_name, p.row_source) {
                (Some(row), Some(name), Some(source)) => {
                    format!("{name} ({}; {row})", source_word(source))
                }
                (Some(row), _, Some(RowSource::NotFound)) => {
                    format!("none (the best, {row}, no more than chance)")
                }
                (Some(row), None, Some(source)) => format!("{row} ({})", source_word(source)),
                _ => "none".to_owned(),
            };
            let notes = if p.grace_notes > 0 {
                format!("{} ({} grace)", p.notes, p.grace_notes)
            } else {
                p.notes.to_string()
            };
            let complete = if p.notes == 0 {
                "–".to_owned()
            } else {
                percent(p.explained_by_complete, p.notes)
            };
            let control = p
                .control_complete_share
                .map_or_else(|| "–".to_owned(), |c| format!("{:.1}%", 100.0 * c));
            writeln!(
                f,
                "| {} | {notes} | {row} | {explained} | {} ({}) | {} | {} | {complete} | {control} |",
                p.file,
                p.statements,
                p.complete,
                p.canons,
                p.verdict.map_or("–", verdict_word)
            )?;
        }
        let read: Vec<&Piece> = self.pieces.iter().filter(|p| p.error.is_none()).collect();
        let (notes, explained) = read
            .iter()
            .fold((0, 0), |(n, e), p| (n + p.notes, e + p.explained));
        let twelve = read
            .iter()
            .filter(|p| p.verdict == Some(Verdict::TwelveTone))
            .count();
        writeln!(
            f,
            "\n{} pieces ({} not read); {explained} of {notes} notes explained by rows ({}); {twelve} read as twelve-tone.",
            self.pieces.len(),
            self.pieces.len() - read.len(),
            percent(explained, notes)
        )
    }
}

fn cell(text: &str) -> String {
    text.replace('|', "/").replace('\n', " ")
}

fn source_word(source: RowSource) -> &'static str {
    match source {
        RowSource::Given => "given",
        RowSource::Inferred => "inferred",
        RowSource::NotFound => "not found",
    }
}

fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::TwelveTone => "twelve-tone",
        Verdict::PartlyTwelveTone => "partly twelve-tone",
        Verdict::NotTwelveTone => "not twelve-tone",
        Verdict::Empty => "empty",
    }
}
