//! What can go wrong when rendering, as one typed error for the whole crate.

use std::path::{Path, PathBuf};
use thiserror::Error;

/// An external program or file the renderer needs, and how to get it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// The engraver, `lilypond` on PATH (or `CANTUS_LILYPOND`).
    LilyPond,
    /// A General MIDI SoundFont (`.sf2`).
    SoundFont,
}

impl Tool {
    /// The tool's name as a person would look for it.
    pub fn name(self) -> &'static str {
        match self {
            Tool::LilyPond => "LilyPond (lilypond)",
            Tool::SoundFont => "a General MIDI SoundFont (.sf2)",
        }
    }

    /// How to install it.
    pub fn install_hint(self) -> &'static str {
        match self {
            Tool::LilyPond => {
                "install it with `apt-get install lilypond` (Debian/Ubuntu) or \
                 scripts/install-music-tools.sh, or point CANTUS_LILYPOND at the program"
            }
            Tool::SoundFont => {
                "install one with `apt-get install fluid-soundfont-gm` (Debian/Ubuntu; it puts \
                 FluidR3_GM.sf2 in /usr/share/sounds/sf2) or scripts/install-music-tools.sh, or \
                 give one with --soundfont FILE (or CANTUS_SOUNDFONT)"
            }
        }
    }
}

/// Why rendering failed.
#[derive(Debug, Error)]
pub enum RenderError {
    /// A tool is not installed.
    #[error("{} not found{}: {}", .tool.name(), .looked.as_deref().map(|l| format!(" (looked in {l})")).unwrap_or_default(), .tool.install_hint())]
    MissingTool {
        /// Which tool.
        tool: Tool,
        /// Where it was looked for, when that helps.
        looked: Option<String>,
    },
    /// Reading or writing a file.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The output directory given is a file (never replaced).
    #[error("{}: is a file, not a directory; choose another --out", .path.display())]
    OutputIsAFile {
        /// The file.
        path: PathBuf,
    },
    /// A piece that cannot be read (format, grammar, MIDI errors), or a run
    /// directory without a piece.
    #[error("{}: {message}", .path.display())]
    Piece {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A trace file line that is not JSON.
    #[error("{}:{line}: not a trace record: {message}", .path.display())]
    Trace {
        /// The trace file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// Why.
        message: String,
    },
    /// The score cannot be written as LilyPond.
    #[error("cannot engrave: {0}")]
    Notation(#[from] cantus_music::lilypond::LilypondError),
    /// LilyPond ran and failed, or warned (its own words follow).
    #[error("LilyPond failed on {}: {stderr}", .source_file.display())]
    Engraver {
        /// The `.ly` file LilyPond was given (kept for inspection).
        source_file: PathBuf,
        /// What LilyPond printed.
        stderr: String,
    },
    /// The SoundFont cannot be loaded or the synthesiser refused a setting.
    #[error("{}: cannot synthesise: {message}", .path.display())]
    Synth {
        /// The SoundFont.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// Encoding audio failed.
    #[error("encoding {format}: {message}")]
    Encode {
        /// `wav`, `flac` or `ogg`.
        format: &'static str,
        /// Why.
        message: String,
    },
    /// A score too long or too short to synthesise within the renderer's limits.
    #[error("cannot synthesise: {0}")]
    Duration(String),
    /// A blind-evaluation input or ratings file that does not fit its contract.
    #[error("{}: {message}", .path.display())]
    Blind {
        /// The file or directory.
        path: PathBuf,
        /// Why (with the line and column of a ratings file where it applies).
        message: String,
    },
}

impl RenderError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> RenderError {
        RenderError::Io {
            path: path.into(),
            source,
        }
    }
}

/// Makes the output directory `dir` (and its parents) unless it is there; a file
/// there is refused, never replaced.
pub(crate) fn output_dir(dir: &Path) -> Result<()> {
    if dir.symlink_metadata().is_ok() && !dir.is_dir() {
        return Err(RenderError::OutputIsAFile {
            path: dir.to_path_buf(),
        });
    }
    std::fs::create_dir_all(dir).map_err(|e| RenderError::io(dir, e))
}

/// The crate's result type.
pub type Result<T, E = RenderError> = std::result::Result<T, E>;
