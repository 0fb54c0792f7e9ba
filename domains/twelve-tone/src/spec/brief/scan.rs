//! The vocabulary phrase rules share: a read-only view of the tokens with small
//! matching helpers, and the [`Effect`] a matched phrase has on the spec being built.
//!
//! A rule looks at the tokens from one position and either declines or returns a
//! [`Match`]: how far the phrase reaches and what it means. Rules never change state
//! themselves, so trying one and backing off is free.

use num_rational::Ratio;

use super::numbers::{self, Ordinal};
use super::tokens::{Kind, Token};
use crate::row::Convention;
use crate::spec::defaults::TempoWord;
use crate::spec::{RowChoice, Strength};

/// Words for "bar".
pub(crate) const BAR_UNITS: &[&str] = &["bar", "bars", "measure", "measures"];
/// Words for "voice" after a count ("three voices", "4-part").
pub(crate) const VOICE_UNITS: &[&str] = &[
    "voice",
    "voices",
    "voiced",
    "part",
    "parts",
    "line",
    "lines",
    "instrument",
    "instruments",
    "player",
    "players",
    "singer",
    "singers",
];
/// Words for a planning section ("4-bar sections").
pub(crate) const SECTION_WORDS: &[&str] = &[
    "section", "sections", "phrase", "phrases", "block", "blocks", "segment", "segments",
];
/// Words that end a number without being a pitch class ("… 9, 16 bars").
pub(crate) const UNIT_WORDS: &[&str] = &[
    "bpm",
    "semitone",
    "semitones",
    "percent",
    "beats",
    "time",
    "note",
    "notes",
];

/// Words and symbols that carry no request and are never reported as not understood.
pub(crate) const FILLER: &[&str] = &[
    "write",
    "compose",
    "create",
    "make",
    "generate",
    "produce",
    "give",
    "me",
    "us",
    "i",
    "we",
    "want",
    "need",
    "would",
    "like",
    "please",
    "could",
    "can",
    "you",
    "a",
    "an",
    "the",
    "piece",
    "pieces",
    "work",
    "composition",
    "music",
    "movement",
    "study",
    "etude",
    "for",
    "with",
    "and",
    "also",
    "plus",
    "in",
    "at",
    "on",
    "of",
    "using",
    "use",
    "based",
    "by",
    "that",
    "which",
    "is",
    "are",
    "be",
    "it",
    "its",
    "this",
    "to",
    "short",
    "little",
    "small",
    "new",
    "serial",
    "dodecaphonic",
    "atonal",
    "lasting",
    "about",
    "some",
    "each",
    "from",
    "as",
    "so",
    "then",
    "should",
    "must",
    "have",
    "has",
    "having",
    "let",
    "let's",
    "s",
    "just",
    "something",
    "one",
    "brief",
    "simple",
    "nice",
    "beautiful",
    "kind",
    "sort",
    "written",
    "long",
    "duration",
    "length",
    "where",
    "whose",
    "will",
];

/// What the phrase rules may want known about a canon before voices are counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum VoiceRef {
    /// The n-th voice from the top (1-based, as written).
    Nth(u64),
    /// The bottom voice.
    Last,
    /// A voice by name ("soprano").
    Named(String),
}

/// Which two voices a canon is between, as the brief put it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum VoicePair {
    /// Top and bottom voice.
    Outer,
    /// The two highest voices.
    Upper,
    /// The two lowest voices.
    Lower,
    /// Two named or numbered voices, leader first.
    Refs(VoiceRef, VoiceRef),
}

/// A canon as a brief describes it; what is missing takes a default later.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct CanonDraft {
    /// By inversion ("mirror canon").
    pub inversion: bool,
    /// Between which voices.
    pub pair: Option<VoicePair>,
    /// Distance in bars.
    pub delay: Option<u64>,
    /// Transposition in semitones ("at the fifth below" = −7).
    pub transpose: Option<i64>,
    /// Inversion sum ("around pitch class 4").
    pub axis: Option<u64>,
    /// Said as "canons" with nothing about any one of them ("two canons:"): a
    /// heading for the canons that follow, or one default canon if none follows.
    pub heading: bool,
}

/// What a phrase means for the spec.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Effect {
    /// Understood and needing nothing ("twelve-tone").
    Filler,
    Title(String),
    Bars(u64),
    Voices(u64),
    Meter(u64, u64),
    Tempo(u64),
    TempoWord(&'static TempoWord),
    Convention(Convention),
    Row(RowChoice),
    /// An all-interval row, with the seed if the phrase gave one.
    AllInterval(Option<u64>),
    /// A row was asked for but cannot be had (the row engine's reason).
    RowError(String),
    Seed(u64),
    Canon(CanonDraft),
    /// Register contrast, with the strength if a word gave it.
    RegisterContrast(Option<Strength>),
    /// Immediate repetitions allowed, with the limit if given.
    Tremolo(Option<u64>),
    NoRepetition,
    Crossing(Ratio<i64>),
    MaxChord(u64),
    SectionBars(u64),
    /// A request Cantus understands but cannot honour, with the reason.
    Unsupported(String),
}

/// A phrase a rule recognised: tokens `start..end` and their meaning.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Match {
    /// One past the last token of the phrase.
    pub end: usize,
    /// What it means.
    pub effect: Effect,
}

impl Match {
    pub(crate) fn new(end: usize, effect: Effect) -> Option<Match> {
        Some(Match { end, effect })
    }
}

/// A read-only view of the tokens with matching helpers. Positions past the end
/// simply match nothing.
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'a> {
    pub tokens: &'a [Token],
    pub text: &'a str,
}

impl<'a> Ctx<'a> {
    /// The word at `i`, if the token there is a word.
    pub(crate) fn word(&self, i: usize) -> Option<&'a str> {
        self.tokens
            .get(i)
            .filter(|t| t.kind == Kind::Word)
            .map(|t| t.norm.as_str())
    }

    /// Whether the token at `i` is the word `w`.
    pub(crate) fn is(&self, i: usize, w: &str) -> bool {
        self.word(i) == Some(w)
    }

    /// The word at `i` if it is one of `words`.
    pub(crate) fn any(&self, i: usize, words: &[&str]) -> Option<&'a str> {
        self.word(i).filter(|w| words.contains(w))
    }

    /// `i + 1` if the token at `i` is one of `words`, else `i` (an optional word).
    pub(crate) fn skip(&self, i: usize, words: &[&str]) -> usize {
        if self.any(i, words).is_some() {
            i + 1
        } else {
            i
        }
    }

    /// Whether the token at `i` is the symbol `c`.
    pub(crate) fn sym(&self, i: usize, c: char) -> bool {
        matches!(self.tokens.get(i), Some(Token { kind: Kind::Symbol(s), .. }) if *s == c)
    }

    /// `i + 1` if the token at `i` is one of the symbols `cs`, else `i`.
    pub(crate) fn skip_sym(&self, i: usize, cs: &[char]) -> usize {
        if cs.iter().any(|&c| self.sym(i, c)) {
            i + 1
        } else {
            i
        }
    }

    /// The token kind at `i`.
    pub(crate) fn kind(&self, i: usize) -> Option<&'a Kind> {
        self.tokens.get(i).map(|t| &t.kind)
    }

    /// A cardinal number at `i` (digits or words): value and end position.
    pub(crate) fn number(&self, i: usize) -> Option<(u64, usize)> {
        numbers::number_at(self.tokens, i).map(|(v, len)| (v, i + len))
    }

    /// An ordinal at `i`: value and end position.
    pub(crate) fn ordinal(&self, i: usize) -> Option<(Ordinal, usize)> {
        numbers::ordinal_at(self.tokens, i).map(|o| (o, i + 1))
    }

    /// An interval name at `i`: semitones and end position.
    pub(crate) fn interval(&self, i: usize) -> Option<(i64, usize)> {
        numbers::interval_at(self.tokens, i).map(|(s, len)| (i64::from(s), i + len))
    }

    /// The text the brief has for tokens `start..end`, exactly as written.
    pub(crate) fn text_of(&self, start: usize, end: usize) -> &'a str {
        let (Some(first), Some(last)) = (
            self.tokens.get(start),
            self.tokens.get(end.saturating_sub(1)),
        ) else {
            return "";
        };
        self.text
            .get(first.bytes.start..last.bytes.end)
            .unwrap_or("")
    }

    /// A count followed by a bar word ("16 bars", "four-bar"): count and end.
    pub(crate) fn bars(&self, i: usize) -> Option<(u64, usize)> {
        let (n, j) = self.number(i)?;
        self.any(j, BAR_UNITS)?;
        Some((n, j + 1))
    }

    /// A percentage or fraction of time: `20%`, `20 percent`, `1/5`.
    pub(crate) fn proportion(&self, i: usize) -> Option<(Ratio<i64>, usize)> {
        if let Some(&Kind::Fraction(a, b)) = self.kind(i) {
            let (a, b) = (i64::try_from(a).ok()?, i64::try_from(b).ok()?);
            return (b != 0).then(|| (Ratio::new(a, b), i + 1));
        }
        let (n, j) = self.number(i)?;
        let n = i64::try_from(n).ok()?;
        let end = if self.sym(j, '%') || self.is(j, "percent") {
            j + 1
        } else if self.is(j, "per") && self.is(j + 1, "cent") {
            j + 2
        } else {
            return None;
        };
        Some((Ratio::new(n, 100), end))
    }
}
