//! The two lines that open every piece: the header (`KEY | METER | TEMPO | GRID |
//! BARS`) and the `VOICES:` list.
//!
//! The header fixes the meter and the default grid, without which no onset can
//! be placed, so a malformed known field is an error in strict mode and a
//! warning plus the original's default (4/4, GRID 16, no key/tempo/bars) in
//! lenient mode. Unknown fields are allowed by the spec and ignored silently.

use super::MAX_GRID;
use super::diagnostic::{LineRef, Sink, rule};
use super::lexical::{Fault, digit_run, offset_in, parse_u32, read_spelling, strip_comment};
use crate::score::{Key, Meter, Mode, Time};

/// The header fields Cantus reads.
const KNOWN_FIELDS: [&str; 5] = ["KEY", "METER", "TEMPO", "GRID", "BARS"];

/// The full header shape, for help texts.
pub(crate) const HEADER_SHAPE: &str =
    "the header is `KEY: F major | METER: 4/4 | TEMPO: 104 | GRID: 16th | BARS: 16`";

/// A grid: slots per whole note, and whether the text marked it triplet (`t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Grid {
    pub(crate) whole: u32,
    pub(crate) triplet_mark: bool,
}

impl Grid {
    /// Whether this grid cuts a bar of `meter` into a whole number of slots.
    pub(crate) fn divides(self, meter: Meter) -> bool {
        (u64::from(self.whole) * u64::from(meter.num)) % u64::from(meter.den) == 0
    }

    /// The grid as the grammar writes it in a bar override (`16`, `12t`).
    pub(crate) fn label(self) -> String {
        format!("{}{}", self.whole, if self.triplet_mark { "t" } else { "" })
    }
}

/// Parses `N`, `Nt` or `Nth` with `N` in 1..=[`MAX_GRID`].
pub(crate) fn parse_grid(value: &str) -> Option<Grid> {
    let digits = digit_run(value);
    let whole = parse_u32(&value[..digits]).filter(|g| (1..=MAX_GRID).contains(g))?;
    let triplet_mark = match &value[digits..] {
        "" | "th" => false,
        "t" => true,
        _ => return None,
    };
    Some(Grid {
        whole,
        triplet_mark,
    })
}

/// What the header says.
#[derive(Clone, Debug)]
pub(crate) struct Header {
    pub(crate) key: Option<Key>,
    pub(crate) meter: Meter,
    pub(crate) tempo: Option<Time>,
    pub(crate) grid: Grid,
    pub(crate) bars: Option<u32>,
}

/// Whether a (comment-stripped) line is a header: some `|`-separated field is
/// `NAME: value` with NAME one of the known fields.
pub(crate) fn looks_like_header(line: &str) -> bool {
    line.split('|').any(|field| {
        field
            .split_once(':')
            .is_some_and(|(name, _)| KNOWN_FIELDS.contains(&name.trim()))
    })
}

/// Reads the header on line `at`, reporting every malformed field.
pub(crate) fn parse_header(sink: &mut Sink<'_>, at: LineRef<'_>) -> Header {
    let line = at.text;
    let mut header = Header {
        key: None,
        meter: Meter::COMMON,
        tempo: None,
        grid: Grid {
            whole: 16,
            triplet_mark: false,
        },
        bars: None,
    };
    let mut seen = [false; KNOWN_FIELDS.len()];
    let mut grid_span = 0..0;
    for field in strip_comment(line).split('|') {
        if field.trim().is_empty() {
            continue;
        }
        let Some((name, value)) = field.split_once(':') else {
            let f = field.trim();
            let start = offset_in(line, f);
            let fault = Fault::new(
                rule::HEADER,
                start..start + f.len(),
                format!("header field `{f}` is not `NAME: value`"),
            )
            .help(HEADER_SHAPE);
            sink.report(at, fault, "field ignored");
            continue;
        };
        let name = name.trim();
        let value = value.trim();
        let Some(which) = KNOWN_FIELDS.iter().position(|k| *k == name) else {
            continue; // Unknown fields are allowed by the spec.
        };
        let name_at = offset_in(line, name);
        if seen[which] {
            let fault = Fault::new(
                rule::HEADER_DUPLICATE,
                name_at..name_at + name.len(),
                format!("header field {name} appears more than once"),
            )
            .help("give each header field once");
            sink.report(at, fault, "the last one counts");
        }
        seen[which] = true;
        let value_at = offset_in(line, value);
        let span = if value.is_empty() {
            name_at..name_at + name.len()
        } else {
            value_at..value_at + value.len()
        };
        let bad = |rule, expected: &str| {
            Fault::new(
                rule,
                span.clone(),
                format!("{name} is `{value}`, expected {expected}"),
            )
            .help(HEADER_SHAPE)
        };
        match name {
            "KEY" => match parse_key(value) {
                Some(key) => header.key = key,
                None => sink.report(
                    at,
                    bad(
                        rule::KEY,
                        "`?` or a tonic and mode such as `F major` or `Bb minor`",
                    ),
                    "key left unknown",
                ),
            },
            "METER" => match value.parse::<Meter>().ok() {
                Some(meter) => header.meter = meter,
                None => sink.report(
                    at,
                    bad(
                        rule::METER,
                        "`num/den` such as `4/4` or `6/8`, each from 1 to 1000",
                    ),
                    "using 4/4",
                ),
            },
            "TEMPO" => match parse_tempo(value) {
                Some(tempo) => header.tempo = tempo,
                None => sink.report(
                    at,
                    bad(
                        rule::TEMPO,
                        "`?` or beats per minute above 0, such as `104` or `92.5`",
                    ),
                    "tempo left unknown",
                ),
            },
            "GRID" => {
                let plain = value.strip_suffix("(adaptive)").unwrap_or(value).trim_end();
                match parse_grid(plain) {
                    Some(grid) => {
                        header.grid = grid;
                        grid_span = span.clone();
                    }
                    None => sink.report(
                        at,
                        bad(
                            rule::GRID,
                            "slots per whole note such as `16th` or `12t`, from 1 to 3840",
                        ),
                        "using GRID 16",
                    ),
                }
            }
            _ => match parse_bars(value) {
                Some(bars) => header.bars = bars,
                None => sink.report(
                    at,
                    bad(rule::BARS, "`?` or a whole number of bars such as `16`"),
                    "bar count left unknown",
                ),
            },
        }
    }
    // Indices of METER and GRID in KNOWN_FIELDS.
    for (index, name, default) in [(1, "METER", "using 4/4"), (3, "GRID", "using GRID 16")] {
        if !seen[index] {
            let fault = Fault::new(
                rule::HEADER_MISSING,
                0..line.trim_end().len(),
                format!("the header has no {name} field"),
            )
            .help(HEADER_SHAPE);
            sink.report(at, fault, default);
        }
    }
    if !header.grid.divides(header.meter) {
        let fault = grid_divide_fault(header.grid, header.meter, grid_span);
        sink.report(at, fault, "slots are read as written");
    }
    header
}

/// The `G-GRID-DIVIDE` fault for `grid` in `meter`, at `span`.
pub(crate) fn grid_divide_fault(grid: Grid, meter: Meter, span: std::ops::Range<usize>) -> Fault {
    let slots = Time::new(
        i64::from(grid.whole) * i64::from(meter.num),
        i64::from(meter.den),
    );
    Fault::new(
        rule::GRID_DIVIDE,
        span,
        format!(
            "GRID {} cuts a {} bar into {} slots, not a whole number",
            grid.label(),
            meter,
            slots
        ),
    )
    .help(format!(
        "GRID counts slots per whole note, so a bar has GRID*{}/{} slots; choose a GRID that is a multiple of {}",
        meter.num,
        meter.den,
        i64::from(meter.den) / num_integer::gcd(i64::from(meter.den), i64::from(meter.num))
    ))
}

/// `?` → `Some(None)`; `F major`, `bb minor`, `B- minor` → the key; else `None`.
fn parse_key(value: &str) -> Option<Option<Key>> {
    if value == "?" {
        return Some(None);
    }
    let mut words = value.split_whitespace();
    let (tonic, mode) = (words.next()?, words.next()?);
    if words.next().is_some() {
        return None;
    }
    let (tonic, _) = read_spelling(tonic, true)
        .ok()
        .filter(|(_, used)| *used == tonic.len())?;
    let mode = match mode.to_ascii_lowercase().as_str() {
        "major" => Mode::Major,
        "minor" => Mode::Minor,
        _ => return None,
    };
    Some(Some(Key { tonic, mode }))
}

/// `?` → `Some(None)`; a positive integer, decimal or fraction → its exact value.
pub(crate) fn parse_tempo(value: &str) -> Option<Option<Time>> {
    if value == "?" {
        return Some(None);
    }
    let exact = if let Some((num, den)) = value.split_once('/') {
        let num: i64 = parse_u64(num)?.try_into().ok()?;
        let den: i64 = parse_u64(den)?.try_into().ok()?;
        if den == 0 {
            return None;
        }
        Time::new(num, den)
    } else if let Some((whole, frac)) = value.split_once('.') {
        let scale = 10_i64.checked_pow(u32::try_from(frac.len()).ok()?)?;
        let whole: i64 = parse_u64(whole)?.try_into().ok()?;
        let frac: i64 = parse_u64(frac)?.try_into().ok()?;
        Time::new(whole.checked_mul(scale)?.checked_add(frac)?, scale)
    } else {
        Time::from_integer(parse_u64(value)?.try_into().ok()?)
    };
    (exact > Time::from_integer(0)).then_some(Some(exact))
}

fn parse_u64(digits: &str) -> Option<u64> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// `?` → `Some(None)`; a whole number → it.
fn parse_bars(value: &str) -> Option<Option<u32>> {
    if value == "?" {
        return Some(None);
    }
    parse_u32(value).map(Some)
}

/// The voices declared on the VOICES line, each with its own key if it gives one.
pub(crate) struct Declared {
    pub(crate) names: Vec<(String, Option<Key>)>,
}

/// Whether a (comment-stripped) line is a VOICES line.
pub(crate) fn is_voices_line(line: &str) -> bool {
    line.trim_start().starts_with("VOICES")
}

/// Reads `VOICES: A, B, …` on line `at`; bad and duplicate names are reported
/// (and, in lenient mode, left out).
pub(crate) fn parse_voices(sink: &mut Sink<'_>, at: LineRef<'_>) -> Declared {
    let line = at.text;
    let text = strip_comment(line).trim_start();
    let after = text.strip_prefix("VOICES").unwrap_or(text);
    let Some(list) = after.trim_start().strip_prefix(':') else {
        let start = offset_in(line, text);
        let fault = Fault::new(
            rule::VOICES,
            start..start + text.trim_end().len(),
            "the VOICES line has no `:`".into(),
        )
        .help("write the voices as `VOICES: Soprano, Alto, Tenor, Bass`");
        sink.report(at, fault, "no voices declared");
        return Declared { names: Vec::new() };
    };
    let mut names: Vec<(String, Option<Key>)> = Vec::new();
    if list.trim().is_empty() {
        return Declared { names };
    }
    for raw in list.split(',') {
        let (name, key) = match voice_key(sink, at, raw) {
            Ok(split) => split,
            Err(()) => continue,
        };
        let start = offset_in(line, name);
        let span = if name.is_empty() {
            let s = offset_in(line, raw);
            s..s + raw.len()
        } else {
            start..start + name.len()
        };
        let problem = if name.is_empty() {
            Some("an empty voice name (two commas in a row, or a trailing comma?)".to_string())
        } else if name.contains(':') {
            Some(format!("voice name `{name}` contains `:`"))
        } else if name.starts_with('@') {
            Some(format!(
                "voice name `{name}` starts with `@`, which marks bar lines"
            ))
        } else {
            None
        };
        if let Some(message) = problem {
            let fault = Fault::new(rule::VOICE_NAME, span, message)
                .help("voice names are separated by `,` and may not contain `:` or start with `@`");
            sink.report(at, fault, "name left out");
            continue;
        }
        if names.iter().any(|(n, _)| n == name) {
            let fault = Fault::new(
                rule::VOICE_DUPLICATE,
                span,
                format!("voice `{name}` is declared twice"),
            )
            .help("give each voice a distinct name, e.g. `Violin 1, Violin 2`");
            sink.report(at, fault, "second one left out");
            continue;
        }
        names.push((name.to_string(), key));
    }
    Declared { names }
}

/// Splits one VOICES entry into its name and the part's own key, written
/// `Clarinet in Bb (KEY: G major)`: a name never holds `:`, so the first `:` is
/// the key's. An entry without one is all name (trimmed). A malformed key is
/// reported (lenient: the part takes the score's key); `(KEY: ?)` is the score's.
fn voice_key<'t>(
    sink: &mut Sink<'_>,
    at: LineRef<'_>,
    raw: &'t str,
) -> Result<(&'t str, Option<Key>), ()> {
    let entry = raw.trim();
    let Some((before, after)) = entry.split_once(':') else {
        return Ok((entry, None));
    };
    let Some(name) = before.trim_end().strip_suffix("(KEY") else {
        return Ok((entry, None)); // a name with `:`, reported as such
    };
    let name = name.trim_end();
    let after = after.trim();
    let (value, closed) = match after.strip_suffix(')') {
        Some(value) => (value.trim_end(), true),
        None => (after, false),
    };
    let message = match (closed, parse_key(value)) {
        (true, Some(key)) => return Ok((name, key)),
        (true, None) => format!(
            "voice `{name}` has KEY `{value}`, expected `?` or a tonic and mode such as `G major`"
        ),
        (false, _) => format!("voice `{name}`'s `(KEY: {value}` has no closing `)`"),
    };
    let start = offset_in(at.text, value);
    let fault = Fault::new(rule::KEY, start..start + value.len().max(1), message)
        .help("a part's own key follows its name: `Clarinet in Bb (KEY: G major)`");
    sink.report(at, fault, "the part takes the score's key");
    if sink.lenient {
        Ok((name, None))
    } else {
        Err(())
    }
}
