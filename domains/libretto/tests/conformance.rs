//! Conformance with the original implementation on its two fixtures: raw values
//! to 1e-9 relative (reference values computed by Libretto v2.2's
//! `metric_discovery.metrics_for`, stored in `fixtures/reference_raw.json`) and
//! the stored percentile profiles exactly.

use cantus_libretto::{Axis, Calibration, fingerprint_text};
use serde_json::Value;
use std::path::PathBuf;

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

#[test]
fn fixtures_match_the_original_raw_values_and_percentiles() {
    let reference: Value = serde_json::from_str(&fixture("reference_raw.json")).unwrap();
    for piece in ["round1", "round2"] {
        let fp = fingerprint_text(&fixture(&format!("{piece}.txt")), Calibration::original())
            .expect("fixture measures");
        let raw = &reference[format!("{piece}.txt")];
        let profile: Value = serde_json::from_str(&fixture(&format!("{piece}.json"))).unwrap();
        let mut checked = 0;
        for r in &fp.readings {
            let want = raw[r.axis.id()].as_f64().expect("reference value");
            assert!(
                close(r.raw, want),
                "{piece} {}: ours {} original {want}",
                r.axis.id(),
                r.raw
            );
            if let Some(p) = profile.get(r.axis.id()).and_then(Value::as_u64) {
                assert_eq!(
                    u64::from(r.percentile),
                    p,
                    "{piece} {} percentile",
                    r.axis.id()
                );
                checked += 1;
            }
        }
        // The stored profiles hold the 28 validated axes (all but the variation).
        assert_eq!(checked, 28, "{piece}");
        assert!(fp.get(Axis::WithinSongVariation).raw > 0.0);
    }
}

#[test]
fn a_score_is_measured_as_its_canonical_text() {
    // The score path lays a score out as Libretto's encoder would; for a piece
    // already on binary grids that is the same music as its text.
    for piece in ["round1", "round2"] {
        let text = fixture(&format!("{piece}.txt"));
        let score =
            cantus_music::grammar::parse(&text, &cantus_music::grammar::ParseOptions::named(piece))
                .expect("fixture reads strictly")
                .score;
        let from_score = cantus_libretto::fingerprint(&score, Calibration::original()).unwrap();
        let from_text = fingerprint_text(&text, Calibration::original()).unwrap();
        for (a, b) in from_score.readings.iter().zip(&from_text.readings) {
            assert!(
                close(a.raw, b.raw),
                "{piece} {}: score {} text {}",
                a.axis.id(),
                a.raw,
                b.raw
            );
            assert_eq!(a.percentile, b.percentile);
        }
    }
}

#[test]
fn what_the_originals_parser_tolerates_is_measured_as_it_measures_it() {
    // Ten mutations of the fixtures: silent bars, an onset past the barline, an
    // undeclared voice, a bar line without brackets, a triplet header grid with a
    // binary override, 6/8, no VOICES line, unreadable tokens and a tab-indented
    // line, repeated bar numbers, a prose line. Reference: the original's values.
    let reference: Value = serde_json::from_str(&fixture("quirks_reference.json")).unwrap();
    let pieces = reference["pieces"].as_object().unwrap();
    assert_eq!(pieces.len(), 10);
    for (name, axes) in pieces {
        let fp = fingerprint_text(&fixture(&format!("quirks/{name}")), Calibration::original())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for r in &fp.readings {
            let want = axes[r.axis.id()].as_f64().unwrap();
            assert!(
                close(r.raw, want),
                "{name} {}: ours {} original {want}",
                r.axis.id(),
                r.raw
            );
        }
    }
}
