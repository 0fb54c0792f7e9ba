//! Every error of the library crates becomes one of the exception classes of
//! `cantus/errors.py`, carrying what the command line prints: the message, and where
//! it is known the file, line, column, byte offset and rule id as attributes, so a
//! notebook can point at the spot and a test can match on the rule.
//!
//! The classes are written in Python (attributes, docstrings, `ValueError` as a base
//! where the input is at fault); this module only fills them in.

use cantus_music::format::FormatError;
use cantus_music::grammar::{Diagnostic, GrammarError};
use cantus_music::midi::MidiError;
use cantus_music::musicxml::MusicXmlError;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// Where an error lies, as far as the reader knows.
#[derive(Default)]
pub struct Place {
    pub path: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub byte: Option<usize>,
    pub rule: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Place {
    pub fn file(path: impl Into<String>) -> Place {
        Place {
            path: Some(path.into()),
            ..Place::default()
        }
    }

    fn at(mut self, line: usize, column: usize) -> Place {
        self.line = Some(line);
        self.column = Some(column);
        self
    }
}

/// An exception of class `class` (in `cantus.errors`) with `message` and `place`.
pub fn error(py: Python<'_>, class: &str, message: impl Into<String>, place: Place) -> PyErr {
    let message = message.into();
    match build(py, class, &message, place) {
        Ok(err) => err,
        // The Python half of the package is missing or broken: still say what went wrong.
        Err(_) => PyValueError::new_err(message),
    }
}

fn build(py: Python<'_>, class: &str, message: &str, place: Place) -> PyResult<PyErr> {
    let class = py.import("cantus.errors")?.getattr(class)?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("path", place.path)?;
    kwargs.set_item("line", place.line)?;
    kwargs.set_item("column", place.column)?;
    kwargs.set_item("byte", place.byte)?;
    kwargs.set_item("rule", place.rule)?;
    let diagnostics = PyList::empty(py);
    for d in &place.diagnostics {
        let item = PyDict::new(py);
        item.set_item("rule", d.rule)?;
        item.set_item("severity", d.severity.to_string())?;
        item.set_item("message", &d.message)?;
        item.set_item("help", &d.help)?;
        item.set_item("path", &d.source)?;
        item.set_item("line", d.line)?;
        item.set_item("column", d.column)?;
        item.set_item("text", d.to_string())?;
        diagnostics.append(item)?;
    }
    kwargs.set_item("diagnostics", diagnostics)?;
    let value = class.call((message,), Some(&kwargs))?;
    Ok(PyErr::from_value(value))
}

/// A reader's refusal as `ReadError` (or `FileNotFoundError` / `OSError` for the
/// system's own errors), with the message the CLI prints.
pub fn read_error(py: Python<'_>, e: FormatError) -> PyErr {
    read_error_ref(py, &e)
}

/// [`read_error`] of an error held elsewhere (a domain's error keeps it as its cause).
pub fn read_error_ref(py: Python<'_>, e: &FormatError) -> PyErr {
    let message = e.to_string();
    match e {
        FormatError::Io { path, source } => {
            let text = format!("{}: {source}", path.display());
            let path = path.display().to_string();
            if source.kind() == std::io::ErrorKind::NotFound {
                PyFileNotFoundError::new_err((2, text, path))
            } else {
                PyOSError::new_err((source.raw_os_error().unwrap_or(0), text, path))
            }
        }
        FormatError::UnknownExtension { path } | FormatError::Unsupported { path, .. } => error(
            py,
            "FormatError",
            message,
            Place::file(path.display().to_string()),
        ),
        FormatError::Utf8 {
            path, line, offset, ..
        } => {
            let place = Place {
                line: Some(*line),
                byte: Some(*offset),
                ..Place::file(path.display().to_string())
            };
            error(py, "ReadError", message, place)
        }
        FormatError::Grammar(g) => error(py, "ReadError", message, grammar_place(g.clone())),
        FormatError::Midi { path, source } => error(
            py,
            "ReadError",
            message,
            midi_place(path.display().to_string(), source),
        ),
        FormatError::MusicXml { path, source } => error(
            py,
            "ReadError",
            message,
            xml_place(path.display().to_string(), source),
        ),
        FormatError::Mei { path, source } => {
            let place = Place::file(path.display().to_string());
            let place = match source {
                cantus_music::mei::MeiError::Xml { line, column, .. }
                | cantus_music::mei::MeiError::Invalid { line, column, .. } => {
                    place.at(*line, *column)
                }
            };
            error(py, "ReadError", message, place)
        }
        FormatError::Write { path, .. } => error(
            py,
            "WriteError",
            message,
            Place::file(path.display().to_string()),
        ),
    }
}

/// The first diagnostic's place and rule, with every diagnostic listed.
fn grammar_place(g: GrammarError) -> Place {
    let first = g.diagnostics.first();
    Place {
        path: first.map(|d| d.source.clone()),
        line: first.map(|d| d.line),
        column: first.map(|d| d.column),
        byte: None,
        rule: first.map(|d| d.rule.to_owned()),
        diagnostics: g.diagnostics,
    }
}

fn midi_place(path: String, e: &MidiError) -> Place {
    let byte = match e {
        MidiError::Header { offset, .. } => Some(*offset),
        MidiError::Truncated { file_end, .. } => Some(*file_end),
        _ => None,
    };
    Place {
        byte,
        ..Place::file(path)
    }
}

fn xml_place(path: String, e: &MusicXmlError) -> Place {
    match e {
        MusicXmlError::Xml { line, column, .. } | MusicXmlError::Invalid { line, column, .. } => {
            Place::file(path).at(*line, *column)
        }
        // A file inside a compressed archive: its place, named `archive!entry`.
        MusicXmlError::InEntry { entry, source } => xml_place(format!("{path}!{entry}"), source),
        MusicXmlError::InFile { source, .. } => xml_place(path, source),
        _ => Place::file(path),
    }
}

/// A `file:line:column: message` text (as `cantus.toml` errors are written) read back
/// into its place.
pub fn colon_place(text: &str) -> Place {
    let head = text.split(": ").next().unwrap_or_default();
    let mut fields = head.rsplitn(3, ':');
    let column = fields.next().and_then(|c| c.parse().ok());
    let line = fields.next().and_then(|l| l.parse().ok());
    match (line, column, fields.next()) {
        (Some(line), Some(column), Some(path)) => Place::file(path).at(line, column),
        _ => Place::default(),
    }
}
