//! `cantus.verify`: a score judged by a rule domain's release gate, the domain found
//! by name in the domain registry (`cantus-registry`) — the same gate, options and
//! JSON verdict as `cantus verify --domain NAME --json`, for every domain the
//! program links, with nothing here naming one.
//!
//! The options cross as the command line's flags (name and value, `None` for a
//! switch), checked against the domain's own table, so a domain's new flag needs no
//! code here. The verdict crosses as that JSON (violations with rule id, severity,
//! bar, voice, onset and reason; facts), so every domain's verdict has one shape in
//! Python. A domain's refusal becomes the exception class of its kind
//! ([`domain_error`]).

use crate::errors::{Place, colon_place, error, read_error_ref};
use crate::score::NativeScore;
use cantus_registry::{Args, ArgsError, DomainError, Opt, Unit, Verified};
use pyo3::prelude::*;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

/// Options as Python passes them: the domain's flag names (`cantus-voice`), each
/// with its value as text, or `None` for a switch.
pub type Given = Vec<(String, Option<String>)>;

/// The rule domain judged by name though it is not registered yet (its own
/// registration comes with issue 27; this fallback goes then).
const CHORALE: &str = "chorale";

/// The names of the rule domains `verify` can judge by: every registered domain
/// with a verifier.
#[pyfunction]
pub fn domains() -> Vec<String> {
    let mut names: Vec<String> = cantus_registry::domains()
        .iter()
        .filter(|u| u.verifier().is_ok())
        .map(|u| u.id().to_string())
        .collect();
    if !names.iter().any(|n| n == CHORALE) {
        names.push(CHORALE.to_owned());
        names.sort();
    }
    names
}

/// The registered domain `name` (the program's default domain when `None`); an
/// unknown one is a `DomainError` listing the registered domains.
pub fn unit(py: Python<'_>, name: Option<&str>) -> PyResult<&'static Unit> {
    match name {
        Some(name) => cantus_registry::find(name).map_err(|e| option_error(py, e.to_string())),
        None => cantus_registry::default_domain()
            .ok_or_else(|| option_error(py, "no rule domain is registered".to_owned())),
    }
}

/// `given` checked against `table`, the flags of `unit` that `table_of` picks; a
/// flag the domain does not take names the registered domains that do.
pub fn args(
    py: Python<'_>,
    unit: &Unit,
    given: Given,
    table_of: fn(&Unit) -> Option<&'static [Opt]>,
    class: &str,
) -> PyResult<Args> {
    let table = table_of(unit).unwrap_or(&[]);
    let given = given.into_iter().map(|(n, v)| (n, v.map(OsString::from)));
    match Args::parse(table, unit.id().as_str(), given, &[]) {
        Ok(args) => Ok(args),
        Err(ArgsError::Unknown { flag, domain, .. }) => {
            let name = flag.trim_start_matches('-');
            let owners = cantus_registry::domains()
                .iter()
                .filter(|u| table_of(u).is_some_and(|t| t.iter().any(|o| o.name == name)))
                .map(|u| u.id().to_string())
                .collect();
            let e = ArgsError::Unknown {
                flag,
                domain,
                owners,
            };
            Err(error(py, class, e.to_string(), Place::default()))
        }
        Err(e) => Err(error(py, class, e.to_string(), Place::default())),
    }
}

fn verify_table(unit: &Unit) -> Option<&'static [Opt]> {
    unit.verifier().ok().map(|v| v.options())
}

/// Judges `score` by the gate of `domain` with the options `given`; returns the
/// verdict as JSON.
#[pyfunction]
pub fn verify(
    py: Python<'_>,
    score: &NativeScore,
    domain: Option<&str>,
    given: Given,
) -> PyResult<String> {
    let scored = Arc::clone(&score.score);
    if domain == Some(CHORALE) && cantus_registry::find(CHORALE).is_err() {
        return chorale(py, &scored, &score.source, given);
    }
    let unit = unit(py, domain)?;
    let verifier = unit
        .verifier()
        .map_err(|e| option_error(py, e.to_string()))?;
    let args = args(py, unit, given, verify_table, "DomainError")?;
    let source = score.source.clone();
    let verified = py.detach(|| verifier.verify_score(&scored, &source, &args));
    let verified = verified.map_err(|e| domain_error(py, &e, "DomainError"))?;
    json(py, verified.json, unit.id().as_str())
}

/// Judges the file at `path` by the gate of `domain`, read as the domain reads its
/// files (`cantus verify --domain NAME FILE`): the verdict as JSON, and what reading
/// it warned about.
#[pyfunction]
pub fn verify_file(
    py: Python<'_>,
    path: PathBuf,
    domain: Option<&str>,
    given: Given,
) -> PyResult<(String, Vec<String>)> {
    if domain == Some(CHORALE) && cantus_registry::find(CHORALE).is_err() {
        let text = path.display().to_string();
        let loaded =
            cantus_music::format::read_path(&path, false).map_err(|e| read_error_ref(py, &e))?;
        let warnings = loaded.warnings.iter().map(ToString::to_string).collect();
        return Ok((chorale(py, &loaded.score, &text, given)?, warnings));
    }
    let unit = unit(py, domain)?;
    let verifier = unit
        .verifier()
        .map_err(|e| option_error(py, e.to_string()))?;
    let args = args(py, unit, given, verify_table, "DomainError")?;
    let verified: Result<Verified, DomainError> =
        py.detach(|| verifier.verify(&path, false, &args));
    let verified = verified.map_err(|e| domain_error(py, &e, "DomainError"))?;
    Ok((
        json(py, verified.json, unit.id().as_str())?,
        verified.warnings,
    ))
}

fn option_error(py: Python<'_>, message: String) -> PyErr {
    error(py, "DomainError", message, Place::default())
}

/// A domain's refusal as the exception class of its kind: a file that cannot be
/// read as `ReadError` (or `FileNotFoundError`), a spec as `SpecError` with its
/// line, a row as `RowError`, a brief as `BriefError` — found by the domain's own
/// error type kept in the [`DomainError`] — and anything else as `class` (with the
/// place a `file:line:column:` message names).
pub fn domain_error(py: Python<'_>, e: &DomainError, class: &str) -> PyErr {
    use cantus_twelve_tone::plugin::job::PieceError;
    use cantus_twelve_tone::plugin::verify::VerifyError;
    let cause = e.cause();
    if let Some(v) = cause.and_then(|c| c.downcast_ref::<VerifyError>()) {
        return match v {
            VerifyError::Piece(p) => piece_error(py, p),
            VerifyError::Read(r) => read_error_ref(py, r),
            VerifyError::Row(_) => error(py, "RowError", e.message(), Place::default()),
            VerifyError::Plan(_) => error(py, "SpecError", e.message(), Place::default()),
        };
    }
    if let Some(p) = cause.and_then(|c| c.downcast_ref::<PieceError>()) {
        return piece_error(py, p);
    }
    if let Some(r) = cause.and_then(|c| c.downcast_ref::<cantus_music::format::FormatError>()) {
        return read_error_ref(py, r);
    }
    located(py, class, e.message().to_owned())
}

/// A twelve-tone piece that could not be set up (spec, brief, its file).
fn piece_error(py: Python<'_>, e: &cantus_twelve_tone::plugin::job::PieceError) -> PyErr {
    use cantus_twelve_tone::plugin::job::PieceError;
    match e {
        PieceError::Spec(s) => {
            let place = Place {
                line: s.line,
                column: s.column,
                path: s.source_name.clone(),
                ..Place::default()
            };
            error(py, "SpecError", s.to_string(), place)
        }
        PieceError::Read(r) => read_error_ref(py, r),
        PieceError::Missing => error(
            py,
            "ComposeError",
            "give a brief or a spec",
            Place::default(),
        ),
        PieceError::Brief(b) => error(py, "BriefError", b.clone(), Place::default()),
    }
}

/// The chorale domain's gate, until the domain registers itself (issue 27).
fn chorale(
    py: Python<'_>,
    scored: &cantus_music::Score,
    source: &str,
    given: Given,
) -> PyResult<String> {
    let mut profile = None;
    for (name, value) in given {
        match (name.as_str(), value) {
            ("profile", Some(v)) => profile = Some(v),
            _ => {
                return Err(option_error(
                    py,
                    "the chorale domain takes a profile (\"strict\" or \"lenient\") and nothing else"
                        .into(),
                ));
            }
        }
    }
    let named = profile.as_deref().unwrap_or("strict");
    let profile = cantus_chorale::Profile::parse(named).ok_or_else(|| {
        option_error(
            py,
            format!("profile {named:?}: use \"strict\" or \"lenient\""),
        )
    })?;
    let options = cantus_chorale::ReadOptions {
        profile,
        ..Default::default()
    };
    let judged = py.detach(|| cantus_chorale::judge_score(scored, &options));
    let (report, _, _) = judged.map_err(|e| {
        error(
            py,
            "DomainError",
            format!("{source}: not a four-part chorale: {e}"),
            Place::file(source.to_owned()),
        )
    })?;
    let out = serde_json::json!({
        "file": source,
        "passed": report.passed,
        "gate": report.gate,
        "events": scored.event_count(),
        "violations": report.violations.iter().map(|v| v.flat()).collect::<Vec<_>>(),
        "unlisted": report.unlisted,
        "facts": report.facts,
    });
    json(py, out, CHORALE)
}

/// The verdict as JSON with the domain's name added.
fn json(py: Python<'_>, mut value: serde_json::Value, domain: &str) -> PyResult<String> {
    match value.as_object_mut() {
        Some(map) => {
            map.insert("domain".into(), domain.into());
            Ok(value.to_string())
        }
        None => Err(error(
            py,
            "CantusError",
            format!("the {domain} domain's verdict is not a JSON object"),
            Place::default(),
        )),
    }
}

/// Reads a `file:line:column: …` message into an exception of `class`.
pub fn located(py: Python<'_>, class: &str, message: String) -> PyErr {
    let place = colon_place(&message);
    error(py, class, message, place)
}
