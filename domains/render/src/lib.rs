//! `cantus-render`: see and hear a Cantus piece.
//!
//! Musicians judge a piece by reading and hearing it. This crate turns a piece
//! (and what its run left: trace, report) into what they read and hear:
//!
//! * [`annotate`]: what analyses know about the notes, as
//!   [`Annotations`](cantus_music::annotation::Annotations) — row labels from the
//!   strict gate's statements, repair colours and ghost notes from a trace,
//!   interval figures and violation marks for counterpoint;
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
//! External tools are found by [`tools`]; a missing one is an error that names
//! it and how to install it.
#![forbid(unsafe_code)]

pub mod annotate;
pub mod audio;
pub mod blind;
pub mod engrave;
pub mod error;
pub mod piece;
pub mod report;
pub mod run;
pub mod tools;
pub mod trace;
pub mod verdict;

pub use error::{RenderError, Result, Tool};
pub use piece::{DomainKind, Piece};
pub use verdict::{Finding, Verdict, judge};
