//! Corpus-wide: every historical row music21 ships (shared/data/rows/historical_rows.json)
//! can be asked for in a brief, by its id, by its pitch classes, and (where the
//! composer and opus pick out one row) the way people write it: "on Webern's Op. 21 row".
//!
//! The shared directory comes from `CANTUS_SHARED` (default `<workspace>/../shared`).
//! Without it the test prints `SKIPPED: …` and passes, unless `CANTUS_REQUIRE_SHARED=1`.

use std::collections::HashMap;
use std::path::PathBuf;

use cantus_twelve_tone::spec::{RowChoice, compile_brief};
use serde::Deserialize;

#[derive(Deserialize)]
struct HistoricalEntry {
    id: String,
    composer: String,
    opus: Option<String>,
    pcs: Vec<u8>,
}

fn shared_dir() -> PathBuf {
    match std::env::var_os("CANTUS_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    }
}

/// The shared rows, or `None` (after printing why) when the test should be skipped.
fn load_rows() -> Option<Vec<HistoricalEntry>> {
    let dir = shared_dir();
    let path = dir.join("data/rows/historical_rows.json");
    if !path.is_file() {
        let required = std::env::var("CANTUS_REQUIRE_SHARED").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "CANTUS_REQUIRE_SHARED=1 but {} does not exist",
            path.display()
        );
        eprintln!(
            "SKIPPED: historical rows in briefs (shared data not found at {}; set CANTUS_SHARED)",
            dir.display()
        );
        return None;
    }
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn row_of(brief: &str) -> RowChoice {
    match compile_brief(brief) {
        Ok(compiled) => {
            assert!(
                compiled.not_understood.is_empty(),
                "{brief:?}: {:?}",
                compiled.not_understood
            );
            compiled.spec.row
        }
        Err(e) => panic!("{brief:?}: {e}"),
    }
}

#[test]
fn every_historical_row_can_be_asked_for_in_a_brief() {
    let Some(rows) = load_rows() else { return };
    assert_eq!(rows.len(), 71, "music21 10.5.1 ships 71 rows");
    let mut by_opus: HashMap<(String, String), usize> = HashMap::new();
    for row in &rows {
        if let Some(opus) = &row.opus {
            *by_opus
                .entry((row.composer.clone(), opus.clone()))
                .or_default() += 1;
        }
    }
    let mut natural = 0;
    for row in &rows {
        let by_id = row_of(&format!("a trio on the {} row", row.id));
        assert_eq!(by_id, RowChoice::Historical { id: row.id.clone() });

        let written: Vec<String> = row.pcs.iter().map(u8::to_string).collect();
        let by_pcs = row_of(&format!("a trio on the row {}", written.join(", ")));
        let pcs: [u8; 12] = row.pcs.as_slice().try_into().expect("12 pitch classes");
        assert_eq!(by_pcs, RowChoice::Explicit { pcs });

        // "Webern's Op. 21 row", where composer and opus name exactly one row.
        if let Some(opus) = row.opus.as_ref().filter(|o| o.starts_with("Op"))
            && by_opus[&(row.composer.clone(), opus.clone())] == 1
        {
            let brief = format!("16 bars on {}'s {} row for a quartet", row.composer, opus);
            assert_eq!(
                row_of(&brief),
                RowChoice::Historical { id: row.id.clone() },
                "{brief}"
            );
            natural += 1;
        }
    }
    // Of the 71, the rows whose composer and opus are unique (most of Webern's and
    // Schoenberg's numbered works) are asked for by opus.
    assert!(natural >= 40, "only {natural} rows named naturally");
}
