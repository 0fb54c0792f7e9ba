//! Every default a spec or a brief falls back on, in one place, so that the TOML
//! reader, the brief compiler and the documentation cannot drift apart.
//!
//! | field | default |
//! |---|---|
//! | `bars` | 16 |
//! | `meter` | 4/4 |
//! | `tempo` | 72 bpm |
//! | `row` | [`DEFAULT_ROW_ID`] (Schoenberg, Suite for Piano Op. 25) |
//! | `convention` | zero-centred |
//! | `voices` | 3 voices from the table below |
//! | `texture.max_chord` | 2 |
//! | `texture.max_sounding` | `min(12, voices + 2)` |
//! | `techniques` | none |
//! | `repetition` | forbidden |
//! | `max_crossing` | 1/10 |
//! | `section_bars` | 4, or `bars` if the piece is shorter |
//! | canon delay | 1 bar |
//! | canon transposition | 0 semitones |
//! | canon voices (brief) | the outer voices, top voice leading |
//! | all-interval seed (brief) | 0 |
//! | tremolo limit (brief) | 3 repetitions per row statement |
//!
//! # Voices by count
//!
//! Registers are MIDI numbers, inclusive (60 = middle C). They follow common choral
//! ranges and may overlap, as real voices do.
//!
//! | count | voices |
//! |---|---|
//! | 1 | Voice 55–79 |
//! | 2 | Soprano 60–81, Bass 40–62 |
//! | 3 | Soprano 60–81, Tenor 48–69, Bass 40–62 |
//! | 4 | Soprano 60–81, Alto 55–74, Tenor 48–69, Bass 40–62 |
//! | 5 | Soprano 60–81, Alto 55–74, Tenor 48–69, Baritone 45–65, Bass 40–62 |
//! | 6 | Soprano 60–81, Mezzo 57–77, Alto 55–74, Tenor 48–69, Baritone 45–65, Bass 40–62 |
//!
//! # Tempo words
//!
//! A brief may give the tempo as a word. Each word has a tempo it stands for and a
//! band of tempos it agrees with; a brief that also gives a number outside the band
//! ("fast, at 40 bpm") is contradictory.
//!
//! | words | tempo | agrees with |
//! |---|---|---|
//! | very slow, grave, largo | 44 | 20–56 |
//! | slow, lento, adagio | 60 | 20–76 |
//! | andante, walking | 80 | 66–100 |
//! | moderate, moderately, moderato, medium | 100 | 80–120 |
//! | allegretto | 112 | 96–132 |
//! | fast, quick, allegro, lively | 132 | 108–200 |
//! | very fast, presto, vivace, vivo | 168 | 140–300 |

use cantus_music::Meter;
use num_rational::Ratio;

use super::VoiceSpec;

/// Default length in bars.
pub const DEFAULT_BARS: u32 = 16;
/// Default tempo in quarter-note beats per minute.
pub const DEFAULT_TEMPO: u32 = 72;
/// Default number of voices.
pub const DEFAULT_VOICE_COUNT: usize = 3;
/// Default most pitches in one event.
pub const DEFAULT_MAX_CHORD: u8 = 2;
/// Default bars per planning section.
pub const DEFAULT_SECTION_BARS: u32 = 4;
/// Default fraction of the time voices may be crossed: 1/10.
pub const DEFAULT_MAX_CROSSING: Ratio<i64> = Ratio::new_raw(1, 10);
/// Default distance between canon voices, in bars.
pub const DEFAULT_CANON_DELAY_BARS: u32 = 1;
/// Default seed of an all-interval row asked for without one.
pub const DEFAULT_ALL_INTERVAL_SEED: u64 = 0;
/// Default limit on immediate repetitions per row statement when a brief allows tremolos.
pub const DEFAULT_TREMOLO_MAX: u8 = 3;
/// The music21 id of the row used when none is asked for: Schoenberg's Suite for
/// Piano, Op. 25, the first piece he built entirely on one twelve-tone row.
pub const DEFAULT_ROW_ID: &str = "SchoenbergOp25";

/// Most voices a spec may have.
pub const MAX_VOICES: usize = 6;
/// Most bars a spec may have.
pub const MAX_BARS: u32 = 512;
/// Slowest and fastest tempo a spec may have (bpm).
pub const TEMPO_RANGE: std::ops::RangeInclusive<u32> = 20..=300;

/// Voice names and registers, highest voice first.
const SOPRANO: (&str, u8, u8) = ("Soprano", 60, 81);
const MEZZO: (&str, u8, u8) = ("Mezzo", 57, 77);
const ALTO: (&str, u8, u8) = ("Alto", 55, 74);
const TENOR: (&str, u8, u8) = ("Tenor", 48, 69);
const BARITONE: (&str, u8, u8) = ("Baritone", 45, 65);
const BASS: (&str, u8, u8) = ("Bass", 40, 62);
const SOLO: (&str, u8, u8) = ("Voice", 55, 79);

/// The default voices for `count` voices (see the table in the module docs). A count
/// of 0 gives no voices; above [`MAX_VOICES`] the six-voice table is extended with
/// numbered voices so that validation, not this function, reports the problem.
pub fn default_voices(count: usize) -> Vec<VoiceSpec> {
    let table: &[(&str, u8, u8)] = match count {
        0 => &[],
        1 => &[SOLO],
        2 => &[SOPRANO, BASS],
        3 => &[SOPRANO, TENOR, BASS],
        4 => &[SOPRANO, ALTO, TENOR, BASS],
        5 => &[SOPRANO, ALTO, TENOR, BARITONE, BASS],
        _ => &[SOPRANO, MEZZO, ALTO, TENOR, BARITONE, BASS],
    };
    let mut voices: Vec<VoiceSpec> = table
        .iter()
        .map(|&(name, low, high)| VoiceSpec::new(name, low, high))
        .collect();
    for extra in voices.len()..count {
        voices.push(VoiceSpec::new(format!("Voice {}", extra + 1), 48, 72));
    }
    voices
}

/// Every voice name the default tables use, lower-case, so a brief can say
/// "between the soprano and the bass".
pub const VOICE_NAMES: [&str; 7] = [
    "soprano", "mezzo", "alto", "tenor", "baritone", "bass", "voice",
];

/// Default most distinct pitches sounding at once: `min(12, voices + 2)`.
pub fn default_max_sounding(voices: usize) -> u8 {
    u8::try_from(voices.saturating_add(2).min(12)).unwrap_or(12)
}

/// Quarter notes a default section holds at least: room for a row statement of
/// twelve notes at about one beat each.
pub const MIN_SECTION_QUARTERS: i64 = 12;

/// Default section length: [`DEFAULT_SECTION_BARS`], lengthened in short meters until
/// a section holds [`MIN_SECTION_QUARTERS`] quarter notes (2/4 → 6 bars, 3/8 → 8),
/// and never longer than the piece.
pub fn default_section_bars(bars: u32, meter: Meter) -> u32 {
    let bar = meter.bar_length();
    let needed = (num_rational::Ratio::from_integer(MIN_SECTION_QUARTERS) / bar)
        .ceil()
        .to_integer();
    let needed = u32::try_from(needed).unwrap_or(DEFAULT_SECTION_BARS);
    DEFAULT_SECTION_BARS.max(needed).min(bars.max(1))
}

/// A tempo word of a brief: what it stands for and which tempos agree with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TempoWord {
    /// The words (after "very" is joined: `"very slow"`).
    pub words: &'static [&'static str],
    /// The tempo it stands for, in bpm.
    pub bpm: u32,
    /// Slowest tempo that agrees with it.
    pub min: u32,
    /// Fastest tempo that agrees with it.
    pub max: u32,
}

/// The tempo-word table of the module docs.
pub const TEMPO_WORDS: [TempoWord; 7] = [
    TempoWord {
        words: &["very slow", "grave", "largo"],
        bpm: 44,
        min: 20,
        max: 56,
    },
    TempoWord {
        words: &["slow", "lento", "adagio"],
        bpm: 60,
        min: 20,
        max: 76,
    },
    TempoWord {
        words: &["andante", "walking"],
        bpm: 80,
        min: 66,
        max: 100,
    },
    TempoWord {
        words: &["moderate", "moderately", "moderato", "medium"],
        bpm: 100,
        min: 80,
        max: 120,
    },
    TempoWord {
        words: &["allegretto"],
        bpm: 112,
        min: 96,
        max: 132,
    },
    TempoWord {
        words: &["fast", "quick", "allegro", "lively"],
        bpm: 132,
        min: 108,
        max: 200,
    },
    TempoWord {
        words: &["very fast", "presto", "vivace", "vivo"],
        bpm: 168,
        min: 140,
        max: 300,
    },
];

/// The tempo word for `word` (lower-case; `"very slow"` and `"very fast"` as two words).
pub fn tempo_word(word: &str) -> Option<&'static TempoWord> {
    TEMPO_WORDS.iter().find(|t| t.words.contains(&word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn voice_tables_have_the_documented_sizes_and_are_top_first() {
        for count in 1..=MAX_VOICES {
            let voices = default_voices(count);
            assert_eq!(voices.len(), count);
            let centres: Vec<u16> = voices
                .iter()
                .map(|v| u16::from(v.low) + u16::from(v.high))
                .collect();
            assert!(centres.windows(2).all(|w| w[0] > w[1]), "{voices:?}");
            assert!(voices.iter().all(|v| v.high - v.low >= 11));
        }
    }

    #[test]
    fn max_sounding_follows_the_voice_count() {
        assert_eq!(default_max_sounding(1), 3);
        assert_eq!(default_max_sounding(4), 6);
        assert_eq!(default_max_sounding(11), 12);
    }

    #[test]
    fn tempo_words_stand_inside_their_own_bands() {
        for t in TEMPO_WORDS {
            assert!(t.min <= t.bpm && t.bpm <= t.max, "{t:?}");
        }
        assert_eq!(tempo_word("adagio").map(|t| t.bpm), Some(60));
        assert_eq!(tempo_word("very fast").map(|t| t.bpm), Some(168));
    }
}
