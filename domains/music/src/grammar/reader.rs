//! The one-pass reader: header, VOICES, then bar lines and voice lines.
//!
//! One walk over the lines, no backtracking, no regular expressions; each token
//! costs its `Event` (and its pitch vector) and nothing else. Strict mode records
//! every error it can and refuses the text; lenient mode records the same
//! problems as warnings and does what Libretto's original parser does (or, where
//! the module docs say so, something kinder).

use super::bar_line::parse_bar_line;
use super::diagnostic::{Sink, rule};
use super::header::{self, Grid, HEADER_SHAPE, Header, grid_divide_fault};
use super::lexical::{Fault, offset_in, parse_pitch, shorten, split_token, strip_comment};
use super::{GrammarError, ParseOptions, Parsed};
use crate::score::{Event, Key, Score, Time, Voice};
use std::collections::HashMap;

/// Reads `text` as described in the module docs of [`super`].
pub(crate) fn read(text: &str, opts: &ParseOptions) -> Result<Parsed, GrammarError> {
    let source = opts.source_name.as_deref().unwrap_or("<input>");
    let mut sink = Sink::new(source, opts.lenient);
    sink.grace_notes = opts.grace_notes;
    // A byte-order mark is not part of the header.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));

    // The header: the first line that is not blank or a comment.
    let mut last = (1, "");
    let mut found = None;
    for (n, line) in lines.by_ref() {
        last = (n, line);
        let content = strip_comment(line);
        if content.trim().is_empty() {
            continue;
        }
        if header::looks_like_header(content) {
            let at = sink.line(n, line);
            found = Some(header::parse_header(&mut sink, at));
            break;
        }
        let rule = if sink.lenient {
            rule::PROSE
        } else {
            rule::HEADER
        };
        let fault = prose_fault(rule, line, "the header line")
            .help(format!("{HEADER_SHAPE}; lenient mode skips text before it"));
        if !sink.lenient {
            sink.fatal(sink.line(n, line), fault);
            return Err(sink.into_error());
        }
        sink.report(sink.line(n, line), fault, "line skipped");
    }
    let Some(header) = found else {
        let fault = Fault::new(
            rule::HEADER,
            0..last.1.len(),
            "no header line found (`KEY: … | METER: … | GRID: …`)".into(),
        )
        .help(HEADER_SHAPE);
        sink.fatal(sink.line(last.0, last.1), fault);
        return Err(sink.into_error());
    };

    // VOICES: the next line that is not blank or a comment.
    let mut body = Body::new(header);
    let mut pending = None;
    let mut have_voices = false;
    for (n, line) in lines.by_ref() {
        last = (n, line);
        let content = strip_comment(line);
        if content.trim().is_empty() {
            continue;
        }
        if header::is_voices_line(content) {
            let at = sink.line(n, line);
            let declared = header::parse_voices(&mut sink, at);
            body.declare(declared.names);
            have_voices = true;
            break;
        }
        let body_like = content.starts_with('@') || content.starts_with(char::is_whitespace);
        let rule = if sink.lenient && !body_like {
            rule::PROSE
        } else {
            rule::VOICES
        };
        let fault = prose_fault(rule, line, "`VOICES: name, name, …` after the header")
            .help("after the header, list the voices: `VOICES: Soprano, Alto, Tenor, Bass`");
        if !sink.lenient {
            sink.fatal(sink.line(n, line), fault);
            return Err(sink.into_error());
        }
        if body_like {
            pending = Some((n, line));
            sink.report(
                sink.line(n, line),
                fault,
                "voices are declared as they are used",
            );
            have_voices = true;
            break;
        }
        sink.report(sink.line(n, line), fault, "line skipped");
    }
    if !have_voices {
        let fault = Fault::new(
            rule::VOICES,
            0..last.1.len(),
            "the text ends before the VOICES line".into(),
        )
        .help("after the header, list the voices: `VOICES: Soprano, Alto, Tenor, Bass`");
        sink.report(sink.line(last.0, last.1), fault, "no voices");
    }
    if sink.has_errors() {
        return Err(sink.into_error());
    }

    for (n, line) in pending.into_iter().chain(lines) {
        body.line(&mut sink, n, line);
    }
    if sink.has_errors() {
        return Err(sink.into_error());
    }
    let Body {
        header,
        mut voices,
        declared,
        ..
    } = body;
    // Undeclared voices (lenient) exist only if they received notes.
    let mut index = 0;
    voices.retain(|v| {
        index += 1;
        index <= declared || !v.events.is_empty()
    });
    for v in &mut voices {
        v.sort();
    }
    let score = Score {
        title: None,
        key: header.key,
        meter: header.meter,
        tempo: header.tempo,
        bars: header.bars,
        voices,
    };
    Ok(Parsed {
        score,
        warnings: sink.warnings.finish(),
    })
}

/// A fault under `rule` for a whole line found where `expected` belongs.
fn prose_fault(rule: &'static str, line: &str, expected: &str) -> Fault {
    let content = strip_comment(line).trim();
    let start = offset_in(line, content);
    Fault::new(
        rule,
        start..start + content.len(),
        format!("expected {expected}, found `{}`", shorten(content)),
    )
}

/// The bar being read.
#[derive(Clone, Copy)]
struct Bar {
    number: u32,
    /// Sequence number of this bar line, to spot a voice written twice in it.
    seq: u32,
    /// Bar start as `start_num / denom` quarter notes, over a denominator shared
    /// with one slot (`slot_num / denom`), so each onset costs one reduction.
    start_num: i64,
    slot_num: i64,
    denom: i64,
    /// One slot, in quarter notes (4/G).
    slot: Time,
    /// Slots in the bar (G·num/den; whole unless lenient read a bad grid).
    slots: Time,
    grid: Grid,
}

/// State of the body walk.
struct Body {
    header: Header,
    voices: Vec<Voice>,
    /// How many of `voices` the VOICES line declared (the rest came from lenient use).
    declared: usize,
    index: HashMap<String, usize>,
    /// Per voice: (bar sequence number, line) of its latest voice line.
    last_line: Vec<(u32, usize)>,
    bar: Option<Bar>,
    /// Strict mode: the last bar line was bad, so its voice lines are not checked.
    poisoned: bool,
    highest_bar: u32,
    bar_seq: u32,
    bars_short_reported: bool,
}

impl Body {
    fn new(header: Header) -> Body {
        Body {
            header,
            voices: Vec::new(),
            declared: 0,
            index: HashMap::new(),
            last_line: Vec::new(),
            bar: None,
            poisoned: false,
            highest_bar: 0,
            bar_seq: 0,
            bars_short_reported: false,
        }
    }

    fn declare(&mut self, names: Vec<(String, Option<Key>)>) {
        for (name, key) in names {
            let i = self.add_voice(name);
            self.voices[i].key = key;
        }
        self.declared = self.voices.len();
    }

    fn add_voice(&mut self, name: String) -> usize {
        let i = self.voices.len();
        self.index.insert(name.clone(), i);
        self.voices.push(Voice::new(name));
        self.last_line.push((0, 0));
        i
    }

    /// Reads one body line.
    fn line(&mut self, sink: &mut Sink<'_>, n: usize, line: &str) {
        let content = strip_comment(line);
        let trimmed = content.trim_start();
        if trimmed.is_empty() {
            return;
        }
        let indented = trimmed.len() != content.len();
        if trimmed.starts_with('@') {
            if indented {
                let start = offset_in(line, trimmed);
                let fault = Fault::new(rule::BAR_INDENTED, 0..start, "bar line is indented".into())
                    .help("bar lines start in the first column; only voice lines are indented");
                sink.report(sink.line(n, line), fault, "read as a bar line");
            }
            self.bar_line(sink, n, line, trimmed);
        } else if indented {
            self.voice_line(sink, n, line, trimmed);
        } else {
            let fault = prose_fault(
                rule::PROSE,
                line,
                "a bar line `@N [chord]` or an indented voice line",
            )
            .help("comments start with `%`; voice lines are indented, e.g. `  Bass: C2@1>16`");
            sink.report(sink.line(n, line), fault, "line skipped");
        }
    }

    fn bar_line(&mut self, sink: &mut Sink<'_>, n: usize, line: &str, text: &str) {
        let at = sink.line(n, line);
        let base = offset_in(line, text);
        let parsed = parse_bar_line(text);
        let outcome = match parsed.number {
            Some(_) => "bar read anyway",
            None => "line ignored, so the lines below stay in the previous bar",
        };
        let bad = !parsed.faults.is_empty();
        for fault in parsed.faults {
            let outcome = if fault.rule == rule::GRID_OVERRIDE {
                "using the header grid"
            } else {
                outcome
            };
            sink.report(at, fault.shift(base), outcome);
        }
        if bad && !sink.lenient {
            self.poisoned = true;
            return;
        }
        let Some((number, number_span)) = parsed.number else {
            return;
        };
        let number_span = number_span.start + base..number_span.end + base;
        self.poisoned = false;
        if number <= self.highest_bar {
            let fault = Fault::new(
                rule::BAR_ORDER,
                number_span.clone(),
                format!("bar {number} comes after bar {}", self.highest_bar),
            )
            .help("bar numbers must increase; a gap between them leaves silent bars");
            sink.report(at, fault, "read as written");
        }
        if let Some(declared) = self.header.bars
            && number > declared
            && !self.bars_short_reported
        {
            self.bars_short_reported = true;
            let fault = Fault::new(
                rule::BARS_SHORT,
                number_span.clone(),
                format!("bar {number} is beyond the {declared} bars the header declares"),
            )
            .help(format!("raise BARS in the header to at least {number}"));
            sink.report(at, fault, "read anyway");
        }
        self.highest_bar = self.highest_bar.max(number);
        let meter = self.header.meter;
        let grid = match parsed.grid {
            Some((grid, span)) => {
                if !grid.divides(meter) {
                    let span = span.start + base..span.end + base;
                    sink.report(
                        at,
                        grid_divide_fault(grid, meter, span),
                        "slots read as written",
                    );
                    if !sink.lenient {
                        self.poisoned = true;
                        return;
                    }
                }
                grid
            }
            None => self.header.grid,
        };
        self.bar_seq += 1;
        let g = i64::from(grid.whole);
        // Bounded by MAX_BAR, MAX_METER and MAX_GRID: no overflow below.
        let start = meter.bar_length() * Time::from_integer(i64::from(number) - 1);
        let slot = Time::new(4, g);
        let denom = num_integer::lcm(*start.denom(), *slot.denom());
        self.bar = Some(Bar {
            number,
            seq: self.bar_seq,
            start_num: start.numer() * (denom / start.denom()),
            slot_num: slot.numer() * (denom / slot.denom()),
            denom,
            slot,
            slots: Time::new(g * i64::from(meter.num), i64::from(meter.den)),
            grid,
        });
    }

    fn voice_line(&mut self, sink: &mut Sink<'_>, n: usize, line: &str, text: &str) {
        let at = sink.line(n, line);
        let Some((name, tokens)) = text.split_once(':') else {
            let content = text.trim_end();
            let start = offset_in(line, content);
            let fault = Fault::new(
                rule::VOICE_LINE,
                start..start + content.len(),
                format!("indented line `{}` is not a voice line", shorten(content)),
            )
            .help("a voice line is `  <Voice>: <notes>`; comments start with `%`");
            sink.report(at, fault, "line skipped");
            return;
        };
        let name = name.trim_end();
        let name_at = offset_in(line, name);
        let name_span = name_at..name_at + name.len().max(1);
        if name.is_empty() {
            let fault = Fault::new(
                rule::VOICE_LINE,
                name_span,
                "voice line has no voice name before `:`".into(),
            )
            .help("a voice line is `  <Voice>: <notes>`");
            sink.report(at, fault, "line skipped");
            return;
        }
        if self.poisoned {
            return;
        }
        let Some(bar) = self.bar else {
            let fault = Fault::new(
                rule::VOICE_BEFORE_BAR,
                name_span,
                format!("voice line for `{name}` comes before any bar line"),
            )
            .help("start each bar with a bar line such as `@1 [C]`");
            sink.report(at, fault, "line skipped");
            return;
        };
        let voice = match self.index.get(name) {
            Some(&i) => i,
            None => {
                let declared = self.voices[..self.declared]
                    .iter()
                    .map(|v| v.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ");
                let fault = Fault::new(
                    rule::VOICE_UNDECLARED,
                    name_span.clone(),
                    format!("voice `{name}` is not declared on the VOICES line"),
                )
                .help(if declared.is_empty() {
                    "the VOICES line declares no voices; list every voice there".to_string()
                } else {
                    format!("declared voices: {declared}")
                });
                sink.report(at, fault, "voice added");
                if !sink.lenient {
                    return;
                }
                self.add_voice(name.to_string())
            }
        };
        let (seq, earlier) = self.last_line[voice];
        if seq == bar.seq {
            let fault = Fault::new(
                rule::VOICE_REPEATED,
                name_span,
                format!(
                    "voice `{name}` already has a line in bar {} (line {earlier})",
                    bar.number
                ),
            )
            .help("write all of a voice's notes in a bar on one line");
            sink.report(at, fault, "notes merged");
        }
        self.last_line[voice] = (bar.seq, n);
        let meter = self.header.meter;
        for tok in tokens.split_whitespace() {
            let off = offset_in(line, tok);
            if let Some(event) = read_event(sink, at, tok, off, &bar, meter) {
                self.voices[voice].events.push(event);
            }
        }
    }
}

/// Reads one token of a voice line in `bar`; reports and returns `None` if it
/// cannot become an event.
fn read_event(
    sink: &mut Sink<'_>,
    at: super::diagnostic::LineRef<'_>,
    tok: &str,
    off: usize,
    bar: &Bar,
    meter: crate::score::Meter,
) -> Option<Event> {
    let token = match split_token(tok) {
        Ok(t) => t,
        Err(fault) => {
            sink.report(at, fault.shift(off), "token skipped");
            return None;
        }
    };
    let mut pitches = Vec::with_capacity(token.pitches.bytes().filter(|b| *b == b'+').count() + 1);
    let mut bad_pitch = false;
    for p in token.pitches.split('+') {
        match parse_pitch(p) {
            Ok(pitch) => pitches.push(pitch),
            Err(fault) => {
                bad_pitch = true;
                let fault = if p.is_empty() {
                    Fault::new(
                        rule::PITCH,
                        0..1,
                        format!("empty pitch in chord `{}`", shorten(token.pitches)),
                    )
                    .help(super::lexical::PITCH_HELP)
                } else {
                    fault
                };
                let fault = fault.shift(offset_in(at.text, p));
                sink.report(at, fault, "pitch dropped");
            }
        }
    }
    if pitches.is_empty() || (bad_pitch && !sink.lenient) {
        return None;
    }
    let slot = i64::from(token.slot);
    if slot < 1 || Time::from_integer(slot) > bar.slots {
        let span = token.slot_span.start + off..token.slot_span.end + off;
        let fault = Fault::new(
            rule::ONSET_RANGE,
            span,
            format!(
                "onset slot {slot} is outside bar {}, which has {} slots (GRID {}, METER {meter})",
                bar.number,
                bar.slots,
                bar.grid.label()
            ),
        )
        .help(format!(
            "slots are 1-based: bar {} holds slots 1 to {}; a note may sound past the barline, but it starts in its own bar",
            bar.number,
            bar.slots.floor()
        ));
        sink.report(at, fault, "onset read as written, spilling out of the bar");
        if !sink.lenient {
            return None;
        }
    }
    if token.grace.is_some() && !sink.grace_notes {
        let span = token.duration_span.start + off..token.duration_span.end + off;
        let fault = Fault::new(
            rule::GRACE_SKIPPED,
            span,
            format!("grace note `{}` skipped", shorten(tok)),
        )
        .help("grace notes take no notated time; they are read when asked for (`cantus analyze`, `verify --lenient`, `--grace-notes`)");
        sink.warn(at, fault);
        return None;
    }
    if token.duration == 0 && token.grace.is_none() {
        let span = token.duration_span.start + off..token.duration_span.end + off;
        let fault = Fault::new(
            rule::DURATION_ZERO,
            span,
            format!("`{}` lasts zero slots", shorten(tok)),
        )
        .help(
            "a duration counts slots and is at least 1; silence is written by leaving slots empty",
        );
        sink.report(at, fault, "token skipped");
        return None;
    }
    let onset = Time::new(bar.start_num + (slot - 1) * bar.slot_num, bar.denom);
    if onset < Time::from_integer(0) {
        let fault = Fault::new(
            rule::ONSET_RANGE,
            off..off + tok.len(),
            format!("`{}` would start before the piece does", shorten(tok)),
        );
        sink.warn(at, fault);
        return None;
    }
    let mut event = Event {
        onset,
        duration: Time::new(
            bar.slot.numer() * i64::from(token.duration),
            *bar.slot.denom(),
        ),
        pitches,
        tag: token.tag.map(str::to_string),
        grace: token.grace,
        ..Event::default()
    };
    event.normalise_pitches();
    Some(event)
}
