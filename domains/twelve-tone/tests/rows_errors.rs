//! What a user sees when a row is wrong: the messages are snapshotted (and were read)
//! so they stay precise — the count, the value, the positions, what is missing.

use cantus_twelve_tone::row::{Convention, Row, RowError, RowForm, resolve};

fn message(result: Result<Row, RowError>) -> String {
    result.expect_err("should be rejected").to_string()
}

#[test]
fn eleven_pitch_classes() {
    let err = Row::new(&[0, 11, 7, 8, 3, 1, 2, 10, 6, 5, 4]).expect_err("11 pcs");
    assert_eq!(
        err,
        RowError::WrongLength {
            got: 11,
            missing: vec![9]
        }
    );
    insta::assert_snapshot!("rows_error_eleven", err.to_string());
}

#[test]
fn thirteen_pitch_classes() {
    let err = message(Row::new(&[0, 11, 7, 8, 3, 1, 2, 10, 6, 5, 4, 9, 0]));
    insta::assert_snapshot!("rows_error_thirteen", err);
}

#[test]
fn a_duplicate() {
    let err = Row::new(&[0, 11, 7, 8, 3, 1, 2, 10, 6, 5, 4, 7]).expect_err("7 twice");
    assert_eq!(
        err,
        RowError::Duplicate {
            pc: 7,
            positions: vec![2, 11],
            missing: vec![9]
        }
    );
    insta::assert_snapshot!("rows_error_duplicate", err.to_string());
}

#[test]
fn an_out_of_range_value() {
    let err = Row::new(&[0, 11, 7, 8, 3, 1, 12, 10, 6, 5, 4, 9]).expect_err("12");
    assert_eq!(
        err,
        RowError::OutOfRange {
            value: 12,
            position: 6
        }
    );
    insta::assert_snapshot!("rows_error_out_of_range", err.to_string());
    // Negative numbers in text are out of range too, not unreadable.
    let err = Row::parse("0 11 7 8 3 1 -2 10 6 5 4 9").expect_err("-2");
    assert_eq!(
        err,
        RowError::OutOfRange {
            value: -2,
            position: 6
        }
    );
}

#[test]
fn an_unreadable_token_names_its_column() {
    let err = Row::parse("0, 11, 7, 8, 3, 1, 2, X, 6, 5, 4, 9").expect_err("X");
    assert_eq!(
        err,
        RowError::Unreadable {
            token: "X".into(),
            column: 23
        }
    );
    insta::assert_snapshot!("rows_error_unreadable", err.to_string());
}

#[test]
fn unknown_and_ambiguous_historical_names() {
    let unknown = resolve("Webern Op. 99")
        .expect_err("no Op. 99 row")
        .to_string();
    insta::assert_snapshot!("rows_error_unknown_name", unknown);
    let ambiguous = resolve("Schoenberg Op. 33")
        .expect_err("33A or 33B")
        .to_string();
    insta::assert_snapshot!("rows_error_ambiguous_name", ambiguous);
}

#[test]
fn bad_form_labels_and_conventions() {
    for bad in ["Q3", "P12", "RI", "I-1", "P1.5", ""] {
        let err = bad.parse::<RowForm>().expect_err(bad).to_string();
        assert!(err.contains(&format!("{bad:?}")), "{err}");
    }
    insta::assert_snapshot!(
        "rows_error_form_label",
        "P12".parse::<RowForm>().expect_err("P12").to_string()
    );
    let err = "absolute"
        .parse::<Convention>()
        .expect_err("absolute")
        .to_string();
    assert!(
        err.contains("zero-centred") && err.contains("relative"),
        "{err}"
    );
}

#[test]
fn accepted_spellings() {
    let expected = Row::new(&[0, 11, 7, 8, 3, 1, 2, 10, 6, 5, 4, 9]).expect("row");
    for text in [
        "0 11 7 8 3 1 2 10 6 5 4 9",
        "0,11,7,8,3,1,2,10,6,5,4,9",
        "[0, 11, 7, 8, 3, 1, 2, 10, 6, 5, 4, 9]",
        "0 E 7 8 3 1 2 T 6 5 4 9",
        "0 B 7 8 3 1 2 A 6 5 4 9",
        "0E78312T6549",
        "C B G Ab Eb Db D Bb F# F E A",
        "c b g g# d# c# d a# f# f e a",
        "C B G A♭ E♭ D♭ D B♭ F♯ F E A",
    ] {
        assert_eq!(Row::parse(text), Ok(expected), "{text:?}");
    }
    for (label, form) in [
        ("P0", "P0"),
        ("T5", "P5"),
        ("ri11", "RI11"),
        ("I3", "I3"),
        ("R10", "R10"),
    ] {
        assert_eq!(
            label.parse::<RowForm>().map(|f| f.to_string()),
            Ok(form.to_string())
        );
    }
    for (text, convention) in [
        ("zero-centred", Convention::ZeroCentred),
        ("Zero-Centered", Convention::ZeroCentred),
        ("relative", Convention::Relative),
    ] {
        assert_eq!(text.parse::<Convention>(), Ok(convention));
    }
    assert_eq!(
        serde_json::to_string(&Convention::ZeroCentred).expect("json"),
        "\"zero-centred\""
    );
    let label: RowForm = serde_json::from_str("\"RI11\"").expect("label from JSON");
    assert_eq!(serde_json::to_string(&label).expect("json"), "\"RI11\"");
}

#[test]
fn deserialising_a_bad_row_explains_why() {
    let err = serde_json::from_str::<Row>("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10]")
        .expect_err("10 twice")
        .to_string();
    assert!(err.contains("pitch class 10 occurs 2 times"), "{err}");
    let err = serde_json::from_str::<Row>("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 300]")
        .expect_err("300")
        .to_string();
    assert!(
        err.contains("pitch class 300 at the 12th position"),
        "{err}"
    );
}
