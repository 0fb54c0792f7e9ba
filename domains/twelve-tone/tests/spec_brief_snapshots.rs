//! Snapshots of what the brief compiler tells a user: five compiled specs (with the
//! defaults applied and the words not understood), and the error for each of a set of
//! contradictory or impossible briefs. Every error is also checked structurally: it
//! is the expected kind, and each quoted phrase really is at the character position
//! it claims.

use cantus_twelve_tone::spec::{BriefError, CompiledBrief, Phrase, compile_brief};
use serde_json::json;

fn compiled_json(brief: &str, compiled: &CompiledBrief) -> serde_json::Value {
    json!({
        "brief": brief,
        "spec": compiled.spec,
        "defaults_applied": compiled.defaults_applied,
        "not_understood": compiled.not_understood,
    })
}

fn snapshot_compiled(name: &str, brief: &str) {
    let compiled = compile_brief(brief).unwrap_or_else(|e| panic!("{brief:?}: {e}"));
    insta::assert_json_snapshot!(name, compiled_json(brief, &compiled));
}

#[test]
fn webern_trio_with_canon_and_strong_contrast() {
    snapshot_compiled(
        "webern_trio",
        "Write a 16-bar piece for three voices in 3/4 at 72 bpm on Webern's Op. 21 row, \
         with a canon between the outer voices and strong register contrast",
    );
}

#[test]
fn explicit_row_duet_with_canon_at_the_fifth() {
    snapshot_compiled(
        "explicit_row_duet",
        "A twenty-four measure duet in 6/8, ♩=96, on the row 0, E, 7, 8, 3, 1, 2, T, 6, 5, 4, 9, \
         with a canon at the fifth below, in 6-bar sections",
    );
}

#[test]
fn lyric_suite_quintet_with_mirror_canon() {
    snapshot_compiled(
        "lyric_suite_quintet",
        "title \"Lyric Mirror\": a slow quintet on the Lyric Suite row, a mirror canon between \
         voices 2 and 5 at two bars around pitch class 4, mild register contrast, tremolos allowed",
    );
}

#[test]
fn all_interval_solo() {
    snapshot_compiled(
        "all_interval_solo",
        "Please compose a short monophonic piece, 12 bars, on an all-interval row with seed 11, \
         no chords, with plenty of rubato",
    );
}

#[test]
fn bare_request_uses_every_default() {
    snapshot_compiled("bare_request", "Compose a twelve-tone piece.");
}

/// The phrases an error quotes.
fn quoted(error: &BriefError) -> Vec<&Phrase> {
    match error {
        BriefError::Contradiction(c) => vec![&c.first, &c.second],
        BriefError::Impossible { phrase, .. } => vec![phrase],
        BriefError::Empty | BriefError::TooLong { .. } | BriefError::UnclosedQuote { .. } => {
            Vec::new()
        }
    }
}

#[derive(Debug, PartialEq)]
enum Kind {
    Contradiction,
    Impossible,
    Other,
}

const BAD_BRIEFS: &[(&str, Kind)] = &[
    (
        "a piece for three voices, a string quartet",
        Kind::Contradiction,
    ),
    ("16 bars in 3/4, then in 4/4", Kind::Contradiction),
    (
        "on Webern's Op. 21 row, on the row 0 1 2 3 4 5 6 7 8 9 10 11",
        Kind::Contradiction,
    ),
    ("a slow piece at 150 bpm", Kind::Contradiction),
    ("a piece of 0 bars", Kind::Impossible),
    ("a piece for 7 voices", Kind::Impossible),
    ("a septet", Kind::Impossible),
    ("1000 bars for a duet", Kind::Impossible),
    ("a solo canon", Kind::Impossible),
    (
        "a trio with a canon between voice 1 and 5",
        Kind::Impossible,
    ),
    (
        "a duet on the row 0 1 2 3 4 5 6 7 8 9 10 10",
        Kind::Impossible,
    ),
    ("on the row 0 11 7 8 3 1 2 10 6 5 4", Kind::Impossible),
    ("a quartet at 0 bpm", Kind::Impossible),
    ("a trio in 5/3", Kind::Impossible),
    ("a trio on Schoenberg Op. 33", Kind::Impossible),
    ("on Webern's Op. 99 row", Kind::Impossible),
    ("a 2-bar piece with a canon at two bars", Kind::Impossible),
    ("a crab canon for two voices", Kind::Impossible),
    ("an inversion canon at the fifth", Kind::Impossible),
    (
        "a canon between the alto and bass, for three voices",
        Kind::Impossible,
    ),
    ("   ", Kind::Other),
    ("title \"Nocturne, 12 bars", Kind::Other),
];

#[test]
fn bad_briefs_are_refused_with_the_offending_phrases_quoted() {
    let mut report = Vec::new();
    for (brief, expected) in BAD_BRIEFS {
        let error = match compile_brief(brief) {
            Ok(compiled) => panic!("{brief:?} should be refused, got {:?}", compiled.spec),
            Err(e) => e,
        };
        let kind = match error {
            BriefError::Contradiction(_) => Kind::Contradiction,
            BriefError::Impossible { .. } => Kind::Impossible,
            _ => Kind::Other,
        };
        assert_eq!(&kind, expected, "{brief:?}: {error}");
        for phrase in quoted(&error) {
            let at: String = brief.chars().skip(phrase.position - 1).collect();
            assert!(
                at.starts_with(&phrase.text),
                "{brief:?}: {phrase} is not at its position"
            );
        }
        let message = error.to_string();
        for phrase in quoted(&error) {
            assert!(
                message.contains(&format!("\"{}\"", phrase.text)),
                "{message}"
            );
        }
        report.push(format!("{brief}\n  => {message}"));
    }
    assert!(report.len() >= 8);
    insta::assert_snapshot!("bad_briefs", report.join("\n\n"));
}
