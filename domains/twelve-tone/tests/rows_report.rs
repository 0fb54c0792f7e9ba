//! `cantus rows` output: the human display (snapshot, read) and the JSON's shape.

use cantus_twelve_tone::row::{Convention, RowsReport, resolve};
use serde_json::Value;

#[test]
fn schoenberg_op26_display() {
    let op26 = resolve("SchoenbergOp26").expect("Op. 26");
    let report = RowsReport::new(&op26.row, Some(&op26.id), Convention::ZeroCentred);
    insta::assert_snapshot!("rows_report_schoenberg_op26", report.to_string());
}

#[test]
fn webern_op21_relative_display() {
    let op21 = resolve("WebernOp21").expect("Op. 21");
    let report = RowsReport::new(&op21.row, Some(&op21.id), Convention::Relative);
    insta::assert_snapshot!("rows_report_webern_op21_relative", report.to_string());
}

#[test]
fn json_lists_forms_in_label_order_with_properties() {
    let lyric = resolve("Berg Lyric Suite").expect("Lyric Suite");
    let report = RowsReport::new(&lyric.row, Some(&lyric.id), Convention::ZeroCentred);
    let json = report.to_json();
    let value: Value = serde_json::from_str(&json).expect("valid JSON");
    assert_eq!(value["name"], "BergLyricSuite");
    assert_eq!(value["convention"], "zero-centred");
    assert_eq!(
        value["row"],
        serde_json::json!([5, 4, 0, 9, 7, 2, 8, 1, 3, 6, 10, 11])
    );
    assert_eq!(value["all_interval"], true);
    assert_eq!(value["symmetries"], serde_json::json!(["R6"]));
    assert_eq!(value["matrix"].as_array().map(Vec::len), Some(12));
    assert_eq!(
        value["forms"]["P0"],
        serde_json::json!([0, 11, 7, 4, 2, 9, 3, 8, 10, 1, 5, 6])
    );
    // Keys appear in the text in P0..P11, I0.., R0.., RI0..RI11 order.
    let positions: Vec<usize> = [
        "\"P0\"", "\"P11\"", "\"I0\"", "\"I11\"", "\"R0\"", "\"RI0\"", "\"RI11\"",
    ]
    .iter()
    .map(|key| json.find(key).unwrap_or_else(|| panic!("{key} missing")))
    .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    assert_eq!(value["forms"].as_object().map(|m| m.len()), Some(48));
}

#[test]
fn an_unnamed_row_has_no_name_field() {
    let row = cantus_twelve_tone::row::Row::all_interval(3);
    let report = RowsReport::new(&row, None, Convention::ZeroCentred);
    let value: Value = serde_json::from_str(&report.to_json()).expect("valid JSON");
    assert!(value.get("name").is_none());
    assert_eq!(value["all_interval"], true);
    assert!(report.to_string().starts_with("Row\n"));
}
