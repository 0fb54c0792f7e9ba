//! `cantus render` as one library call: what to make from which piece, where.

use crate::annotate::Layers;
use crate::audio::{AudioFormat, Instrument};
use crate::engrave::{Target, engrave, source};
use crate::error::Result;
use crate::piece::Piece;
use crate::report::{PageOptions, index::write_run_index, write_piece};
use std::path::{Path, PathBuf};

/// What to render.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// A score file, a run directory, or (with `html`) a directory of runs.
    pub input: PathBuf,
    /// A trace to draw (default: the run directory's `trace.jsonl`).
    pub trace: Option<PathBuf>,
    pub to: Option<Target>,
    pub audio: Option<AudioFormat>,
    pub soundfont: Option<PathBuf>,
    /// Write the HTML report (a piece page, or an index of a directory of runs).
    pub html: bool,
    /// Output directory (default: the run directory, or the score file's folder).
    pub out: Option<PathBuf>,
    pub layers: Layers,
}

/// What was written.
#[derive(Clone, Debug, Default)]
pub struct Rendered {
    pub files: Vec<PathBuf>,
    /// LilyPond's warnings.
    pub warnings: Vec<String>,
    /// Runs of a directory that could not be rendered (`run: why`).
    pub failures: Vec<String>,
}

/// Renders what `request` asks for.
pub fn render(request: &Request) -> Result<Rendered> {
    let input = &request.input;
    let out = request.out.clone().unwrap_or_else(|| {
        if input.is_dir() {
            input.clone()
        } else {
            input.parent().map(Path::to_path_buf).unwrap_or_default()
        }
    });
    crate::error::output_dir(&out)?;
    let mut done = Rendered::default();
    let page_options = |format: AudioFormat| -> Result<PageOptions> {
        let sf = crate::tools::soundfont(request.soundfont.as_deref())?;
        Ok(PageOptions {
            layers: request.layers,
            audio: Some((Instrument::load(&sf)?, format)),
        })
    };
    let is_run_collection = input.is_dir()
        && !input.join(cantus_registry::layout::REPORT).is_file()
        && Piece::load(input, None).is_err();
    if request.html && is_run_collection {
        let index = write_run_index(
            input,
            &out,
            &page_options(request.audio.unwrap_or(AudioFormat::Ogg))?,
        )?;
        done.files.push(index.index);
        done.files.extend(index.pages);
        done.failures = index.failures;
        done.warnings = index.warnings;
        return Ok(done);
    }
    let mut piece = Piece::load(input, request.trace.as_deref())?;
    if let (Some(trace), Some(score)) = (piece.trace.as_mut(), piece.view.score()) {
        trace.resolve_voices(score);
    }
    let stem = piece
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "piece".into());
    if let Some(target) = request.to {
        let score = piece.score()?;
        let verdict = crate::verdict::judge(&piece);
        let annotations = crate::annotate::for_piece(&piece, score, &verdict, request.layers);
        let ly = source(score, &annotations, target)?;
        let engraved = engrave(&ly, &out, &format!("{stem}.annotated"), target)?;
        done.files.push(engraved.source);
        done.files.push(engraved.file);
        done.warnings.extend(engraved.warnings);
    }
    if let Some(format) = request.audio.filter(|_| !request.html) {
        let sf = crate::tools::soundfont(request.soundfont.as_deref())?;
        let instrument = Instrument::load(&sf)?;
        let bytes = crate::audio::render(piece.score()?, &piece.tempo, &instrument, format)?;
        let path = out.join(format!("{stem}.{}", format.extension()));
        std::fs::write(&path, bytes).map_err(|e| crate::RenderError::io(&path, e))?;
        done.files.push(path);
    }
    if request.html {
        // An artefact that is not a score has nothing to play: no SoundFont needed.
        let options = match piece.view.score() {
            Some(_) => page_options(request.audio.unwrap_or(AudioFormat::Ogg))?,
            None => PageOptions {
                layers: request.layers,
                audio: None,
            },
        };
        let page = write_piece(&piece, &out, &format!("{stem}.report"), &options)?;
        done.files.push(page.html);
        done.files.extend(page.engraving);
        done.files.extend(page.audio);
        done.warnings.extend(page.warnings);
    }
    Ok(done)
}
