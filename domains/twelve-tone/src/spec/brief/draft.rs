//! The spec as the brief builds it: one slot per request, each remembering the phrase
//! that filled it, so that a second phrase can be checked against the first and every
//! error can quote where it came from. Completing the draft is [`super::complete`]'s job.

use cantus_music::Meter;
use num_rational::Ratio;

use super::scan::{CanonDraft, Effect};
use super::{BriefError, Contradiction, Phrase};
use crate::row::Convention;
use crate::spec::defaults::{MAX_BARS, MAX_VOICES, TEMPO_RANGE, TempoWord};
use crate::spec::text::format_fraction;
use crate::spec::{RowChoice, Strength};

/// A value and the phrase that asked for it.
#[derive(Debug, Clone)]
pub(super) struct Slot<T> {
    pub(super) value: T,
    pub(super) phrase: Phrase,
}

/// Repetition as a brief asks for it: the tremolo limit may be left to the default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum RepetitionAsked {
    Forbidden,
    Tremolo(Option<u8>),
}

/// Everything a brief has asked for so far.
#[derive(Debug, Default)]
pub(super) struct Draft {
    pub(super) title: Option<Slot<String>>,
    pub(super) bars: Option<Slot<u32>>,
    pub(super) voices: Option<Slot<usize>>,
    pub(super) meter: Option<Slot<Meter>>,
    pub(super) tempo: Option<Slot<u32>>,
    pub(super) tempo_word: Option<Slot<&'static TempoWord>>,
    pub(super) convention: Option<Slot<Convention>>,
    pub(super) row: Option<Slot<RowChoice>>,
    pub(super) seed: Option<Slot<u64>>,
    pub(super) canons: Vec<(CanonDraft, Phrase)>,
    pub(super) contrast: Option<Slot<Option<Strength>>>,
    pub(super) repetition: Option<Slot<RepetitionAsked>>,
    pub(super) crossing: Option<Slot<Ratio<i64>>>,
    pub(super) max_chord: Option<Slot<u8>>,
    pub(super) section_bars: Option<Slot<u32>>,
}

pub(super) fn impossible(phrase: Phrase, reason: impl Into<String>) -> BriefError {
    BriefError::Impossible {
        phrase,
        reason: reason.into(),
    }
}

/// Fills `slot`, or checks that the phrase agrees with the one that filled it.
fn fill<T: PartialEq>(
    slot: &mut Option<Slot<T>>,
    value: T,
    phrase: Phrase,
    what: &'static str,
    describe: impl Fn(&T) -> String,
) -> Result<(), BriefError> {
    match slot {
        Some(existing) if existing.value != value => {
            Err(BriefError::Contradiction(Box::new(Contradiction {
                what,
                first: existing.phrase.clone(),
                first_means: describe(&existing.value),
                second: phrase,
                second_means: describe(&value),
            })))
        }
        Some(_) => Ok(()),
        None => {
            *slot = Some(Slot { value, phrase });
            Ok(())
        }
    }
}

pub(super) fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

impl Draft {
    /// Records what one phrase asks for; refuses values no spec can hold and
    /// disagreements with earlier phrases.
    pub(super) fn apply(&mut self, effect: Effect, phrase: Phrase) -> Result<(), BriefError> {
        match effect {
            Effect::Filler => Ok(()),
            Effect::Title(title) => {
                if title.trim().is_empty() {
                    return Err(impossible(phrase, "the title is empty"));
                }
                if title.chars().count() > 200 {
                    return Err(impossible(
                        phrase,
                        "a title may have at most 200 characters",
                    ));
                }
                fill(&mut self.title, title, phrase, "titles", |t| {
                    format!("{t:?}")
                })
            }
            Effect::Bars(n) => {
                if n == 0 {
                    return Err(impossible(phrase, "a piece needs at least 1 bar"));
                }
                let bars = u32::try_from(n)
                    .ok()
                    .filter(|&b| b <= MAX_BARS)
                    .ok_or_else(|| {
                        impossible(
                            phrase.clone(),
                            format!("{n} bars is too long: at most {MAX_BARS} bars"),
                        )
                    })?;
                fill(&mut self.bars, bars, phrase, "lengths", |b| {
                    plural(u64::from(*b), "bar", "bars")
                })
            }
            Effect::Voices(n) => {
                if n == 0 {
                    return Err(impossible(phrase, "a piece needs at least 1 voice"));
                }
                let count = usize::try_from(n)
                    .ok()
                    .filter(|&v| v <= MAX_VOICES)
                    .ok_or_else(|| {
                        impossible(
                            phrase.clone(),
                            format!("at most {MAX_VOICES} voices, and this asks for {n}"),
                        )
                    })?;
                fill(&mut self.voices, count, phrase, "numbers of voices", |v| {
                    plural(*v as u64, "voice", "voices")
                })
            }
            Effect::Meter(num, den) => {
                let meter = meter(num, den).map_err(|why| impossible(phrase.clone(), why))?;
                fill(&mut self.meter, meter, phrase, "meters", |m| m.to_string())
            }
            Effect::Tempo(n) => {
                let tempo = u32::try_from(n)
                    .ok()
                    .filter(|t| TEMPO_RANGE.contains(t))
                    .ok_or_else(|| {
                        impossible(
                            phrase.clone(),
                            format!(
                                "tempo {n} bpm is out of range: {}..={} bpm",
                                TEMPO_RANGE.start(),
                                TEMPO_RANGE.end()
                            ),
                        )
                    })?;
                fill(&mut self.tempo, tempo, phrase, "tempi", |t| {
                    format!("{t} bpm")
                })
            }
            Effect::TempoWord(word) => fill(&mut self.tempo_word, word, phrase, "tempi", |w| {
                format!("{} ({}..={} bpm)", w.words[0], w.min, w.max)
            }),
            Effect::Convention(c) => fill(
                &mut self.convention,
                c,
                phrase,
                "labelling conventions",
                |c| c.to_string(),
            ),
            Effect::Row(row) => fill(&mut self.row, row, phrase, "rows", RowChoice::describe),
            Effect::AllInterval(seed) => {
                if let Some(seed) = seed {
                    fill(&mut self.seed, seed, phrase.clone(), "seeds", |s| {
                        format!("seed {s}")
                    })?;
                }
                let row = RowChoice::AllInterval { seed: 0 };
                fill(&mut self.row, row, phrase, "rows", |r| match r {
                    RowChoice::AllInterval { .. } => "an all-interval row".to_string(),
                    other => other.describe(),
                })
            }
            Effect::RowError(reason) => Err(impossible(phrase, reason)),
            Effect::Seed(seed) => fill(&mut self.seed, seed, phrase, "seeds", |s| {
                format!("seed {s}")
            }),
            Effect::Canon(canon) => {
                check_canon(&canon).map_err(|why| impossible(phrase.clone(), why))?;
                self.canons.push((canon, phrase));
                Ok(())
            }
            Effect::RegisterContrast(strength) => {
                if let (Some(existing), Some(_)) = (&mut self.contrast, strength)
                    && existing.value.is_none()
                {
                    existing.value = strength;
                    return Ok(());
                }
                if self.contrast.is_some() && strength.is_none() {
                    return Ok(());
                }
                fill(
                    &mut self.contrast,
                    strength,
                    phrase,
                    "register contrasts",
                    |s| {
                        match s {
                            Some(Strength::Strong) => "strong register contrast",
                            Some(Strength::Mild) => "mild register contrast",
                            None => "register contrast",
                        }
                        .to_string()
                    },
                )
            }
            Effect::Tremolo(limit) => {
                let limit = match limit {
                    None => None,
                    Some(n) => Some(
                        u8::try_from(n)
                            .ok()
                            .filter(|l| (1..=12).contains(l))
                            .ok_or_else(|| {
                                impossible(
                                    phrase.clone(),
                                    format!(
                                        "{n} repetitions per row statement is out of range: 1..=12"
                                    ),
                                )
                            })?,
                    ),
                };
                if let Some(existing) = &mut self.repetition {
                    if let (RepetitionAsked::Tremolo(None), Some(_)) = (existing.value, limit) {
                        existing.value = RepetitionAsked::Tremolo(limit);
                        return Ok(());
                    }
                    if existing.value != RepetitionAsked::Forbidden && limit.is_none() {
                        return Ok(());
                    }
                }
                fill(
                    &mut self.repetition,
                    RepetitionAsked::Tremolo(limit),
                    phrase,
                    "rules on repetition",
                    describe_repetition,
                )
            }
            Effect::NoRepetition => fill(
                &mut self.repetition,
                RepetitionAsked::Forbidden,
                phrase,
                "rules on repetition",
                describe_repetition,
            ),
            Effect::Crossing(fraction) => {
                if fraction < Ratio::from_integer(0) || fraction > Ratio::from_integer(1) {
                    return Err(impossible(
                        phrase,
                        format!(
                            "voices cannot be crossed for {} of the time: use 0..=1 (0%..=100%)",
                            format_fraction(fraction)
                        ),
                    ));
                }
                fill(
                    &mut self.crossing,
                    fraction,
                    phrase,
                    "limits on voice crossing",
                    |f| format!("at most {} of the time", format_fraction(*f)),
                )
            }
            Effect::MaxChord(n) => {
                let size = u8::try_from(n)
                    .ok()
                    .filter(|s| (1..=4).contains(s))
                    .ok_or_else(|| {
                        impossible(
                            phrase.clone(),
                            format!("chords of {n} pitches: one event holds 1..=4 pitches"),
                        )
                    })?;
                fill(&mut self.max_chord, size, phrase, "chord sizes", |s| {
                    plural(u64::from(*s), "pitch per event", "pitches per event")
                })
            }
            Effect::SectionBars(n) => {
                let bars = u32::try_from(n)
                    .ok()
                    .filter(|b| (1..=MAX_BARS).contains(b))
                    .ok_or_else(|| {
                        impossible(
                            phrase.clone(),
                            format!("sections of {n} bars: use 1..={MAX_BARS} bars"),
                        )
                    })?;
                fill(
                    &mut self.section_bars,
                    bars,
                    phrase,
                    "section lengths",
                    |b| plural(u64::from(*b), "bar", "bars"),
                )
            }
            Effect::Unsupported(reason) => Err(impossible(phrase, reason)),
        }
    }
}

/// What a repetition request means, for contradiction messages.
fn describe_repetition(r: &RepetitionAsked) -> String {
    match r {
        RepetitionAsked::Forbidden => "no immediate repetition".to_string(),
        RepetitionAsked::Tremolo(None) => "immediate repetitions (tremolos)".to_string(),
        RepetitionAsked::Tremolo(Some(n)) => {
            format!("up to {n} immediate repetitions per statement")
        }
    }
}

/// A meter a spec can hold, or why not.
fn meter(num: u64, den: u64) -> Result<Meter, String> {
    let written = format!("{num}/{den}");
    let den32 = u32::try_from(den)
        .ok()
        .filter(|d| d.is_power_of_two() && *d <= 64);
    let Some(den) = den32 else {
        return Err(format!(
            "meter {written}: the lower number must be a power of two (1, 2, 4, 8, 16, 32 or 64)"
        ));
    };
    let Some(num) = u32::try_from(num).ok().filter(|n| (1..=32).contains(n)) else {
        return Err(format!("meter {written}: the upper number must be 1..=32"));
    };
    Ok(Meter::new(num, den))
}

/// Limits a canon phrase must respect on its own.
fn check_canon(canon: &CanonDraft) -> Result<(), String> {
    if canon.delay == Some(0) {
        return Err("a canon's delay must be at least 1 bar".to_string());
    }
    if let Some(t) = canon.transpose {
        if canon.inversion {
            return Err(
                "an inversion canon is placed by its axis (\"around pitch class 4\"), not by a transposition".to_string(),
            );
        }
        if !(-24..=24).contains(&t) {
            return Err(format!(
                "a transposition of {t} semitones is out of range: -24..=24"
            ));
        }
    }
    if let Some(axis) = canon.axis {
        if !canon.inversion {
            return Err("only an inversion (mirror) canon has an axis".to_string());
        }
        if axis > 11 {
            return Err(format!(
                "inversion axis {axis} is not a pitch class: 0..=11"
            ));
        }
    }
    Ok(())
}
