//! The shipped serial reference (`data/serial-reference.json`) is what Cantus
//! computes from its own pieces: recomputing a small deterministic subset — the
//! bank's 4-bar briefs at seed 0, composed and written as `cantus bank` writes
//! them — gives a table of the same format and axes, and every recomputed raw
//! value is one of the shipped column's values.

use cantus_framework::Outcome;
use cantus_libretto::fingerprint::raw_axes;
use cantus_libretto::reference::{SERIAL_JSON, table_json};
use cantus_libretto::{Axis, Calibration, Degeneracy, Layout};
use cantus_music::format::{Format, render};
use cantus_twelve_tone::EmbeddedProposer;
use cantus_twelve_tone::compose::{Composer, budget};
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::spec::compile_brief;
use serde_json::Value;
use std::collections::BTreeSet;

/// The bank's briefs with their 1-based line numbers (as `cantus bank` numbers them).
fn bank() -> Vec<(usize, String)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/briefs/bank.txt"
    );
    let text = std::fs::read_to_string(path).expect("the brief bank ships with the repository");
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim().to_owned()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn recomputing_a_subset_agrees_with_the_shipped_table() {
    let shipped: Value = serde_json::from_str(SERIAL_JSON).unwrap();
    let table = Calibration::serial();
    let names: BTreeSet<&str> = shipped["header"]["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(names.len(), table.pieces());
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut pieces = Vec::new();
    let mut subset = Vec::new();
    for (line, brief) in bank().into_iter().filter(|(_, b)| b.contains("4-bar")) {
        let spec = compile_brief(&brief).unwrap().spec;
        let composed = rt
            .block_on(Composer::new(GateMode::Strict, budget()).compose(
                &spec,
                0,
                &EmbeddedProposer,
            ))
            .unwrap();
        let Outcome::Released { artefact, .. } = &composed.outcome else {
            panic!("bank line {line} seed 0 is released in the shipped table");
        };
        let name = format!("{line:03}-s0/piece.txt");
        assert!(names.contains(name.as_str()), "{name} in the shipped table");
        // Measured from the text file, as `cantus calibrate` reads a bank folder.
        let text = String::from_utf8(render(artefact, Format::Grammar).unwrap()).unwrap();
        let raw = raw_axes(&Layout::from_text(&text).unwrap()).unwrap();
        for axis in Axis::ALL {
            let v = raw[axis.index()];
            let column = &table.column(axis).values;
            assert!(
                column
                    .iter()
                    .any(|&x| (x - v).abs() <= 1e-12 * v.abs().max(1.0)),
                "{name}: {} = {v} is not in the shipped column",
                axis.id()
            );
        }
        pieces.push(raw);
        subset.push(name);
    }
    assert!(pieces.len() >= 5, "{subset:?}");
    // The subset's table has the shipped table's format: header keys, axis order,
    // per-axis keys, and a degeneracy header of the same shape.
    let (_, doc) = table_json("subset", &pieces, &subset);
    assert_eq!(keys(&doc), keys(&shipped));
    assert_eq!(keys(&doc["header"]), keys(&shipped["header"]));
    assert_eq!(doc["axes_order"], shipped["axes_order"]);
    for axis in Axis::ALL {
        assert_eq!(
            keys(&doc["axes"][axis.id()]),
            keys(&shipped["axes"][axis.id()])
        );
        assert_eq!(doc["axes"][axis.id()]["n"], pieces.len());
    }
    assert_eq!(
        keys(&doc["header"]["degeneracy"]),
        keys(&shipped["header"]["degeneracy"])
    );
    let again = Degeneracy::from_table_json(&doc.to_string())
        .unwrap()
        .unwrap();
    assert!((3..=6).contains(&again.budget));
}

#[test]
fn ordinary_embedded_pieces_are_mostly_not_degenerate() {
    // The reference must not call the style's own pieces degenerate: of the
    // bank's briefs at seed 0, at least 85% pass the serial degeneracy gate
    // (the budget rule lets 85% of the reference through by construction).
    let table = Calibration::serial();
    let gate = Degeneracy::serial();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let (mut released, mut passed) = (0, 0);
    for (_, brief) in bank().into_iter().filter(|(_, b)| !b.contains("64-bar")) {
        let spec = compile_brief(&brief).unwrap().spec;
        let composed = rt
            .block_on(Composer::new(GateMode::Strict, budget()).compose(
                &spec,
                0,
                &EmbeddedProposer,
            ))
            .unwrap();
        if let Outcome::Released { artefact, .. } = &composed.outcome {
            released += 1;
            let fp = cantus_libretto::fingerprint(artefact, table).unwrap();
            if gate.check(&fp).passed {
                passed += 1;
            }
        }
    }
    assert!(passed * 100 >= released * 85, "{passed} of {released} pass");
}
