//! Whatever a piece's names and paths hold, it is engraved, and a run index links
//! to its runs by relative links only (issue 28, finding 7):
//!
//! * voice names with U+2028 or U+2029 (LilyPond aborted on them) engrave with
//!   `render --to svg`, `render --html` and `cantus blind`;
//! * a score whose path holds `:` engraves;
//! * a run folder named `javascript:alert(1)` is linked from the index as
//!   `javascript%3Aalert%281%29/index.html`, a relative link.
//!
//! Needs lilypond and a SoundFont (scripts/install-music-tools.sh); SKIPPED without
//! them, unless CANTUS_REQUIRE_TOOLS=1.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cantus-names-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn ok(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args(args)
        .output()
        .expect("cantus runs");
    assert!(out.status.success(), "cantus {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn tools() -> bool {
    let missing = cantus_render::tools::lilypond()
        .err()
        .map(|e| e.to_string())
        .or_else(|| {
            cantus_render::tools::soundfont(None)
                .err()
                .map(|e| e.to_string())
        });
    match missing {
        None => true,
        Some(e) if std::env::var("CANTUS_REQUIRE_TOOLS").as_deref() == Ok("1") => {
            panic!("{e} (CANTUS_REQUIRE_TOOLS=1; run scripts/install-music-tools.sh)")
        }
        Some(e) => {
            eprintln!("SKIPPED: {e}");
            false
        }
    }
}

/// A composed run folder at `out`, its voices renamed with `names` (Soprano,
/// Bass), and the blind contract's keys in its report.
fn run(out: &Path, seed: &str, names: [&str; 2], condition: &str) {
    ok(&[
        "compose",
        "--brief",
        "a 3-bar duet in 3/4 at 90 bpm",
        "--seed",
        seed,
        "--out",
        s(out),
    ]);
    let piece = out.join("piece.txt");
    let text = std::fs::read_to_string(&piece)
        .unwrap()
        .replace("Soprano", names[0])
        .replace("Bass", names[1]);
    std::fs::write(&piece, text).unwrap();
    for other in ["piece.musicxml", "piece.mid", "piece.ly"] {
        let _ = std::fs::remove_file(out.join(other));
    }
    let path = out.join("report.json");
    let mut report: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    report["study"] =
        json!({"task": "duet", "model": "embedded", "condition": condition, "run": 0});
    std::fs::write(&path, report.to_string()).unwrap();
}

#[test]
fn names_with_line_and_paragraph_separators_engrave() {
    if !tools() {
        return;
    }
    let dir = temp("separators");
    let names = ["Sop\u{2028}rano", "Ba\u{2029}ss"];
    let runs = dir.join("runs");
    run(&runs.join("one"), "1", names, "harness");
    run(&runs.join("two"), "2", names, "raw");
    let piece = runs.join("one").join("piece.txt");
    assert!(
        std::fs::read_to_string(&piece)
            .unwrap()
            .contains('\u{2028}')
    );
    ok(&["render", s(&piece), "--to", "svg"]);
    assert!(runs.join("one").join("piece.annotated.svg").is_file());
    ok(&["render", s(&runs.join("two")), "--html"]);
    assert!(runs.join("two").join("piece.report.html").is_file());
    assert!(runs.join("two").join("piece.report.svg").is_file());
    let pkg = dir.join("pkg");
    ok(&["blind", s(&runs), "--out", s(&pkg)]);
    assert!(pkg.join("pair-01-A.svg").is_file() && pkg.join("pair-01-B.svg").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_score_whose_path_holds_a_colon_engraves() {
    if !tools() {
        return;
    }
    let dir = temp("colon");
    let folder = dir.join("take 2: final");
    ok(&["compose", "--brief", "a 3-bar duet", "--out", s(&folder)]);
    let piece = folder.join("piece:v1.txt");
    std::fs::rename(folder.join("piece.txt"), &piece).unwrap();
    let said = ok(&["render", s(&piece), "--to", "svg"]);
    let svg = folder.join("piece:v1.annotated.svg");
    assert!(said.contains(&format!("wrote {}", svg.display())), "{said}");
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    // Nothing of the engraver's staging is left behind.
    let left: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with('.'))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // Named from its own folder, as `cantus render piece.txt` in a shell (before,
    // LilyPond was sent to an empty folder name and found no file).
    std::fs::remove_file(&svg).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args(["render", "piece:v1.txt", "--to", "svg"])
        .current_dir(&folder)
        .output()
        .expect("cantus runs");
    assert!(out.status.success(), "{out:?}");
    assert!(svg.is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn run_index_links_are_percent_encoded_relative_links() {
    if !tools() {
        return;
    }
    let dir = temp("links");
    let runs = dir.join("runs");
    run(
        &runs.join("javascript:alert(1)"),
        "1",
        ["Soprano", "Bass"],
        "harness",
    );
    run(&runs.join("plain run"), "2", ["Soprano", "Bass"], "raw");
    let report = dir.join("report");
    ok(&["render", s(&runs), "--html", "--out", s(&report)]);
    let index = std::fs::read_to_string(report.join("index.html")).unwrap();
    assert!(
        index.contains("href=\"javascript%3Aalert%281%29/index.html\""),
        "{index}"
    );
    assert!(index.contains("href=\"plain%20run/index.html\""), "{index}");
    assert!(!index.contains("href=\"javascript:"), "{index}");
    // The encoded link names the page that was written.
    assert!(
        report
            .join("javascript:alert(1)")
            .join("index.html")
            .is_file()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
