//! The onset-slot text grammar: the notation language models read and write
//! (Libretto's grammar), read strictly by default and leniently on request, and
//! written back in one canonical form.
//!
//! It exists because a model's output is text: Cantus must turn that text into
//! an exact [`Score`] or say precisely what is wrong with it (file, line,
//! column, rule), and must turn any score the grammar can express back into
//! text without losing a note.
//!
//! # The grammar
//!
//! ```text
//! KEY: F major | METER: 4/4 | TEMPO: 104 | GRID: 16th | BARS: 16
//! VOICES: Bass, Melody
//! @1 [F]
//!   Bass: F2@1>4 C3@9>3 F2@13>2
//!   Melody: C5@9>4 D5@13>3      % a comment
//! @2 [Dm7] (grid:12t)
//!   Melody: A4+C5@1>3{motif-a} B4@10>6
//! ```
//!
//! * **Header** (the first line that is not blank or a comment): `|`-separated
//!   `NAME: value` fields. `KEY` is `?` or a tonic (`F`, `Bb`, `F#`; music21's
//!   `b-` is read too) and `major`/`minor`. `METER` is `num/den` (each 1..=1000).
//!   `TEMPO` is `?`, an integer, a decimal or (Cantus extension) a fraction
//!   `n/d`, kept exact. `GRID` is slots per **whole note**: `16th`, `12t`,
//!   `32th`, `4th` (an `(adaptive)` suffix is ignored; `t` only marks a triplet
//!   grid in the text). `BARS` is `?` or a whole number. Unknown fields are
//!   ignored. Strict mode needs METER and GRID.
//! * **VOICES** (the next such line): comma-separated names; a name may not be
//!   empty, contain `:` or start with `@`, and may not repeat. A part whose key
//!   is not the header's (Cantus extension: a transposing instrument, a horn
//!   without a signature) gives its own after its name, `Clarinet in Bb (KEY: G
//!   major)`, read into [`Voice::key`](crate::Voice::key); a part without one is
//!   in the header's key. A malformed part key is a `G-KEY` error (lenient: the
//!   part takes the header's key).
//! * **Bar line** `@<bar> [<chord label>]`, optionally `(grid:N)` or
//!   `(grid:Nt)` to override the grid for that bar. The bracket is required
//!   (`[-]` names no chord); the label is not read. Bar numbers start at 1 and
//!   strictly increase; gaps are silent bars.
//! * **Voice line**: indented `<Voice>: <token> …`. A token is
//!   `pitch{+pitch}@slot>duration`, then optionally Libretto v3's `^velocity`
//!   (accepted and ignored in both modes) and then optionally a Cantus `{tag}`
//!   (free text without whitespace or `}`), stored in [`Event::tag`](crate::Event::tag).
//!   **Grace notes** (Cantus extension): `g` in place of the duration is a grace
//!   note, `g/` a slashed one (acciaccatura), e.g. `Db5@5>g/ C4@5>2`: it takes no
//!   time and sounds before the events at its slot in its voice, in the order
//!   written ([`Event::grace`](crate::Event::grace)). It is read only when
//!   [`ParseOptions::grace_notes`] asks for it; otherwise it is skipped with a
//!   `G-GRACE-SKIPPED` warning, in both modes. `>0` is still an error.
//!   A pitch is a letter `A-G`/`a-g`, any `#`/`b`, and an octave, possibly
//!   negative: C4 = 60, C-1 = 0, `Bb1`, `C##4`, `Cbb4`; MIDI must lie in 0..=127.
//!   The written spelling is kept in [`Pitch::spelling`](crate::Pitch::spelling).
//!   Pitches joined by `+` are one event (sorted, duplicates removed).
//! * **Time.** A bar holds `G*num/den` slots of `4/G` quarter notes each, and
//!   must hold a whole number of them. Slots are 1-based: slot `s` of bar `b`
//!   starts at `(b-1)*bar + (s-1)*4/G`, and `d` slots last `d*4/G`, exactly.
//!   A note may sound past the barline (`B4@16>4` in a 16-slot bar); its onset
//!   must lie in its bar. Silence is the absence of onsets.
//! * **Comments** (Cantus extension): `%` to the end of the line, where it
//!   begins the line or follows whitespace (so it never clashes with pitches,
//!   tags or labels). Blank and comment lines may appear anywhere, including
//!   before the header (Libretto demands the header on line 1; Cantus does not).
//!
//! # Strict and lenient
//!
//! [`parse()`] is strict by default: every problem is an error with its own rule
//! id (see [`rule`]), and as many as possible are reported at once (header and
//! VOICES problems stop the read, since the rest depends on them; past 1000
//! diagnostics the rest are counted in one `G-SUPPRESSED` entry). Numbers are
//! bounded ([`MAX_METER`], [`MAX_GRID`], [`MAX_BAR`]) so exact time never
//! overflows. Choices:
//! a voice written twice in one bar is an error (`G-VOICE-REPEATED`); a bar
//! number above `BARS` is an error (`G-BARS-SHORT`); an indented bar line is an
//! error (`G-BAR-INDENTED`).
//!
//! With [`ParseOptions::lenient`] the reader tolerates what Libretto's parser
//! tolerates and records each problem as a warning saying what it did: prose
//! anywhere is skipped (also before the header, where Libretto would break);
//! bad tokens are skipped, bad pitches dropped from their chord; onsets beyond
//! the bar spill into later time as in Libretto; undeclared voices are added in
//! order of first use; a voice written twice in a bar is merged; malformed
//! header fields fall back to Libretto's defaults (4/4, GRID 16). Kinder than
//! Libretto: a bar line with a readable number but no `[…]` still starts that
//! bar, and an indented bar line is read as one. Lenient mode fails only when
//! no header line exists at all.
//!
//! # Canonical text
//!
//! [`write()`] produces one text per score: all five header fields (`?` for
//! unknown key or tempo; BARS is the declared count raised to the last bar
//! holding an onset, or [`Score::bar_count`] when undeclared), `VOICES:` (a
//! part's own key after its name wherever [`Voice::key`](crate::Voice::key) has one), then
//! for each bar holding onsets `@<bar> [-]`, a `(grid:…)` override when the
//! bar's grid differs from the header's, and one line per voice with onsets
//! (declared order, tokens in [`Voice::sort`](crate::Voice::sort) order, two
//! spaces of indentation). Each bar's grid is the coarsest of
//! [`WRITER_GRIDS`] that places every onset and duration starting in it
//! exactly, else (128th notes, quintuplets, septuplets) the coarsest grid up to
//! [`MAX_GRID`] that does; the header grid is the most common bar grid among
//! [`WRITER_GRIDS`] (ties: the smaller).
//! Pitches are written with their spelling, or the sharp default. The title is
//! not written. A score that cannot be written exactly is refused with a
//! [`WriteError`] naming the event. The laws, checked by property tests:
//! `write(parse(t)) == t` for canonical `t`, and `parse(write(s)) == s` for
//! every score whose events lie on those grids, with spelled pitches, sorted
//! voices, declared bars and no title.

mod bar_line;
mod diagnostic;
mod header;
mod lexical;
mod reader;
mod writer;

pub use diagnostic::{Diagnostic, GrammarError, Severity, rule};
pub(crate) use writer::voice_name_problem;
pub use writer::{WRITER_GRIDS, WriteError, write};

use crate::score::Score;

/// Largest meter numerator or denominator read or written.
pub const MAX_METER: u32 = 1000;
/// Largest grid (slots per whole note) read.
pub const MAX_GRID: u32 = 3840;
/// Largest bar number read or written.
pub const MAX_BAR: u32 = 10_000_000;

/// How to read a text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Name shown in diagnostics (a file path, say); `<input>` when `None`.
    pub source_name: Option<String>,
    /// Tolerate what Libretto's parser tolerates, with a warning for each thing
    /// skipped or guessed, instead of refusing the text.
    pub lenient: bool,
    /// Read `>g` / `>g/` tokens as grace events; otherwise each is skipped with a
    /// `G-GRACE-SKIPPED` warning (in either mode).
    pub grace_notes: bool,
}

impl ParseOptions {
    /// Strict reading, diagnostics naming `source`.
    pub fn named(source: impl Into<String>) -> Self {
        ParseOptions {
            source_name: Some(source.into()),
            ..ParseOptions::default()
        }
    }

    /// The same options, lenient.
    pub fn lenient(mut self) -> Self {
        self.lenient = true;
        self
    }
}

/// A score read from text, and what lenient mode skipped or guessed on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// The score: voices in declared order, events sorted.
    pub score: Score,
    /// Warnings: lenient mode's, and in either mode the grace notes skipped
    /// because they were not asked for.
    pub warnings: Vec<Diagnostic>,
}

/// One pitch name, as [`crate::Pitch::parse`] reads it: the grammar's own rule.
pub(crate) fn parse_pitch_name(text: &str) -> Result<crate::Pitch, crate::score::PitchError> {
    lexical::parse_pitch(text).map_err(|fault| {
        let text = text.to_string();
        if fault.rule == rule::PITCH_RANGE {
            crate::score::PitchError::OutOfRange {
                text,
                message: fault.message,
            }
        } else {
            crate::score::PitchError::Malformed {
                text,
                message: fault.message,
            }
        }
    })
}

/// Reads grammar text into a [`Score`] (see the module docs for the grammar and
/// the two modes). Never panics, whatever the input.
pub fn parse(text: &str, opts: &ParseOptions) -> Result<Parsed, GrammarError> {
    reader::read(text, opts)
}
