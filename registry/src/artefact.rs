//! What a run makes, as files: written in each of its formats and read back, for
//! any artefact type — a [`Score`] or anything else a domain makes.
//!
//! A domain's artefact type implements [`Artefact`]; its unit registers the type
//! ([`crate::Unit::artefact`]) and the program, the experiment and the renderer
//! handle it through [`ArtefactKind`] without knowing it. What a reader sees of an
//! artefact is its [`View`]: a score (engraved, played, measured by Libretto) or
//! text (shown as it is). [`Score`] implements [`Artefact`] here, so every musical
//! domain writes the text grammar, MusicXML, LilyPond and MIDI for free.

use cantus_music::Score;
use cantus_music::format::{Format, read_path, render};
use std::marker::PhantomData;
use std::path::Path;

/// An artefact type: the formats it is written in and how it is read back.
pub trait Artefact: Sized + 'static {
    /// The formats a run writes it in, by file extension (`piece.<ext>`, see
    /// [`crate::layout`]), every one each time.
    const EXTENSIONS: &'static [&'static str];
    /// The formats it can be read back from, in order of preference (a subset of
    /// [`Artefact::EXTENSIONS`]).
    const READS: &'static [&'static str];
    /// The artefact in the format `extension` (one of [`Artefact::EXTENSIONS`]).
    fn to_bytes(&self, extension: &str) -> Result<Vec<u8>, String>;
    /// Reads the artefact in `path` (its extension one of [`Artefact::READS`]),
    /// with any warnings the reading gave.
    fn read(path: &Path) -> Result<(Self, Vec<String>), String>;
    /// What a reader sees of it.
    fn view(&self) -> View;
}

/// What a reader sees of an artefact.
#[derive(Clone, Debug, PartialEq)]
pub enum View {
    /// A score: engraved, played, measured.
    Score(Score),
    /// Anything else, shown as text.
    Text(String),
}

impl View {
    /// The score, if the artefact is one.
    pub fn score(&self) -> Option<&Score> {
        match self {
            View::Score(s) => Some(s),
            View::Text(_) => None,
        }
    }
}

/// An artefact type with the type forgotten: what the program and the renderer
/// hold of a registered domain's artefact.
pub trait ArtefactKind: Send + Sync {
    /// [`Artefact::EXTENSIONS`].
    fn extensions(&self) -> &'static [&'static str];
    /// [`Artefact::READS`].
    fn reads(&self) -> &'static [&'static str];
    /// Reads the artefact in `path` as its view, with the reading's warnings.
    fn read_view(&self, path: &Path) -> Result<(View, Vec<String>), String>;
}

/// The [`ArtefactKind`] of an [`Artefact`] type.
pub(crate) struct KindOf<A>(PhantomData<fn() -> A>);

impl<A> KindOf<A> {
    pub(crate) fn new() -> Self {
        KindOf(PhantomData)
    }
}

impl<A: Artefact> ArtefactKind for KindOf<A> {
    fn extensions(&self) -> &'static [&'static str] {
        A::EXTENSIONS
    }
    fn reads(&self) -> &'static [&'static str] {
        A::READS
    }
    fn read_view(&self, path: &Path) -> Result<(View, Vec<String>), String> {
        A::read(path).map(|(a, warnings)| (a.view(), warnings))
    }
}

/// A score: the onset-slot text grammar (read back first: exact and readable),
/// MusicXML, LilyPond (written only) and MIDI.
impl Artefact for Score {
    const EXTENSIONS: &'static [&'static str] = &["txt", "musicxml", "ly", "mid"];
    const READS: &'static [&'static str] = &["txt", "musicxml", "mid"];

    fn to_bytes(&self, extension: &str) -> Result<Vec<u8>, String> {
        let format = Format::from_path(Path::new(&format!("piece.{extension}")))
            .map_err(|e| e.to_string())?;
        render(self, format).map_err(|e| e.to_string())
    }

    fn read(path: &Path) -> Result<(Score, Vec<String>), String> {
        read_path(path, false)
            .map(|loaded| {
                let warnings = loaded.warnings.iter().map(ToString::to_string).collect();
                (loaded.score, warnings)
            })
            .map_err(|e| e.to_string())
    }

    fn view(&self) -> View {
        View::Score(self.clone())
    }
}
