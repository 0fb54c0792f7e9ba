//! The small pieces of the grammar that need no context: comments, numbers,
//! pitches and note tokens.
//!
//! Each reader here works on one slice and reports a [`Fault`] with a byte span
//! relative to that slice; the line reader turns faults into located
//! diagnostics. Nothing here allocates except the pitch list of a token.

use super::diagnostic::rule;
use crate::score::{Grace, Letter, Pitch, Spelling};
use std::ops::Range;

/// A problem found inside one slice: rule, byte span within the slice, message, help.
#[derive(Debug)]
pub(crate) struct Fault {
    pub(crate) rule: &'static str,
    pub(crate) span: Range<usize>,
    pub(crate) message: String,
    pub(crate) help: Option<String>,
}

impl Fault {
    pub(crate) fn new(rule: &'static str, span: Range<usize>, message: String) -> Fault {
        Fault {
            rule,
            span,
            message,
            help: None,
        }
    }

    pub(crate) fn help(mut self, help: impl Into<String>) -> Fault {
        self.help = Some(help.into());
        self
    }

    /// The same fault with its span moved `by` bytes to the right.
    pub(crate) fn shift(mut self, by: usize) -> Fault {
        self.span = self.span.start + by..self.span.end + by;
        self
    }
}

/// Help text showing the shape of a note token.
pub(crate) const TOKEN_HELP: &str = "a note is `pitch@slot>duration`, e.g. `C4@1>4`; a chord joins pitches with `+`, e.g. `C4+E4+G4@1>8`";
/// Help text showing the shape of a pitch.
pub(crate) const PITCH_HELP: &str = "a pitch is a letter A-G, any `#` or `b`, then the octave: `C4` (= MIDI 60), `Bb3`, `F#5`, `C-1`";

/// The line without its `%` comment. A comment starts at a `%` that begins the
/// line or follows whitespace, so `%` inside a token, tag or chord label is text.
pub(crate) fn strip_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    let mut from = 0;
    while let Some(found) = line[from..].find('%') {
        let i = from + found;
        let starts = i == 0
            || bytes[i - 1].is_ascii_whitespace()
            || line[..i]
                .chars()
                .next_back()
                .is_some_and(char::is_whitespace);
        if starts {
            return &line[..i];
        }
        from = i + 1;
    }
    line
}

/// Length in bytes of the run of ASCII digits at the start of `s`.
pub(crate) fn digit_run(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_digit).count()
}

/// Parses a non-empty run of ASCII digits; `None` if empty, not all digits, or
/// too large for `u32`.
pub(crate) fn parse_u32(digits: &str) -> Option<u32> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Byte offset of `part` inside `whole`; `part` must be a subslice of `whole`.
pub(crate) fn offset_in(whole: &str, part: &str) -> usize {
    (part.as_ptr() as usize).saturating_sub(whole.as_ptr() as usize)
}

/// Reads a tonic or pitch spelling prefix: letter and accidentals (`#`, `b`, and
/// when `dash_is_flat`, music21's `-`). Returns the spelling and bytes used.
pub(crate) fn read_spelling(s: &str, dash_is_flat: bool) -> Result<(Spelling, usize), Fault> {
    let Some(first) = s.chars().next() else {
        return Err(Fault::new(rule::PITCH, 0..0, "empty pitch".into()).help(PITCH_HELP));
    };
    let Some(letter) = Letter::from_char(first) else {
        return Err(Fault::new(
            rule::PITCH,
            0..first.len_utf8(),
            format!("`{first}` is not a note letter (A-G)"),
        )
        .help(PITCH_HELP));
    };
    let mut alter: i32 = 0;
    let mut used = 1;
    for b in s.bytes().skip(1) {
        match b {
            b'#' => alter += 1,
            b'b' => alter -= 1,
            b'-' if dash_is_flat => alter -= 1,
            _ => break,
        }
        used += 1;
    }
    let alter = i8::try_from(alter).map_err(|_| {
        Fault::new(
            rule::PITCH,
            0..used,
            format!("`{}` has too many accidentals", &s[..used]),
        )
        .help(PITCH_HELP)
    })?;
    Ok((Spelling { letter, alter }, used))
}

/// Parses one pitch such as `C4`, `Bb1`, `C##4`, `f#-1` (C4 = MIDI 60).
pub(crate) fn parse_pitch(s: &str) -> Result<Pitch, Fault> {
    let (spelling, mut at) = read_spelling(s, false)?;
    let negative = s[at..].starts_with('-');
    if negative {
        at += 1;
    }
    let digits = digit_run(&s[at..]);
    if digits == 0 || at + digits != s.len() {
        let what = if digits == 0 && at == s.len() {
            format!("pitch `{s}` has no octave number")
        } else {
            format!("`{s}` is not a pitch")
        };
        return Err(Fault::new(rule::PITCH, 0..s.len(), what).help(PITCH_HELP));
    }
    let out_of_range = || {
        Fault::new(
            rule::PITCH_RANGE,
            0..s.len(),
            format!("pitch `{s}` is outside MIDI 0..=127"),
        )
        .help("the lowest pitch is C-1 (MIDI 0) and the highest G9 (MIDI 127)")
    };
    // Octaves beyond 6 digits are out of range whatever the accidentals.
    if digits > 6 {
        return Err(out_of_range());
    }
    let octave: i64 = s[at..].parse().map_err(|_| out_of_range())?;
    let octave = if negative { -octave } else { octave };
    let midi =
        (octave + 1) * 12 + i64::from(spelling.letter.pitch_class()) + i64::from(spelling.alter);
    let midi = u8::try_from(midi)
        .ok()
        .filter(|m| *m <= 127)
        .ok_or_else(|| {
            let mut f = out_of_range();
            f.message = format!("pitch `{s}` is MIDI {midi}, outside 0..=127");
            f
        })?;
    Ok(Pitch::spelled(midi, spelling))
}

/// A note token split into its parts (spans are byte ranges within the token).
#[derive(Debug)]
pub(crate) struct Token<'a> {
    /// The `pitch{+pitch}` part.
    pub(crate) pitches: &'a str,
    /// 1-based onset slot as written (range-checked by the caller).
    pub(crate) slot: u32,
    pub(crate) slot_span: Range<usize>,
    /// Duration in slots as written (zero is checked by the caller); 0 for a
    /// grace note.
    pub(crate) duration: u32,
    pub(crate) duration_span: Range<usize>,
    /// `>g` (appoggiatura) or `>g/` (acciaccatura) instead of a duration.
    pub(crate) grace: Option<Grace>,
    /// The `{tag}` text without braces.
    pub(crate) tag: Option<&'a str>,
}

/// Splits `pitch{+pitch}@slot>duration[^velocity][{tag}]`, where the duration may
/// be `g` or `g/` (a grace note). The velocity is accepted and ignored (Libretto
/// v3 writes it; Cantus has no velocities).
pub(crate) fn split_token(tok: &str) -> Result<Token<'_>, Fault> {
    let (body, tag) = match tok.find('{') {
        None => (tok, None),
        Some(open) => (&tok[..open], Some(split_tag(tok, open)?)),
    };
    let Some(at) = body.find('@') else {
        return Err(Fault::new(
            rule::TOKEN,
            0..tok.len(),
            format!("`{}` is not a note token (no `@slot`)", shorten(tok)),
        )
        .help(TOKEN_HELP));
    };
    if at == 0 {
        return Err(Fault::new(
            rule::TOKEN,
            0..1,
            format!("token `{}` has no pitch before `@`", shorten(tok)),
        )
        .help(TOKEN_HELP));
    }
    let slot_start = at + 1;
    let slot_len = digit_run(&body[slot_start..]);
    let slot_span = slot_start..slot_start + slot_len;
    if slot_len == 0 {
        return Err(unexpected(
            body,
            slot_start,
            "the onset slot (a number) after `@`",
        ));
    }
    if body.as_bytes().get(slot_span.end) != Some(&b'>') {
        return Err(unexpected(
            body,
            slot_span.end,
            "`>` and the duration after the slot",
        ));
    }
    let dur_start = slot_span.end + 1;
    let grace = match body.as_bytes().get(dur_start..dur_start + 2) {
        Some(b"g/") => Some((Grace::Acciaccatura, 2)),
        _ if body.as_bytes().get(dur_start) == Some(&b'g') => Some((Grace::Appoggiatura, 1)),
        _ => None,
    };
    let dur_len = match grace {
        Some((_, len)) => len,
        None => digit_run(&body[dur_start..]),
    };
    let duration_span = dur_start..dur_start + dur_len;
    if dur_len == 0 {
        return Err(unexpected(
            body,
            dur_start,
            "the duration in slots after `>`",
        ));
    }
    let mut end = duration_span.end;
    if body.as_bytes().get(end) == Some(&b'^') {
        let vel_len = digit_run(&body[end + 1..]);
        if vel_len == 0 {
            return Err(unexpected(body, end + 1, "a velocity number after `^`"));
        }
        end += 1 + vel_len;
    }
    if end != body.len() {
        return Err(unexpected(body, end, "the end of the token"));
    }
    let slot = parse_u32(&body[slot_span.clone()]).ok_or_else(|| {
        Fault::new(
            rule::ONSET_RANGE,
            slot_span.clone(),
            format!("onset slot {} is too large", &body[slot_span.clone()]),
        )
    })?;
    let duration = match grace {
        Some(_) => 0,
        None => parse_u32(&body[duration_span.clone()]).ok_or_else(|| {
            Fault::new(
                rule::TOKEN,
                duration_span.clone(),
                format!("duration {} is too large", &body[duration_span.clone()]),
            )
        })?,
    };
    Ok(Token {
        pitches: &body[..at],
        slot,
        slot_span,
        duration,
        duration_span,
        grace: grace.map(|(kind, _)| kind),
        tag,
    })
}

/// The tag text of `tok`, whose `{` is at byte `open`.
fn split_tag(tok: &str, open: usize) -> Result<&str, Fault> {
    let help =
        "a tag is `{text}` at the end of a token, without spaces or `}`, e.g. `C4@1>4{P0:1}`";
    if !tok.ends_with('}') || tok.len() < open + 2 {
        return Err(Fault::new(
            rule::TAG,
            open..tok.len(),
            format!("tag `{}` is not closed with `}}`", &tok[open..]),
        )
        .help(help));
    }
    let inner = &tok[open + 1..tok.len() - 1];
    if inner.is_empty() {
        return Err(Fault::new(rule::TAG, open..tok.len(), "empty tag `{}`".into()).help(help));
    }
    if let Some(close) = inner.find('}') {
        let at = open + 1 + close;
        return Err(
            Fault::new(rule::TAG, at..at + 1, "a tag may not contain `}`".into()).help(help),
        );
    }
    Ok(inner)
}

/// A `G-TOKEN` fault at byte `at` of `body`: found something else than `expected`.
fn unexpected(body: &str, at: usize, expected: &str) -> Fault {
    let found = body[at..].chars().next();
    let (span, found) = match found {
        Some(c) => (at..at + c.len_utf8(), format!("`{c}`")),
        None => (at.saturating_sub(1)..at, "the end of the token".to_string()),
    };
    Fault::new(
        rule::TOKEN,
        span,
        format!("expected {expected} in `{}`, found {found}", shorten(body)),
    )
    .help(TOKEN_HELP)
}

/// At most 40 characters of `s`, with `…` if cut.
pub(crate) fn shorten(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_start_at_line_start_or_after_whitespace() {
        assert_eq!(strip_comment("% all"), "");
        assert_eq!(strip_comment("  Sop: C4@1>4 % tail"), "  Sop: C4@1>4 ");
        assert_eq!(strip_comment("  Sop: C4@1>4{a%b}"), "  Sop: C4@1>4{a%b}");
        assert_eq!(strip_comment("@1 [C%]"), "@1 [C%]");
    }

    #[test]
    fn pitches_follow_scientific_notation() {
        let midi = |s: &str| parse_pitch(s).map(|p| p.midi).ok();
        assert_eq!(midi("C4"), Some(60));
        assert_eq!(midi("Bb1"), Some(34));
        assert_eq!(midi("C##4"), Some(62));
        assert_eq!(midi("Cbb4"), Some(58));
        assert_eq!(midi("C-1"), Some(0));
        assert_eq!(midi("G9"), Some(127));
        assert_eq!(midi("bb4"), Some(70), "lower-case letter then flat");
        assert_eq!(parse_pitch("G#9").unwrap_err().rule, rule::PITCH_RANGE);
        assert_eq!(parse_pitch("Cb-1").unwrap_err().rule, rule::PITCH_RANGE);
        assert_eq!(parse_pitch("H4").unwrap_err().rule, rule::PITCH);
        assert_eq!(parse_pitch("C").unwrap_err().rule, rule::PITCH);
        assert_eq!(parse_pitch("C4x").unwrap_err().rule, rule::PITCH);
        assert_eq!(
            parse_pitch("C99999999").unwrap_err().rule,
            rule::PITCH_RANGE
        );
    }

    #[test]
    fn tokens_split_into_parts() {
        let t = split_token("C4+E4@13>2^90{P0:1-3}").unwrap();
        assert_eq!(
            (t.pitches, t.slot, t.duration, t.tag),
            ("C4+E4", 13, 2, Some("P0:1-3"))
        );
        assert_eq!(split_token("C4@1>").unwrap_err().rule, rule::TOKEN);
        assert_eq!(split_token("C4@1>4{").unwrap_err().rule, rule::TAG);
        assert_eq!(split_token("C4@1>4{}").unwrap_err().rule, rule::TAG);
        assert_eq!(
            split_token("C4@99999999999>4").unwrap_err().rule,
            rule::ONSET_RANGE
        );
        assert_eq!(split_token("@1>4").unwrap_err().rule, rule::TOKEN);
        assert_eq!(split_token("C4@1>4x").unwrap_err().span, 6..7);
    }
}
