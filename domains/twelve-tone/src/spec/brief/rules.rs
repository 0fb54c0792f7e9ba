//! Phrase rules for the plain quantities of a brief: title, length, voices, meter,
//! tempo, sections, texture, voice crossing, labelling convention and seed.
//!
//! Each rule starts at one token and either declines (`None`) or returns how far its
//! phrase reaches and what it means. The phrases each rule knows are listed on it.

use num_rational::Ratio;

use super::scan::{BAR_UNITS, Ctx, Effect, Match, SECTION_WORDS, VOICE_UNITS};
use super::tokens::Kind;
use crate::row::Convention;
use crate::spec::defaults;

/// `title "…"`, `titled "…"`, `called "…"`, `named "…"`, `entitled: "…"`.
pub(crate) fn title(c: Ctx<'_>, i: usize) -> Option<Match> {
    c.any(i, &["title", "titled", "called", "named", "entitled"])?;
    let j = c.skip_sym(i + 1, &[':', '=']);
    let j = c.skip(j, &["is"]);
    match c.kind(j)? {
        Kind::Quoted(q) => Match::new(j + 1, Effect::Title(q.clone())),
        _ => None,
    }
}

/// `twelve-tone`, `12-tone`, `twelve-note`: understood, and implied by everything here.
pub(crate) fn twelve_tone(c: Ctx<'_>, i: usize) -> Option<Match> {
    let (n, j) = c.number(i)?;
    if n == 12 && c.any(j, &["tone", "tones", "note"]).is_some() {
        // "twelve-note chords" is not about the method; leave it to the texture rule.
        if c.any(j + 1, &["chord", "chords"]).is_some() {
            return None;
        }
        return Match::new(j + 1, Effect::Filler);
    }
    None
}

const LABEL_WORDS: &[&str] = &[
    "labels",
    "label",
    "labelling",
    "labeling",
    "labelled",
    "labeled",
    "convention",
    "naming",
    "numbering",
];

/// `zero-centred (labels)`, `zero-centered labelling`, `relative labels`,
/// `original-centred convention`.
pub(crate) fn convention(c: Ctx<'_>, i: usize) -> Option<Match> {
    let centred = ["centred", "centered", "centric", "based"];
    let (convention, j) = if c.is(i, "zero") && c.any(i + 1, &centred).is_some() {
        (Convention::ZeroCentred, i + 2)
    } else if c.any(i, &["original", "row"]).is_some() && c.any(i + 1, &centred).is_some() {
        (Convention::Relative, i + 2)
    } else if c.is(i, "relative") && c.any(i + 1, LABEL_WORDS).is_some() {
        (Convention::Relative, i + 1)
    } else {
        return None;
    };
    let j = c.skip(j, &["form", "row"]);
    Match::new(c.skip(j, LABEL_WORDS), Effect::Convention(convention))
}

/// `seed 7`, `random seed: 7`, `seed of 7`.
pub(crate) fn seed(c: Ctx<'_>, i: usize) -> Option<Match> {
    let j = c.skip(i, &["random"]);
    if !c.is(j, "seed") {
        return None;
    }
    let j = c.skip_sym(j + 1, &[':', '=']);
    let (n, end) = c.number(c.skip(j, &["of"]))?;
    Match::new(end, Effect::Seed(n))
}

/// `16 bars`, `sixteen measures`, `a 32-bar piece`, `four-bar`, `24 bars long`
/// (but not `4-bar sections`, which is [`sections`]).
pub(crate) fn bars(c: Ctx<'_>, i: usize) -> Option<Match> {
    let (n, j) = c.bars(i)?;
    if c.any(j, SECTION_WORDS).is_some() {
        return None;
    }
    Match::new(c.skip(j, &["long"]), Effect::Bars(n))
}

/// `4-bar sections`, `in sections of four bars`, `phrases of 2 measures`.
pub(crate) fn sections(c: Ctx<'_>, i: usize) -> Option<Match> {
    if let Some((n, j)) = c.bars(i) {
        if c.any(j, SECTION_WORDS).is_some() {
            return Match::new(j + 1, Effect::SectionBars(n));
        }
        return None;
    }
    c.any(i, SECTION_WORDS)?;
    if !c.is(i + 1, "of") {
        return None;
    }
    let (n, end) = c.bars(i + 2)?;
    Match::new(end, Effect::SectionBars(n))
}

/// Ensemble words and their voice counts.
const ENSEMBLES: &[(&str, u64)] = &[
    ("solo", 1),
    ("monophonic", 1),
    ("monody", 1),
    ("unaccompanied", 1),
    ("duet", 2),
    ("duo", 2),
    ("trio", 3),
    ("quartet", 4),
    ("quintet", 5),
    ("sextet", 6),
    ("septet", 7),
    ("octet", 8),
    ("nonet", 9),
];

/// `three voices`, `for 3 voices`, `two-voice`, `four-part`, `a single voice`, and
/// the ensemble words `solo`, `monophonic`, `duet`/`duo`, `trio`, `quartet`,
/// `quintet`, `sextet` (and `septet`… so that they can be refused by name).
pub(crate) fn voices(c: Ctx<'_>, i: usize) -> Option<Match> {
    if let Some(w) = c.word(i) {
        if let Some(&(_, n)) = ENSEMBLES.iter().find(|(name, _)| *name == w) {
            // "solo voice", "monophonic line"
            return Match::new(c.skip(i + 1, VOICE_UNITS), Effect::Voices(n));
        }
        if w == "single" && c.any(i + 1, VOICE_UNITS).is_some() {
            return Match::new(i + 2, Effect::Voices(1));
        }
    }
    let (n, j) = c.number(i)?;
    c.any(j, VOICE_UNITS)?;
    Match::new(j + 1, Effect::Voices(n))
}

/// `in 3/4`, `3/4 time`, `meter 6/8`, `time signature: 5/8`, `three-four time`,
/// `waltz time` (3/4), `common time` (4/4), `cut time` / `alla breve` (2/2).
pub(crate) fn meter(c: Ctx<'_>, i: usize) -> Option<Match> {
    let j = if c.is(i, "time") && c.is(i + 1, "signature") {
        i + 2
    } else {
        c.skip(i, &["meter", "metre", "signature"])
    };
    let j = c.skip_sym(j, &[':', '=']);
    if let Some(&Kind::Fraction(num, den)) = c.kind(j) {
        let end = c.skip(j + 1, &["time", "meter", "metre"]);
        return Match::new(end, Effect::Meter(num, den));
    }
    if j != i {
        return None;
    }
    let named = match (c.word(i), c.word(i + 1)) {
        (Some("waltz"), _) => Some((3, 4, i + 1)),
        (Some("common"), Some("time")) => Some((4, 4, i + 1)),
        (Some("cut"), Some("time")) => Some((2, 2, i + 1)),
        (Some("alla"), Some("breve")) => Some((2, 2, i + 2)),
        _ => None,
    };
    if let Some((num, den, end)) = named {
        return Match::new(c.skip(end, &["time"]), Effect::Meter(num, den));
    }
    // "three-four time", "6 8 time".
    let (num, k) = c.number(i)?;
    let (den, k) = c.number(k)?;
    c.is(k, "time").then_some(())?;
    Match::new(k + 1, Effect::Meter(num, den))
}

/// `bpm`, `beats per minute`, `beats a minute` after a number: the end position.
fn bpm_unit(c: Ctx<'_>, k: usize) -> Option<usize> {
    if c.is(k, "bpm") {
        return Some(k + 1);
    }
    c.any(k, &["beats", "beat"])?;
    if c.any(k + 1, &["per", "a"]).is_some() && c.any(k + 2, &["minute", "min"]).is_some() {
        return Some(k + 3);
    }
    None
}

/// `72 bpm`, `at 72 beats per minute`, `♩=96`, `q = 96`, `quarter note = 96`,
/// `tempo 100`, `tempo: 100 bpm`, `M.M. 60`, and tempo words (`slow`, `very fast`,
/// `andante`, `moderately slow`, … see [`defaults`] for the table).
pub(crate) fn tempo(c: Ctx<'_>, i: usize) -> Option<Match> {
    if let Some((n, k)) = c.number(i) {
        let end = bpm_unit(c, k)?;
        return Match::new(end, Effect::Tempo(n));
    }
    let lead = if c.sym(i, '♩') {
        Some((i + 1, false))
    } else if c.any(i, &["quarter", "crotchet"]).is_some() {
        Some((c.skip(i + 1, &["note"]), true))
    } else if c.is(i, "q") {
        Some((i + 1, true))
    } else if c.any(i, &["tempo", "metronome", "mm"]).is_some() {
        Some((c.skip(i + 1, &["mark", "marking", "of", "at"]), false))
    } else if c.is(i, "m") && c.sym(i + 1, '.') && c.is(i + 2, "m") {
        Some((c.skip_sym(i + 3, &['.']), false))
    } else {
        None
    };
    if let Some((j, needs_equals)) = lead {
        let k = c.skip_sym(j, &['=', ':']);
        if needs_equals && k == j {
            return None;
        }
        if let Some((n, end)) = c.number(k) {
            return Match::new(bpm_unit(c, end).unwrap_or(end), Effect::Tempo(n));
        }
        // "tempo: slow"
        if c.is(i, "tempo") {
            let word = tempo_word(c, k)?;
            return Some(word);
        }
        return None;
    }
    tempo_word(c, i)
}

/// A tempo word with its modifiers ("very slow", "moderately fast"), optionally
/// followed by "tempo" or "pace".
fn tempo_word(c: Ctx<'_>, i: usize) -> Option<Match> {
    let (key, j) = match (c.word(i), c.word(i + 1)) {
        (Some("very"), Some(w @ ("slow" | "fast"))) => (format!("very {w}"), i + 2),
        (Some("moderately"), Some("slow")) => ("andante".to_string(), i + 2),
        (Some("moderately"), Some("fast")) => ("allegretto".to_string(), i + 2),
        (Some("quite" | "rather" | "fairly"), Some(w @ ("slow" | "fast"))) => {
            (w.to_string(), i + 2)
        }
        (Some(w), _) => (w.to_string(), i + 1),
        _ => return None,
    };
    let word = defaults::tempo_word(&key)?;
    Match::new(
        c.skip(j, &["tempo", "pace", "speed", "paced"]),
        Effect::TempoWord(word),
    )
}

/// `no chords`, `single notes only`, `chords of up to 3 notes`, `3-note chords`.
pub(crate) fn chords(c: Ctx<'_>, i: usize) -> Option<Match> {
    let chord = ["chord", "chords"];
    let notes = ["notes", "note", "pitches", "pitch"];
    if c.any(i, &["no", "without"]).is_some() && c.any(i + 1, &chord).is_some() {
        return Match::new(i + 2, Effect::MaxChord(1));
    }
    if c.is(i, "single") && c.is(i + 1, "notes") {
        return Match::new(c.skip(i + 2, &["only"]), Effect::MaxChord(1));
    }
    if c.is(i, "only") && c.is(i + 1, "single") && c.is(i + 2, "notes") {
        return Match::new(i + 3, Effect::MaxChord(1));
    }
    let limit = |j: usize| -> usize {
        if (c.is(j, "up") && c.is(j + 1, "to")) || (c.is(j, "at") && c.is(j + 1, "most")) {
            j + 2
        } else {
            j
        }
    };
    if c.any(i, &chord).is_some() {
        let j = limit(c.skip(i + 1, &["of", "with"]));
        let (n, k) = c.number(j)?;
        c.any(k, &notes)?;
        return Match::new(k + 1, Effect::MaxChord(n));
    }
    let (n, k) = c.number(limit(i))?;
    c.any(k, &notes)?;
    c.any(k + 1, &chord)?;
    Match::new(k + 2, Effect::MaxChord(n))
}

/// `no voice crossing`, `voices never cross`, `crossing up to 20%`, `5% voice crossing`.
pub(crate) fn crossing(c: Ctx<'_>, i: usize) -> Option<Match> {
    let crossing = ["crossing", "crossings", "crossed"];
    if c.any(i, &["no", "without", "never", "avoid", "forbid"])
        .is_some()
    {
        let j = c.skip(i + 1, &["voice"]);
        c.any(j, &crossing)?;
        let end = c.skip(j + 1, &["voices", "parts"]);
        return Match::new(end, Effect::Crossing(Ratio::from_integer(0)));
    }
    if c.any(i, &["voices", "parts"]).is_some() {
        let j = i + 1;
        let k = match (c.word(j), c.word(j + 1)) {
            (Some("never" | "don't" | "cannot" | "can't" | "mustn't"), _) => j + 1,
            (Some("do" | "must" | "should" | "may" | "will"), Some("not" | "never")) => j + 2,
            _ => return None,
        };
        c.is(k, "cross").then_some(())?;
        return Match::new(k + 1, Effect::Crossing(Ratio::from_integer(0)));
    }
    let j = c.skip(i, &["voice"]);
    if c.any(j, &crossing).is_some() {
        let k = j + 1;
        let k = match (c.word(k), c.word(k + 1)) {
            (Some("up" | "limited"), Some("to")) | (Some("at"), Some("most")) => k + 2,
            (Some("of" | "under" | "below" | "for" | "within"), _) => k + 1,
            _ => k,
        };
        let (value, end) = c.proportion(k)?;
        return Match::new(of_the_time(c, end), Effect::Crossing(value));
    }
    let (value, k) = c.proportion(i)?;
    let k = c.skip(c.skip(k, &["of"]), &["voice"]);
    c.any(k, &crossing)?;
    Match::new(k + 1, Effect::Crossing(value))
}

/// Skips "of the time" after a proportion.
fn of_the_time(c: Ctx<'_>, j: usize) -> usize {
    if c.is(j, "of") && c.is(j + 1, "the") && c.is(j + 2, "time") {
        j + 3
    } else {
        j
    }
}

/// Whether a word names a bar unit (used by the row rule to stop before "16 bars").
pub(crate) fn is_bar_unit(w: &str) -> bool {
    BAR_UNITS.contains(&w)
}
