//! The report's SVG plots: delivery with its intervals, cost against delivery, and
//! pass rates by rule — drawn from the summary's cells, nothing read again.

use super::escape;
use crate::metrics::Cell;
use crate::metrics::bootstrap::Interval;
use cantus_render::report::bar_chart;
use std::fmt::Write as _;

/// Strict delivery per cell as a dot with its interval, on a 0–100% axis.
pub(super) fn delivery_chart(cells: &[Cell]) -> String {
    let rows: Vec<(&Cell, Interval)> = cells
        .iter()
        .filter_map(|c| c.delivery_strict.map(|i| (c, i)))
        .collect();
    let (label_w, plot_w, row) = (230.0, 300.0, 20.0);
    let height = 40.0 + row * rows.len() as f64;
    let x = |v: f64| label_w + plot_w * v;
    let mut svg = format!(
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{height}\" \
         viewBox=\"0 0 {w} {height}\" role=\"img\" aria-label=\"strict delivery with 95% intervals\">\
         <text x=\"0\" y=\"16\">strict delivery, 95% interval (0–100%)</text>",
        w = label_w + plot_w + 60.0
    );
    for (k, (c, i)) in rows.iter().enumerate() {
        let y = 34.0 + row * k as f64;
        let _ = write!(
            svg,
            "<text x=\"0\" y=\"{ty}\" font-size=\"12\">{} / {}</text>\
             <line x1=\"{}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\" stroke=\"#555\" stroke-width=\"2\"/>\
             <circle cx=\"{}\" cy=\"{y}\" r=\"4\" fill=\"#1f77b4\"/>\
             <text x=\"{}\" y=\"{ty}\" font-size=\"11\">{:.1}%</text>",
            escape(&c.model),
            escape(&c.condition),
            x(i.low),
            x(i.high),
            x(i.estimate),
            x(1.0) + 6.0,
            100.0 * i.estimate,
            ty = y + 4.0
        );
    }
    svg + "</svg>"
}

/// Calls per run (log scale) against strict delivery, one labelled point per cell.
pub(super) fn cost_chart(cells: &[Cell]) -> String {
    let points: Vec<(&Cell, f64, f64)> = cells
        .iter()
        .filter_map(|c| {
            c.delivery_strict
                .map(|d| (c, c.cost.calls_per_run.max(1.0), d.estimate))
        })
        .collect();
    let (w, h, pad) = (520.0, 320.0, 40.0);
    let max_calls = points.iter().map(|p| p.1).fold(10.0f64, f64::max);
    let x = |calls: f64| pad + (w - 2.0 * pad) * calls.log10() / max_calls.log10();
    let y = |d: f64| h - pad - (h - 2.0 * pad) * d;
    let mut svg = format!(
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"cost against delivery\">\
         <text x=\"0\" y=\"16\">strict delivery (up) against model calls per run (right, log scale, 1–{max_calls:.0})</text>\
         <line x1=\"{pad}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"#999\"/>\
         <line x1=\"{pad}\" y1=\"{pad}\" x2=\"{pad}\" y2=\"{b}\" stroke=\"#999\"/>",
        b = h - pad,
        r = w - pad
    );
    for (c, calls, d) in points {
        let _ = write!(
            svg,
            "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"4\" fill=\"#d62728\"/>\
             <text x=\"{tx:.1}\" y=\"{cy:.1}\" font-size=\"10\">{} / {}</text>",
            escape(&c.model),
            escape(&c.condition),
            cx = x(calls),
            cy = y(d),
            tx = x(calls) + 6.0
        );
    }
    svg + "</svg>"
}

/// Per-predicate pass rates of the first model's harness cell (or the first cell
/// with pieces), as the render crate's bar chart.
pub(super) fn predicate_chart(cells: &[Cell]) -> String {
    let cell = cells
        .iter()
        .find(|c| c.condition == "harness" && !c.predicate_pass.is_empty())
        .or_else(|| cells.iter().find(|c| !c.predicate_pass.is_empty()));
    let Some(cell) = cell else {
        return bar_chart("per-predicate pass rates: no pieces", &[]);
    };
    let bars: Vec<(String, f64)> = cell
        .predicate_pass
        .iter()
        .map(|(p, r)| (p.clone(), 100.0 * r))
        .collect();
    bar_chart(
        &format!(
            "per-predicate pass rate (%), {} / {}",
            cell.model, cell.condition
        ),
        &bars,
    )
}
