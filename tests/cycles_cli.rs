//! The cycles example domain through the program, found in the registry: composed
//! (`compose --domain cycles`, and its shortcut `cantus example`), verified, rendered
//! as an HTML page (its artefact is not a score) and listed — while the program's own
//! code names it in one place only, the line that links it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cantus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args(args)
        .output()
        .expect("the cantus binary runs")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cantus-cycles-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn compose_writes_a_run_folder_that_verify_and_render_read_back() {
    let dir = temp("run");
    let out = dir.join("run");
    let o = cantus(&[
        "compose",
        "--domain",
        "cycles",
        "--alphabet",
        "6",
        "--cycles",
        "3",
        "--seed",
        "7",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let said = text(&o.stdout);
    assert!(said.starts_with("released (cycles/strict): "), "{said}");
    let piece = std::fs::read_to_string(out.join("piece.txt")).unwrap();
    let line = piece.lines().nth(1).unwrap();
    assert_eq!(line.split('|').count(), 3, "{piece}");
    assert!(line.split('|').all(|c| c.len() == 6), "{piece}");
    assert!(
        said.contains(line),
        "the summary shows the artefact: {said}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["domain"], "cycles");
    assert_eq!(report["released"], true);
    assert!(out.join("trace.jsonl").is_file());

    let v = cantus(&[
        "verify",
        "--domain",
        "cycles",
        out.join("piece.txt").to_str().unwrap(),
    ]);
    assert_eq!(v.status.code(), Some(0), "{}", text(&v.stderr));
    assert!(
        text(&v.stdout).starts_with("PASSED "),
        "{}",
        text(&v.stdout)
    );

    // The same run as a page: the artefact as text, the verdict, the trace.
    let r = cantus(&["render", out.to_str().unwrap(), "--html"]);
    assert_eq!(r.status.code(), Some(0), "{}", text(&r.stderr));
    let page = std::fs::read_to_string(out.join("piece.report.html")).unwrap();
    assert!(
        page.contains(&format!("<pre class=\"artefact\">{line}</pre>")),
        "{page}"
    );
    assert!(page.contains("cycles/strict"), "the verdict");
    assert!(page.contains("id=\"trace-table\""), "the trace viewer");
    // It has no engraving, and says so.
    let svg = cantus(&["render", out.to_str().unwrap(), "--to", "svg"]);
    assert_eq!(svg.status.code(), Some(2));
    assert!(
        text(&svg.stderr).contains("not a score"),
        "{}",
        text(&svg.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_example_shortcut_is_compose_with_the_domain_preset() {
    let dir = temp("example");
    let a = dir.join("a");
    let b = dir.join("b");
    let by_shortcut = cantus(&["example", "--out", a.to_str().unwrap()]);
    let by_domain = cantus(&[
        "compose",
        "--domain",
        "cycles",
        "--seed",
        "0",
        "--out",
        b.to_str().unwrap(),
    ]);
    assert_eq!(
        by_shortcut.status.code(),
        Some(0),
        "{}",
        text(&by_shortcut.stderr)
    );
    assert_eq!(by_domain.status.code(), Some(0));
    assert_eq!(
        std::fs::read(a.join("piece.txt")).unwrap(),
        std::fs::read(b.join("piece.txt")).unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_broken_string_fails_and_what_is_not_one_is_bad_input() {
    let dir = temp("verify");
    let broken = dir.join("broken.txt");
    // `A` twice in the first cycle, and within the window.
    std::fs::write(&broken, "window 3\nABA|CBA\n").unwrap();
    let o = cantus(&["verify", "--domain", "cycles", broken.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    assert!(
        text(&o.stdout).starts_with("FAILED "),
        "{}",
        text(&o.stdout)
    );
    let j = cantus(&[
        "verify",
        "--domain",
        "cycles",
        "--json",
        broken.to_str().unwrap(),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).expect("JSON");
    assert_eq!(v["passed"], false);
    assert!(!v["violations"].as_array().unwrap().is_empty());

    let garbage = dir.join("garbage.txt");
    std::fs::write(&garbage, "window 3\nAB?\n").unwrap();
    let o = cantus(&["verify", "--domain", "cycles", garbage.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("garbage.txt:2:3: `?` is neither a symbol"),
        "{}",
        text(&o.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn flags_are_checked_against_the_domains_own_before_anything_runs() {
    let dir = temp("flags");
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    let cases: [(&[&str], &str); 4] = [
        (
            &["--brief", "a trio"],
            "--brief is a flag of --domain twelve-tone only, not of --domain cycles",
        ),
        (
            &["--alphabet", "40"],
            "invalid value '40' for '--alphabet <N>': 40 is not in 2..=26",
        ),
        (
            &["--mistakes", "2"],
            "invalid value '2' for '--mistakes <P>'",
        ),
        (
            &["--alphabet", "3", "--window", "5"],
            "--window 5 cannot be kept with only 3 symbols",
        ),
    ];
    for (flags, says) in cases {
        let mut args = vec!["compose", "--domain", "cycles", "--out", out];
        args.extend_from_slice(flags);
        let o = cantus(&args);
        assert_eq!(o.status.code(), Some(2), "{flags:?}");
        assert!(
            text(&o.stderr).contains(says),
            "{flags:?}: {}",
            text(&o.stderr)
        );
        assert!(!Path::new(out).exists(), "{flags:?}: nothing written");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plugins_lists_the_domain_and_its_proposer() {
    let o = cantus(&["plugins", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let list: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        list.iter()
            .any(|e| e["kind"] == "domain" && e["name"] == "cycles")
    );
    assert!(
        list.iter()
            .any(|e| e["kind"] == "proposer" && e["name"] == "cycles/sloppy")
    );
}

/// The program's code names the domain once: the line in `src/domains.rs` that links
/// its crate. Every command above found it in the registry.
#[test]
fn the_program_names_the_domain_only_where_it_links_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut naming = Vec::new();
    let mut stack = vec![root.join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if std::fs::read_to_string(&path)
                .unwrap_or_default()
                .to_lowercase()
                .contains("cycles")
            {
                naming.push(path.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    assert_eq!(naming, ["src/domains.rs"]);
    let domains = std::fs::read_to_string(root.join("src/domains.rs")).unwrap();
    let lines: Vec<&str> = domains.lines().filter(|l| l.contains("cycles")).collect();
    assert_eq!(lines, ["use cantus_example_cycles as _;"]);
}
