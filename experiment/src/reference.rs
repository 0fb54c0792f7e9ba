//! The reference set of the corpus distance: scores people wrote, read once when an
//! experiment runs (or when a report is asked to use another set) into what the
//! metrics need — each piece's pitch-class and interval-class distributions and the
//! share of its notes the serial analyser explains by row statements. Only these
//! numbers are kept (in the results' header), so a report needs no score file.
//!
//! An entry may name a score file or a directory; a directory stands for every score
//! file directly in it (any extension `cantus convert` reads), in name order.
//!
//! Without a `reference` key the set is the shipped corpus `corpus/second-viennese`
//! (free-atonal songs by Schoenberg and Webern and the opening of Webern's twelve-tone
//! Op. 21; see its README). Its numbers are built into the program
//! (`second_viennese.json`), so an experiment measures against it from any directory;
//! a test keeps them equal to what [`read`] finds in the corpus
//! (`CANTUS_BLESS=1 cargo test --test corpus` rewrites them after a corpus change).

use super::metrics::texture::{Distributions, analysis_share, distributions};
use super::record::Reference;
use super::run::RunError;
use cantus_music::format::{Format, read_path_with};
use std::path::{Path, PathBuf};

/// Every score file `paths` name, directories expanded (in name order).
pub fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, RunError> {
    let mut out = Vec::new();
    for path in paths {
        if !path.is_dir() {
            out.push(path.clone());
            continue;
        }
        let entries = std::fs::read_dir(path).map_err(|source| RunError::Io {
            path: path.clone(),
            source,
        })?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && Format::from_path(p).is_ok_and(|f| f != Format::LilyPond))
            .collect();
        if found.is_empty() {
            return Err(RunError::Reference {
                path: path.clone(),
                message: "the directory holds no score file".into(),
            });
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

/// The reference set `paths` name (directories expanded), each piece named by
/// `name` (the path as it is to be shown).
pub fn read(paths: &[PathBuf], name: impl Fn(&Path) -> String) -> Result<Vec<Reference>, RunError> {
    let mut out = Vec::new();
    for path in expand(paths)? {
        // Leniently, as composers' scores come; grace notes are notes here.
        let options = cantus_music::ReadOptions {
            lenient: true,
            grace_notes: true,
            ..cantus_music::ReadOptions::default()
        };
        let loaded = read_path_with(&path, &options).map_err(|e| RunError::Reference {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let Some(Distributions {
            pitch_classes,
            interval_classes,
        }) = distributions(&loaded.score)
        else {
            return Err(RunError::Reference {
                path,
                message: "the score sounds no note".into(),
            });
        };
        out.push(Reference {
            name: name(&path),
            pitch_classes,
            interval_classes,
            analysis_share: analysis_share(&loaded.score),
        });
    }
    Ok(out)
}

/// Where the shipped corpus lives in the repository, and how its pieces are named.
pub const SHIPPED: &str = "corpus/second-viennese";

/// The shipped corpus's reference set (see the module documentation).
pub fn shipped() -> Vec<Reference> {
    serde_json::from_str(include_str!("second_viennese.json"))
        .expect("second_viennese.json is a list of references (checked by tests/corpus.rs)")
}
