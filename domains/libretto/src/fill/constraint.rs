//! Constrained decoding for a gap: a GBNF grammar admitting exactly the gap's
//! bar lines, in order, each followed by one line per voice of the piece in its
//! declared order, each line holding 1 to 16 well-formed notes (letter, optional
//! accidental, octave 0–8, up to four pitches a chord, slot and length within
//! the bar). The reader and the gates stay the judges; the grammar only keeps a
//! small model from wandering into prose, repeating a voice or looping on notes.

use super::judge::Gap;
use super::prompt::Shown;
use cantus_framework::model::gbnf_literal;
use std::fmt::Write as _;

/// Bars with at most this many slots enumerate their slot numbers; longer ones
/// fall back to any number of up to four digits.
const ENUMERATE_SLOTS: u32 = 192;
/// At most this many notes per voice line (a small model otherwise repeats
/// notes until the token limit).
const MAX_NOTES: usize = 16;

/// The numbers `1..=n` as a GBNF alternative.
fn numbers(n: Option<u32>) -> String {
    match n {
        Some(n) if (1..=ENUMERATE_SLOTS).contains(&n) => (1..=n)
            .rev()
            .map(|k| format!("\"{k}\""))
            .collect::<Vec<_>>()
            .join(" | "),
        _ => "[1-9] [0-9]? [0-9]? [0-9]?".to_string(),
    }
}

/// The grammar for `gap` (see the module docs).
pub(crate) fn gbnf(gap: &Gap<'_>, shown: &Shown) -> String {
    bars(
        gap.first_bar,
        gap.last_bar,
        &shown.voices,
        shown.slots_per_bar,
    )
}

/// Bar lines `first..=last` in order, each followed by one line per voice of
/// `voices` in order (see the module docs); also what a workflow's whole piece
/// is held to, read under its task's header.
pub(crate) fn bars(first: u32, last: u32, voices: &[String], slots_per_bar: Option<u32>) -> String {
    let mut g = String::from("root ::=");
    for bar in first..=last {
        let _ = write!(g, " bar{bar}");
    }
    g.push('\n');
    let lines: String = (0..voices.len()).map(|v| format!(" voice{v}")).collect();
    for bar in first..=last {
        let _ = writeln!(
            g,
            "bar{bar} ::= {}{lines}",
            gbnf_literal(&format!("@{bar} [-]\n"))
        );
    }
    for (v, name) in voices.iter().enumerate() {
        let _ = writeln!(
            g,
            "voice{v} ::= {} note (\" \" note){{0,{}}} \"\\n\"",
            gbnf_literal(&format!("  {name}: ")),
            MAX_NOTES - 1
        );
    }
    g.push_str("note ::= pitch (\"+\" pitch){0,3} \"@\" slot \">\" slot\n");
    g.push_str("pitch ::= [A-G] [#b]? [0-8]\n");
    let _ = writeln!(g, "slot ::= {}", numbers(slots_per_bar));
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_numbers_are_enumerated_for_ordinary_bars() {
        assert_eq!(numbers(Some(3)), "\"3\" | \"2\" | \"1\"");
        assert_eq!(numbers(None), "[1-9] [0-9]? [0-9]? [0-9]?");
        assert_eq!(numbers(Some(5000)), "[1-9] [0-9]? [0-9]? [0-9]?");
    }
}
