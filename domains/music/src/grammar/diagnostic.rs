//! What the grammar reader says about a text it cannot (or will not) read as written.
//!
//! Every complaint is a [`Diagnostic`]: where (source, 1-based line and column),
//! which rule (a stable id such as `G-ONSET-RANGE`, listed in [`rule`]), what is
//! wrong and what was expected. It renders like rustc or ripgrep so a person, or a
//! model being asked to repair its output, can find the spot at a glance:
//!
//! ```text
//! error[G-ONSET-RANGE]: onset slot 17 is outside bar 3, which has 16 slots (GRID 16, METER 4/4)
//!  --> piece.txt:7:18
//!   |
//! 7 |   Sop: C4@1>4 D4@17>2
//!   |                  ^^
//!   = help: slots are 1-based: bar 3 holds slots 1 to 16
//! ```

use super::lexical::Fault;
use std::fmt;
use std::ops::Range;

/// Stable rule ids. Tools and tests match on these, so they never change meaning.
pub mod rule {
    /// No header line, or the header is not `NAME: value | NAME: value …`.
    pub const HEADER: &str = "G-HEADER";
    /// The header lacks METER or GRID (strict mode needs both).
    pub const HEADER_MISSING: &str = "G-HEADER-MISSING";
    /// A known header field appears twice.
    pub const HEADER_DUPLICATE: &str = "G-HEADER-DUPLICATE";
    /// KEY (the header's, or a part's own on the VOICES line) is neither `?` nor
    /// `<tonic> major|minor`.
    pub const KEY: &str = "G-KEY";
    /// METER is not `num/den` with both parts in 1..=1000.
    pub const METER: &str = "G-METER";
    /// TEMPO is neither `?` nor a positive number.
    pub const TEMPO: &str = "G-TEMPO";
    /// The header GRID is not slots per whole note such as `16th` or `12t`.
    pub const GRID: &str = "G-GRID";
    /// BARS is not a whole number.
    pub const BARS: &str = "G-BARS";
    /// A grid does not cut the bar into a whole number of slots.
    pub const GRID_DIVIDE: &str = "G-GRID-DIVIDE";
    /// The VOICES line is missing or malformed.
    pub const VOICES: &str = "G-VOICES";
    /// A voice name is empty or uses a character the grammar reserves.
    pub const VOICE_NAME: &str = "G-VOICE-NAME";
    /// VOICES names the same voice twice.
    pub const VOICE_DUPLICATE: &str = "G-VOICE-DUPLICATE";
    /// A bar line is malformed.
    pub const BAR: &str = "G-BAR";
    /// A bar number is 0 or too large.
    pub const BAR_RANGE: &str = "G-BAR-RANGE";
    /// A bar line lacks its `[chord]` bracket.
    pub const BAR_LABEL: &str = "G-BAR-LABEL";
    /// Bar numbers do not strictly increase.
    pub const BAR_ORDER: &str = "G-BAR-ORDER";
    /// A bar line is indented (it would read as a voice line in the original).
    pub const BAR_INDENTED: &str = "G-BAR-INDENTED";
    /// A bar's `(grid:…)` override is not a valid grid.
    pub const GRID_OVERRIDE: &str = "G-GRID-OVERRIDE";
    /// A bar number exceeds the header's BARS.
    pub const BARS_SHORT: &str = "G-BARS-SHORT";
    /// A non-indented line that is neither a bar line, a comment nor blank.
    pub const PROSE: &str = "G-PROSE";
    /// An indented line that is not `<Voice>: <tokens>`.
    pub const VOICE_LINE: &str = "G-VOICE-LINE";
    /// A voice line before the first bar line.
    pub const VOICE_BEFORE_BAR: &str = "G-VOICE-BEFORE-BAR";
    /// A voice line names a voice VOICES does not declare.
    pub const VOICE_UNDECLARED: &str = "G-VOICE-UNDECLARED";
    /// The same voice has two lines in one bar.
    pub const VOICE_REPEATED: &str = "G-VOICE-REPEATED";
    /// A token is not `pitch{+pitch}@slot>duration[^velocity][{tag}]`.
    pub const TOKEN: &str = "G-TOKEN";
    /// A token's `{tag}` is empty, unclosed or holds `}`.
    pub const TAG: &str = "G-TAG";
    /// A pitch is not letter, accidentals, octave.
    pub const PITCH: &str = "G-PITCH";
    /// A pitch lies outside MIDI 0..=127.
    pub const PITCH_RANGE: &str = "G-PITCH-RANGE";
    /// An onset slot lies outside its bar.
    pub const ONSET_RANGE: &str = "G-ONSET-RANGE";
    /// A duration of zero slots.
    pub const DURATION_ZERO: &str = "G-DURATION-ZERO";
    /// A grace note (`>g`) left out because grace notes were not asked for (a
    /// warning in both modes).
    pub const GRACE_SKIPPED: &str = "G-GRACE-SKIPPED";
    /// Too many diagnostics: the rest were counted, not recorded.
    pub const SUPPRESSED: &str = "G-SUPPRESSED";
}

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    /// Strict mode refuses the text.
    Error,
    /// Lenient mode skipped or guessed something, and says what.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// One located complaint about a grammar text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error (strict refusal) or warning (lenient skip).
    pub severity: Severity,
    /// Stable rule id, one of the constants in [`rule`].
    pub rule: &'static str,
    /// What is wrong, in one line.
    pub message: String,
    /// What was expected or how to fix it, when there is something useful to say.
    pub help: Option<String>,
    /// Source name from [`super::ParseOptions::source_name`], or `<input>`.
    pub source: String,
    /// 1-based line number.
    pub line: usize,
    /// 1-based column (in characters) of the offending text.
    pub column: usize,
    /// How many characters the offending text spans (at least 1).
    pub width: usize,
    /// The offending line; very long lines are shortened around the spot with `…`.
    pub line_text: String,
    /// 1-based column in `line_text` where the caret goes (equals `column`
    /// unless the line was shortened).
    pub snippet_column: usize,
}

/// One line of the source: its 1-based number and text.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LineRef<'a> {
    pub(crate) number: usize,
    pub(crate) text: &'a str,
}

/// Longest line (in bytes) stored whole in a diagnostic; longer lines are excerpted.
const MAX_SNIPPET_BYTES: usize = 160;
/// Characters kept either side of the spot when excerpting.
const EXCERPT_CONTEXT: usize = 60;

impl Diagnostic {
    /// Builds a diagnostic for the byte range `span` of the line `at`, its
    /// column found through `cache` so that many diagnostics on one long line
    /// cost time linear in the line, not quadratic. Out-of-range or
    /// non-boundary spans are clamped, never a panic.
    #[allow(clippy::too_many_arguments)]
    fn located(
        severity: Severity,
        rule: &'static str,
        source: &str,
        at: LineRef<'_>,
        span: Range<usize>,
        message: String,
        help: Option<String>,
        cache: &mut ColumnCache,
    ) -> Diagnostic {
        let line = at.text;
        let start = floor_boundary(line, span.start);
        let end = floor_boundary(line, span.end.max(start));
        let column = cache.column(at, start);
        let width = line[start..end].chars().count().max(1);
        let (line_text, snippet_column) = if line.len() <= MAX_SNIPPET_BYTES {
            (line.to_string(), column)
        } else {
            excerpt(line, start, end, column)
        };
        Diagnostic {
            severity,
            rule,
            message,
            help,
            source: source.to_string(),
            line: at.number,
            column,
            width,
            line_text,
            snippet_column,
        }
    }
}

/// Characters in `s`, counting at most what the caret may need: a width past
/// the excerpt is never shown, so very wide spans are not walked to their end.
fn char_count(s: &str) -> usize {
    s.chars().take(EXCERPT_CONTEXT * 4).count()
}

/// The last column found on the last line seen: 1-based char column of a byte
/// offset, found by counting only the characters since the previous one.
#[derive(Debug, Default)]
pub(crate) struct ColumnCache {
    line: usize,
    line_ptr: usize,
    byte: usize,
    column: usize,
}

impl ColumnCache {
    /// The 1-based char column of byte `start` (a char boundary) of line `at`.
    fn column(&mut self, at: LineRef<'_>, start: usize) -> usize {
        let text = at.text;
        let same_line = self.line == at.number && self.line_ptr == text.as_ptr() as usize;
        let (from, base) = if same_line && self.byte <= start {
            (self.byte, self.column)
        } else {
            (0, 1)
        };
        let column = base + text[from..start].chars().count();
        *self = ColumnCache {
            line: at.number,
            line_ptr: text.as_ptr() as usize,
            byte: start,
            column,
        };
        column
    }
}

/// The largest char boundary of `s` not after `i`.
fn floor_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A window of `line` around the bytes `start..end` (whose first char is at
/// 1-based `column`), and the caret column in it. Walks only the window, never
/// the whole line.
fn excerpt(line: &str, start: usize, end: usize, column: usize) -> (String, usize) {
    let first = line[..start]
        .char_indices()
        .rev()
        .take(EXCERPT_CONTEXT)
        .last()
        .map_or(start, |(i, _)| i);
    let skipped = column - 1 - line[first..start].chars().count();
    let shown_end = line[start..]
        .char_indices()
        .nth(char_count(&line[start..end]).min(EXCERPT_CONTEXT) + EXCERPT_CONTEXT)
        .map_or(line.len(), |(i, _)| start + i);
    let mut text = String::new();
    let mut caret = column - skipped;
    if first > 0 {
        text.push('…');
        caret += 1;
    }
    text.push_str(&line[first..shown_end]);
    if shown_end < line.len() {
        text.push('…');
    }
    (text, caret)
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let number = self.line.to_string();
        let pad = " ".repeat(number.len());
        writeln!(f, "{}[{}]: {}", self.severity, self.rule, self.message)?;
        writeln!(f, "{pad}--> {}:{}:{}", self.source, self.line, self.column)?;
        writeln!(f, "{pad} |")?;
        // Tabs become single spaces so the caret lines up with the character it marks.
        let shown: String = self
            .line_text
            .chars()
            .map(|c| if c == '\t' { ' ' } else { c })
            .collect();
        writeln!(f, "{number} | {}", shown.trim_end())?;
        // Carets stay within the shown text (at least one, even at the line's end).
        let before = self.snippet_column.saturating_sub(1);
        let room = shown.chars().count().saturating_sub(before);
        let carets = self.width.min(room).max(1);
        write!(f, "{pad} | {}{}", " ".repeat(before), "^".repeat(carets))?;
        if let Some(help) = &self.help {
            write!(f, "\n{pad} = help: {help}")?;
        }
        Ok(())
    }
}

/// Why a text was refused: one or more error diagnostics, in line order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrammarError {
    /// Every error found (at least one). Strict mode collects all it can, up to a
    /// cap; a final `G-SUPPRESSED` entry counts the rest.
    pub diagnostics: Vec<Diagnostic>,
}

impl GrammarError {
    /// The rule ids of the diagnostics, in order.
    pub fn rules(&self) -> Vec<&'static str> {
        self.diagnostics.iter().map(|d| d.rule).collect()
    }
}

impl fmt::Display for GrammarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                f.write_str("\n\n")?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for GrammarError {}

/// Most diagnostics recorded per list; the rest are counted in one summary entry.
pub(crate) const MAX_DIAGNOSTICS: usize = 1000;

/// A capped list of diagnostics of one severity.
#[derive(Debug, Default)]
pub(crate) struct DiagnosticList {
    pub(crate) items: Vec<Diagnostic>,
    suppressed: usize,
    first_suppressed: Option<Diagnostic>,
}

impl DiagnosticList {
    pub(crate) fn push(&mut self, d: Diagnostic) {
        if self.items.len() < MAX_DIAGNOSTICS {
            self.items.push(d);
        } else {
            if self.first_suppressed.is_none() {
                self.first_suppressed = Some(d);
            }
            self.suppressed += 1;
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Counts one more suppressed diagnostic without building it, once the list
    /// is full and the first suppressed one (which the summary quotes) is kept.
    pub(crate) fn count_if_full(&mut self) -> bool {
        if self.items.len() < MAX_DIAGNOSTICS || self.first_suppressed.is_none() {
            return false;
        }
        self.suppressed += 1;
        true
    }

    /// The recorded diagnostics, plus a `G-SUPPRESSED` summary if any were dropped.
    pub(crate) fn finish(mut self) -> Vec<Diagnostic> {
        if let Some(mut first) = self.first_suppressed.take() {
            let kind = match first.severity {
                Severity::Error => "errors",
                Severity::Warning => "warnings",
            };
            first.message = format!(
                "{} more {kind} from here on were not recorded (the first was {}: {})",
                self.suppressed, first.rule, first.message
            );
            first.rule = rule::SUPPRESSED;
            first.help = Some(format!(
                "only the first {MAX_DIAGNOSTICS} {kind} are kept; fix these and read again"
            ));
            self.items.push(first);
        }
        self.items
    }
}

/// Collects the diagnostics of one parse. In strict mode a problem is an error;
/// in lenient mode the same problem is a warning that also says what was done
/// about it (skipped, read as written, …).
#[derive(Debug)]
pub(crate) struct Sink<'a> {
    pub(crate) source: &'a str,
    pub(crate) lenient: bool,
    /// Whether `>g` tokens become grace events (else each is a warning).
    pub(crate) grace_notes: bool,
    pub(crate) errors: DiagnosticList,
    pub(crate) warnings: DiagnosticList,
    columns: ColumnCache,
}

impl<'a> Sink<'a> {
    pub(crate) fn new(source: &'a str, lenient: bool) -> Self {
        Sink {
            source,
            lenient,
            grace_notes: false,
            errors: DiagnosticList::default(),
            warnings: DiagnosticList::default(),
            columns: ColumnCache::default(),
        }
    }

    /// The line `number` with text `text`, for locating a fault.
    pub(crate) fn line<'t>(&self, number: usize, text: &'t str) -> LineRef<'t> {
        LineRef { number, text }
    }

    /// Reports `fault` on line `at`: an error in strict mode; in lenient mode a
    /// warning whose message ends with `lenient_outcome` (e.g. "token skipped").
    pub(crate) fn report(&mut self, at: LineRef<'_>, fault: Fault, lenient_outcome: &str) {
        if self.lenient {
            let mut fault = fault;
            fault.message = format!("{}; {lenient_outcome}", fault.message);
            self.warn(at, fault);
        } else {
            self.fatal(at, fault);
        }
    }

    /// Records `fault` as a warning in either mode.
    pub(crate) fn warn(&mut self, at: LineRef<'_>, fault: Fault) {
        if self.warnings.count_if_full() {
            return;
        }
        let d = self.diagnostic(Severity::Warning, at, fault);
        self.warnings.push(d);
    }

    /// Records `fault` as an error in either mode (for what even lenient mode cannot read past).
    pub(crate) fn fatal(&mut self, at: LineRef<'_>, fault: Fault) {
        if self.errors.count_if_full() {
            return;
        }
        let d = self.diagnostic(Severity::Error, at, fault);
        self.errors.push(d);
    }

    fn diagnostic(&mut self, severity: Severity, at: LineRef<'_>, fault: Fault) -> Diagnostic {
        Diagnostic::located(
            severity,
            fault.rule,
            self.source,
            at,
            fault.span,
            fault.message,
            fault.help,
            &mut self.columns,
        )
    }

    /// Whether any error has been recorded.
    pub(crate) fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// The recorded errors as a [`GrammarError`].
    pub(crate) fn into_error(self) -> GrammarError {
        GrammarError {
            diagnostics: self.errors.finish(),
        }
    }
}
