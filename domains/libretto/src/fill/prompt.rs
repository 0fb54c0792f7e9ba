//! The gap-filling prompt: the piece's header, the bars around the gap in the
//! onset-slot grammar (a few each side), the gap's bar numbers, meter and
//! voices, and on later candidates what was wrong with the previous one — the
//! failing gates' own feedback lines, or why its reply could not be read. Kept
//! short: SmolLM2-135M has a 4096-token context.

use super::FillError;
use super::judge::{Gap, retain_bars};
use cantus_framework::Message;
use cantus_music::{Meter, grammar};
use std::fmt::Write as _;

/// At most this many feedback lines go into a prompt.
const MAX_FEEDBACK: usize = 6;
/// Feedback lines are cut to this many characters.
const MAX_LINE: usize = 240;

/// What the model is shown of the piece, written once per fill.
#[derive(Clone, Debug)]
pub(crate) struct Shown {
    /// The header and `VOICES:` lines of the grammar text (two lines, each
    /// ending in a newline): replies are read under them.
    pub header: String,
    /// Bar and voice lines of the context bars around the gap.
    pub body: String,
    /// Slots per bar under the header's grid, when that is a whole number.
    pub slots_per_bar: Option<u32>,
    /// The piece's voice names, in order.
    pub voices: Vec<String>,
    /// The context bars shown, as `1-4 and 9-12`.
    pub around: String,
}

/// `GRID: 16th` → 16.
fn header_grid(header: &str) -> Option<u32> {
    let (_, rest) = header.split_once("GRID:")?;
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Slots per bar under `header`'s grid in `meter`, when that is a whole number.
pub(crate) fn slots_per_bar(header: &str, meter: Meter) -> Option<u32> {
    header_grid(header).and_then(|g| {
        let whole = u64::from(g) * u64::from(meter.num);
        let den = u64::from(meter.den).max(1);
        (whole % den == 0)
            .then(|| u32::try_from(whole / den).ok())
            .flatten()
    })
}

impl Shown {
    /// Writes the `bars` bars before and after the gap (fewer at the piece's edges).
    pub fn new(gap: &Gap<'_>, bars: u32) -> Result<Shown, FillError> {
        let total = gap.score.bar_count();
        let before = gap.first_bar.saturating_sub(bars).max(1)..gap.first_bar;
        let after = gap.last_bar.saturating_add(1)..=gap.last_bar.saturating_add(bars).min(total);
        let excerpt = retain_bars(&gap.context, |b| before.contains(&b) || after.contains(&b));
        let text = grammar::write(&excerpt).map_err(|e| FillError::Unwritable(e.to_string()))?;
        let mut lines = text.lines();
        let mut header = String::new();
        for line in lines.by_ref().take(2) {
            header.push_str(line);
            header.push('\n');
        }
        let body: String = lines.map(|l| format!("{l}\n")).collect();
        let slots_per_bar = slots_per_bar(&header, gap.score.meter);
        let span = |a: u32, b: u32| match (a, b) {
            (a, b) if a > b => None,
            (a, b) if a == b => Some(format!("{a}")),
            (a, b) => Some(format!("{a}-{b}")),
        };
        let parts: Vec<String> = [
            span(before.start, before.end.saturating_sub(1)),
            span(*after.start(), *after.end()),
        ]
        .into_iter()
        .flatten()
        .collect();
        Ok(Shown {
            header,
            body,
            slots_per_bar,
            voices: gap.score.voices.iter().map(|v| v.name.clone()).collect(),
            around: parts.join(" and "),
        })
    }
}

const SYSTEM: &str = "You write music in a compact text notation. \
Answer with bar lines and voice lines only: no prose, no code fences.";

fn cut(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

/// The messages for one candidate; `feedback` is what was wrong with the previous one.
pub(crate) fn messages(gap: &Gap<'_>, shown: &Shown, feedback: &[String]) -> Vec<Message> {
    let (first, last) = (gap.first_bar, gap.last_bar);
    let meter = gap.score.meter;
    let mut p = String::new();
    p.push_str(
        "Notation: a bar line `@N [-]`, then one indented line per voice, `  Name: NOTE NOTE ...`. \
         NOTE = PITCH@SLOT>LENGTH, e.g. C#4@1>4 (C4 = middle C; a chord joins pitches with +, \
         e.g. C4+E4@1>2; SLOT counts from 1 at the start of the bar; LENGTH in slots).\n",
    );
    p.push_str("Piece:\n");
    p.push_str(&shown.header);
    let _ = write!(p, "Meter {}/{}", meter.num, meter.den);
    if let Some(slots) = shown.slots_per_bar {
        let _ = write!(p, ", {slots} slots per bar");
    }
    let _ = writeln!(
        p,
        ". The piece has {} bars; bars {first}-{last} are missing. Voices: {}.",
        gap.score.bar_count(),
        shown.voices.join(", ")
    );
    if !shown.body.is_empty() {
        let _ = writeln!(p, "Bars {} (around the gap):", shown.around);
        p.push_str(&shown.body);
    }
    if !feedback.is_empty() {
        p.push_str("Your last answer had these problems:\n");
        for line in feedback.iter().take(MAX_FEEDBACK) {
            let _ = writeln!(p, "- {}", cut(line));
        }
    }
    let _ = write!(
        p,
        "Write bars {first}-{last} so they belong to this piece without copying it: the same \
         voices, style and texture, fresh notes. Answer with the bar lines @{first} [-] to @{last} [-], \
         each followed by its voice lines."
    );
    vec![Message::system(SYSTEM), Message::user(p)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_grid_is_read_from_the_written_header() {
        let header = "KEY: ? | METER: 3/4 | TEMPO: ? | GRID: 12t | BARS: 4\nVOICES: A\n";
        assert_eq!(header_grid(header), Some(12));
        assert_eq!(header_grid("METER: 3/4\n"), None);
    }

    #[test]
    fn long_feedback_lines_are_cut_on_a_character_boundary() {
        let long = "é".repeat(MAX_LINE + 10);
        let shown = cut(&long);
        assert_eq!(shown.chars().count(), MAX_LINE + 1);
        assert!(shown.ends_with('…'));
        assert_eq!(cut("short"), "short");
    }
}
