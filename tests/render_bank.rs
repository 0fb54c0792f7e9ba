//! LilyPond compiles the annotated engraving of every piece of the brief bank
//! without a warning: `cantus bank` composes every brief once (seed 0), each run
//! folder becomes an annotated LilyPond source (row labels, repair colours and
//! ghosts from its trace), and LilyPond engraves them all to PDF in one run per
//! core. (PDF, not SVG: the warnings come from LilyPond's layout, which both
//! share, and its SVG backend takes several times longer on the large pieces.)
//!
//! Needs lilypond (scripts/install-music-tools.sh); SKIPPED without it, unless
//! CANTUS_REQUIRE_TOOLS=1.

use cantus_render::Piece;
use cantus_render::annotate::{Layers, for_piece};
// The bank's domain, linked so the registry holds it.
use cantus_render::engrave::{Target, engrave_files, source};
use cantus_render::report::index::run_folders;
use cantus_twelve_tone as _;
use std::process::Command;

#[test]
fn lilypond_compiles_every_annotated_bank_piece_without_warnings() {
    // The largest bank pieces take LilyPond most of a minute each on a loaded
    // 2-core machine: allow a long run (this binary holds this one test only, so
    // no other thread reads the environment).
    unsafe { std::env::set_var("CANTUS_LILYPOND_TIMEOUT", "1800") };
    if let Err(e) = cantus_render::tools::lilypond() {
        if std::env::var("CANTUS_REQUIRE_TOOLS").as_deref() == Ok("1") {
            panic!("{e} (CANTUS_REQUIRE_TOOLS=1)");
        }
        eprintln!("SKIPPED: {e}");
        return;
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let dir =
        std::env::temp_dir().join(format!("cantus-render-bank-{}-{nanos}", std::process::id()));
    let runs = dir.join("runs");
    let bank = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/briefs/bank.txt");
    let out = Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args([
            "bank",
            bank,
            "--seeds",
            "1",
            "--out",
            runs.to_str().unwrap(),
        ])
        .output()
        .expect("cantus bank runs");
    // Exit 1 is an explicit failure of some brief; its unreleased piece is engraved too.
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let folders = run_folders(&runs).expect("run folders");
    assert!(folders.len() >= 40, "{} runs", folders.len());
    let engraved = dir.join("ly");
    std::fs::create_dir_all(&engraved).unwrap();
    let mut sources = Vec::new();
    let (mut labelled, mut coloured) = (0, 0);
    for folder in &folders {
        let mut piece = Piece::load(folder, None).unwrap_or_else(|e| panic!("{e}"));
        let score = piece.score().expect("a score").clone();
        if let Some(t) = piece.trace.as_mut() {
            t.resolve_voices(&score);
        }
        let verdict = cantus_render::judge(&piece);
        let marks = for_piece(
            &piece,
            &score,
            &verdict,
            Layers {
                positions: true,
                ..Layers::default()
            },
        );
        let ly = source(&score, &marks, Target::Pdf)
            .unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
        labelled += usize::from(
            ly.contains("\\bold \\small \"P")
                || ly.contains("\\bold \\small \"I")
                || ly.contains("\\bold \\small \"R"),
        );
        coloured += usize::from(
            ly.contains("\\cantusBlue")
                || ly.contains("\\cantusGreen")
                || ly.contains("\\cantusOrange"),
        );
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        let path = engraved.join(format!("{name}.ly"));
        std::fs::write(&path, ly).unwrap();
        sources.push(path);
    }
    assert_eq!(labelled, folders.len(), "every piece has row labels");
    assert!(
        coloured * 2 > folders.len(),
        "most pieces show repairs: {coloured} of {}",
        folders.len()
    );
    let results = engrave_files(&sources, &engraved, Target::Pdf).expect("LilyPond runs");
    let warnings: Vec<String> = results.iter().flat_map(|r| r.warnings.clone()).collect();
    assert!(
        warnings.is_empty(),
        "LilyPond warned:\n{}",
        warnings.join("\n")
    );
    assert_eq!(results.len(), folders.len());
    for r in &results {
        assert!(
            std::fs::metadata(&r.file).unwrap().len() > 1000,
            "{}",
            r.file.display()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
