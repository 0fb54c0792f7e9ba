//! `blind::score` on a hand-made key and ratings: counts, rates, κ and per-rater
//! agreement as worked by hand; and ratings files that break the contract are
//! refused with their line and column.

mod common;

use cantus_render::blind::{CSV_HEADER, score};
use std::path::PathBuf;

/// Pair 1: A is harness. Pair 2: A is raw.
const KEY: &str = r#"{"seed": 3, "conditions": ["harness", "raw"], "pairs": [
  {"pair": "pair-01", "A": {"condition": "harness"}, "B": {"condition": "raw"}},
  {"pair": "pair-02", "A": {"condition": "raw"}, "B": {"condition": "harness"}}]}"#;

fn write(dir: &std::path::Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn csv(rater: &str, answers: &[(&str, &str, &str)]) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    for (pair, criterion, pref) in answers {
        out.push_str(&format!("{rater},{pair},{criterion},{pref},3,4\n"));
    }
    out
}

#[test]
fn scores_match_the_hand_count() {
    let dir = common::temp_dir("score");
    let key = write(&dir, "key.json", KEY);
    // Coherence only (other criteria unanswered). In conditions:
    //   pair-01: r1 A=harness, r2 A=harness, r3 none
    //   pair-02: r1 B=harness, r2 A=raw,     r3 B=harness
    // harness 4/6, raw 1/6, none 1/6.
    // Fleiss (categories harness, raw, none): pair-01 [2,0,1] P=(4+1-3)/6=1/3,
    // pair-02 [2,1,0] P=1/3; P̄=1/3; p=(4/6,1/6,1/6), P̄e=(16+1+1)/36=1/2;
    // κ=(1/3-1/2)/(1/2) = -1/3.
    let files = [
        write(
            &dir,
            "r1.csv",
            &csv(
                "r1",
                &[("pair-01", "coherence", "A"), ("pair-02", "coherence", "B")],
            ),
        ),
        write(
            &dir,
            "r2.csv",
            &csv(
                "r2",
                &[("pair-01", "coherence", "A"), ("pair-02", "coherence", "A")],
            ),
        ),
        write(
            &dir,
            "r3.csv",
            &csv(
                "r3",
                &[
                    ("pair-01", "coherence", "none"),
                    ("pair-02", "coherence", "B"),
                ],
            ),
        ),
    ];
    let scores = score(&key, &files).expect("scored");
    assert_eq!((scores.raters, scores.rows, scores.pairs_rated), (3, 6, 2));
    let coherence = scores
        .criteria
        .iter()
        .find(|c| c.criterion.id() == "coherence")
        .unwrap();
    assert_eq!(coherence.answers, 6);
    let counts: Vec<usize> = coherence.preferences.iter().map(|p| p.count).collect();
    assert_eq!(counts, [4, 1, 1]);
    assert!((coherence.preferences[0].rate - 4.0 / 6.0).abs() < 1e-12);
    assert!(
        (coherence.kappa.unwrap() + 1.0 / 3.0).abs() < 1e-12,
        "{:?}",
        coherence.kappa
    );
    assert_eq!(coherence.kappa_pairs, 2);
    // Ratings: A is rated 3 and B 4 throughout, so harness gets 3 on pair-01 and 4 on
    // pair-02 (mean 3.5), raw the same.
    assert_eq!(coherence.mean_rating, [Some(3.5), Some(3.5)]);
    // Agreement with the others' majority: on pair-01 the others of r1 are {harness,
    // none} (a tie: skipped); of r2 the same; of r3 {harness, harness} → r3 disagrees.
    // On pair-02: r1's others {raw, harness} tie; r2's others {harness, harness} → r2
    // disagrees; r3's others {harness, raw} tie.
    let agreement: Vec<(String, usize, Option<f64>)> = scores
        .per_rater
        .iter()
        .map(|r| (r.rater.clone(), r.compared, r.agreement))
        .collect();
    assert_eq!(
        agreement,
        [
            ("r1".into(), 0, None),
            ("r2".into(), 1, Some(0.0)),
            ("r3".into(), 1, Some(0.0))
        ]
    );
    let other = scores
        .criteria
        .iter()
        .find(|c| c.criterion.id() == "overall-quality")
        .unwrap();
    assert_eq!(other.answers, 0);
    assert!(scores.text().contains("3 raters, 6 rows, 2 pairs rated"));
}

#[test]
fn broken_ratings_are_refused_with_line_and_column() {
    let dir = common::temp_dir("broken");
    let key = write(&dir, "key.json", KEY);
    let cases = [
        ("rater,pair\n", "line 1"),
        (
            &format!("{CSV_HEADER}\nr1,pair-09,coherence,A,3,4\n") as &str,
            "line 2, column 2",
        ),
        (
            &format!("{CSV_HEADER}\nr1,pair-01,beauty,A,3,4\n"),
            "line 2, column 3",
        ),
        (
            &format!("{CSV_HEADER}\nr1,pair-01,coherence,C,3,4\n"),
            "line 2, column 4",
        ),
        (
            &format!("{CSV_HEADER}\nr1,pair-01,coherence,A,3,9\n"),
            "line 2, column 6",
        ),
        (&format!("{CSV_HEADER}\nr1,pair-01,coherence\n"), "3 fields"),
    ];
    for (text, want) in cases {
        let file = write(&dir, "bad.csv", text);
        let err = score(&key, &[file]).expect_err(text).to_string();
        assert!(
            err.contains(want) && err.contains("bad.csv"),
            "{text:?}: {err}"
        );
    }
}

/// Issue 28, finding 6: one rater's answer for one pair and criterion counts once,
/// however often it is read; two different answers are refused, naming both rows.
#[test]
fn an_answer_read_twice_counts_once_and_a_changed_answer_is_refused() {
    let dir = common::temp_dir("duplicates");
    let key = write(&dir, "key.json", KEY);
    let answers = [("pair-01", "coherence", "A"), ("pair-02", "coherence", "B")];
    let r1 = write(&dir, "r1.csv", &csv("r1", &answers));
    let r2 = write(
        &dir,
        "r2.csv",
        &csv("r2", &[("pair-01", "coherence", "none")]),
    );
    let once = score(&key, &[r1.clone(), r2.clone()]).expect("scored");
    // The same file given twice (and r2's twice): every count as with each once.
    let twice = score(&key, &[r1.clone(), r2.clone(), r1.clone(), r2.clone()]).expect("scored");
    let counts = |s: &cantus_render::blind::Scores| -> Vec<(usize, Vec<usize>, [Option<f64>; 2])> {
        s.criteria
            .iter()
            .map(|c| {
                (
                    c.answers,
                    c.preferences.iter().map(|p| p.count).collect(),
                    c.mean_rating,
                )
            })
            .collect()
    };
    assert_eq!(counts(&twice), counts(&once));
    assert_eq!((once.rows, once.repeated), (3, 0));
    assert_eq!((twice.rows, twice.repeated), (6, 3));
    assert_eq!(twice.raters, 2);
    assert!(
        twice
            .text()
            .contains("3 rows repeated an answer already read"),
        "{}",
        twice.text()
    );
    // A second export that fills in what the first left empty completes the answer.
    let partial = write(
        &dir,
        "partial.csv",
        &format!("{CSV_HEADER}\nr3,pair-01,coherence,A,,\n"),
    );
    let later = write(
        &dir,
        "later.csv",
        &format!("{CSV_HEADER}\nr3,pair-01,coherence,A,2,5\n"),
    );
    let filled = score(&key, &[partial, later]).expect("scored");
    let coherence = filled
        .criteria
        .iter()
        .find(|c| c.criterion.id() == "coherence")
        .unwrap();
    assert_eq!(coherence.answers, 1);
    assert_eq!(coherence.mean_rating, [Some(2.0), Some(5.0)]);
    // r1 changes its mind on pair-01 (B is raw there): refused, both rows named.
    let changed = write(
        &dir,
        "changed.csv",
        &format!("{CSV_HEADER}\nr1,pair-02,coherence,B,3,4\nr1,pair-01,coherence,B,3,4\n"),
    );
    let err = score(&key, &[r1.clone(), changed.clone()])
        .expect_err("two answers")
        .to_string();
    assert!(
        err.contains(&format!("{}: line 3", changed.display()))
            && err.contains(&format!("{} line 2", r1.display()))
            && err.contains("rater \"r1\"")
            && err.contains("pair-01 coherence")
            && err.contains("harness there, raw here"),
        "{err}"
    );
    // Within one file too, and for a rating.
    let rerated = write(
        &dir,
        "rerated.csv",
        &format!("{CSV_HEADER}\nr1,pair-01,coherence,A,3,4\nr1,pair-01,coherence,A,3,5\n"),
    );
    let err = score(&key, &[rerated])
        .expect_err("two ratings")
        .to_string();
    assert!(
        err.contains("line 3") && err.contains("rating 4 there, 5 here"),
        "{err}"
    );
}
