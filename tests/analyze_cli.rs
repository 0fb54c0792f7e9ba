//! `cantus analyze` end to end: the listing, `--json`, `--marks`, exit codes and
//! errors, on Webern's Op. 21 (the twelve-tone crate's fixture), on a piece `cantus
//! compose` wrote, and on a Bach chorale (shared corpus, when present).

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn cantus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args(args)
        .output()
        .expect("the cantus binary runs")
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn op21() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("domains/twelve-tone/tests/fixtures/webern_op21/symphonie_i_bars_1-25.txt")
        .display()
        .to_string()
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cantus-analyze-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_listing_names_the_row_and_shows_statements_elisions_and_canons() {
    let o = cantus(&["analyze", &op21()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    let text = out(&o);
    for line in [
        "Row: 5 8 7 6 10 9 3 4 0 1 2 11 (WebernOp21), inferred",
        "Verdict: twelve-tone: 127 of 128 notes explained (99.2%)",
        "Statement 1  I9=RI3 (relative I4=RI10)  bars 1-12, complete",
        "  voices: Horn 2 > Clarinet > Violoncello",
        "   2  F#  bar 2    Horn 2           onset 7        F#4  (repetition)",
        "statement 1 ends with the 2 notes statement 5 begins with",
        "statement 3 follows statement 1 by inversion (index 6), 8 quarter notes later (12 positions)",
        "Unexplained notes (1):",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
}

#[test]
fn json_and_marks_carry_the_same_analysis() {
    let dir = temp("json");
    let marks = dir.join("marks.json");
    let o = cantus(&[
        "analyze",
        &op21(),
        "--row",
        "A F# G G# E F B Bb D C# C Eb",
        "--json",
        "--marks",
        marks.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let a: Value = serde_json::from_str(&out(&o)).expect("--json prints JSON");
    assert_eq!(a["row_source"], "given");
    assert_eq!(a["row_name"], "WebernOp21");
    assert_eq!(a["verdict"], "twelve-tone");
    let first = &a["statements"][0];
    assert_eq!(first["labels"]["relative"], serde_json::json!(["P0", "R6"]));
    assert_eq!(
        first["labels"]["zero_centred"],
        serde_json::json!(["P9", "R3"])
    );
    assert_eq!(
        first["voices"],
        serde_json::json!(["Horn 2", "Clarinet", "Violoncello"])
    );
    assert_eq!(first["notes"][0]["onset"], "1");
    assert_eq!(first["notes"][0]["position"], 1);
    assert_eq!(first["notes"][0]["voice_name"], "Horn 2");
    assert_eq!(
        a["elisions"][0],
        serde_json::json!({"from": 1, "to": 5, "shared": 2})
    );
    assert_eq!(a["canons"][0]["relation"], "inversion");
    assert_eq!(a["canons"][0]["delay"], "8");
    // The control beside the piece's figure: three shuffled copies, far below its
    // 121 of 128 notes in complete statements.
    assert_eq!(a["explained_by_complete"], 121);
    let copies = a["control"]["copies"]
        .as_array()
        .expect("the control's copies");
    assert_eq!(copies.len(), 3);
    for c in copies {
        assert_eq!(c["notes"], 128);
        assert!(c["explained_by_complete"].as_u64().unwrap() < 80, "{c}");
    }

    let m: Value = serde_json::from_str(&std::fs::read_to_string(&marks).unwrap()).unwrap();
    let marks = m["marks"].as_array().expect("a list of marks");
    // Horn 2 is voice 3; its A at onset 1 opens statement 1.
    assert!(
        marks.contains(
            &serde_json::json!({"voice": 3, "onset": "1", "kind": "label", "value": "P9=R3"})
        ),
        "{m}"
    );
    assert!(
        marks.contains(
            &serde_json::json!({"voice": 3, "onset": "1", "kind": "position", "value": 1})
        )
    );
    let positions = marks.iter().filter(|k| k["kind"] == "position").count();
    assert_eq!(positions, 11 * 12 + 8, "every position found is numbered");
    assert!(
        marks
            .iter()
            .any(|k| k["kind"] == "colour" && k["value"] == "grey")
    );
}

#[test]
fn a_composed_piece_is_all_statements() {
    let dir = temp("composed");
    let o = cantus(&[
        "compose",
        "--brief",
        "A 12-bar trio in 3/4 on Schoenberg's Op. 25 row",
        "--seed",
        "1",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    let piece = dir.join("piece.mid");
    let o = cantus(&["analyze", piece.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let a: Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(a["row_name"], "SchoenbergOp25");
    assert_eq!(a["verdict"], "twelve-tone");
    assert_eq!(a["explained"], a["notes"], "{a}");
    assert!(
        a["statements"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["complete"] == true)
    );
}

#[test]
fn bad_input_is_refused_with_the_reason() {
    let o = cantus(&["analyze", "/nonexistent/piece.musicxml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("error: /nonexistent/piece.musicxml"),
        "{}",
        err(&o)
    );
    let o = cantus(&["analyze", &op21(), "--row", "0 1 2 3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("--row:"), "{}", err(&o));
    let o = cantus(&["analyze", &op21(), "--control-copies", "17"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("control_copies must be at most 16"),
        "{}",
        err(&o)
    );
    let o = cantus(&["analyze", &op21(), "--min-positions", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("min_positions must be between 1 and 12"),
        "{}",
        err(&o)
    );
    let dir = temp("bad");
    let bad = dir.join("bad.txt");
    std::fs::write(
        &bad,
        "KEY: ? | METER: 4/4 | GRID: 16th\nVOICES: A\n@1 [-]\n  A: H4@1>4\n",
    )
    .unwrap();
    let o = cantus(&["analyze", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("bad.txt:4:"), "{}", err(&o));
}

/// Issue 28, finding 8: a piece past the analyser's limit is refused before any
/// search, saying how many notes it has and the limit (200,000 notes took a minute
/// before); `--help` states the limit.
#[test]
fn a_piece_past_the_note_limit_is_refused_with_its_size_and_the_limit() {
    use cantus_twelve_tone::analysis::MAX_ANALYSED_NOTES;
    let dir = temp("huge");
    let bars = MAX_ANALYSED_NOTES / 4 + 1;
    let mut text = format!("KEY: ? | METER: 4/4 | GRID: 16th | BARS: {bars}\nVOICES: A\n");
    let tones = [
        "C4", "C#4", "D4", "D#4", "E4", "F4", "F#4", "G4", "G#4", "A4", "A#4", "B4",
    ];
    for bar in 0..bars {
        let at = |k: usize| tones[(bar * 4 + k) % 12];
        text.push_str(&format!(
            "@{} [-]\n  A: {}@1>4 {}@5>4 {}@9>4 {}@13>4\n",
            bar + 1,
            at(0),
            at(1),
            at(2),
            at(3)
        ));
    }
    let huge = dir.join("huge.txt");
    std::fs::write(&huge, text).unwrap();
    let o = cantus(&["analyze", huge.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}{}", out(&o), err(&o));
    assert!(
        err(&o).contains(&format!(
            "huge.txt: the piece has {} notes; at most {MAX_ANALYSED_NOTES} are analysed",
            bars * 4
        )),
        "{}",
        err(&o)
    );
    let help = out(&cantus(&["analyze", "--help"])).replace(['\n', ' '], "");
    assert!(help.contains("atmost20,000notes"), "{help}");
    assert_eq!(MAX_ANALYSED_NOTES, 20_000, "the help states the limit");
}

#[test]
fn a_chorale_is_not_twelve_tone() {
    let shared = std::env::var_os("CANTUS_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"),
        PathBuf::from,
    );
    let chorale = shared.join("data/corpus/bach_chorales/r001_bwv269.musicxml");
    if !chorale.is_file() {
        let msg = format!(
            "SKIPPED: analyze on a chorale ({} not found; set CANTUS_SHARED)",
            chorale.display()
        );
        assert!(
            std::env::var("CANTUS_REQUIRE_SHARED").as_deref() != Ok("1"),
            "{msg}"
        );
        eprintln!("{msg}");
        return;
    }
    let o = cantus(&["analyze", chorale.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(out(&o).contains("Row: none found"), "{}", out(&o));
    // What the best candidate found is reported, not 0 (issue 29): 13 of the 225
    // notes in one incomplete statement, none in complete ones, as in the shuffled
    // copies.
    for line in [
        "Verdict: not twelve-tone: 13 of 225 notes explained (5.8%) by 1 statements (0 complete, 1 incomplete); 0.0% by complete statements",
        "Control: 3 copies, pitch classes shuffled: at most 0.0% in complete statements",
    ] {
        assert!(out(&o).contains(line), "{line:?} in\n{}", out(&o));
    }
}

#[test]
fn the_annotated_engraving_carries_the_labels_and_compiles() {
    let dir = temp("ly");
    let ly = dir.join("op21.ly");
    let o = cantus(&["analyze", &op21(), "--annotate", ly.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let text = std::fs::read_to_string(&ly).expect("--annotate writes the file");
    // Statement 1's labels over the horn's first A.
    assert!(text.contains("I9=RI3"), "{text}");
    assert!(text.contains("\\version"), "{text}");
    if Command::new("lilypond").arg("--version").output().is_err() {
        let msg = "SKIPPED: compiling the annotated engraving (lilypond not installed)";
        assert!(
            std::env::var("CANTUS_REQUIRE_TOOLS").as_deref() != Ok("1"),
            "{msg}"
        );
        eprintln!("{msg}");
        return;
    }
    let o = Command::new("lilypond")
        .arg("--svg")
        .arg("-o")
        .arg(dir.join("op21"))
        .arg(&ly)
        .output()
        .expect("lilypond runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let engraved = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .any(|e| e.path().extension().is_some_and(|x| x == "svg"));
    assert!(engraved, "an SVG in {}", dir.display());
}

#[test]
fn a_directory_is_one_table_row_per_piece_and_an_unreadable_file_is_a_row_too() {
    let dir = temp("corpus");
    std::fs::copy(op21(), dir.join("a_op21.txt")).unwrap();
    std::fs::write(
        dir.join("b_bad.txt"),
        "KEY: ? | METER: 4/4 | GRID: 16th\nVOICES: A\n@1 [-]\n  A: H4@1>4\n",
    )
    .unwrap();
    std::fs::write(dir.join("c_notes.md"), "not a score").unwrap();
    let o = cantus(&["analyze", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    let text = out(&o);
    for line in [
        "| piece | notes | row found | explained | statements (complete) | canons | verdict | in complete statements | shuffled copies (highest) |",
        "| a_op21.txt | 128 | WebernOp21 (inferred; 5 8 7 6 10 9 3 4 0 1 2 11) | 99.2% |",
        "| b_bad.txt | – | error: ",
        "2 pieces (1 not read); 127 of 128 notes explained by rows (99.2%); 1 read as twelve-tone.",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
    assert!(!text.contains("c_notes.md"), "{text}");

    let o = cantus(&["analyze", dir.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let c: Value = serde_json::from_str(&out(&o)).unwrap();
    let pieces = c["pieces"].as_array().unwrap();
    assert_eq!(pieces.len(), 2);
    assert_eq!(pieces[0]["row_name"], "WebernOp21");
    assert_eq!(pieces[0]["explained"], 127);
    assert!(pieces[0]["canons"].as_u64().unwrap() >= 2, "{c}");
    assert!(
        pieces[1]["error"]
            .as_str()
            .unwrap()
            .contains("b_bad.txt:4:"),
        "{c}"
    );

    let o = cantus(&["analyze", dir.to_str().unwrap(), "--marks", "m.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("not a directory"), "{}", err(&o));
    let empty = temp("empty");
    let o = cantus(&["analyze", empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("no score file"), "{}", err(&o));
}
