//! The score as Python holds it: an opaque handle on the one exact score model
//! (`cantus_music::Score`), read from a file or bytes, built from Python's values, and
//! written back in any format.
//!
//! Python never holds a copy of the notes unless it asks (`voices()`): a 96,000-event
//! piece is judged, analysed or measured without a Python object per event. When it
//! asks, times cross as exact integer pairs, which `cantus/score.py` makes
//! `fractions.Fraction`s.

use crate::errors::{Place, error, read_error};
use cantus_music::format::{self, Format, Loaded};
use cantus_music::{
    Event, Grace, Key, Meter, Mode, Pitch, PitchLevel, ReadOptions, Score, Time, Voice, time,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A score read or built by Cantus (the Python class `cantus.Score` wraps it).
#[pyclass(frozen, module = "cantus._cantus", name = "NativeScore")]
pub struct NativeScore {
    pub score: Arc<Score>,
    /// The file (or `<bytes>`) it was read from, for messages.
    pub source: String,
    /// The format it was read in (`None` when built in Python or composed).
    pub format: Option<Format>,
    /// The text, when it was read from the text grammar: Libretto measures the text
    /// as the original did (`cantus fingerprint` does the same).
    pub text: Option<Arc<str>>,
    pub warnings: Vec<String>,
}

impl NativeScore {
    /// A score made by Cantus itself (composed), named `source`.
    pub fn made(score: Score, source: &str) -> NativeScore {
        NativeScore {
            score: Arc::new(score),
            source: source.to_owned(),
            format: None,
            text: None,
            warnings: Vec::new(),
        }
    }

    fn loaded(loaded: Loaded, source: String, text: Option<Arc<str>>) -> NativeScore {
        NativeScore {
            score: Arc::new(loaded.score),
            source,
            format: Some(loaded.format),
            text,
            warnings: loaded.warnings,
        }
    }
}

/// A format by the names people use: an extension or the format's name.
pub fn format_named(py: Python<'_>, name: &str) -> PyResult<Format> {
    Ok(
        match name.trim_start_matches('.').to_ascii_lowercase().as_str() {
            "txt" | "text" | "grammar" | "cantus" => Format::Grammar,
            "mid" | "midi" => Format::Midi,
            "musicxml" | "xml" => Format::MusicXml,
            "mxl" => Format::Mxl,
            "mei" => Format::Mei,
            "ly" | "lilypond" => Format::LilyPond,
            _ => {
                return Err(error(
                    py,
                    "FormatError",
                    format!(
                        "unknown score format {name:?} (use \"txt\", \"midi\", \"musicxml\", \"mxl\", \"mei\" or \"ly\")"
                    ),
                    Place::default(),
                ));
            }
        },
    )
}

/// The format of `bytes` by their first bytes: MIDI and zip archives by their magic,
/// MEI and MusicXML by their root element; anything else is read as the text grammar.
fn sniff(bytes: &[u8]) -> Format {
    if bytes.starts_with(b"MThd") {
        return Format::Midi;
    }
    if bytes.starts_with(b"PK") {
        return Format::Mxl;
    }
    let head = &bytes[..bytes.len().min(4096)];
    let head = String::from_utf8_lossy(head);
    if head.contains("<mei") {
        Format::Mei
    } else if head.contains("<score-partwise") || head.contains("<score-timewise") {
        Format::MusicXml
    } else {
        Format::Grammar
    }
}

fn options(lenient: bool, written_pitch: bool, grace_notes: bool) -> ReadOptions {
    ReadOptions {
        lenient,
        pitch: if written_pitch {
            PitchLevel::Written
        } else {
            PitchLevel::Sounding
        },
        grace_notes,
    }
}

fn read(
    py: Python<'_>,
    source: &Path,
    format: Format,
    bytes: Vec<u8>,
    opts: ReadOptions,
) -> PyResult<NativeScore> {
    let (result, bytes) = py.detach(|| (format::read_bytes(source, format, &bytes, &opts), bytes));
    let loaded = result.map_err(|e| read_error(py, e))?;
    let text = match format {
        // Read as UTF-8 already, or the reader would have refused it.
        Format::Grammar => String::from_utf8(bytes).ok().map(Arc::from),
        _ => None,
    };
    Ok(NativeScore::loaded(
        loaded,
        source.display().to_string(),
        text,
    ))
}

/// Reads the score file at `path`, in `format` or the one its extension names.
#[pyfunction]
#[pyo3(signature = (path, format=None, lenient=false, written_pitch=false, grace_notes=false))]
pub fn read_path(
    py: Python<'_>,
    path: PathBuf,
    format: Option<&str>,
    lenient: bool,
    written_pitch: bool,
    grace_notes: bool,
) -> PyResult<NativeScore> {
    let format = match format {
        Some(name) => format_named(py, name)?,
        None => Format::from_path(&path).map_err(|e| read_error(py, e))?,
    };
    let bytes = py.detach(|| std::fs::read(&path)).map_err(|source| {
        read_error(
            py,
            format::FormatError::Io {
                path: path.clone(),
                source,
            },
        )
    })?;
    read(
        py,
        &path,
        format,
        bytes,
        options(lenient, written_pitch, grace_notes),
    )
}

/// Reads a score from `data`, in `format` or the one its first bytes show; `name`
/// stands for the file in messages.
#[pyfunction]
#[pyo3(signature = (data, format=None, lenient=false, written_pitch=false, name="<bytes>", grace_notes=false))]
pub fn read_bytes(
    py: Python<'_>,
    data: &[u8],
    format: Option<&str>,
    lenient: bool,
    written_pitch: bool,
    name: &str,
    grace_notes: bool,
) -> PyResult<NativeScore> {
    let format = match format {
        Some(f) => format_named(py, f)?,
        None => sniff(data),
    };
    read(
        py,
        Path::new(name),
        format,
        data.to_vec(),
        options(lenient, written_pitch, grace_notes),
    )
}

/// `"F# minor"`: a key by its tonic and mode.
fn key_name(k: Key) -> String {
    let accidentals = if k.tonic.alter >= 0 {
        "#".repeat(k.tonic.alter.unsigned_abs().into())
    } else {
        "b".repeat(k.tonic.alter.unsigned_abs().into())
    };
    let mode = match k.mode {
        Mode::Major => "major",
        Mode::Minor => "minor",
    };
    format!("{}{accidentals} {mode}", k.tonic.letter.as_char())
}

fn grace_name(g: Grace) -> &'static str {
    match g {
        Grace::Acciaccatura => "acciaccatura",
        Grace::Appoggiatura => "appoggiatura",
    }
}

/// `C#4`, `Bb3`: a pitch as the text grammar names it (sharp spelling when it has none).
fn pitch_name(p: Pitch) -> String {
    let s = p.spelling_or_default();
    let accidentals = if s.alter >= 0 {
        "#".repeat(s.alter.unsigned_abs().into())
    } else {
        "b".repeat(s.alter.unsigned_abs().into())
    };
    format!(
        "{}{accidentals}{}",
        s.letter.as_char(),
        s.octave_for(p.midi)
    )
}

fn pair(t: Time) -> (i64, i64) {
    (*t.numer(), *t.denom())
}

/// A time from Python's integer pair, refused when the denominator is zero.
fn ratio(py: Python<'_>, (n, d): (i64, i64), what: &str) -> PyResult<Time> {
    if d == 0 {
        return Err(error(
            py,
            "ScoreError",
            format!("{what}: a zero denominator"),
            Place::default(),
        ));
    }
    Ok(time(n, d))
}

#[pymethods]
impl NativeScore {
    /// The voices: `[(name, key, [(onset, duration, ((midi, name), …), tag, grace, fermata), …]), …]`,
    /// each time an integer pair (numerator, denominator) in quarter notes, `key` the
    /// part's own signature when it has one, `grace` None or the kind of grace note.
    fn voices<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for v in &self.score.voices {
            let events = PyList::empty(py);
            for e in &v.events {
                let pitches = PyTuple::new(py, e.pitches.iter().map(|&p| (p.midi, pitch_name(p))))?;
                events.append((
                    pair(e.onset),
                    pair(e.duration),
                    pitches,
                    e.tag.as_deref(),
                    e.grace.map(grace_name),
                    e.fermata,
                ))?;
            }
            out.append((v.name.as_str(), v.key.map(key_name), events))?;
        }
        Ok(out)
    }

    /// The voices' names, in order.
    fn voice_names(&self) -> Vec<String> {
        self.score.voices.iter().map(|v| v.name.clone()).collect()
    }

    /// Everything but the voices: `(title, key, (num, den), tempo, bars, bar_count,
    /// event_count, end)`.
    #[allow(clippy::type_complexity)]
    fn meta(
        &self,
    ) -> (
        Option<String>,
        Option<String>,
        (u32, u32),
        Option<(i64, i64)>,
        Option<u32>,
        u32,
        usize,
        (i64, i64),
    ) {
        let s = &self.score;
        let key = s.key.map(key_name);
        (
            s.title.clone(),
            key,
            (s.meter.num, s.meter.den),
            s.tempo.map(pair),
            s.bars,
            s.bar_count(),
            s.event_count(),
            pair(s.end()),
        )
    }

    /// The file it was read from (`<bytes>` for bytes, `<composed>`, `<built>`).
    #[getter]
    fn source(&self) -> &str {
        &self.source
    }

    /// The format it was read in (`"txt"`, `"mid"`, …), or None.
    #[getter]
    fn format(&self) -> Option<&'static str> {
        self.format.map(Format::extension)
    }

    /// What the reader skipped, guessed or repaired, one line each.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    /// The score in `format`: its bytes and the warnings about names the format cannot
    /// carry (renamed, as `cantus convert` does).
    fn render<'py>(
        &self,
        py: Python<'py>,
        format: &str,
    ) -> PyResult<(Bound<'py, PyBytes>, Vec<String>)> {
        let target = format_named(py, format)?;
        let score = Arc::clone(&self.score);
        let rendered = py
            .detach(move || format::render_converting(&score, target))
            .map_err(|e| {
                error(
                    py,
                    "WriteError",
                    format!("cannot write the score as {target}: {e}"),
                    Place::default(),
                )
            })?;
        Ok((PyBytes::new(py, &rendered.bytes), rendered.warnings))
    }

    fn __len__(&self) -> usize {
        self.score.event_count()
    }
}

/// Builds a score from Python's values: voices of `(name, [(onset, duration,
/// pitches, tag)])`, with pitches MIDI numbers or names (`"C#4"`).
#[pyfunction]
#[pyo3(signature = (voices, meter=(4, 4), tempo=None, title=None, key=None, bars=None))]
pub fn build(
    py: Python<'_>,
    voices: Vec<(String, Option<String>, Vec<Bound<'_, PyTuple>>)>,
    meter: (u32, u32),
    tempo: Option<(i64, i64)>,
    title: Option<String>,
    key: Option<&str>,
    bars: Option<u32>,
) -> PyResult<NativeScore> {
    let bad = |message: String| error(py, "ScoreError", message, Place::default());
    let meter: Meter = format!("{}/{}", meter.0, meter.1)
        .parse()
        .map_err(|e: cantus_music::MeterError| bad(e.to_string()))?;
    let mut score = Score {
        title,
        key: key
            .map(|k| {
                parse_key(k).ok_or_else(|| {
                    bad(format!(
                        "cannot read key {k:?}: write it like \"F# minor\" or \"Bb major\""
                    ))
                })
            })
            .transpose()?,
        meter,
        tempo: tempo.map(|t| ratio(py, t, "tempo")).transpose()?,
        bars,
        voices: Vec::with_capacity(voices.len()),
    };
    if score.tempo.is_some_and(|t| t <= time(0, 1)) {
        return Err(bad("tempo must be positive".into()));
    }
    for (name, key, events) in voices {
        let mut voice = Voice::new(name.clone());
        voice.key = key
            .map(|k| {
                parse_key(&k).ok_or_else(|| bad(format!("voice {name:?}: cannot read key {k:?}")))
            })
            .transpose()?;
        for (i, item) in events.iter().enumerate() {
            let at = format!("voice {name:?}, event {i}");
            let onset = ratio(py, item.get_item(0)?.extract()?, &at)?;
            let duration = ratio(py, item.get_item(1)?.extract()?, &at)?;
            let tag: Option<String> = item.get_item(3)?.extract()?;
            let grace = match item.get_item(4)?.extract::<Option<String>>()?.as_deref() {
                None => None,
                Some("acciaccatura") => Some(Grace::Acciaccatura),
                Some("appoggiatura") => Some(Grace::Appoggiatura),
                Some(other) => {
                    return Err(bad(format!(
                        "{at}: grace {other:?}: use \"acciaccatura\" or \"appoggiatura\""
                    )));
                }
            };
            if onset < time(0, 1) {
                return Err(bad(format!("{at}: onset {onset} is before the start")));
            }
            match grace {
                None if duration <= time(0, 1) => {
                    return Err(bad(format!("{at}: duration {duration} is not positive")));
                }
                Some(_) if duration != time(0, 1) => {
                    return Err(bad(format!(
                        "{at}: a grace note takes no notated time (duration 0, not {duration})"
                    )));
                }
                _ => {}
            }
            let mut pitches = Vec::new();
            for p in item.get_item(2)?.try_iter()? {
                pitches.push(pitch_of(&p?).map_err(|m| bad(format!("{at}: {m}")))?);
            }
            if pitches.is_empty() {
                return Err(bad(format!(
                    "{at}: no pitch (a rest is the absence of an event)"
                )));
            }
            let mut event = Event::new(onset, duration, pitches);
            event.tag = tag;
            event.grace = grace;
            event.fermata = item.get_item(5)?.extract()?;
            voice.events.push(event);
        }
        voice.sort();
        score.voices.push(voice);
    }
    Ok(NativeScore::made(score, "<built>"))
}

/// A pitch's MIDI number and name, from a MIDI number or a name (`"Bb3"`, spelling kept).
#[pyfunction]
pub fn pitch(py: Python<'_>, value: Bound<'_, PyAny>) -> PyResult<(u8, String)> {
    let p = pitch_of(&value).map_err(|m| error(py, "ScoreError", m, Place::default()))?;
    Ok((p.midi, pitch_name(p)))
}

/// A pitch from a MIDI number (0..=127) or a name as the text grammar writes it.
fn pitch_of(p: &Bound<'_, PyAny>) -> Result<Pitch, String> {
    if let Ok(midi) = p.extract::<i64>() {
        return u8::try_from(midi)
            .ok()
            .filter(|m| *m <= 127)
            .map(Pitch::new)
            .ok_or_else(|| format!("MIDI pitch {midi} is outside 0..=127"));
    }
    match p.extract::<String>() {
        Ok(name) => Pitch::parse(&name).map_err(|e| format!("pitch {name:?}: {e}")),
        Err(_) => Err(format!(
            "a pitch is a MIDI number or a name like \"C#4\", not {p}"
        )),
    }
}

/// `"F# minor"`, `"Bb major"`, `"c"` (major): a key by its tonic and mode.
fn parse_key(text: &str) -> Option<Key> {
    let mut words = text.split_whitespace();
    let tonic = Pitch::parse(&format!("{}4", words.next()?))
        .ok()?
        .spelling?;
    let mode = match words.next().map(str::to_ascii_lowercase).as_deref() {
        None | Some("major") => Mode::Major,
        Some("minor") => Mode::Minor,
        Some(_) => return None,
    };
    words.next().is_none().then_some(Key { tonic, mode })
}
