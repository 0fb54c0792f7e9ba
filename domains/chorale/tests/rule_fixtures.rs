//! One test per rule: a minimal violating chorale (a text-grammar fixture made from
//! the clean base `pass.txt` by changing one or two parts) is caught with the
//! right rule id at the right bar and beat, and breaks no other hard rule except
//! those the same fault necessarily breaks (named per case). The bases keep every
//! rule, hard and soft.
//!
//! A fixture's first line `% phrases: 1:4` gives its phrase ends (the text grammar
//! carries no fermatas), as `cantus verify --phrases` would.

use cantus_chorale::{PhraseMark, ReadOptions, judge_score};
use cantus_framework::Severity;
use cantus_music::format::read_path;
use std::collections::BTreeSet;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules")
        .join(format!("{name}.txt"))
}

/// The (rule, "bar:beat") pairs of `severity` the strict gate reports on a fixture.
fn findings(name: &str, severity: Severity) -> BTreeSet<(String, String)> {
    let path = fixture(name);
    let text = std::fs::read_to_string(&path).expect("fixture");
    let phrase_ends = text.lines().find_map(|l| {
        l.strip_prefix("% phrases:").map(|marks| {
            marks
                .split_whitespace()
                .map(|m| m.parse::<PhraseMark>().expect("a phrase mark"))
                .collect()
        })
    });
    let loaded = read_path(&path, false).expect("fixture reads strictly");
    let options = ReadOptions {
        phrase_ends,
        ..ReadOptions::default()
    };
    let (report, _, _) = judge_score(&loaded.score, &options).expect("a chorale");
    report
        .violations
        .iter()
        .filter(|v| v.severity == severity)
        .map(|v| {
            let beat = cantus_music::time_text::format(v.location.beat);
            (
                v.predicate.to_string(),
                format!("{}:{beat}", v.location.bar),
            )
        })
        .collect()
}

fn check(name: &str, severity: Severity, rule: &str, at: &str, also: &[&str]) {
    let found = findings(name, severity);
    assert!(
        found.contains(&(rule.to_owned(), at.to_owned())),
        "{name}: expected {rule} at {at}, found {found:?}"
    );
    let hard = findings(name, Severity::Hard);
    for (id, place) in &hard {
        assert!(
            id == rule || also.contains(&id.as_str()),
            "{name}: unexpected hard violation {id} at {place} (all: {hard:?})"
        );
    }
}

macro_rules! hard_case {
    ($test:ident, $rule:literal, $at:literal $(, also: [$($also:literal),*])?) => {
        #[test]
        fn $test() {
            let file = stringify!($test).replace('_', "-");
            check(&file, Severity::Hard, $rule, $at, &[$($($also),*)?]);
        }
    };
}

macro_rules! soft_case {
    ($test:ident, $rule:literal, $at:literal) => {
        #[test]
        fn $test() {
            let file = stringify!($test).replace('_', "-");
            check(&file, Severity::Soft, $rule, $at, &[]);
        }
    };
}

#[test]
fn the_bases_keep_every_rule() {
    for name in ["pass", "pass-ornamented"] {
        assert_eq!(findings(name, Severity::Hard), BTreeSet::new(), "{name}");
        assert_eq!(findings(name, Severity::Soft), BTreeSet::new(), "{name}");
    }
}

// A leapt-to tone outside V, on the beat, is also left by step the same way: no
// appoggiatura either.
hard_case!(ch_chord, "CH-chord", "1:3", also: ["CH-non-chord-tone"]);
hard_case!(ch_non_chord_tone, "CH-non-chord-tone", "2:3/2");
hard_case!(ch_non_chord_tone_suspension, "CH-non-chord-tone", "1:3");
hard_case!(ch_range, "CH-range", "1:1");
hard_case!(ch_spacing, "CH-spacing", "1:1");
// A part moving above its neighbour also passes the neighbour's note before it.
hard_case!(ch_crossing, "CH-crossing", "2:4", also: ["CH-overlap"]);
hard_case!(ch_overlap, "CH-overlap", "2:4");
hard_case!(ch_parallel_fifths, "CH-parallel-fifths", "1:2");
hard_case!(ch_parallel_octaves, "CH-parallel-octaves", "1:2");
hard_case!(ch_parallel_unisons, "CH-parallel-unisons", "2:2");
hard_case!(ch_contrary_fifths, "CH-contrary-fifths", "1:2");
hard_case!(ch_contrary_octaves, "CH-contrary-octaves", "1:3");
hard_case!(ch_hidden_fifths, "CH-hidden-fifths", "1:3");
hard_case!(ch_hidden_octaves, "CH-hidden-octaves", "1:3");
hard_case!(ch_melodic_interval, "CH-melodic-interval", "1:3");
hard_case!(ch_leading_tone, "CH-leading-tone", "1:4");
hard_case!(ch_seventh, "CH-seventh", "2:4");
hard_case!(ch_doubled_leading_tone, "CH-doubled-leading-tone", "2:3");
hard_case!(ch_cadence, "CH-cadence", "1:4");
hard_case!(ch_cadence_complete, "CH-cadence-complete", "2:4");
hard_case!(ch_final_cadence, "CH-final-cadence", "2:4");
soft_case!(ch_incomplete_chord, "CH-incomplete-chord", "2:2");
soft_case!(ch_doubling, "CH-doubling", "1:1");
soft_case!(ch_six_four, "CH-six-four", "2:1");
soft_case!(ch_unequal_fifths, "CH-unequal-fifths", "1:4");

/// Every rule of the catalogue but the two shape rules has a fixture here.
#[test]
fn every_moment_rule_has_a_fixture() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules");
    for rule in cantus_chorale::rules::moment_rules() {
        let name = rule.id.as_str().to_ascii_lowercase();
        assert!(
            dir.join(format!("{name}.txt")).is_file(),
            "no fixture for {}",
            rule.id
        );
    }
}

/// Under the lenient profile the textbook prohibitions Bach breaks only warn: the
/// hidden-fifths fixture passes, the parallel-fifths one still fails.
#[test]
fn the_lenient_profile_relaxes_only_what_it_says() {
    let judge = |name: &str| {
        let loaded = read_path(&fixture(name), false).expect("reads");
        let options = ReadOptions {
            phrase_ends: Some(vec!["1:4".parse().expect("mark")]),
            profile: cantus_chorale::Profile::Lenient,
            ..ReadOptions::default()
        };
        judge_score(&loaded.score, &options).expect("a chorale").0
    };
    assert!(judge("ch-hidden-fifths").passed);
    assert!(!judge("ch-parallel-fifths").passed);
}

/// A melody note is judged at the first chord it is outside: the soprano is given,
/// so the note after it is known there, and a voicing that makes it a non-chord
/// tone it cannot be breaks the rule in its own beat (online as in the gate), not
/// a beat later where the next melody note begins.
#[test]
fn a_melody_note_is_judged_at_the_first_chord_it_is_outside() {
    let path = fixture("ch-non-chord-tone-melody");
    let loaded = read_path(&path, false).expect("fixture reads strictly");
    let options = ReadOptions {
        phrase_ends: Some(vec!["1:4".parse().expect("a phrase mark")]),
        ..ReadOptions::default()
    };
    let reading = cantus_chorale::read_chorale(&loaded.score, &options).expect("a chorale");
    let a = cantus_chorale::Analysis::new(reading.chorale);
    let at = |b: usize| -> Vec<String> {
        cantus_chorale::rules::judge_beat(&a, b)
            .iter()
            .filter(|f| f.predicate.as_str() == "CH-non-chord-tone")
            .map(|f| f.reason.clone())
            .collect()
    };
    assert_eq!(
        a.beats[1].chord.map(|c| c.root),
        Some(2),
        "beat 2 is D major"
    );
    let found = at(1);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("soprano G4"), "{found:?}");
    assert!(
        at(2).is_empty() && at(3).is_empty(),
        "{:?} {:?}",
        at(2),
        at(3)
    );
    // The gate reports it once, at the tone.
    check(
        "ch-non-chord-tone-melody",
        Severity::Hard,
        "CH-non-chord-tone",
        "1:2",
        &[],
    );
}
