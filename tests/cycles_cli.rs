//! The cycles example domain through the program, found in the registry: composed
//! (`compose --domain cycles`, and its shortcut `cantus example`), verified, rendered
//! as an HTML page (its artefact is not a score), run in an experiment and reported
//! (`cantus experiment run|report`, `examples/experiments/cycles.toml`) and listed —
//! while the program's own code names it in one place only, the line that links it.

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

/// `cantus experiment run` over the committed experiment file, then `report`: a
/// record per cell of the grid, the whole-piece condition recorded as not applicable,
/// delivery, the loop's counts and the domain's rules in the report, and a second run
/// into the same directory runs nothing.
#[test]
fn an_experiment_runs_the_domains_tasks_and_reports_them() {
    let dir = temp("experiment");
    let out = dir.join("out");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let file = root.join("examples/experiments/cycles.toml");
    let run = cantus(&[
        "experiment",
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    // 3 alphabets × 3 lengths × 4 conditions × 3 runs; `raw` is a whole-piece reply.
    let said = text(&run.stdout);
    assert!(said.starts_with("108 runs (0 kept"), "{said}");
    assert!(said.contains("27 not applicable"), "{said}");
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let records: Vec<&serde_json::Value> = lines.iter().filter(|l| l["kind"] == "run").collect();
    assert_eq!(records.len(), 108);
    let mut cells = std::collections::BTreeSet::new();
    for r in &records {
        assert_eq!(r["domain"], "cycles", "{r}");
        cells.insert((
            r["task"].as_str().unwrap().to_owned(),
            r["condition"].as_str().unwrap().to_owned(),
            r["run"].as_u64().unwrap(),
        ));
        if r["outcome"] == "not-applicable" {
            assert_eq!(r["condition"], "raw", "{r}");
            continue;
        }
        // The artefact as the domain writes it, and its gate's rules by id.
        let piece = r["piece"].as_str().expect("a piece");
        assert!(piece.starts_with("window 4\n"), "{piece}");
        let strict = &r["strict"]["violations"];
        for rule in [
            "CY-CURSOR",
            "CY-ALPHABET",
            "CY-CYCLE",
            "CY-WINDOW",
            "CY-COMPLETE",
        ] {
            assert!(strict[rule].is_u64(), "{rule} listed: {r}");
        }
        assert_eq!(
            r["outcome"] == "released",
            r["strict"]["passed"] == true,
            "{r}"
        );
        assert!(r["cost"]["calls"].as_u64().unwrap() > 0, "{r}");
        let trace = out.join(r["trace"]["path"].as_str().unwrap());
        assert!(trace.is_file(), "{}", trace.display());
    }
    assert_eq!(cells.len(), 108, "one record per cell");

    let report = cantus(&["experiment", "report", out.to_str().unwrap()]);
    assert_eq!(report.status.code(), Some(0), "{}", text(&report.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let cell = |condition: &str| {
        summary["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["condition"] == condition)
            .unwrap_or_else(|| panic!("{condition}: {summary}"))
            .clone()
    };
    let harness = cell("harness");
    let no_repair = cell("no-repair");
    assert_eq!(harness["runs"], 27);
    assert_eq!(cell("raw")["not_applicable"], 27);
    let delivered = |c: &serde_json::Value| c["delivery_strict"]["estimate"].as_f64().unwrap();
    // The ladder earns its keep: the sloppy proposer spoils 30% of its symbols.
    assert!(
        delivered(&harness) > 0.5 && delivered(&harness) > delivered(&no_repair),
        "harness {harness}, no-repair {no_repair}"
    );
    assert!(harness["repairs_by_rung"]["retag"].as_f64().unwrap() > 0.0);
    assert!(
        harness["predicate_pass"]["CY-COMPLETE"].is_f64(),
        "{harness}"
    );
    assert!(harness["cost"]["calls_per_delivered"].as_f64().unwrap() > 0.0);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("| embedded | harness | 27 |"), "{md}");
    assert!(md.contains("not for cycles tasks"), "{md}");
    // The domain measures nothing of its own: no section for it; and its pieces are
    // not twelve-tone: no serial analysis.
    assert!(!md.contains("The domain's measures"), "{md}");
    assert!(!md.contains("## Serial analysis"), "{md}");
    // Nor judged by twelve-tone's relaxed gate or collision check: no such columns.
    assert!(
        md.contains("| model | condition | runs | strict | failed |"),
        "{md}"
    );
    assert!(!md.contains("relaxed") && !md.contains("collision"), "{md}");
    // No run under raw to pair with: the section says so instead of an empty table.
    assert!(
        md.contains(
            "## Against raw\n\nNo run here has a run of the same model, task and run under `raw`"
        ),
        "{md}"
    );
    assert!(!md.contains("| pairs | difference |"), "{md}");
    assert!(!out.join("measures.csv").exists());
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        !html.contains("domain&#39;s measures"),
        "no measures, no table"
    );

    // Resumed: every record kept, nothing run.
    let again = cantus(&[
        "experiment",
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert!(
        text(&again.stdout).starts_with("108 runs (108 kept from an earlier run)"),
        "{}",
        text(&again.stdout)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A model beside the embedded proposer: the cycles domain has no model proposer, so
/// the domain itself says its runs do not apply; run folders are written as `cantus
/// compose` writes them; and the domain's `[tasks]` keys are checked before anything
/// runs, the file, line and key named.
#[test]
fn an_experiment_file_is_checked_by_the_domain_before_anything_runs() {
    let dir = temp("experiment-file");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let null = root.join("examples/config/null.toml");
    let file = dir.join("e.toml");
    let write = |tasks: &str| {
        std::fs::write(
            &file,
            format!(
                "runs = 1\nrun_folders = true\nconditions = [\"harness\"]\n[tasks]\ndomain = \"cycles\"\n{tasks}\n\
                 [[models]]\nname = \"embedded\"\n[[models]]\nname = \"null\"\nconfig = {:?}\n",
                null.to_str().unwrap()
            ),
        )
        .unwrap();
    };
    write("cycles = 2\nalphabet = 4");
    let out = dir.join("out");
    let o = cantus(&[
        "experiment",
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let null_runs: Vec<serde_json::Value> = results
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|r| r["model"] == "null")
        .collect();
    assert_eq!(null_runs.len(), 1);
    assert_eq!(null_runs[0]["outcome"], "not-applicable");
    assert_eq!(
        null_runs[0]["reason"],
        "the cycles domain has no model proposer"
    );
    // `run_folders = true`: the run's folder, as `cantus compose` leaves one.
    let folder = out.join("runs/a4-c2+embedded+harness+r0");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("report.json")).unwrap())
            .unwrap();
    assert_eq!(report["domain"], "cycles");
    assert_eq!(report["study"]["task"], "a4-c2");
    let stem = if report["released"] == true {
        "piece"
    } else {
        "unreleased-piece"
    };
    assert!(folder.join(format!("{stem}.txt")).is_file());
    assert!(folder.join("trace.jsonl").is_file());

    // (the line, where the error is, what it says): a key not written (`window`, by
    // default 4) is named without a place.
    let cases = [
        (
            "windw = 3",
            "e.toml:6:1",
            "`tasks.windw` is not a key of the cycles domain's tasks",
        ),
        (
            "alphabet = 40",
            "e.toml:6:1",
            "must be a whole number from 2 to 26, not 40",
        ),
        (
            "alphabet = 3",
            "e.toml: ",
            "`tasks.window` 4 cannot be kept with an alphabet of only 3",
        ),
    ];
    for (line, at, says) in cases {
        write(line);
        let out = dir.join("refused");
        let o = cantus(&[
            "experiment",
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{line}: {err}");
        assert!(err.contains(says), "{line}: {err}");
        assert!(err.contains(at), "{line}: {err}");
        assert!(!out.exists(), "{line}: nothing written");
    }
    std::fs::write(&file, "runs = 1\nconditions = [\"harness\"]\n[tasks]\ndomain = \"nosuch\"\n[[models]]\nname = \"embedded\"\n").unwrap();
    let o = cantus(&[
        "experiment",
        "run",
        file.to_str().unwrap(),
        "--out",
        dir.join("x").to_str().unwrap(),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("unknown domain `nosuch`") && err.contains("cycles"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A condition naming rungs runs the domain's own, in its order (as the trace's
/// header says), and one naming a rung the domain does not have is recorded as not
/// applicable, with the domain's rungs in the reason.
#[test]
fn a_condition_names_the_domains_own_rungs() {
    let dir = temp("rungs");
    let file = dir.join("rungs.toml");
    std::fs::write(
        &file,
        r#"name = "rungs"
runs = 1
conditions = ["retag-only", "trim-only"]

[tasks]
domain = "cycles"
alphabet = [5]
cycles = [3]

[[models]]
name = "embedded"

[[custom_conditions]]
name = "retag-only"
proposer = "sections"
rungs = ["substitute", "retag"]

[[custom_conditions]]
name = "trim-only"
proposer = "sections"
rungs = ["trim"]
"#,
    )
    .unwrap();
    let out = dir.join("out");
    let run = cantus(&[
        "experiment",
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let records: Vec<serde_json::Value> = std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|l| l["kind"] == "run")
        .collect();
    let record = |condition: &str| {
        records
            .iter()
            .find(|r| r["condition"] == condition)
            .unwrap_or_else(|| panic!("{condition}: {records:?}"))
    };
    let named = record("retag-only");
    assert_ne!(named["outcome"], "not-applicable", "{named}");
    let trace =
        std::fs::read_to_string(out.join(named["trace"]["path"].as_str().unwrap())).unwrap();
    let header: serde_json::Value = serde_json::from_str(trace.lines().next().unwrap()).unwrap();
    assert_eq!(
        header["ladder"],
        serde_json::json!(["substitute", "retag"]),
        "{header}"
    );
    let foreign = record("trim-only");
    assert_eq!(foreign["outcome"], "not-applicable", "{foreign}");
    let reason = foreign["reason"].as_str().unwrap();
    assert!(
        reason.contains("the cycles domain has no rung `trim`")
            && reason.contains("`retag`, `substitute`"),
        "{reason}"
    );
}

/// The program's code names the domain once: the line in `src/domains.rs` that links
/// its crate. Every command above found it in the registry. The libraries below the
/// program (the experiment runner, the registry, the framework, the other domains,
/// the plugins and the bindings) name neither its crate nor its id.
#[test]
fn the_program_names_the_domain_only_where_it_links_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = |top: &str| {
        let mut out = Vec::new();
        let mut stack = vec![root.join(top)];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                let name = entry.file_name();
                // Build output, and lock files and tests, which use the domain as a
                // user would (the bindings' lock file lists every crate linked).
                let skipped = ["target", "node_modules", "tests", "Cargo.lock"];
                if skipped.iter().any(|s| name == *s) {
                    continue;
                }
                if path.is_dir() {
                    stack.push(path);
                } else if path.is_file() {
                    out.push(path);
                }
            }
        }
        out
    };
    let mut naming = Vec::new();
    for path in files("src") {
        if std::fs::read_to_string(&path)
            .unwrap_or_default()
            .to_lowercase()
            .contains("cycles")
        {
            naming.push(path.strip_prefix(root).unwrap().display().to_string());
        }
    }
    assert_eq!(naming, ["src/domains.rs"]);
    let domains = std::fs::read_to_string(root.join("src/domains.rs")).unwrap();
    let lines: Vec<&str> = domains.lines().filter(|l| l.contains("cycles")).collect();
    assert_eq!(lines, ["use cantus_example_cycles as _;"]);

    let names = [
        "cantus_example_cycles",
        "cantus-example-cycles",
        "\"cycles\"",
        "domain cycles",
    ];
    let mut below = Vec::new();
    for top in [
        "experiment",
        "registry",
        "framework",
        "domains",
        "plugins",
        "bindings",
    ] {
        for path in files(top) {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if names.iter().any(|n| text.contains(n)) {
                below.push(path.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    assert!(below.is_empty(), "name the cycles domain: {below:?}");
}
