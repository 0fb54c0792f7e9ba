//! Finding the programs and files rendering needs: LilyPond and a SoundFont.
//!
//! Each is looked for where the project's install script and the usual Linux
//! packages put it, and its absence is a [`RenderError::MissingTool`] that names
//! the tool and how to install it, never a bare "No such file".

use crate::error::{RenderError, Result, Tool};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where SoundFonts are looked for, in order, after `--soundfont` and
/// `CANTUS_SOUNDFONT`: Debian's `fluid-soundfont-gm` (and its `default-GM`
/// alternative), the `/usr/share/soundfonts` of other distributions, and the
/// smaller TimGM6mb of Debian's `timgm6mb-soundfont`.
pub const SOUNDFONT_PLACES: [&str; 6] = [
    "/usr/share/sounds/sf2/FluidR3_GM.sf2",
    "/usr/share/sounds/sf2/default-GM.sf2",
    "/usr/share/soundfonts/FluidR3_GM.sf2",
    "/usr/share/soundfonts/default.sf2",
    "/usr/share/sounds/sf2/TimGM6mb.sf2",
    "/usr/share/soundfonts/TimGM6mb.sf2",
];

/// The LilyPond program: `CANTUS_LILYPOND`, else `lilypond` on PATH, checked by
/// running `--version`.
pub fn lilypond() -> Result<PathBuf> {
    let program = std::env::var_os("CANTUS_LILYPOND")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("lilypond"));
    let runs = Command::new(&program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if runs {
        Ok(program)
    } else {
        Err(RenderError::MissingTool {
            tool: Tool::LilyPond,
            looked: Some(format!("{} on PATH", program.display())),
        })
    }
}

/// The SoundFont to play through: `given` (which must exist), else
/// `CANTUS_SOUNDFONT`, else the first of [`SOUNDFONT_PLACES`] that exists.
pub fn soundfont(given: Option<&Path>) -> Result<PathBuf> {
    if let Some(path) = given {
        return if path.is_file() {
            Ok(path.to_path_buf())
        } else {
            Err(RenderError::MissingTool {
                tool: Tool::SoundFont,
                looked: Some(path.display().to_string()),
            })
        };
    }
    if let Some(env) = std::env::var_os("CANTUS_SOUNDFONT") {
        let path = PathBuf::from(env);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(RenderError::MissingTool {
                tool: Tool::SoundFont,
                looked: Some(format!("CANTUS_SOUNDFONT={}", path.display())),
            })
        };
    }
    SOUNDFONT_PLACES
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .ok_or_else(|| RenderError::MissingTool {
            tool: Tool::SoundFont,
            looked: Some(SOUNDFONT_PLACES.join(", ")),
        })
}
