//! Conformance on 83 pieces of the shared corpus (40 chorales, 40 folk tunes, 3
//! atonal pieces): each MIDI file is written as canonical Cantus text and
//! measured; every raw axis must equal the original implementation's value on
//! that same text (`fixtures/corpus_reference.json`) to 1e-9 relative.

use cantus_libretto::{Calibration, fingerprint_text};
use serde_json::Value;
use std::path::PathBuf;

fn shared_dir() -> PathBuf {
    std::env::var_os("CANTUS_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        PathBuf::from,
    )
}

#[test]
fn corpus_texts_match_the_original() {
    let shared = shared_dir();
    let corpus = shared.join("data/corpus");
    if !corpus.is_dir() {
        assert!(
            std::env::var("CANTUS_REQUIRE_SHARED").as_deref() != Ok("1"),
            "shared data not found at {}",
            shared.display()
        );
        eprintln!(
            "SKIPPED: corpus conformance (shared data not found at {}; set CANTUS_SHARED)",
            shared.display()
        );
        return;
    }
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus_reference.json");
    let reference: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let pieces = reference["pieces"].as_object().unwrap();
    let mut checked = 0;
    for (stem, axes) in pieces {
        let file = ["bach_chorales", "folk_oneills1850", "atonal"]
            .iter()
            .map(|set| corpus.join(set).join(format!("{stem}.mid")))
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("{stem}.mid not in the corpus"));
        let loaded = cantus_music::format::read_path(&file, true).expect("corpus file reads");
        let text = cantus_music::grammar::write(&loaded.score).expect("corpus piece writes");
        let fp = fingerprint_text(&text, Calibration::original()).expect("measures");
        for r in &fp.readings {
            let want = axes[r.axis.id()].as_f64().unwrap();
            let ok = r.raw == want || (r.raw - want).abs() <= 1e-9 * r.raw.abs().max(want.abs());
            assert!(ok, "{stem} {}: ours {} original {want}", r.axis.id(), r.raw);
        }
        checked += 1;
    }
    assert_eq!(checked, 83);
}
