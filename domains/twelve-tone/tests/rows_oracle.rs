//! Agreement with music21 10.5.1: every figure in the oracle file (music21's own output)
//! must come out of the row engine unchanged, in both labelling conventions.

mod rows_support;

use std::path::Path;

use cantus_twelve_tone::row::{Convention, FormTable, Row, RowForm};
use serde_json::Value;

/// Checks every row of an oracle file; returns how many values were compared.
fn check_oracle(path: &Path) -> usize {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let oracle: Value = serde_json::from_str(&text).expect("oracle is JSON");
    let rows = oracle["rows"].as_array().expect("oracle has rows");
    assert!(!rows.is_empty(), "oracle has no rows");
    let mut compared = 0;
    for entry in rows {
        let id = entry["id"].as_str().expect("row id");
        let row = Row::new(&pcs_of(&entry["pcs"])).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(entry["is_twelve_tone"], Value::Bool(true), "{id}");

        for (key, convention) in [
            ("forms", Convention::ZeroCentred),
            ("forms_original_centered", Convention::Relative),
        ] {
            let forms = entry[key].as_object().expect("forms object");
            assert_eq!(forms.len(), 48, "{id} {key}");
            let table = FormTable::new(&row, convention);
            for (label, expected) in forms {
                let form: RowForm = label.parse().unwrap_or_else(|e| panic!("{e}"));
                let expected = pcs_of(expected);
                assert_eq!(
                    row.form(form, convention).as_slice(),
                    expected,
                    "{id} {key} {label}"
                );
                assert_eq!(table.pcs(form).as_slice(), expected, "{id} table {label}");
                compared += 1;
            }
            // Row::forms yields exactly the oracle's 48 labels, in P0..RI11 order.
            let ours: Vec<RowForm> = row.forms(convention).map(|(f, _)| f).collect();
            let mut theirs: Vec<RowForm> =
                forms.keys().map(|k| k.parse().expect("label")).collect();
            theirs.sort();
            assert_eq!(ours, theirs, "{id} {key} labels");
        }

        let matrix: Vec<Vec<u8>> = entry["matrix"]
            .as_array()
            .expect("matrix")
            .iter()
            .map(pcs_of)
            .collect();
        let ours: Vec<Vec<u8>> = row.matrix().iter().map(|r| r.to_vec()).collect();
        assert_eq!(ours, matrix, "{id} matrix");
        compared += 144;

        let table = FormTable::new(&row, Convention::ZeroCentred);
        for (label, expected) in entry["labels"].as_object().expect("labels") {
            let form: RowForm = label.parse().expect("label");
            let expected: Vec<&str> = expected
                .as_array()
                .expect("label list")
                .iter()
                .map(|l| l.as_str().expect("label string"))
                .collect();
            let pcs = row.form(form, Convention::ZeroCentred);
            let ours: Vec<String> = row
                .labels_of(&pcs, Convention::ZeroCentred)
                .iter()
                .map(ToString::to_string)
                .collect();
            assert_eq!(ours, expected, "{id} labels of {label}");
            let via_table: Vec<String> = table
                .labels_of(&pcs)
                .iter()
                .map(ToString::to_string)
                .collect();
            assert_eq!(via_table, expected, "{id} table labels of {label}");
            compared += 1;
        }

        let expected: Vec<&str> = entry["combinatorial_with_P0"]
            .as_array()
            .expect("combinatorial list")
            .iter()
            .map(|l| l.as_str().expect("label"))
            .collect();
        let ours: Vec<String> = row
            .combinatorial_partners(Convention::ZeroCentred)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(ours, expected, "{id} combinatorial_with_P0");
        assert_eq!(
            entry["interval_string"].as_str(),
            Some(row.interval_string().as_str()),
            "{id} interval_string"
        );
        assert_eq!(
            entry["is_all_interval"].as_bool(),
            Some(row.is_all_interval()),
            "{id} is_all_interval"
        );
        compared += 3;
    }
    compared
}

fn pcs_of(value: &Value) -> Vec<u8> {
    value
        .as_array()
        .expect("list of pitch classes")
        .iter()
        .map(|v| {
            let n = v.as_u64().expect("pitch class is a non-negative integer");
            u8::try_from(n).expect("pitch class fits in u8")
        })
        .collect()
}

#[test]
fn shipped_oracle_sample_agrees_with_music21() {
    let compared = check_oracle(&rows_support::fixture("row_oracle_sample.json"));
    // Two rows × (96 forms + 144 matrix cells + 48 label lists + 3 properties).
    assert_eq!(compared, 2 * (96 + 144 + 48 + 3));
}

#[test]
fn shared_oracle_agrees_with_music21() {
    let Some(path) = rows_support::shared_file(
        "data/rows/row_oracle_sample.json",
        "row oracle against shared music21 output",
    ) else {
        return;
    };
    let compared = check_oracle(&path);
    assert!(compared > 0);
}

#[test]
fn oracle_sample_covers_a_symmetric_and_an_asymmetric_row() {
    // The sample is only a strong test if it exercises both shapes of label list.
    let text = std::fs::read_to_string(rows_support::fixture("row_oracle_sample.json"))
        .expect("fixture present");
    let oracle: Value = serde_json::from_str(&text).expect("JSON");
    let label_counts: Vec<usize> = oracle["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["labels"]["P0"].as_array().map_or(0, Vec::len))
        .collect();
    assert!(
        label_counts.contains(&1) && label_counts.contains(&2),
        "{label_counts:?}"
    );
}
