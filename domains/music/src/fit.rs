//! Fitting a score to what a format can carry, for conversions.
//!
//! A MusicXML part may be called `Violin, I`, two parts may share a name, a
//! MIDI track name may hold a control character: all readable, but the text
//! grammar cannot carry the first two (`,` separates voices, names identify
//! them) and XML cannot carry the third. The exact writers refuse such scores
//! (a writer never writes what its reader would refuse); a conversion instead
//! renames or cleans what it must and says so, one warning per change. Grace
//! notes go only to the formats that can carry them (the text grammar); a
//! conversion to any other leaves them out and says how many.

use crate::format::Format;
use crate::grammar::voice_name_problem;
use crate::musicxml::is_xml_char;
use crate::score::{Score, Voice, unique_name};
use std::borrow::Cow;
use std::collections::HashSet;

/// `score` as `format` can carry it, and a warning per change.
pub(crate) fn fit(score: &Score, format: Format) -> (Cow<'_, Score>, Vec<String>) {
    let mut warnings = Vec::new();
    let graceless = (format != Format::Grammar)
        .then(|| without_grace_notes(score, format, &mut warnings))
        .flatten();
    let base = graceless.as_ref().unwrap_or(score);
    let fitted = match format {
        Format::Grammar => fit_grammar(base, &mut warnings),
        Format::MusicXml => fit_xml(base, &mut warnings),
        _ => None,
    };
    match (fitted, graceless) {
        (Some(s), _) | (None, Some(s)) => (Cow::Owned(s), warnings),
        (None, None) => (Cow::Borrowed(score), warnings),
    }
}

/// `score` without its grace notes, if it has any, with a warning saying how many
/// `format` could not carry.
fn without_grace_notes(score: &Score, format: Format, warnings: &mut Vec<String>) -> Option<Score> {
    let count = score.grace_count();
    if count == 0 {
        return None;
    }
    let mut out = score.clone();
    out.remove_grace_notes();
    warnings.push(format!(
        "{} left out: the {format} writer does not write grace notes",
        crate::counted(count as u64, "grace note", "grace notes")
    ));
    Some(out)
}

/// Voice names the grammar's VOICES line can hold; `None` if all already can.
fn fit_grammar(score: &Score, warnings: &mut Vec<String>) -> Option<Score> {
    let bad = |i: usize| voice_name_problem(&score.voices[i].name, &score.voices[..i]).is_some();
    if !(0..score.voices.len()).any(bad) {
        return None;
    }
    let mut out = score.clone();
    let mut used: HashSet<String> = HashSet::new();
    let mut kept: Vec<Voice> = Vec::with_capacity(out.voices.len());
    for (i, mut voice) in std::mem::take(&mut out.voices).into_iter().enumerate() {
        if let Some(reason) = voice_name_problem(&voice.name, &kept) {
            let mut name = grammar_name(&voice.name);
            if name.is_empty() {
                name = format!("Voice {}", i + 1);
            }
            let name = unique_name(name, &mut used);
            warnings.push(format!(
                "voice {} {:?} renamed {name:?} for the text grammar: {reason}",
                i + 1,
                voice.name
            ));
            voice.name = name;
        } else {
            used.insert(voice.name.clone());
        }
        kept.push(voice);
    }
    out.voices = kept;
    Some(out)
}

/// `name` with what the grammar reserves replaced: `,` `:` and control
/// characters become spaces, runs of whitespace one space, a leading `@` and a
/// `%` that would begin a comment are dropped.
fn grammar_name(name: &str) -> String {
    let spaced: String = name
        .chars()
        .map(|c| {
            if c == ',' || c == ':' || c.is_control() {
                ' '
            } else {
                c
            }
        })
        .collect();
    let words: Vec<&str> = spaced
        .split_whitespace()
        .map(|w| w.trim_start_matches('%'))
        .filter(|w| !w.is_empty())
        .collect();
    words.join(" ").trim_start_matches(['@', ' ']).to_string()
}

/// Title, names and tags without the characters XML 1.0 cannot hold.
fn fit_xml(score: &Score, warnings: &mut Vec<String>) -> Option<Score> {
    let clean = |s: &str| s.chars().all(is_xml_char);
    let tags_clean = score
        .voices
        .iter()
        .all(|v| v.events.iter().all(|e| e.tag.as_deref().is_none_or(clean)));
    if score.title.as_deref().is_none_or(clean)
        && score.voices.iter().all(|v| clean(&v.name))
        && tags_clean
    {
        return None;
    }
    let strip = |s: &str| s.chars().filter(|c| is_xml_char(*c)).collect::<String>();
    let mut out = score.clone();
    if let Some(title) = out.title.as_mut().filter(|t| !clean(t)) {
        warnings.push(format!(
            "title {title:?}: characters XML cannot hold were dropped"
        ));
        *title = strip(title);
    }
    for (i, voice) in out.voices.iter_mut().enumerate() {
        if !clean(&voice.name) {
            let name = strip(&voice.name);
            warnings.push(format!(
                "voice {} {:?} renamed {name:?}: characters XML cannot hold were dropped",
                i + 1,
                voice.name
            ));
            voice.name = name;
        }
        for event in &mut voice.events {
            if let Some(tag) = event.tag.as_mut().filter(|t| !clean(t)) {
                warnings.push(format!(
                    "voice {:?}, onset {}: tag {tag:?}: characters XML cannot hold were dropped",
                    voice.name, event.onset
                ));
                *tag = strip(tag);
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar_names_lose_only_what_the_grammar_reserves() {
        assert_eq!(grammar_name("Violin, I"), "Violin I");
        assert_eq!(grammar_name("  Horn in F:  "), "Horn in F");
        assert_eq!(grammar_name("Piano\nright hand"), "Piano right hand");
        assert_eq!(grammar_name("@Bass %low"), "Bass low");
        assert_eq!(
            grammar_name("Oboe%2"),
            "Oboe%2",
            "a % inside a word is text"
        );
        assert_eq!(grammar_name(" , : "), "");
    }
}
