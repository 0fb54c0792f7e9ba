//! The HTML report: static pages that open from disk with no server.
//!
//! * A piece page ([`write_piece`]): the engraving (LilyPond's SVG, inline, with
//!   row labels, repair colours, ghosts and violation marks), an audio player,
//!   the gate's verdict with each violation linked to its note (a click scrolls
//!   to it and marks it), and a trace viewer (filter by status, rung, voice; a
//!   click on an event shows its proposal, verdicts and repairs).
//! * An index page per run directory ([`index`]): tables whose rows link to the
//!   piece pages, and inline SVG charts — the API an experiment report uses.
//!
//! A page is one HTML file plus its audio file beside it (audio is not inlined:
//! a data URI would triple the page). Everything else — style, script, the
//! engraving, the trace — is inside the page.

mod html;
pub mod index;

pub use html::{bar_chart, escape, relative_link};

use crate::annotate::{Layers, for_piece, rung_colour};
use crate::audio::{AudioFormat, Instrument, render as render_audio};
use crate::engrave::{Target, engrave, source};
use crate::error::{RenderError, Result};
use crate::piece::Piece;
use crate::verdict::judge;
use cantus_music::annotation::Colour;
use cantus_music::lilypond::colour_rgb;
use cantus_registry::{Place, Verdict, View};
use html::{head, script_json};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const PIECE_JS: &str = include_str!("piece.js");

/// How a piece page is made.
#[derive(Clone)]
pub struct PageOptions {
    /// What the engraving shows.
    pub layers: Layers,
    /// The SoundFont and format of the audio; `None` writes no player.
    pub audio: Option<(Instrument, AudioFormat)>,
}

/// The files of a piece page.
#[derive(Clone, Debug)]
pub struct PiecePage {
    pub html: PathBuf,
    /// The engraving (none for an artefact that is not a score).
    pub engraving: Option<PathBuf>,
    pub audio: Option<PathBuf>,
    pub verdict: Verdict,
    /// LilyPond's warnings.
    pub warnings: Vec<String>,
}

/// Writes `dir/<stem>.html` for a piece, with `<stem>.ly`, `<stem>.svg` and the
/// audio beside it. An artefact that is not a score gets its page with the
/// artefact as text (no engraving, no audio).
pub fn write_piece(
    piece: &Piece,
    dir: &Path,
    stem: &str,
    options: &PageOptions,
) -> Result<PiecePage> {
    let verdict = judge(piece);
    let path = dir.join(format!("{stem}.html"));
    let View::Score(score) = &piece.view else {
        let html = piece_html(piece, &verdict, None, None);
        std::fs::write(&path, html).map_err(|e| RenderError::io(&path, e))?;
        return Ok(PiecePage {
            html: path,
            engraving: None,
            audio: None,
            verdict,
            warnings: Vec::new(),
        });
    };
    let annotations = for_piece(piece, score, &verdict, options.layers);
    let ly = source(score, &annotations, Target::Svg)?;
    let engraved = engrave(&ly, dir, stem, Target::Svg)?;
    let svg =
        std::fs::read_to_string(&engraved.file).map_err(|e| RenderError::io(&engraved.file, e))?;
    let audio = match &options.audio {
        Some((instrument, format)) => {
            let bytes = render_audio(score, &piece.tempo, instrument, *format)?;
            let path = dir.join(format!("{stem}.{}", format.extension()));
            std::fs::write(&path, bytes).map_err(|e| RenderError::io(&path, e))?;
            Some((path, *format))
        }
        None => None,
    };
    let html = piece_html(piece, &verdict, Some(&svg), audio.as_ref());
    std::fs::write(&path, html).map_err(|e| RenderError::io(&path, e))?;
    Ok(PiecePage {
        html: path,
        engraving: Some(engraved.file),
        audio: audio.map(|(p, _)| p),
        verdict,
        warnings: engraved.warnings,
    })
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn piece_html(
    piece: &Piece,
    verdict: &Verdict,
    svg: Option<&str>,
    audio: Option<&(PathBuf, AudioFormat)>,
) -> String {
    let title = piece.title();
    let mut out = head(&title);
    let _ = writeln!(out, "<h1>{}</h1>", escape(&title));
    match (&piece.view, svg) {
        (View::Score(s), Some(svg)) => {
            let _ = writeln!(
                out,
                "<p class=\"note\">{} · {} bars of {} · {} voices ({}){}</p>",
                escape(&file_name(&piece.path)),
                s.bar_count(),
                s.meter,
                s.voices.len(),
                escape(
                    &s.voices
                        .iter()
                        .map(|v| v.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                s.tempo
                    .map(|t| format!(" · ♩ = {}", cantus_music::time_text::format(t)))
                    .unwrap_or_default()
            );
            out.push_str(&legend(piece));
            let _ = writeln!(
                out,
                "<div class=\"score\">\n{}\n</div>",
                strip_xml_header(svg)
            );
        }
        (view, _) => {
            let text = match view {
                View::Text(t) => t.clone(),
                View::Score(_) => String::new(),
            };
            let _ = writeln!(
                out,
                "<p class=\"note\">{} · the {} domain</p>\n<pre class=\"artefact\">{}</pre>",
                escape(&file_name(&piece.path)),
                escape(piece.domain.id().as_str()),
                escape(&text)
            );
        }
    }
    if let Some((path, format)) = audio {
        let _ = writeln!(
            out,
            "<h2>Listen</h2>\n<audio controls preload=\"metadata\" src=\"{}\" type=\"{}\"></audio>",
            escape(&file_name(path)),
            format.mime()
        );
    }
    out.push_str(&verdict_html(verdict));
    let trace = piece.trace.as_ref();
    if trace.is_some() {
        out.push_str(TRACE_VIEWER);
    }
    let data = json!({
        "verdict": verdict,
        "trace": trace.map(|t| json!({
            "header": t.header,
            "events": t.events,
            "totals": t.totals,
        })),
    });
    let _ = writeln!(
        out,
        "<script type=\"application/json\" id=\"cantus-data\">{}</script>\n<script>\n{PIECE_JS}</script>\n</body>\n</html>",
        script_json(&data)
    );
    out
}

/// LilyPond's SVG without its XML declaration (inline SVG needs none).
fn strip_xml_header(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    }
}

fn swatch(colour: Colour) -> String {
    let [r, g, b] = colour_rgb(colour);
    format!("<span class=\"swatch\" style=\"background:#{r:02x}{g:02x}{b:02x}\"></span>")
}

/// What the colours mean: the trace's rungs in ladder order, ghosts, violations.
fn legend(piece: &Piece) -> String {
    let mut out = String::from("<p class=\"legend\">");
    if let Some(trace) = &piece.trace {
        for (i, rung) in trace.ladder().iter().enumerate() {
            let _ = write!(
                out,
                "{}repaired by {}",
                swatch(rung_colour(i)),
                escape(rung)
            );
        }
        let _ = write!(out, "{}(dropped event)", swatch(Colour::Grey));
    }
    let _ = write!(out, "{}violation", swatch(Colour::Red));
    out.push_str("</p>\n");
    out
}

fn verdict_html(verdict: &Verdict) -> String {
    let mut out = String::from("<h2>Verdict</h2>\n");
    let (class, word) = if verdict.passed {
        ("passed", "passed")
    } else {
        ("failed", "FAILED")
    };
    let hard = verdict.findings.iter().filter(|f| f.hard).count();
    let _ = writeln!(
        out,
        "<p id=\"verdict\"><span class=\"{class}\">{word}</span> — {} ({hard} hard, {} soft violations)</p>",
        escape(&verdict.gate),
        verdict.findings.len() - hard
    );
    if !verdict.findings.is_empty() {
        let in_score = verdict
            .findings
            .iter()
            .all(|f| matches!(f.place, Place::Score { .. }));
        out.push_str(if in_score {
            "<table id=\"findings\"><thead><tr><th>rule</th><th>bar</th><th>voice</th><th>onset</th><th>why</th></tr></thead><tbody>\n"
        } else {
            "<table id=\"findings\"><thead><tr><th>rule</th><th>where</th><th>why</th></tr></thead><tbody>\n"
        });
        for f in &verdict.findings {
            let link = match &f.anchor {
                Some(a) => format!(
                    "<a href=\"#\" class=\"finding\" data-voice=\"{}\" data-onset=\"{}\">{}</a>",
                    a.voice,
                    cantus_music::time_text::format(a.onset),
                    escape(&f.rule)
                ),
                None => escape(&f.rule),
            };
            let place = match &f.place {
                Place::Score { bar, voice, onset } if in_score => format!(
                    "<td>{bar}</td><td>{}</td><td>{}</td>",
                    escape(voice),
                    cantus_music::time_text::format(*onset)
                ),
                Place::Score { bar, voice, onset } => format!(
                    "<td>bar {bar}, {}, onset {}</td>",
                    escape(voice),
                    cantus_music::time_text::format(*onset)
                ),
                Place::Text { at } => format!("<td>{}</td>", escape(at)),
            };
            let _ = writeln!(
                out,
                "<tr><td>{link}{}</td>{place}<td>{}</td></tr>",
                if f.hard { "" } else { " (soft)" },
                escape(&f.reason)
            );
        }
        out.push_str("</tbody></table>\n");
    }
    if let Some(Value::Object(labels)) = verdict.facts.get("labels") {
        out.push_str("<p class=\"note\">Statements (as the strict gate reads them): ");
        let parts: Vec<String> = labels
            .iter()
            .map(|(v, l)| format!("{}: {}", escape(v), escape(l.as_str().unwrap_or(""))))
            .collect();
        out.push_str(&parts.join(" · "));
        out.push_str("</p>\n");
    }
    out
}

const TRACE_VIEWER: &str = r#"<h2>Trace</h2>
<p class="filters"><label>status <select id="filter-status"><option value="">all</option></select></label>
<label>rung <select id="filter-rung"><option value="">all</option></select></label>
<label>voice <select id="filter-voice"><option value="">all</option></select></label>
<span class="note"><span id="trace-count">0</span> events shown; click one for its proposal, verdicts and repairs</span></p>
<table id="trace-table"><thead><tr><th>#</th><th>section</th><th>status</th><th>rung</th><th>voice</th><th>bar</th><th>onset</th></tr></thead><tbody></tbody></table>
<div id="trace-detail"></div>
"#;
