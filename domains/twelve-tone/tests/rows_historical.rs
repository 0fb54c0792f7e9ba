//! The 71 historical rows shipped with the program: all valid, the facts the shared
//! README states about them (one all-interval row, seven symmetric rows with given
//! labels), and the name resolver a spec or the CLI uses to find them.

mod rows_support;

use cantus_twelve_tone::row::{Convention, FormKind, RowError, RowForm, historical_rows, resolve};

fn label(text: &str) -> RowForm {
    text.parse().expect("valid label")
}

#[test]
fn the_table_holds_71_distinct_valid_rows_sorted_by_id() {
    let rows = historical_rows();
    assert_eq!(rows.len(), 71);
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(ids, sorted, "ids sorted and unique");
    for r in rows {
        let mut pcs = r.row.pcs();
        pcs.sort_unstable();
        assert_eq!(pcs, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], "{}", r.id);
        assert_eq!(r.legacy_class_name, format!("Row{}", r.id));
        assert!(["Schoenberg", "Webern", "Berg"].contains(&r.composer.as_str()));
    }
    // Different pieces, different rows — except Webern's two Op. 19 songs, which
    // music21 stores as two forms of one row (the README's "no duplicates" is about
    // the stored pitch-class lists, which do differ).
    let mut related = Vec::new();
    for (i, a) in rows.iter().enumerate() {
        for b in &rows[i + 1..] {
            let labels = a.row.labels_of(&b.row.pcs(), Convention::ZeroCentred);
            if !labels.is_empty() {
                related.push((a.id.as_str(), b.id.as_str()));
            }
        }
    }
    assert_eq!(related, [("WebernOp19No1", "WebernOp19No2")]);
}

#[test]
fn exactly_one_row_is_all_interval_the_lyric_suite() {
    let all_interval: Vec<&str> = historical_rows()
        .iter()
        .filter(|r| r.row.is_all_interval())
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(all_interval, ["BergLyricSuite"]);
}

#[test]
fn exactly_the_seven_symmetric_rows_have_the_stated_symmetries() {
    let expected = [
        ("BergLyricSuite", "R6"),
        ("SchoenbergOp24Mvmt5", "RI5"),
        ("SchoenbergOp41", "RI9"),
        ("WebernOp21", "R6"),
        ("WebernOp28", "RI9"),
        ("WebernOp29", "RI5"),
        ("WebernOp30", "RI11"),
    ];
    let found: Vec<(&str, Vec<String>)> = historical_rows()
        .iter()
        .filter_map(|r| {
            let sym = r.row.symmetries(Convention::ZeroCentred);
            (!sym.is_empty())
                .then(|| (r.id.as_str(), sym.iter().map(ToString::to_string).collect()))
        })
        .collect();
    let expected: Vec<(&str, Vec<String>)> = expected
        .iter()
        .map(|&(id, l)| (id, vec![l.to_string()]))
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn symmetric_rows_give_every_form_two_labels_and_the_rest_one() {
    for r in historical_rows() {
        let symmetric = !r.row.symmetries(Convention::ZeroCentred).is_empty();
        for convention in [Convention::ZeroCentred, Convention::Relative] {
            for (form, pcs) in r.row.forms(convention) {
                let labels = r.row.labels_of(&pcs, convention);
                assert_eq!(
                    labels.len(),
                    if symmetric { 2 } else { 1 },
                    "{} {form}",
                    r.id
                );
            }
        }
        // Symmetry does not depend on the labelling convention.
        assert_eq!(
            r.row.symmetries(Convention::ZeroCentred),
            r.row.symmetries(Convention::Relative),
            "{}",
            r.id
        );
    }
}

#[test]
fn the_readme_examples_hold() {
    // music21's doctest: SchoenbergOp26 P0 and R8.
    let op26 = resolve("SchoenbergOp26").expect("Op. 26");
    assert_eq!(
        op26.row.form(label("P0"), Convention::ZeroCentred),
        [0, 4, 6, 8, 10, 9, 7, 11, 1, 3, 5, 2]
    );
    assert_eq!(
        op26.row.form(label("R8"), Convention::ZeroCentred),
        [10, 1, 11, 9, 7, 3, 5, 6, 4, 2, 0, 8]
    );
    // The usually quoted Op. 21 row A F# G Ab E F B Bb D C# C Eb is I9 of the stored row.
    let op21 = resolve("WebernOp21").expect("Op. 21");
    let usual = [9, 6, 7, 8, 4, 5, 11, 10, 2, 1, 0, 3];
    assert!(
        op21.row
            .labels_of(&usual, Convention::ZeroCentred)
            .contains(&label("I9"))
    );
    // The B-A-C-H form of Op. 28 is P10.
    let op28 = resolve("WebernOp28").expect("Op. 28");
    assert_eq!(
        op28.row.form(label("P10"), Convention::ZeroCentred)[..4],
        [10, 9, 0, 11]
    );
}

#[test]
fn names_resolve_however_people_write_them() {
    for (name, id) in [
        ("WebernOp21", "WebernOp21"),
        ("webernop21", "WebernOp21"),
        ("webern op. 21", "WebernOp21"),
        ("Webern's Op. 21", "WebernOp21"),
        ("Op 21 by Webern", "WebernOp21"),
        ("Anton Webern, opus 21", "WebernOp21"),
        ("Berg Lyric Suite", "BergLyricSuite"),
        ("Schoenberg Op 25", "SchoenbergOp25"),
        ("Schönberg Op. 25", "SchoenbergOp25"),
        ("RowSchoenbergOp25", "SchoenbergOp25"),
        ("Schoenberg Wind Quintet", "SchoenbergOp26"),
        ("Schoenberg Op. 33a", "SchoenbergOp33A"),
        ("Webern Op. 17, No. 1", "WebernOpNo17No1"),
        ("Berg Wozzeck", "BergWozzeckPassacaglia"),
        ("Berg Violin Concerto", "BergViolinConcerto"),
    ] {
        match resolve(name) {
            Ok(r) => assert_eq!(r.id, id, "{name:?}"),
            Err(e) => panic!("{name:?} should resolve to {id}: {e}"),
        }
    }
}

#[test]
fn ambiguous_names_list_their_candidates() {
    for (name, candidates) in [
        (
            "Schoenberg Op. 33",
            vec!["SchoenbergOp33A", "SchoenbergOp33B"],
        ),
        (
            "Schoenberg Op 24",
            vec!["SchoenbergOp24Mvmt4", "SchoenbergOp24Mvmt5"],
        ),
        ("Op. 25", vec!["SchoenbergOp25", "WebernOp25"]),
    ] {
        match resolve(name) {
            Err(RowError::AmbiguousHistorical {
                candidates: got, ..
            }) => {
                assert_eq!(got, candidates, "{name:?}")
            }
            other => panic!("{name:?} should be ambiguous, got {other:?}"),
        }
    }
    let message = resolve("Schoenberg Op. 33")
        .expect_err("ambiguous")
        .to_string();
    assert!(message.contains("SchoenbergOp33A") && message.contains("SchoenbergOp33B"));
}

#[test]
fn unknown_names_suggest_close_ids() {
    match resolve("Webern Op. 211") {
        Err(RowError::UnknownHistorical { suggestions, .. }) => {
            assert!(suggestions.len() <= 3 && !suggestions.is_empty());
            assert_eq!(suggestions[0], "WebernOp21", "{suggestions:?}");
        }
        other => panic!("expected unknown, got {other:?}"),
    }
    match resolve("Shoenberg Op 26") {
        Err(RowError::UnknownHistorical { suggestions, .. }) => {
            assert_eq!(
                suggestions.first().map(String::as_str),
                Some("SchoenbergOp26")
            )
        }
        other => panic!("expected unknown, got {other:?}"),
    }
    // A number is never completed into a longer one.
    assert!(matches!(
        resolve("Schoenberg Op 3"),
        Err(RowError::UnknownHistorical { .. })
    ));
    assert!(resolve("").is_err());
}

#[test]
fn the_shipped_table_matches_the_shared_copy() {
    let Some(path) = rows_support::shared_file(
        "data/rows/historical_rows.json",
        "shipped historical rows against the shared copy",
    ) else {
        return;
    };
    let shared = std::fs::read_to_string(path).expect("readable");
    let shipped = include_str!("../data/historical_rows.json");
    assert_eq!(
        shipped, shared,
        "data/historical_rows.json drifted from shared"
    );
}

#[test]
fn prime_forms_start_on_their_number() {
    let op26 = resolve("SchoenbergOp26").expect("Op. 26").row;
    for n in 0..12 {
        let p = op26.form(RowForm::new(FormKind::P, n), Convention::ZeroCentred);
        assert_eq!(p[0], n);
        let r = op26.form(RowForm::new(FormKind::R, n), Convention::ZeroCentred);
        assert_eq!(r[11], n);
        let t = op26.form(RowForm::new(FormKind::P, n), Convention::Relative);
        assert_eq!(t[0], (op26.first() + n) % 12);
    }
}
