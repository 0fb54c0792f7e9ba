//! The reference set of the corpus distance: scores people wrote, read once when an
//! experiment runs (or when a report is asked to use another set) into what the
//! metrics need — each piece's pitch-class and interval-class distributions and the
//! share of its notes the domain's analyser explains
//! ([`cantus_registry::Trials::explained_share`]). Only these numbers are kept (in
//! the results' header), so a report needs no score file.
//!
//! An entry may name a score file or a directory; a directory stands for every score
//! file directly in it (any extension `cantus convert` reads), in name order.
//!
//! Without a `reference` key the set is the one the tasks' domain ships
//! ([`cantus_registry::Trials::reference`]: twelve-tone's is the corpus
//! `corpus/second-viennese`), none for tasks of several domains.

use super::metrics::texture::{Distributions, distributions};
use super::run::RunError;
use cantus_music::format::{Format, read_path_with};
use cantus_registry::{DomainId, Reference, Trials};
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
/// `name` (the path as it is to be shown), its analyser's share measured by
/// `domain`'s (none without one).
pub fn read(
    paths: &[PathBuf],
    name: impl Fn(&Path) -> String,
    domain: Option<&dyn Trials>,
) -> Result<Vec<Reference>, RunError> {
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
            analysis_share: domain.and_then(|d| d.explained_share(&loaded.score)),
        });
    }
    Ok(out)
}

/// The set an experiment whose tasks are of `domains` measures against when its file
/// names none: the one domain's shipped set, none for several domains or none.
pub fn shipped<'a>(domains: impl Iterator<Item = &'a DomainId>) -> Vec<Reference> {
    super::registered::trials_of_only(domains)
        .map(|t| t.reference())
        .unwrap_or_default()
}
