//! The committed experiment report (`experiments/embedded/`, made by
//! `examples/harmonise_bach.rs`): its records are what its report says, at least
//! 40 Bach melodies are released there, and every released chorale, read back
//! from its file, keeps Bach's melody and passes the strict gate again.
//!
//! The melodies come from the shared corpus; without `$CANTUS_SHARED` (default
//! `<workspace>/../shared`) the gate part prints `SKIPPED: ...` and passes, unless
//! `CANTUS_REQUIRE_SHARED=1`.

use cantus_chorale::experiment::{self, Record, report};
use cantus_chorale::{HarmonisationGate, Profile};
use std::path::PathBuf;

fn committed() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("experiments/embedded")
}

fn records() -> Vec<Record> {
    let path = committed().join("results.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}

#[test]
fn the_report_is_what_its_records_say_and_holds_forty_released_chorales() {
    let records = records();
    let summary = report::summarise(&records);
    let md = std::fs::read_to_string(committed().join("report.md")).expect("report.md");
    assert_eq!(
        md,
        report::markdown(&summary, &records),
        "report.md is stale"
    );
    let released: Vec<&Record> = records.iter().filter(|r| r.released).collect();
    assert!(released.len() >= 40, "only {} released", released.len());
    for r in &released {
        let a = r.agreement.expect("a released run is measured");
        assert_eq!(a.beats, r.beats, "{}: every beat compared", r.task);
        assert!(a.bass <= a.beats && a.root <= a.beats && a.copied <= a.beats);
        assert!(
            committed()
                .join("pieces/embedded")
                .join(format!("{}.txt", r.task))
                .is_file(),
            "{}: its piece is committed",
            r.task
        );
    }
}

#[test]
fn every_released_chorale_keeps_bachs_melody_and_passes_the_strict_gate() {
    let dir = std::env::var_os("CANTUS_SHARED")
        .map_or_else(
            || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
            PathBuf::from,
        )
        .join("data/corpus/bach_chorales");
    if !dir.is_dir() {
        let msg = "SKIPPED: the committed chorales against Bach's melodies (shared data not found; set CANTUS_SHARED)";
        assert!(
            std::env::var("CANTUS_REQUIRE_SHARED").as_deref() != Ok("1"),
            "{msg}"
        );
        eprintln!("{msg}");
        return;
    }
    let gate = HarmonisationGate(Profile::Strict);
    let mut judged = 0;
    for r in records().iter().filter(|r| r.released) {
        let task = experiment::task(&dir.join(format!("{}.musicxml", r.task)))
            .unwrap_or_else(|e| panic!("{}: {e}", r.task));
        let piece = committed()
            .join("pieces/embedded")
            .join(format!("{}.txt", r.task));
        let score = cantus_music::format::read_path(&piece, false)
            .unwrap_or_else(|e| panic!("{}: {e}", piece.display()))
            .score;
        let verdict = gate.judge_harmonisation(&task.spec, &score);
        assert!(verdict.passed, "{}: {:#?}", r.task, verdict.violations);
        judged += 1;
    }
    assert!(judged >= 40);
}
