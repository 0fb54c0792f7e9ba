//! Grammar text → [`Layout`], read exactly as Libretto's parser reads it.
//!
//! Cantus's own grammar reader (`cantus_music::grammar`) decides whether a text is
//! valid and says where it is not; this module decides what the original would
//! *measure* in it, quirks included: the header is line 1 and `VOICES` line 2,
//! a voice line must start with a space, unreadable tokens and pitches are
//! skipped, an `@` line without `[…]` does not start a bar, an onset past the
//! bar's end stays in its written bar. Three Cantus extensions are read the
//! Cantus way, since the original predates them: `%` comments are removed, a
//! `{tag}` or `^velocity` suffix on a token is ignored, and leading blank or
//! comment lines before the header are skipped.

use super::{BarHead, Block, Layout, Token, VoiceId, VoiceLine};
use std::collections::HashMap;

/// Why a text cannot be measured at all (everything else is skipped, as in the original).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// No header line.
    #[error("the text is empty: no header line")]
    Empty,
    /// A meter with a zero numerator or denominator (the original divides by
    /// the denominator and by the bar length).
    #[error("METER {0} has a zero bar length or denominator")]
    ZeroMeter(String),
    /// A grid of zero slots (the original divides by it).
    #[error("a grid of 0 slots per whole note (line {line})")]
    ZeroGrid {
        /// 1-based line number in the text.
        line: usize,
    },
    /// More bars than are measured ([`MAX_MEASURED_BARS`](super::MAX_MEASURED_BARS)).
    #[error(
        "the piece has {bars} bars; at most {limit} are measured (the form axes compare every two bars)"
    )]
    TooManyBars {
        /// Bars of the piece: bar lines of a text, or bars up to a score's last note.
        bars: u64,
        /// The limit.
        limit: usize,
    },
}

/// Python's `str.splitlines()` line breaks.
fn split_lines(text: &str) -> Vec<&str> {
    split_lines_iter(text).collect()
}

/// The lines of [`split_lines`], one at a time.
fn split_lines_iter(text: &str) -> impl Iterator<Item = &str> {
    let is_break = |c: char| {
        matches!(
            c,
            '\n' | '\r'
                | '\u{0b}'
                | '\u{0c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        )
    };
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let Some((i, c)) = rest.char_indices().find(|&(_, c)| is_break(c)) else {
            let line = rest;
            rest = "";
            return Some(line);
        };
        let line = &rest[..i];
        let mut next = i + c.len_utf8();
        if c == '\r' && rest[next..].starts_with('\n') {
            next += 1;
        }
        rest = &rest[next..];
        Some(line)
    })
}

/// Removes a Cantus `%` comment: `%` at the start of the line or after whitespace.
fn strip_comment(line: &str) -> &str {
    let mut prev_ws = true;
    for (i, c) in line.char_indices() {
        if c == '%' && prev_ws {
            return &line[..i];
        }
        prev_ws = c.is_whitespace();
    }
    line
}

fn leading_digits(s: &str) -> Option<(i64, &str)> {
    let end = s
        .char_indices()
        .find(|(_, c)| !c.is_ascii_digit())
        .map_or(s.len(), |(i, _)| i);
    if end == 0 {
        return None;
    }
    // Absurdly long digit runs saturate rather than fail.
    let n = s[..end].parse::<i64>().unwrap_or(i64::MAX);
    Some((n, &s[end..]))
}

/// The first run of digits anywhere in `s` (`grid_int`), or `default`.
fn first_int(s: &str, default: i64) -> i64 {
    match s.find(|c: char| c.is_ascii_digit()) {
        Some(i) => leading_digits(&s[i..]).map_or(default, |(n, _)| n),
        None => default,
    }
}

/// The header's `NAME: value` fields, as `re.findall(r"(\w+):\s*([^|]+?)\s*(?:\||$)")`.
fn header_fields(line: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut pos = 0;
    while pos < line.len() {
        let Some(colon_rel) = line[pos..].find(':') else {
            break;
        };
        let colon = pos + colon_rel;
        // The key is the run of word characters right before the colon.
        let key_start = line[pos..colon]
            .char_indices()
            .rev()
            .take_while(|(_, c)| is_word(*c))
            .last()
            .map(|(i, _)| pos + i);
        let after = colon + 1;
        let seg_end = line[after..].find('|').map_or(line.len(), |i| after + i);
        let seg = &line[after..seg_end];
        match key_start {
            Some(ks) if !seg.is_empty() => {
                let trimmed = seg.trim();
                let value = if trimmed.is_empty() {
                    seg.chars().last().map(String::from).unwrap_or_default()
                } else {
                    trimmed.to_string()
                };
                out.insert(line[ks..colon].to_string(), value);
                pos = if seg_end < line.len() {
                    seg_end + 1
                } else {
                    line.len()
                };
            }
            _ => pos = after,
        }
    }
    out
}

/// The bar pattern `^@(\d+)\s+\[(.*?)\](?:\s+\(grid:(\w+)\))?\s*$`.
fn bar_head(line: &str) -> Option<BarHead> {
    let rest = line.strip_prefix('@')?;
    let (number, rest) = leading_digits(rest)?;
    let after_ws = rest.trim_start();
    if after_ws.len() == rest.len() {
        return None; // needs at least one space
    }
    let inner = after_ws.strip_prefix('[')?;
    for (i, c) in inner.char_indices() {
        if c != ']' {
            continue;
        }
        let tail = &inner[i + 1..];
        if tail.trim().is_empty() {
            return Some(BarHead { number, grid: None });
        }
        let t = tail.trim_start();
        if t.len() == tail.len() {
            continue;
        }
        if let Some(g) = t.strip_prefix("(grid:")
            && let Some(close) = g.find(')')
        {
            let word = &g[..close];
            let is_word = !word.is_empty() && word.chars().all(|c| c.is_alphanumeric() || c == '_');
            if is_word && g[close + 1..].trim().is_empty() {
                return Some(BarHead {
                    number,
                    grid: Some(first_int(word, 16)),
                });
            }
        }
    }
    None
}

/// The triplet share's reading of an `@` line: `\(grid:(\d+)(t?)\)` anywhere.
fn annotated_triplet(line: &str) -> Option<bool> {
    let mut from = 0;
    while let Some(i) = line[from..].find("(grid:") {
        let start = from + i + "(grid:".len();
        if let Some((_, rest)) = leading_digits(&line[start..]) {
            if rest.starts_with(')') {
                return Some(false);
            }
            if rest.starts_with("t)") {
                return Some(true);
            }
        }
        from = start;
    }
    None
}

/// The original's pitch pattern `^([A-Ga-g])([#b]*)(-?\d+)$` → MIDI (C4 = 60).
fn pitch_midi(text: &str) -> Option<i64> {
    let text = text.trim();
    let mut chars = text.chars();
    let base = match chars.next()?.to_ascii_uppercase() {
        'C' => 0,
        'D' => 2,
        'E' => 4,
        'F' => 5,
        'G' => 7,
        'A' => 9,
        'B' => 11,
        _ => return None,
    };
    let rest = chars.as_str();
    let acc_end = rest.find(|c| c != '#' && c != 'b').unwrap_or(rest.len());
    let alter: i64 = rest[..acc_end]
        .chars()
        .map(|c| if c == '#' { 1 } else { -1 })
        .sum();
    let octave_text = &rest[acc_end..];
    let digits = octave_text.strip_prefix('-').unwrap_or(octave_text);
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let octave: i64 = octave_text.parse().ok()?;
    octave
        .checked_add(1)?
        .checked_mul(12)?
        .checked_add(base + alter)
}

/// The token pattern `^(.+)@(\d+)>(\d+)$`, after dropping a Cantus `{tag}` and a
/// v3 `^velocity`.
fn token(text: &str) -> Option<Token> {
    let mut t = text;
    if t.ends_with('}')
        && let Some(open) = t.rfind('{')
    {
        t = &t[..open];
    }
    if let Some(caret) = t.rfind('^')
        && t[caret + 1..].chars().all(|c| c.is_ascii_digit())
        && caret + 1 < t.len()
        && t[..caret].contains('>')
    {
        t = &t[..caret];
    }
    let at = t.rfind('@')?;
    let pitches = &t[..at];
    if pitches.is_empty() {
        return None;
    }
    let (slot, rest) = leading_digits(&t[at + 1..])?;
    let rest = rest.strip_prefix('>')?;
    let (dur, rest) = leading_digits(rest)?;
    if !rest.is_empty() {
        return None;
    }
    let midis = pitches.split('+').filter_map(pitch_midi).collect();
    Some(Token { slot, dur, midis })
}

struct Names {
    names: Vec<String>,
    index: HashMap<String, VoiceId>,
}

impl Names {
    fn id(&mut self, name: &str) -> VoiceId {
        if let Some(&id) = self.index.get(name) {
            return id;
        }
        let id = self.names.len() as VoiceId;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), id);
        id
    }
}

fn voices_of(line: &str, names: &mut Names) -> Vec<VoiceId> {
    match line.split_once(':') {
        Some((_, list)) => list.split(',').map(|v| names.id(v.trim())).collect(),
        None => Vec::new(),
    }
}

impl Layout {
    /// Reads grammar text as Libretto's parser does (see the module docs).
    pub fn from_text(text: &str) -> Result<Layout, LayoutError> {
        // Refused before anything is laid out: count the bar lines first.
        let bar_lines = split_lines_iter(text)
            .filter(|l| strip_comment(l).starts_with('@'))
            .count();
        if bar_lines > super::MAX_MEASURED_BARS {
            return Err(LayoutError::TooManyBars {
                bars: bar_lines as u64,
                limit: super::MAX_MEASURED_BARS,
            });
        }
        let mut lines: Vec<&str> = split_lines(text).into_iter().map(strip_comment).collect();
        let first = lines
            .iter()
            .position(|l| !l.trim().is_empty())
            .ok_or(LayoutError::Empty)?;
        lines.drain(..first);
        let header = header_fields(lines[0]);
        let meter = header.get("METER").map_or("4/4", String::as_str);
        let (num, den) = parse_meter(meter).unwrap_or((4, 4));
        if den == 0 || num == 0 {
            // The original divides by the denominator, then by the bar length.
            return Err(LayoutError::ZeroMeter(meter.to_string()));
        }
        let bar_ql = num as f64 * 4.0 / den as f64;
        let default_grid = header.get("GRID").map_or(16, |g| first_int(g, 16));
        let default_triplet = header_triplet(lines[0]);
        let mut names = Names {
            names: Vec::new(),
            index: HashMap::new(),
        };
        let declared = match lines.get(1) {
            Some(l) if l.starts_with("VOICES") => voices_of(l, &mut names),
            _ => Vec::new(),
        };
        let first_at = lines.iter().position(|l| l.starts_with('@'));
        let has_head = first_at != Some(0);
        let head_end = first_at.unwrap_or(lines.len());
        let window_declared = lines
            .get(1..head_end)
            .unwrap_or(&[])
            .iter()
            .find(|l| l.starts_with("VOICES:"))
            .map(|l| voices_of(l, &mut names));
        let mut blocks: Vec<Block> = Vec::new();
        for (index, line) in lines.iter().enumerate() {
            if line.starts_with('@') {
                let head = if index >= 2 { bar_head(line) } else { None };
                if head.is_some_and(|h| h.grid == Some(0))
                    || (head.is_some_and(|h| h.grid.is_none()) && default_grid == 0)
                {
                    return Err(LayoutError::ZeroGrid {
                        line: index + 1 + first,
                    });
                }
                blocks.push(Block {
                    head,
                    triplet: annotated_triplet(line).unwrap_or(default_triplet),
                    lines: Vec::new(),
                });
                continue;
            }
            if index < 2 || !line.starts_with(' ') {
                continue;
            }
            let Some(block) = blocks.last_mut() else {
                continue;
            };
            let body = line.trim();
            let (name, rest) = body.split_once(':').unwrap_or((body, ""));
            let voice = names.id(name.trim());
            let tokens = rest.split_whitespace().filter_map(token).collect();
            block.lines.push(VoiceLine { voice, tokens });
        }
        Ok(Layout {
            bar_ql,
            default_grid,
            names: names.names,
            declared,
            window_declared,
            has_head,
            blocks,
        })
    }
}

/// `re.match(r"(\d+)\s*/\s*(\d+)", value)`.
fn parse_meter(value: &str) -> Option<(i64, i64)> {
    let (num, rest) = leading_digits(value)?;
    let rest = rest.trim_start().strip_prefix('/')?;
    let (den, _) = leading_digits(rest.trim_start())?;
    Some((num, den))
}

/// `re.search(r"GRID:\s*\d+t\b", header)`.
fn header_triplet(header: &str) -> bool {
    let mut from = 0;
    while let Some(i) = header[from..].find("GRID:") {
        let start = from + i + "GRID:".len();
        if let Some((_, rest)) = leading_digits(header[start..].trim_start())
            && let Some(after) = rest.strip_prefix('t')
            && !after.starts_with(|c: char| c.is_alphanumeric() || c == '_')
        {
            return true;
        }
        from = start;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_fields_follow_the_original_pattern() {
        let h =
            header_fields("KEY: F major | METER: 6/8 | TEMPO: ? | GRID: 12t (adaptive) | BARS: 16");
        assert_eq!(h["METER"], "6/8");
        assert_eq!(h["GRID"], "12t (adaptive)");
        assert!(header_triplet("KEY: C major | GRID: 12t (adaptive)"));
        assert!(!header_triplet("KEY: C major | GRID: 16th"));
        assert_eq!(parse_meter("6 / 8"), Some((6, 8)));
    }

    #[test]
    fn bar_lines_need_brackets_and_may_carry_a_grid() {
        assert_eq!(
            bar_head("@3 [C]"),
            Some(BarHead {
                number: 3,
                grid: None
            })
        );
        assert_eq!(
            bar_head("@3 [C | G7] (grid:12t)"),
            Some(BarHead {
                number: 3,
                grid: Some(12)
            })
        );
        assert_eq!(
            bar_head("@3 [A] | [B]"),
            Some(BarHead {
                number: 3,
                grid: None
            })
        );
        assert_eq!(bar_head("@3 C"), None);
        assert_eq!(bar_head("@3[C]"), None);
        assert_eq!(annotated_triplet("@3 [C] (grid:12t)"), Some(true));
        assert_eq!(annotated_triplet("@3 [C] (grid:8)"), Some(false));
        assert_eq!(annotated_triplet("@3 [C]"), None);
    }

    #[test]
    fn tokens_and_pitches() {
        assert_eq!(pitch_midi("C4"), Some(60));
        assert_eq!(pitch_midi("C-1"), Some(0));
        assert_eq!(pitch_midi("Bb1"), Some(34));
        assert_eq!(pitch_midi("c##4"), Some(62));
        assert_eq!(pitch_midi("H4"), None);
        let t = token("A3+C4+X9+F4@2>1").unwrap();
        assert_eq!((t.slot, t.dur, t.midis), (2, 1, vec![57, 60, 65]));
        assert_eq!(token("C5@1>4{P0:1-3}").unwrap().midis, vec![72]);
        assert_eq!(token("C5@1>4^90").unwrap().dur, 4);
        assert!(token("C5@1").is_none());
        assert!(token("@1>2").is_none());
    }

    #[test]
    fn lines_split_like_python() {
        assert_eq!(split_lines("a\r\nb\rc\n"), vec!["a", "b", "c"]);
        assert_eq!(split_lines("a\n\nb"), vec!["a", "", "b"]);
    }
}
