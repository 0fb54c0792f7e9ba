//! Completing a draft: every gap filled with its documented default (and listed, so
//! the user sees what was assumed), canon voices resolved against the voices the
//! piece actually has, and the result validated, with any violation traced back to
//! the phrase that caused it.

use cantus_music::Meter;

use super::draft::{Draft, RepetitionAsked, impossible, plural};
use super::scan::{CanonDraft, VoicePair, VoiceRef};
use super::{BriefError, CompiledBrief, Contradiction, Phrase};
use crate::row::Convention;
use crate::spec::defaults::{self, MAX_VOICES};
use crate::spec::text::format_fraction;
use crate::spec::{Repetition, RowChoice, Spec, Strength, Technique, Texture, VoiceSpec};

impl Draft {
    /// Completes the draft with defaults (each listed), resolves canon voices and
    /// validates the spec.
    pub(super) fn finish(
        self,
        text: &str,
        mut not_understood: Vec<String>,
    ) -> Result<CompiledBrief, BriefError> {
        let mut applied = Vec::new();
        let mut sources: Vec<(String, Phrase)> = Vec::new();
        let mut source = |field: &str, phrase: &Option<Phrase>| {
            if let Some(p) = phrase {
                sources.push((field.to_string(), p.clone()));
            }
        };
        source("title", &self.title.as_ref().map(|s| s.phrase.clone()));
        source("bars", &self.bars.as_ref().map(|s| s.phrase.clone()));
        source("meter", &self.meter.as_ref().map(|s| s.phrase.clone()));
        source("voices", &self.voices.as_ref().map(|s| s.phrase.clone()));
        source("row", &self.row.as_ref().map(|s| s.phrase.clone()));
        source(
            "section_bars",
            &self.section_bars.as_ref().map(|s| s.phrase.clone()),
        );
        source(
            "max_crossing",
            &self.crossing.as_ref().map(|s| s.phrase.clone()),
        );
        source(
            "texture",
            &self.max_chord.as_ref().map(|s| s.phrase.clone()),
        );
        source(
            "repetition",
            &self.repetition.as_ref().map(|s| s.phrase.clone()),
        );

        let title = self.title.as_ref().map(|s| s.value.clone());
        if title.is_none() {
            applied.push("title: none (default)".to_string());
        }
        let bars = self.bars.as_ref().map_or_else(
            || {
                applied.push(format!("bars: {} (default)", defaults::DEFAULT_BARS));
                defaults::DEFAULT_BARS
            },
            |s| s.value,
        );
        let meter = self.meter.as_ref().map_or_else(
            || {
                applied.push(format!("meter: {} (default)", Meter::default()));
                Meter::default()
            },
            |s| s.value,
        );
        let tempo = self.tempo(&mut applied, &mut sources)?;
        let (voices, count_phrase) = self.voices(&mut applied);
        let count = voices.len();

        let row = match self.row.as_ref().map(|s| s.value.clone()) {
            Some(RowChoice::AllInterval { .. }) => {
                let seed = self.seed.as_ref().map_or_else(
                    || {
                        applied.push(format!(
                            "all-interval seed: {} (default)",
                            defaults::DEFAULT_ALL_INTERVAL_SEED
                        ));
                        defaults::DEFAULT_ALL_INTERVAL_SEED
                    },
                    |s| s.value,
                );
                RowChoice::AllInterval { seed }
            }
            Some(other) => other,
            None => {
                applied.push(format!(
                    "row: {} (Schoenberg, Suite for Piano Op. 25) (default)",
                    defaults::DEFAULT_ROW_ID
                ));
                RowChoice::Default
            }
        };
        if let (Some(seed), false) = (&self.seed, matches!(row, RowChoice::AllInterval { .. })) {
            not_understood.push(format!(
                "{} (only an all-interval row takes a seed)",
                seed.phrase.text
            ));
        }
        let convention = self.convention.as_ref().map_or_else(
            || {
                applied.push(format!(
                    "labelling convention: {} (default)",
                    Convention::default()
                ));
                Convention::default()
            },
            |s| s.value,
        );

        let mut techniques = Vec::new();
        // A heading ("two canons:") stands for the canons that follow it.
        let canons: Vec<&(CanonDraft, Phrase)> = if self.canons.iter().all(|(c, _)| c.heading) {
            self.canons.iter().take(1).collect()
        } else {
            self.canons.iter().filter(|(c, _)| !c.heading).collect()
        };
        let many = canons.len() > 1;
        for (n, (canon, phrase)) in canons.into_iter().enumerate() {
            let label = if many {
                format!("canon {}", n + 1)
            } else {
                "canon".to_string()
            };
            let technique = resolve_canon(
                canon,
                phrase,
                &voices,
                count_phrase.as_ref(),
                &label,
                &mut applied,
            )?;
            sources.push((format!("techniques[{}]", techniques.len()), phrase.clone()));
            techniques.push(technique);
        }
        if let Some(contrast) = &self.contrast {
            let strength = contrast.value.unwrap_or_else(|| {
                applied.push("register contrast strength: mild (default)".to_string());
                Strength::Mild
            });
            sources.push((
                format!("techniques[{}]", techniques.len()),
                contrast.phrase.clone(),
            ));
            techniques.push(Technique::RegisterContrast { strength });
        }

        let max_chord = self.max_chord.as_ref().map_or_else(
            || {
                applied.push(format!(
                    "texture: at most {} pitches per event (default)",
                    defaults::DEFAULT_MAX_CHORD
                ));
                defaults::DEFAULT_MAX_CHORD
            },
            |s| s.value,
        );
        let max_sounding = defaults::default_max_sounding(count).max(max_chord);
        applied.push(format!(
            "texture: at most {max_sounding} pitches sounding at once (default for {})",
            plural(count as u64, "voice", "voices")
        ));
        let repetition = match self.repetition.as_ref().map(|s| s.value) {
            Some(RepetitionAsked::Forbidden) => Repetition::Forbidden,
            Some(RepetitionAsked::Tremolo(Some(max))) => Repetition::Tremolo {
                max_per_statement: max,
            },
            Some(RepetitionAsked::Tremolo(None)) => {
                applied.push(format!(
                    "tremolo limit: {} repetitions per row statement (default)",
                    defaults::DEFAULT_TREMOLO_MAX
                ));
                Repetition::Tremolo {
                    max_per_statement: defaults::DEFAULT_TREMOLO_MAX,
                }
            }
            None => {
                applied.push(
                    "repetition: forbidden, no pitch class repeats immediately (default)"
                        .to_string(),
                );
                Repetition::Forbidden
            }
        };
        let max_crossing = self.crossing.as_ref().map_or_else(
            || {
                applied.push(format!(
                    "voice crossing: at most {} of the time (default)",
                    format_fraction(defaults::DEFAULT_MAX_CROSSING)
                ));
                defaults::DEFAULT_MAX_CROSSING
            },
            |s| s.value,
        );
        let section_bars = self.section_bars.as_ref().map_or_else(
            || {
                let b = defaults::default_section_bars(bars, meter);
                applied.push(format!(
                    "sections: {} (default)",
                    plural(u64::from(b), "bar", "bars")
                ));
                b
            },
            |s| s.value,
        );

        let spec = Spec {
            title,
            bars,
            meter,
            tempo,
            convention,
            max_crossing,
            section_bars,
            row,
            texture: Texture {
                max_chord,
                max_sounding,
            },
            repetition,
            voices,
            techniques,
        };
        spec.validate().map_err(|e| {
            let field = e.field.clone().unwrap_or_default();
            let phrase = sources
                .iter()
                .filter(|(prefix, _)| field.starts_with(prefix.as_str()))
                .max_by_key(|(prefix, _)| prefix.len())
                .map(|(_, p)| p.clone())
                .unwrap_or_else(|| Phrase {
                    text: text.trim().to_string(),
                    position: 1 + text.chars().take_while(|c| c.is_whitespace()).count(),
                });
            impossible(phrase, e.message)
        })?;
        Ok(CompiledBrief {
            spec,
            defaults_applied: applied,
            not_understood,
        })
    }

    /// The tempo: a number, a tempo word, or the default; a number outside the
    /// band of a tempo word contradicts it.
    fn tempo(
        &self,
        applied: &mut Vec<String>,
        sources: &mut Vec<(String, Phrase)>,
    ) -> Result<u32, BriefError> {
        match (&self.tempo, &self.tempo_word) {
            (Some(number), Some(word)) => {
                sources.push(("tempo".to_string(), number.phrase.clone()));
                let w = word.value;
                if (w.min..=w.max).contains(&number.value) {
                    return Ok(number.value);
                }
                let word_means = format!("{} ({}..={} bpm)", w.words[0], w.min, w.max);
                let number_means = format!("{} bpm", number.value);
                let (first, first_means, second, second_means) =
                    if word.phrase.position < number.phrase.position {
                        (
                            word.phrase.clone(),
                            word_means,
                            number.phrase.clone(),
                            number_means,
                        )
                    } else {
                        (
                            number.phrase.clone(),
                            number_means,
                            word.phrase.clone(),
                            word_means,
                        )
                    };
                Err(BriefError::Contradiction(Box::new(Contradiction {
                    what: "tempi",
                    first,
                    first_means,
                    second,
                    second_means,
                })))
            }
            (Some(number), None) => {
                sources.push(("tempo".to_string(), number.phrase.clone()));
                Ok(number.value)
            }
            (None, Some(word)) => {
                sources.push(("tempo".to_string(), word.phrase.clone()));
                applied.push(format!(
                    "tempo: {} bpm for {} (tempo-word table)",
                    word.value.bpm, word.phrase
                ));
                Ok(word.value.bpm)
            }
            (None, None) => {
                applied.push(format!("tempo: {} bpm (default)", defaults::DEFAULT_TEMPO));
                Ok(defaults::DEFAULT_TEMPO)
            }
        }
    }

    /// The voices: the count asked for, or the default raised to the highest voice a
    /// canon names; names and registers always come from the default table.
    fn voices(&self, applied: &mut Vec<String>) -> (Vec<VoiceSpec>, Option<Phrase>) {
        let count = match &self.voices {
            Some(slot) => slot.value,
            None => {
                let named = self
                    .canons
                    .iter()
                    .filter_map(|(c, _)| match &c.pair {
                        Some(VoicePair::Refs(a, b)) => Some([a, b]),
                        _ => None,
                    })
                    .flatten()
                    .filter_map(|r| match r {
                        VoiceRef::Nth(n) => usize::try_from(*n).ok(),
                        _ => None,
                    })
                    .max()
                    .unwrap_or(0)
                    .min(MAX_VOICES);
                if named > defaults::DEFAULT_VOICE_COUNT {
                    applied.push(format!("voices: {named} (the highest voice a canon names)"));
                    named
                } else {
                    applied.push(format!(
                        "voices: {} (default)",
                        defaults::DEFAULT_VOICE_COUNT
                    ));
                    defaults::DEFAULT_VOICE_COUNT
                }
            }
        };
        let voices = defaults::default_voices(count);
        let table: Vec<String> = voices
            .iter()
            .map(|v| format!("{} {}–{}", v.name, v.low, v.high))
            .collect();
        applied.push(format!(
            "voice names and registers: {} (default for {})",
            table.join(", "),
            plural(count as u64, "voice", "voices")
        ));
        (voices, self.voices.as_ref().map(|s| s.phrase.clone()))
    }
}

/// Turns a canon phrase into a technique: voices resolved against the piece's voices,
/// missing delay, transposition and voices filled with defaults (each listed).
fn resolve_canon(
    canon: &CanonDraft,
    phrase: &Phrase,
    voices: &[VoiceSpec],
    count_phrase: Option<&Phrase>,
    label: &str,
    applied: &mut Vec<String>,
) -> Result<Technique, BriefError> {
    let count = voices.len();
    let voices_word = plural(count as u64, "voice", "voices");
    let has = match count_phrase {
        Some(p) => format!("{p} asks for {voices_word}"),
        None => format!("the piece has {voices_word} (the default)"),
    };
    if count < 2 {
        return Err(impossible(
            phrase.clone(),
            format!("a canon needs two voices, but {has}"),
        ));
    }
    let index = |r: &VoiceRef| -> Result<usize, BriefError> {
        match r {
            VoiceRef::Nth(0) => Err(impossible(phrase.clone(), "voices are counted from 1")),
            VoiceRef::Nth(n) => usize::try_from(*n)
                .ok()
                .filter(|&n| n <= count)
                .map(|n| n - 1)
                .ok_or_else(|| impossible(phrase.clone(), format!("there is no voice {n}: {has}"))),
            VoiceRef::Last => Ok(count - 1),
            VoiceRef::Named(name) => voices
                .iter()
                .position(|v| v.name.eq_ignore_ascii_case(name))
                .ok_or_else(|| {
                    let names: Vec<&str> = voices.iter().map(|v| v.name.as_str()).collect();
                    impossible(
                        phrase.clone(),
                        format!("there is no {name} among the voices ({})", names.join(", ")),
                    )
                }),
        }
    };
    let (leader, follower) = match &canon.pair {
        None => {
            applied.push(format!(
                "{label} voices: the outer voices, {} leading {} (default)",
                voices[0].name,
                voices[count - 1].name
            ));
            (0, count - 1)
        }
        Some(VoicePair::Outer) => (0, count - 1),
        Some(VoicePair::Upper) => (0, 1),
        Some(VoicePair::Lower) => (count - 2, count - 1),
        Some(VoicePair::Refs(a, b)) => (index(a)?, index(b)?),
    };
    if leader == follower {
        return Err(impossible(
            phrase.clone(),
            "a canon needs two different voices",
        ));
    }
    let delay_bars = match canon.delay {
        Some(d) => u32::try_from(d).unwrap_or(u32::MAX),
        None => {
            applied.push(format!(
                "{label} delay: {} (default)",
                plural(u64::from(defaults::DEFAULT_CANON_DELAY_BARS), "bar", "bars")
            ));
            defaults::DEFAULT_CANON_DELAY_BARS
        }
    };
    if canon.inversion {
        if canon.axis.is_none() {
            applied.push(format!(
                "{label} axis: the follower starts on the leader's first pitch class (default)"
            ));
        }
        return Ok(Technique::InversionCanon {
            leader,
            follower,
            delay_bars,
            axis: canon.axis.and_then(|a| u8::try_from(a).ok()),
        });
    }
    let transpose = match canon.transpose {
        Some(t) => i8::try_from(t).unwrap_or(i8::MAX),
        None => {
            applied.push(format!("{label} transposition: 0 semitones (default)"));
            0
        }
    };
    Ok(Technique::Canon {
        leader,
        follower,
        delay_bars,
        transpose,
    })
}
