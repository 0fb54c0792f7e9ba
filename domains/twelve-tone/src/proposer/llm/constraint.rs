//! Constrained decoding: a GBNF grammar generated from a [`Job`], so a model can only
//! write well-formed notes — and only the pitch classes each voice's row cursor
//! allows next, in order.
//!
//! Each voice's line is a fixed sequence of notes. Note `i` may be spelled with any
//! name of its pitch class (sharp or flat default) in any octave inside the voice's
//! register; its onset is a slot number inside its window and its length a bounded
//! slot count, so the notes of a line follow each other without overlapping (see
//! [`super::job::windows`]). Numbers are written as digit classes, not lists, so the
//! grammar stays small for long sections.
//!
//! [`admits`] decides membership in the same language directly (not by interpreting
//! the GBNF), so the trace can say whether a server honoured the constraint; the
//! verifier stays the judge of the music either way.

use super::job::{Job, Owed, VoiceJob};
use crate::row::PitchClass;
use cantus_framework::model::gbnf_literal;
use cantus_music::Spelling;
use std::fmt::Write as _;

/// One digit position of a number pattern: an inclusive range of digits.
pub(crate) type DigitClass = (u8, u8);

/// The decimal numbers `lo..=hi` (no leading zeros, `lo ≥ 1`) as a list of
/// alternatives, each a sequence of digit classes.
pub(crate) fn number_range(lo: u32, hi: u32) -> Vec<Vec<DigitClass>> {
    let lo = lo.max(1);
    if hi < lo {
        return Vec::new();
    }
    let digits = |n: u32| n.to_string().bytes().map(|b| b - b'0').collect::<Vec<u8>>();
    let (a, b) = (digits(lo), digits(hi));
    let mut out = Vec::new();
    for len in a.len()..=b.len() {
        let from = if len == a.len() {
            a.clone()
        } else {
            let mut v = vec![0; len];
            v[0] = 1;
            v
        };
        let to = if len == b.len() {
            b.clone()
        } else {
            vec![9; len]
        };
        same_length(&from, &to, &mut Vec::new(), &mut out);
    }
    out
}

/// Appends the alternatives for equal-length digit strings `a ≤ b`, after `prefix`.
fn same_length(a: &[u8], b: &[u8], prefix: &mut Vec<DigitClass>, out: &mut Vec<Vec<DigitClass>>) {
    let (Some((&a0, a_rest)), Some((&b0, b_rest))) = (a.split_first(), b.split_first()) else {
        out.push(prefix.clone());
        return;
    };
    if a0 == b0 {
        prefix.push((a0, a0));
        same_length(a_rest, b_rest, prefix, out);
        prefix.pop();
        return;
    }
    let low_full = a_rest.iter().all(|&d| d == 0);
    let high_full = b_rest.iter().all(|&d| d == 9);
    let any = vec![(0, 9); a_rest.len()];
    // The lower edge: a0 followed by a_rest..=99…9 (folded into the middle when full).
    let mid_lo = if low_full {
        a0
    } else {
        prefix.push((a0, a0));
        same_length(a_rest, &vec![9; a_rest.len()], prefix, out);
        prefix.pop();
        a0 + 1
    };
    let mid_hi = if high_full { b0 } else { b0 - 1 };
    if mid_lo <= mid_hi {
        let mut alt = prefix.clone();
        alt.push((mid_lo, mid_hi));
        alt.extend(any.iter().copied());
        out.push(alt);
    }
    if !high_full {
        prefix.push((b0, b0));
        same_length(&vec![0; b_rest.len()], b_rest, prefix, out);
        prefix.pop();
    }
}

/// One alternative as GBNF: runs of single digits as one literal, ranges as classes.
fn render_alternative(alt: &[DigitClass]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut literal = String::new();
    for &(lo, hi) in alt {
        if lo == hi {
            literal.push(char::from(b'0' + lo));
        } else {
            if !literal.is_empty() {
                parts.push(format!("\"{literal}\""));
                literal.clear();
            }
            parts.push(format!(
                "[{}-{}]",
                char::from(b'0' + lo),
                char::from(b'0' + hi)
            ));
        }
    }
    if !literal.is_empty() {
        parts.push(format!("\"{literal}\""));
    }
    parts.join(" ")
}

/// The GBNF body (right-hand side) for the numbers `lo..=hi`.
pub(crate) fn number_rule(lo: u32, hi: u32) -> String {
    let alts: Vec<String> = number_range(lo, hi)
        .iter()
        .map(|a| render_alternative(a))
        .collect();
    if alts.is_empty() {
        // An empty range: a rule nothing can satisfy would stall decoding, so the
        // caller never asks for one; keep the grammar valid anyway.
        "\"1\"".to_owned()
    } else {
        alts.join(" | ")
    }
}

/// A pitch name: letter, accidentals, octave (`C#4`, `Bb3`, `E-1`).
pub(crate) fn pitch_name(midi: u8, spelling: Spelling) -> String {
    let accidentals = if spelling.alter >= 0 {
        "#".repeat(usize::from(spelling.alter.unsigned_abs()))
    } else {
        "b".repeat(usize::from(spelling.alter.unsigned_abs()))
    };
    format!(
        "{}{accidentals}{}",
        spelling.letter.as_char(),
        spelling.octave_for(midi)
    )
}

/// Every name of pitch class `pc` inside `low..=high`: the sharp and the flat
/// default spelling in each octave, low to high.
pub(crate) fn pitch_names(pc: PitchClass, low: u8, high: u8) -> Vec<String> {
    let mut out = Vec::new();
    for midi in low..=high {
        if midi % 12 != pc % 12 {
            continue;
        }
        for spelling in [Spelling::sharp_default(pc), Spelling::flat_default(pc)] {
            let name = pitch_name(midi, spelling);
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// The GBNF grammar of a job's reply: one line per voice, in the job's order — the
/// rules' automaton for a voice with a [`Line`](super::line::Line), the note windows
/// otherwise.
pub(crate) fn gbnf(job: &Job) -> String {
    let mut g = String::new();
    let lines: Vec<String> = (0..job.voices.len()).map(|v| format!("v{v}")).collect();
    let _ = writeln!(g, "root ::= {}", lines.join(" "));
    for (v, voice) in job.voices.iter().enumerate() {
        if let Some(line) = &voice.line {
            g.push_str(&line.gbnf(&format!("v{v}"), &format!("{}: ", voice.name)));
            continue;
        }
        let notes: Vec<String> = (0..voice.notes.len())
            .map(|i| format!("v{v}-n{i}"))
            .collect();
        let _ = writeln!(
            g,
            "v{v} ::= {} {} \"\\n\"",
            gbnf_literal(&format!("{}: ", voice.name)),
            notes.join(" \" \" ")
        );
        for (i, note) in voice.notes.iter().enumerate() {
            let chord: Vec<String> = (0..note.pcs.len())
                .map(|k| format!("v{v}-n{i}-p{k}"))
                .collect();
            let _ = writeln!(
                g,
                "v{v}-n{i} ::= {} \"@\" v{v}-n{i}-at \">\" v{v}-n{i}-len",
                chord.join(" \"+\" ")
            );
            let (low, high) = voice.range_of(note);
            for (k, &pc) in note.pcs.iter().enumerate() {
                let names: Vec<String> = pitch_names(pc, low, high)
                    .iter()
                    .map(|n| gbnf_literal(n))
                    .collect();
                let _ = writeln!(g, "v{v}-n{i}-p{k} ::= {}", names.join(" | "));
            }
            let w = note.window;
            let _ = writeln!(
                g,
                "v{v}-n{i}-at ::= {}",
                number_rule(w.onset_lo + 1, w.onset_hi + 1)
            );
            let _ = writeln!(g, "v{v}-n{i}-len ::= {}", number_rule(w.min_len, w.max_len));
        }
    }
    g
}

/// A decimal number without sign or leading zero.
fn number(text: &str) -> Option<u32> {
    if text.is_empty() || text.starts_with('0') || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Whether one token is a note the grammar allows for `note` of `voice`.
fn admits_note(voice: &VoiceJob, note: &Owed, token: &str) -> bool {
    let (pcs, window) = (&note.pcs, note.window);
    let (low, high) = voice.range_of(note);
    let Some((pitches, timing)) = token.split_once('@') else {
        return false;
    };
    let Some((at, len)) = timing.split_once('>') else {
        return false;
    };
    let names: Vec<&str> = pitches.split('+').collect();
    let pitches_ok = names.len() == pcs.len()
        && names
            .iter()
            .zip(pcs)
            .all(|(n, &pc)| pitch_names(pc, low, high).iter().any(|a| a == n));
    let at_ok =
        number(at).is_some_and(|s| (window.onset_lo + 1..=window.onset_hi + 1).contains(&s));
    let len_ok = number(len).is_some_and(|d| (window.min_len..=window.max_len).contains(&d));
    pitches_ok && at_ok && len_ok
}

/// log₂ of the distinct answers [`gbnf`]`(job)` admits, each pitch counted once
/// however it is spelled (voices are independent in the grammar, so their bits add).
pub(crate) fn bits(job: &Job) -> f64 {
    job.voices
        .iter()
        .map(|voice| match &voice.line {
            Some(line) => line.bits(),
            None => voice
                .notes
                .iter()
                .map(|note| {
                    let (low, high) = voice.range_of(note);
                    let pitches: f64 = note
                        .pcs
                        .iter()
                        .map(|&pc| (low..=high).filter(|m| m % 12 == pc % 12).count() as f64)
                        .product();
                    let w = note.window;
                    let onsets = f64::from(w.onset_hi - w.onset_lo + 1);
                    let lengths = f64::from(w.max_len.saturating_sub(w.min_len) + 1);
                    (pitches * onsets * lengths).log2()
                })
                .sum(),
        })
        .sum()
}

/// Whether `text` is in the language of [`gbnf`]`(job)` (a final newline may be
/// missing: servers often strip it).
pub(crate) fn admits(job: &Job, text: &str) -> bool {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let lines: Vec<&str> = body.split('\n').collect();
    lines.len() == job.voices.len()
        && lines.iter().zip(&job.voices).all(|(line, voice)| {
            let Some(rest) = line.strip_prefix(&format!("{}: ", voice.name)) else {
                return false;
            };
            let tokens: Vec<&str> = rest.split(' ').collect();
            if let Some(line) = &voice.line {
                return line.admits(&tokens);
            }
            tokens.len() == voice.notes.len()
                && tokens
                    .iter()
                    .zip(&voice.notes)
                    .all(|(t, n)| admits_note(voice, n, t))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `text` matches one alternative of a digit pattern.
    fn matches(alts: &[Vec<DigitClass>], text: &str) -> bool {
        alts.iter().any(|alt| {
            alt.len() == text.len()
                && alt
                    .iter()
                    .zip(text.bytes())
                    .all(|(&(lo, hi), b)| (lo..=hi).contains(&(b - b'0')))
        })
    }

    #[test]
    fn number_ranges_admit_exactly_their_numbers() {
        let bounds = [
            (1, 1),
            (1, 9),
            (1, 10),
            (1, 64),
            (5, 17),
            (10, 99),
            (17, 230),
            (99, 101),
            (1, 4096),
            (120, 120),
            (301, 1999),
        ];
        for (lo, hi) in bounds {
            let alts = number_range(lo, hi);
            for n in 0..=2100u32 {
                assert_eq!(
                    matches(&alts, &n.to_string()),
                    (lo..=hi).contains(&n),
                    "{n} in {lo}..={hi}: {alts:?}"
                );
                // A leading zero is never admitted.
                assert!(!matches(&alts, &format!("0{n}")), "0{n} in {lo}..={hi}");
            }
        }
        assert_eq!(number_rule(1, 64), "[1-9] | [1-5] [0-9] | \"6\" [0-4]");
    }

    #[test]
    fn pitch_names_spell_both_ways_inside_the_register() {
        assert_eq!(pitch_names(1, 60, 80), ["C#4", "Db4", "C#5", "Db5"]);
        assert_eq!(pitch_names(0, 48, 71), ["C3", "C4"]);
        assert_eq!(pitch_names(10, 40, 52), ["A#2", "Bb2"]);
    }
}
