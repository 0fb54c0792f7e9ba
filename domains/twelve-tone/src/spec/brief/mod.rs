//! The brief compiler: from an English request to a [`Spec`].
//!
//! People ask for pieces in sentences ("a 16-bar trio in 3/4 on Webern's Op. 21 row,
//! with a canon between the outer voices and strong register contrast"). The
//! compiler reads such a sentence phrase by phrase, fills in what is missing from
//! [`defaults`](crate::spec::defaults) (and says so in
//! [`CompiledBrief::defaults_applied`]), reports every word it did not understand in
//! [`CompiledBrief::not_understood`] instead of silently dropping it, and refuses
//! briefs that contradict themselves or ask for the impossible, quoting the phrases
//! and where they are.
//!
//! How it works: the brief is cut into tokens (module `tokens`); at each position the
//! phrase rules (modules `rules`, `rows`, `techniques`) are tried in a fixed order and
//! the first that recognises a phrase consumes it; ordinary filler ("write", "a",
//! "piece", "please", "serial", …) is skipped; the rest is reported. Each recognised
//! phrase fills one slot of a draft; a second phrase for the same slot must agree
//! with the first. The draft is then completed with defaults and validated.
//!
//! What the rules understand is documented on each rule function; in short:
//! lengths (`16 bars`, `twenty-four measures`, `four-bar`), voices (`three voices`,
//! `two-voice`, `solo`, `duet`, `trio` … `sextet`), meters (`in 3/4`, `6/8 time`,
//! `waltz time`), tempi (`72 bpm`, `♩=96`, `tempo 100`, `slow`, `allegro`), rows
//! (`the row 0 11 7 …` with commas or T/E, historical names, `an all-interval row`),
//! canons (`canon between the outer voices / voices 1 and 3`, `at two bars`,
//! `at the fifth below`, `inversion canon`, `mirror canon`), `(strong) register
//! contrast`, repetition (`no repeated notes`, `tremolos allowed`), voice crossing
//! (`no voice crossing`, `crossing up to 20%`), texture (`no chords`, `3-note
//! chords`), sections (`4-bar sections`), `title "…"`, `seed 7`, and the labelling
//! convention (`zero-centred` / `relative labels`).

mod complete;
mod draft;
mod numbers;
mod rows;
mod rules;
mod scan;
mod techniques;
mod tokens;

use std::fmt;

use scan::{Ctx, FILLER, Match};
use tokens::{Kind, Token};

use super::Spec;

/// A phrase of the brief, quoted as written, with its 1-based character position.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Phrase {
    /// The phrase exactly as it appears in the brief.
    pub text: String,
    /// 1-based character position of its first character in the brief.
    pub position: usize,
}

impl fmt::Display for Phrase {
    /// `"for three voices" (character 24)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\" (character {})", self.text, self.position)
    }
}

/// Two phrases of a brief that ask for different values of the same thing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contradiction {
    /// What they disagree about ("numbers of voices", "meters", "rows", …).
    pub what: &'static str,
    /// The earlier phrase.
    pub first: Phrase,
    /// What the earlier phrase asks for.
    pub first_means: String,
    /// The later phrase.
    pub second: Phrase,
    /// What the later phrase asks for.
    pub second_means: String,
}

/// Why a brief cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BriefError {
    /// The brief is empty or only whitespace.
    Empty,
    /// The brief is longer than [`MAX_BRIEF_CHARS`] characters.
    TooLong {
        /// Its length in characters.
        chars: usize,
    },
    /// A quotation mark is opened and never closed.
    UnclosedQuote {
        /// 1-based character position of the opening quote.
        position: usize,
    },
    /// Two phrases ask for different values of the same thing.
    Contradiction(Box<Contradiction>),
    /// A phrase asks for something that cannot be written, and why.
    Impossible {
        /// The offending phrase.
        phrase: Phrase,
        /// Why it cannot be done.
        reason: String,
    },
}

impl fmt::Display for BriefError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BriefError::Empty => f.write_str(
                "the brief is empty: say what to write, e.g. \"a 16-bar trio in 3/4 on Webern's Op. 21 row\"",
            ),
            BriefError::TooLong { chars } => write!(
                f,
                "the brief has {chars} characters; at most {MAX_BRIEF_CHARS} are read (a brief is a \
                 sentence or a paragraph: write a longer specification as a spec file, --spec)"
            ),
            BriefError::UnclosedQuote { position } => write!(
                f,
                "the quotation mark at character {position} is never closed"
            ),
            BriefError::Contradiction(c) => write!(
                f,
                "contradictory {}: {} asks for {}, but {} asks for {}",
                c.what, c.first, c.first_means, c.second, c.second_means
            ),
            BriefError::Impossible { phrase, reason } => {
                write!(f, "impossible request {phrase}: {reason}")
            }
        }
    }
}

impl std::error::Error for BriefError {}

/// A compiled brief: the spec, the defaults it needed, and what was not understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledBrief {
    /// The spec, validated.
    pub spec: Spec,
    /// Every default filled in, e.g. `"tempo: 72 bpm (default)"`, in spec field order.
    pub defaults_applied: Vec<String>,
    /// Words and phrases of the brief that were ignored, as written.
    pub not_understood: Vec<String>,
}

/// The phrase rules, in the order they are tried at each position. Earlier rules
/// win: the title before anything inside its quotes, "twelve-tone" before the number
/// twelve, rows before numbers, techniques before plain quantities, sections
/// ("4-bar sections") before bars.
const RULES: &[fn(Ctx<'_>, usize) -> Option<Match>] = &[
    rules::title,
    rules::twelve_tone,
    rules::convention,
    rows::all_interval,
    rows::explicit,
    rows::historical,
    techniques::canon,
    techniques::register_contrast,
    techniques::repetition,
    rules::crossing,
    rules::chords,
    rules::sections,
    rules::meter,
    rules::tempo,
    rules::bars,
    rules::voices,
    rules::seed,
];

/// The longest brief read, in characters. A brief is a sentence or a paragraph
/// (the longest in the test tables has a few hundred characters); the bound keeps
/// the compiler's time small on any input, since each composer's name in a brief
/// is looked up in the row catalogue under several spellings.
pub const MAX_BRIEF_CHARS: usize = 4_000;

/// Compiles an English brief into a validated [`Spec`] (see the module docs).
///
/// ```
/// use cantus_twelve_tone::spec::compile_brief;
///
/// let brief = compile_brief("A 16-bar quartet in 3/4 at 80 bpm on Webern's Op. 21 row")?;
/// assert_eq!(brief.spec.bars, 16);
/// assert_eq!(brief.spec.voices.len(), 4);
/// assert_eq!(brief.spec.meter.to_string(), "3/4");
/// assert_eq!(brief.spec.tempo, 80);
/// // What the brief left open is filled in and said.
/// assert!(brief.defaults_applied.iter().any(|d| d.starts_with("section")), "{:?}", brief.defaults_applied);
///
/// // A brief that asks for the impossible is refused, not guessed at.
/// assert!(compile_brief("A 16-bar piece for 9 voices").is_err());
/// # Ok::<(), cantus_twelve_tone::spec::BriefError>(())
/// ```
pub fn compile_brief(text: &str) -> Result<CompiledBrief, BriefError> {
    if text.trim().is_empty() {
        return Err(BriefError::Empty);
    }
    let chars = text.chars().count();
    if chars > MAX_BRIEF_CHARS {
        return Err(BriefError::TooLong { chars });
    }
    let tokens = tokens::tokenize(text).map_err(|e| match e {
        tokens::TokenError::UnclosedQuote { start } => BriefError::UnclosedQuote {
            position: start + 1,
        },
        tokens::TokenError::Number(bad) => BriefError::Impossible {
            phrase: Phrase {
                text: bad.written,
                position: bad.start + 1,
            },
            reason: format!("the number {}", bad.why),
        },
    })?;
    let ctx = Ctx {
        tokens: &tokens,
        text,
    };
    let mut draft = draft::Draft::default();
    let mut understood = vec![false; tokens.len()];
    let mut i = 0;
    'scan: while i < tokens.len() {
        for rule in RULES {
            if let Some(found) = rule(ctx, i)
                && found.end > i
            {
                let start = lead_in(ctx, &understood, i);
                draft.apply(found.effect, phrase(ctx, start, found.end))?;
                for flag in understood.iter_mut().take(found.end).skip(start) {
                    *flag = true;
                }
                i = found.end;
                continue 'scan;
            }
        }
        i += 1;
    }
    let not_understood = leftovers(ctx, &understood);
    draft.finish(text, not_understood)
}

/// Where a phrase's quotation starts: before an unclaimed preposition (and article)
/// just in front of it, so errors quote "for three voices", "on the row 0 1 …" and
/// "in 3/4" as the user wrote them, rather than "three voices".
fn lead_in(ctx: Ctx<'_>, understood: &[bool], i: usize) -> usize {
    let free = |k: usize| !understood.get(k).copied().unwrap_or(true);
    let prepositions = ["for", "in", "at", "on", "with", "of", "to", "using"];
    let is_preposition = |k: usize| free(k) && ctx.any(k, &prepositions).is_some();
    if i >= 1 && is_preposition(i - 1) {
        return i - 1;
    }
    let article = i >= 1 && free(i - 1) && ctx.any(i - 1, &["a", "an", "the"]).is_some();
    if article && i >= 2 && is_preposition(i - 2) {
        return i - 2;
    }
    i
}

/// The phrase covering tokens `start..end`.
fn phrase(ctx: Ctx<'_>, start: usize, end: usize) -> Phrase {
    Phrase {
        text: ctx.text_of(start, end).to_string(),
        position: ctx.tokens.get(start).map_or(1, |t| t.start + 1),
    }
}

/// Whether a token no rule took can be ignored silently: filler words and punctuation.
fn is_filler(token: &Token) -> bool {
    match &token.kind {
        Kind::Word => FILLER.contains(&token.norm.as_str()),
        Kind::Symbol(_) => true,
        _ => false,
    }
}

/// Runs of tokens no rule took and that are not filler, each quoted as written; filler
/// words between two such tokens stay inside the run ("lots of pizzicato").
fn leftovers(ctx: Ctx<'_>, understood: &[bool]) -> Vec<String> {
    let mut out = Vec::new();
    let mut run: Option<(usize, usize)> = None; // first and last unknown token
    for (i, token) in ctx.tokens.iter().enumerate() {
        let taken = understood.get(i).copied().unwrap_or(false);
        let unknown = !taken && !is_filler(token);
        let bridges = !taken && token.kind == Kind::Word;
        if unknown {
            run = Some(run.map_or((i, i), |(first, _)| (first, i)));
        } else if !bridges && let Some((first, last)) = run.take() {
            out.push(ctx.text_of(first, last + 1).to_string());
        }
    }
    if let Some((first, last)) = run {
        out.push(ctx.text_of(first, last + 1).to_string());
    }
    out
}
