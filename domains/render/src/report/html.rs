//! The small pieces every page is made of: escaping, the shared style, embedded
//! JSON, and SVG bar charts.

use std::fmt::Write as _;

/// The stylesheet of every page (inlined, so a page is one file).
pub(crate) const STYLE: &str = include_str!("style.css");

/// Text escaped for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Every byte but the unreserved characters of RFC 3986 (letters, digits, `-`, `.`,
/// `_`, `~`): what a path segment of a link is encoded with.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A relative link made of `segments` (file or folder names), each percent-encoded:
/// a folder named `javascript:alert(1)` links as `javascript%3Aalert%281%29/…`, a
/// relative path, never a scheme. (Escape it with [`escape`] in an attribute too.)
pub fn relative_link(segments: &[&str]) -> String {
    segments
        .iter()
        .map(|s| percent_encoding::utf8_percent_encode(s, SEGMENT).to_string())
        .collect::<Vec<_>>()
        .join("/")
}

/// A value as JSON safe inside `<script type="application/json">` (no `</`).
pub(crate) fn script_json(value: &serde_json::Value) -> String {
    serde_json::to_string(value)
        .unwrap_or_else(|_| "null".into())
        .replace("</", "<\\/")
        .replace("<!--", "<\\!--")
}

/// The start of a page: doctype, title, style.
pub(crate) fn head(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n",
        escape(title)
    )
}

/// A horizontal bar chart as an inline SVG: one bar per `(label, value)`.
pub fn bar_chart(title: &str, bars: &[(String, f64)]) -> String {
    let width = 520.0;
    let label_w = 170.0;
    let row = 22.0;
    let height = 30.0 + row * bars.len() as f64;
    let max = bars.iter().map(|b| b.1).fold(0.0f64, f64::max).max(1e-9);
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"{t}\"><text x=\"0\" y=\"16\" \
         class=\"chart-title\">{t}</text>",
        t = escape(title)
    );
    for (i, (label, value)) in bars.iter().enumerate() {
        let y = 26.0 + row * i as f64;
        let w = (width - label_w - 60.0) * value / max;
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\
             <rect x=\"{label_w}\" y=\"{y}\" width=\"{w:.1}\" height=\"{}\" class=\"bar\"/>\
             <text x=\"{:.1}\" y=\"{}\">{}</text>",
            label_w - 6.0,
            y + 14.0,
            escape(label),
            row - 6.0,
            label_w + w + 4.0,
            y + 14.0,
            format_value(*value)
        );
    }
    svg.push_str("</svg>");
    svg
}

fn format_value(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}
