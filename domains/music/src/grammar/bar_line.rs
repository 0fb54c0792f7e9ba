//! Bar lines: `@<bar> [<chord label>]`, optionally `(grid:N)` or `(grid:Nt)`.
//!
//! Read apart from any context, so a malformed bar line yields every fault it
//! has plus whatever could still be read (its number, its grid), which lenient
//! mode uses and strict mode reports.

use super::MAX_BAR;
use super::diagnostic::rule;
use super::header::{Grid, parse_grid};
use super::lexical::{Fault, digit_run, offset_in, parse_u32, shorten};
use std::ops::Range;

/// What a bar line says, and what is wrong with it (spans relative to the line's `@`).
pub(crate) struct BarLine {
    pub(crate) number: Option<(u32, Range<usize>)>,
    pub(crate) grid: Option<(Grid, Range<usize>)>,
    pub(crate) faults: Vec<Fault>,
}

const BAR_HELP: &str = "a bar line is `@<bar> [<chord>]`, optionally followed by `(grid:8)` or `(grid:12t)`; write `[-]` for no chord";

/// Parses `@<bar> [<label>] [(grid:N[t])]`.
pub(crate) fn parse_bar_line(text: &str) -> BarLine {
    let mut out = BarLine {
        number: None,
        grid: None,
        faults: Vec::new(),
    };
    let digits = digit_run(&text[1..]);
    let number_span = 1..1 + digits;
    if digits == 0 {
        let end = text.trim_end().len().max(1);
        out.faults.push(
            Fault::new(
                rule::BAR,
                0..end,
                format!(
                    "expected a bar number after `@` in `{}`",
                    shorten(text.trim_end())
                ),
            )
            .help(BAR_HELP),
        );
        return out;
    }
    match parse_u32(&text[number_span.clone()]).filter(|b| (1..=MAX_BAR).contains(b)) {
        Some(b) => out.number = Some((b, number_span.clone())),
        None => {
            out.faults.push(
                Fault::new(
                    rule::BAR_RANGE,
                    number_span.clone(),
                    format!(
                        "bar number {} is outside 1..={MAX_BAR}",
                        &text[number_span.clone()]
                    ),
                )
                .help("bars are numbered from 1"),
            );
            return out;
        }
    }
    let rest = &text[number_span.end..];
    let label_from = rest.len() - rest.trim_start().len();
    let after_number = &rest[label_from..];
    let label_at = number_span.end + label_from;
    if !after_number.starts_with('[') {
        let (span, message) = match after_number.trim_end() {
            "" => (
                0..number_span.end,
                "bar line has no `[chord]` label".to_string(),
            ),
            other => (
                label_at..label_at + other.len(),
                format!(
                    "expected `[chord]` after the bar number, found `{}`",
                    shorten(other)
                ),
            ),
        };
        out.faults
            .push(Fault::new(rule::BAR_LABEL, span, message).help(BAR_HELP));
        return out;
    }
    if label_from == 0 {
        out.faults.push(
            Fault::new(
                rule::BAR,
                label_at..label_at + 1,
                "expected a space between the bar number and `[`".into(),
            )
            .help(BAR_HELP),
        );
    }
    let Some(close) = after_number.find(']') else {
        let len = after_number.trim_end().len();
        out.faults.push(
            Fault::new(
                rule::BAR_LABEL,
                label_at..label_at + len,
                "chord label is not closed with `]`".into(),
            )
            .help(BAR_HELP),
        );
        return out;
    };
    let tail_start = label_at + close + 1;
    let tail = text[tail_start..].trim();
    if tail.is_empty() {
        return out;
    }
    let tail_at = offset_in(text, tail);
    let Some(inner) = tail.strip_prefix("(grid:") else {
        out.faults.push(
            Fault::new(
                rule::BAR,
                tail_at..tail_at + tail.len(),
                format!("unexpected `{}` after the chord label", shorten(tail)),
            )
            .help(BAR_HELP),
        );
        return out;
    };
    let Some(close) = inner.find(')') else {
        out.faults.push(
            Fault::new(
                rule::GRID_OVERRIDE,
                tail_at..tail_at + tail.len(),
                "`(grid:` is not closed with `)`".into(),
            )
            .help(BAR_HELP),
        );
        return out;
    };
    let value = inner[..close].trim();
    let value_at = offset_in(text, value);
    let span = if value.is_empty() {
        tail_at..tail_at + 6 + close
    } else {
        value_at..value_at + value.len()
    };
    match parse_grid(value) {
        Some(grid) => out.grid = Some((grid, span)),
        None => out.faults.push(
            Fault::new(
                rule::GRID_OVERRIDE,
                span,
                format!(
                    "grid override `{value}` is not slots per whole note such as `8`, `16` or `12t`"
                ),
            )
            .help("the grid is a whole number from 1 to 3840, with `t` to mark a triplet grid"),
        ),
    }
    let after = inner[close + 1..].trim();
    if !after.is_empty() {
        let a = offset_in(text, after);
        out.faults.push(
            Fault::new(
                rule::BAR,
                a..a + after.len(),
                format!("unexpected `{}` after the grid override", shorten(after)),
            )
            .help(BAR_HELP),
        );
    }
    out
}
