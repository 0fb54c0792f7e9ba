//! `cantus-render`: see and hear a Cantus piece.
//!
//! Musicians judge a piece by reading and hearing it. This crate turns a piece
//! (and what its run left: trace, report) into what they read and hear:
//!
//! * [`annotate`]: what analyses know about the notes, as
//!   [`Annotations`](cantus_music::annotation::Annotations) — the domain's own
//!   analysis from its registered review (row labels, interval figures), repair
//!   colours and ghost notes from a trace, violation marks;
//! * [`engrave`]: the annotated score engraved by LilyPond (SVG, PNG, PDF);
//! * [`audio`]: the score played through a General MIDI SoundFont (rustysynth)
//!   to WAV, FLAC or Ogg, as long as the score under its tempo map;
//! * [`report`]: a static HTML report per piece (engraving, player, verdict with
//!   each violation linked to its note, a trace viewer) and an index page per
//!   run directory, opened from disk with no server;
//! * [`blind`]: the blind-evaluation package (anonymised pairs, rating forms,
//!   key, manifest) and the scoring of its ratings (preference rates with
//!   bootstrap intervals, Fleiss' κ, per-rater agreement).
//!
//! It knows no rule domain: a piece's domain is found in the registry
//! (`cantus-registry`) by the name its run gives, and judged and annotated by that
//! domain's review. An artefact that is not a score gets its HTML page (the text,
//! the verdict, the trace) but no engraving or audio.
//!
//! External tools are found by [`tools`]; a missing one is an error that names
//! it and how to install it.
#![forbid(unsafe_code)]

pub mod annotate;
pub mod audio;
pub mod blind;
pub mod engrave;
mod error;
mod piece;
pub mod report;
pub mod run;
pub mod tools;
pub mod trace;
mod verdict;

pub use cantus_registry::{Finding, Place, Verdict};
pub use error::{RenderError, Result, Tool};
pub use piece::Piece;
pub use verdict::judge;
