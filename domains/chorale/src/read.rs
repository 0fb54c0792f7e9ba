//! Reading a chorale from any score: which voice is which part, the key, where the
//! phrases end, how unspelled pitches are spelled.
//!
//! * **Parts.** Four voices are soprano, alto, tenor and bass: by their names when
//!   all four say so (`Soprano`, `S.`, `Sopran`, `Alto`, `Tenor`, `Bass`, `Basso`,
//!   …), else by their mean pitch, highest first. One voice is a melody to
//!   harmonise. Anything else, a chord inside a voice, or two notes of a voice
//!   overlapping, is not a chorale: a [`ChoraleError`] (exit 2 in the CLI).
//! * **Key.** Given, else the file's key signature, else inferred. A signature
//!   names two keys (G major, E minor) and chorales are often modal, so the key is
//!   checked against the music: the Krumhansl–Kessler profile of every note,
//!   weighted by duration, with a bonus for the key whose tonic is the final bass
//!   note and for the keys of the signature. The reading says where the key came from.
//! * **Phrase ends.** Given (bars, or bar and beat), else the notes carrying a
//!   fermata in the file, else only the end. The last soprano note always ends one.
//! * **Spelling.** As written; pitches without spelling (MIDI) are spelled in the key.

use crate::chorale::{Chorale, Note, beat_of};
use crate::pitch::{Part, Tonality, Tone};
use cantus_music::{Key, Mode, Score, Time, Voice};
use serde::Serialize;

/// A phrase end as a person gives it: a bar (the last soprano note that begins in
/// it), or a bar and a beat (the soprano note sounding then).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhraseMark {
    /// From 1.
    pub bar: u32,
    /// From 1, within the bar.
    pub beat: Option<Time>,
}

impl std::str::FromStr for PhraseMark {
    type Err = String;

    /// `4` or `4:3` or `4:5/2`.
    fn from_str(text: &str) -> Result<PhraseMark, String> {
        let bad = || format!("cannot read phrase end {text:?}: write a bar (4) or bar:beat (4:3)");
        let (bar, beat) = match text.trim().split_once(':') {
            Some((b, t)) => (b, Some(t)),
            None => (text.trim(), None),
        };
        let bar: u32 = bar.trim().parse().map_err(|_| bad())?;
        let beat = beat
            .map(|t| cantus_music::time_text::parse(t).map_err(|_| bad()))
            .transpose()?;
        if bar == 0 || beat.is_some_and(|b| b < Time::from_integer(1)) {
            return Err(bad());
        }
        Ok(PhraseMark { bar, beat })
    }
}

/// What the reader is told; everything else is inferred.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// The key, overriding the file's and the inference.
    pub key: Option<Tonality>,
    /// Where the phrases end, overriding the file's fermatas.
    pub phrase_ends: Option<Vec<PhraseMark>>,
    /// The severities to judge by (strict by default).
    pub profile: crate::rules::Profile,
}

/// Where the key came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeySource {
    Given,
    /// The file's key signature and mode, confirmed by the music.
    File,
    /// The file's signature, in the other mode (the music ends on its tonic).
    FileSignature,
    /// Inferred from the notes alone.
    Inferred,
}

/// Where the phrase ends came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PhraseSource {
    Given,
    Fermatas,
    /// Nothing marked them: only the end.
    EndOnly,
}

/// A chorale read from a score.
#[derive(Clone, Debug)]
pub struct Reading {
    pub chorale: Chorale,
    pub key_source: KeySource,
    pub phrase_source: PhraseSource,
    /// Whether any pitch had to be spelled from the key.
    pub spelled_from_key: bool,
    /// Names of the score's voices, soprano first (one for a melody).
    pub voices: Vec<String>,
    /// What was inferred rather than given, in words.
    pub inferred: Vec<String>,
}

/// Why a score is not a chorale.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct ChoraleError(pub String);

/// The part a voice name says it is.
fn part_named(name: &str) -> Option<Part> {
    let n = name.trim().to_ascii_lowercase();
    let n = n.trim_end_matches('.');
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| n.starts_with(p));
    if n == "s" || starts(&["sop", "cantus", "discant"]) {
        Some(Part::Soprano)
    } else if n == "a" || starts(&["alt", "contralto"]) {
        Some(Part::Alto)
    } else if n == "t" || starts(&["ten"]) {
        Some(Part::Tenor)
    } else if n == "b" || starts(&["bas"]) {
        Some(Part::Bass)
    } else {
        None
    }
}

/// Whether `score` has four voices named as soprano, alto, tenor and bass (in any
/// order): how a bare score is recognised as a chorale.
pub fn is_satb(score: &Score) -> bool {
    let mut parts: Vec<Part> = score
        .voices
        .iter()
        .filter_map(|v| part_named(&v.name))
        .collect();
    parts.sort_by_key(|p| p.index());
    parts.dedup();
    score.voices.len() == 4 && parts.len() == 4
}

/// The voices of `score` in part order (soprano first).
fn assign(score: &Score) -> Result<Vec<&Voice>, ChoraleError> {
    let voices: Vec<&Voice> = score
        .voices
        .iter()
        .filter(|v| !v.events.is_empty())
        .collect();
    match voices.len() {
        1 => return Ok(voices),
        4 => {}
        n => {
            return Err(ChoraleError(format!(
                "a chorale has four voices (soprano, alto, tenor, bass) or one melody; this score has {n} voices with notes"
            )));
        }
    }
    let named: Vec<Option<Part>> = voices.iter().map(|v| part_named(&v.name)).collect();
    let mut order: Vec<usize> = (0..4).collect();
    let all_named = Part::ALL
        .iter()
        .all(|p| named.iter().filter(|n| **n == Some(*p)).count() == 1);
    if all_named {
        order.sort_by_key(|&i| named[i]);
    } else {
        let mean = |v: &Voice| {
            let (sum, n) = v
                .events
                .iter()
                .flat_map(|e| &e.pitches)
                .fold((0u64, 0u64), |(s, n), p| (s + u64::from(p.midi), n + 1));
            sum.checked_div(n).unwrap_or(0)
        };
        order.sort_by_key(|&i| std::cmp::Reverse(mean(voices[i])));
    }
    Ok(order.into_iter().map(|i| voices[i]).collect())
}

/// A voice's notes, or why it is not a chorale part.
fn notes_of(
    voice: &Voice,
    part: Part,
    score: &Score,
    key: Tonality,
    spelled_from_key: &mut bool,
) -> Result<Vec<Note>, ChoraleError> {
    let mut notes: Vec<Note> = Vec::new();
    for e in &voice.events {
        if e.duration <= Time::from_integer(0) {
            continue;
        }
        let where_ = || {
            let t = e.onset;
            let bar = score.bar_of(t);
            let beat = (t - score.bar_start(bar)) / beat_of(score.meter) + 1;
            format!("bar {bar} beat {}", cantus_music::time_text::format(beat))
        };
        let [pitch] = e.pitches[..] else {
            return Err(ChoraleError(format!(
                "the {part} (voice \"{}\") sounds {} notes at once at {}: each part sings one note at a time",
                voice.name,
                e.pitches.len(),
                where_()
            )));
        };
        if let Some(last) = notes.last()
            && last.end() > e.onset
        {
            return Err(ChoraleError(format!(
                "two notes of the {part} (voice \"{}\") overlap at {}",
                voice.name,
                where_()
            )));
        }
        let spelling = pitch.spelling.unwrap_or_else(|| {
            *spelled_from_key = true;
            key.spell(pitch.pc())
        });
        notes.push(Note {
            onset: e.onset,
            duration: e.duration,
            tone: Tone {
                midi: pitch.midi,
                spelling,
            },
        });
    }
    Ok(notes)
}

/// Krumhansl–Kessler key profiles (major, minor), tonic first.
const KK_MAJOR: [f64; 12] = [
    6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88,
];
const KK_MINOR: [f64; 12] = [
    6.33, 2.68, 3.52, 5.38, 2.60, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17,
];

fn correlation(a: &[f64; 12], b: &[f64; 12]) -> f64 {
    let ma = a.iter().sum::<f64>() / 12.0;
    let mb = b.iter().sum::<f64>() / 12.0;
    let (mut num, mut da, mut db) = (0.0, 0.0, 0.0);
    for i in 0..12 {
        num += (a[i] - ma) * (b[i] - mb);
        da += (a[i] - ma).powi(2);
        db += (b[i] - mb).powi(2);
    }
    if da == 0.0 || db == 0.0 {
        0.0
    } else {
        num / (da * db).sqrt()
    }
}

/// The key of `voices` (any pitched events), with a bonus for a tonic on the final
/// lowest note and for the keys of `signature` (fifths).
fn infer_key(score: &Score, final_pc: Option<u8>, signature: Option<i32>) -> Tonality {
    let mut weights = [0.0f64; 12];
    for v in &score.voices {
        for e in &v.events {
            let d = *e.duration.numer() as f64 / *e.duration.denom() as f64;
            for p in &e.pitches {
                weights[usize::from(p.pc())] += d.max(0.0);
            }
        }
    }
    let mut best: Option<(f64, Tonality)> = None;
    for fifths in -7..=7 {
        for mode in [Mode::Major, Mode::Minor] {
            let key = Tonality::of(Key::from_fifths(fifths, mode));
            let t = usize::from(key.tonic_pc());
            let profile = match mode {
                Mode::Major => &KK_MAJOR,
                Mode::Minor => &KK_MINOR,
            };
            let mut rotated = [0.0; 12];
            for (i, w) in rotated.iter_mut().enumerate() {
                *w = profile[(i + 12 - t) % 12];
            }
            let mut score = correlation(&weights, &rotated);
            if final_pc == Some(key.tonic_pc()) {
                score += 0.3;
            }
            if signature == Some(fifths) {
                score += 0.2;
            }
            // Prefer fewer accidentals among enharmonic equals (F# over Gb).
            score -= 0.001 * f64::from(fifths.unsigned_abs());
            if best.is_none_or(|(b, _)| score > b) {
                best = Some((score, key));
            }
        }
    }
    best.map_or(Tonality::of(Key::from_fifths(0, Mode::Major)), |(_, k)| k)
}

/// The onset of the soprano note that `mark` names.
fn resolve_mark(chorale: &Chorale, mark: PhraseMark) -> Result<Time, ChoraleError> {
    let bar_len = chorale.meter.bar_length();
    let bar_start = bar_len * i64::from(mark.bar - 1);
    let soprano = chorale.part(Part::Soprano);
    let found = match mark.beat {
        Some(beat) => {
            let t = bar_start + (beat - 1) * chorale.beat;
            chorale.note_at(Part::Soprano, t).map(|i| soprano[i].onset)
        }
        None => soprano
            .iter()
            .rev()
            .find(|n| n.onset >= bar_start && n.onset < bar_start + bar_len)
            .map(|n| n.onset),
    };
    found.ok_or_else(|| {
        ChoraleError(format!(
            "phrase end at bar {}{}: the soprano has no note there",
            mark.bar,
            mark.beat
                .map(|b| format!(" beat {}", cantus_music::time_text::format(b)))
                .unwrap_or_default()
        ))
    })
}

/// The onsets of the soprano notes sounding where any voice carries a fermata.
fn fermatas(score: &Score, chorale: &Chorale) -> Vec<Time> {
    let soprano = chorale.part(Part::Soprano);
    score
        .voices
        .iter()
        .flat_map(|v| v.events.iter().filter(|e| e.fermata))
        .filter_map(|e| chorale.note_at(Part::Soprano, e.onset))
        .map(|i| soprano[i].onset)
        .collect()
}

/// Reads `score` as a chorale (or a melody to harmonise).
pub fn read_chorale(score: &Score, options: &ReadOptions) -> Result<Reading, ChoraleError> {
    let voices = assign(score)?;
    let mut inferred = Vec::new();
    let final_pc = voices.last().and_then(|v| {
        let last = v
            .events
            .iter()
            .filter(|e| !e.pitches.is_empty())
            .max_by_key(|e| e.onset)?;
        last.pitches.first().map(|p| p.pc())
    });
    let (key, key_source) = match (options.key, score.key) {
        (Some(k), _) => (k, KeySource::Given),
        (None, file) => {
            let signature = file.map(Key::fifths);
            let guess = infer_key(score, final_pc, signature);
            match file.map(Tonality::of) {
                Some(f) if f == guess => (f, KeySource::File),
                Some(f) if f.key().fifths() == guess.key().fifths() => {
                    inferred.push(format!(
                        "key: {guess} (the file says {f}; the music ends on {})",
                        guess.tonic.letter.as_char()
                    ));
                    (guess, KeySource::FileSignature)
                }
                _ => {
                    inferred.push(format!("key: {guess}, inferred from the notes"));
                    (guess, KeySource::Inferred)
                }
            }
        }
    };
    let mut spelled_from_key = false;
    let mut parts: [Vec<Note>; 4] = Default::default();
    for (i, v) in voices.iter().enumerate() {
        let part = Part::from_index(i).unwrap_or(Part::Bass);
        parts[i] = notes_of(v, part, score, key, &mut spelled_from_key)?;
    }
    if parts[0].is_empty() {
        return Err(ChoraleError("the soprano has no notes".into()));
    }
    let mut chorale = Chorale {
        title: score.title.clone(),
        key,
        meter: score.meter,
        beat: beat_of(score.meter),
        parts,
        phrase_ends: Vec::new(),
    };
    let (mut ends, phrase_source) = match &options.phrase_ends {
        Some(marks) => (
            marks
                .iter()
                .map(|&m| resolve_mark(&chorale, m))
                .collect::<Result<Vec<_>, _>>()?,
            PhraseSource::Given,
        ),
        None => {
            let marked = fermatas(score, &chorale);
            if marked.is_empty() {
                inferred.push("phrase ends: no fermata in the file, only the end".into());
                (Vec::new(), PhraseSource::EndOnly)
            } else {
                (marked, PhraseSource::Fermatas)
            }
        }
    };
    if let Some(last) = chorale.parts[0].last() {
        ends.push(last.onset);
    }
    ends.sort();
    ends.dedup();
    chorale.phrase_ends = ends;
    if spelled_from_key {
        inferred.push(format!("spelling: pitches without one spelled in {key}"));
    }
    Ok(Reading {
        chorale,
        key_source,
        phrase_source,
        spelled_from_key,
        voices: voices.iter().map(|v| v.name.clone()).collect(),
        inferred,
    })
}
