//! What an experiment's output directory holds is never lost, never read past its
//! bounds and never reaches outside itself (issue 28):
//!
//! * a damaged or oversized line of `results.jsonl` is an error naming the file and
//!   line for `experiment report`, and costs a resumed `experiment run` only its
//!   own run (the line is moved to `results.quarantine`, byte for byte);
//! * `experiment merge` refuses a record naming a file outside its own run folder
//!   (`../`, an absolute path) and writes nothing;
//! * a model config or a bank that is not one is refused without its lines quoted;
//! * model and task names too long for a file name still run and report;
//! * run folders name their study cell, so `cantus blind` reads them directly;
//! * a merge of shards is byte for byte the unsharded run (header and report).

use cantus::experiment::run::{read_results, read_whole_results};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cantus-integrity-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn cantus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args(args)
        .output()
        .expect("cantus runs")
}

fn ok(args: &[&str]) -> String {
    let out = cantus(args);
    assert!(out.status.success(), "cantus {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn refused(args: &[&str]) -> String {
    let out = cantus(args);
    assert_eq!(out.status.code(), Some(2), "cantus {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const BANK: &str = "\
[duo] A 4-bar duet in 4/4 on Webern's Op. 28 row
[trio] A 4-bar trio in 4/4 at 90 bpm
";

/// Two briefs × `conditions` × `runs` with the embedded proposer.
fn experiment(dir: &Path, conditions: &str, runs: u32, extra: &str) -> PathBuf {
    std::fs::write(dir.join("bank.txt"), BANK).unwrap();
    let file = dir.join("exp.toml");
    std::fs::write(
        &file,
        format!(
            "runs = {runs}\nconditions = [{conditions}]\n{extra}\n[tasks]\nbank = \"bank.txt\"\n\
             [[models]]\nname = \"embedded\"\n[metrics]\nresamples = 100\n"
        ),
    )
    .unwrap();
    file
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn write_lines(path: &Path, lines: &[String]) {
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn a_damaged_results_file_is_an_error_for_the_report_and_costs_a_resumed_run_only_its_own_runs() {
    let dir = temp("damaged");
    let file = experiment(&dir, "\"harness\"", 4, "");
    let out = dir.join("out");
    ok(&["experiment", "run", s(&file), "--out", s(&out)]);
    let results = out.join("results.jsonl");
    let whole = lines(&results);
    assert_eq!(whole.len(), 1 + 8, "a header and eight records");

    // Line 3 damaged, line 6 replaced by a line over the 16 MiB cap; the other six
    // records are whole, before and after them.
    let mut damaged = whole.clone();
    damaged[2] = "{\"kind\":\"run\",\"task\":".into();
    damaged[5] = format!(
        "{{\"kind\":\"run\",\"reason\":\"{}\"}}",
        "x".repeat(17 << 20)
    );
    write_lines(&results, &damaged);

    let err = refused(&["experiment", "report", s(&out)]);
    assert!(
        err.contains(&format!("{}:3: line 3 is not a record", results.display())),
        "{err}"
    );
    assert!(
        !out.join("report.md").exists(),
        "no report of part of the records"
    );
    damaged.remove(2);
    write_lines(&results, &damaged);
    let err = refused(&["experiment", "report", s(&out)]);
    assert!(
        err.contains(":5: line 5 is longer than 16 MiB, the most a line of results.jsonl may hold"),
        "{err}"
    );
    // Merge reads it the same way.
    let err = refused(&["experiment", "merge", s(&dir.join("m")), s(&out)]);
    assert!(err.contains(":5: line 5 is longer than 16 MiB"), "{err}");
    damaged.insert(2, "{\"kind\":\"run\",\"task\":".into());
    write_lines(&results, &damaged);
    let aside_want: Vec<u8> = [damaged[2].as_bytes(), b"\n", damaged[5].as_bytes(), b"\n"].concat();

    // Resumed: six records kept, the two damaged lines moved aside byte for byte,
    // only their two runs run again, and the records are those of the first run.
    let run = cantus(&["experiment", "run", s(&file), "--out", s(&out)]);
    assert!(run.status.success(), "{run:?}");
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(
        said.starts_with("8 runs (6 kept from an earlier run)"),
        "{said}"
    );
    let warned = String::from_utf8_lossy(&run.stderr);
    assert!(
        warned.contains("line 3 is not a record")
            && warned.contains("line 6 is longer than 16 MiB"),
        "{warned}"
    );
    assert!(warned.contains("results.quarantine"), "{warned}");
    assert_eq!(
        std::fs::read(out.join("results.quarantine")).unwrap(),
        aside_want
    );
    let records = |lines: &[String]| {
        let mut rs: Vec<String> = lines[1..]
            .iter()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["cost"]["seconds"] = serde_json::json!(0);
                v.to_string()
            })
            .collect();
        rs.sort();
        rs
    };
    assert_eq!(records(&lines(&results)), records(&whole));
    ok(&["experiment", "report", s(&out)]);

    // A run killed mid-line leaves a last line with no newline: resumed, it is moved
    // aside too, and nothing before it is lost.
    let mut text = std::fs::read(&results).unwrap();
    text.extend_from_slice(b"{\"kind\":\"run\",\"ta");
    std::fs::write(&results, &text).unwrap();
    let err = refused(&["experiment", "report", s(&out)]);
    assert!(err.contains(":10: line 10 is not finished"), "{err}");
    let said = ok(&["experiment", "run", s(&file), "--out", s(&out)]);
    assert!(said.starts_with("8 runs (8 kept"), "{said}");
    assert!(
        std::fs::read(out.join("results.quarantine"))
            .unwrap()
            .ends_with(b"{\"kind\":\"run\",\"ta\n")
    );

    // A results file that is a device is refused, not read for ever.
    let device = dir.join("device");
    std::fs::create_dir_all(&device).unwrap();
    std::os::unix::fs::symlink("/dev/zero", device.join("results.jsonl")).unwrap();
    let err = refused(&["experiment", "report", s(&device)]);
    assert!(err.contains("not a regular file"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn merge_refuses_a_record_naming_a_file_outside_its_run_folder_and_writes_nothing() {
    let dir = temp("escape");
    let file = experiment(&dir, "\"harness\"", 1, "run_folders = true");
    let shard = dir.join("shard0");
    ok(&["experiment", "run", s(&file), "--out", s(&shard)]);
    // A payload beside the shard, named by a record as `../escaped/PAYLOAD.sh`: a
    // merge into `deep/merged` that followed it would write `deep/escaped/`.
    std::fs::create_dir_all(dir.join("escaped")).unwrap();
    std::fs::write(dir.join("escaped/PAYLOAD.sh"), "echo owned\n").unwrap();
    let payload =
        cantus::experiment::record::FileCheck::of("../escaped/PAYLOAD.sh".into(), b"echo owned\n");
    let hostname = std::fs::read("/etc/hostname").unwrap_or_default();
    let probe = cantus::experiment::record::FileCheck::of("/etc/hostname".into(), &hostname);
    let results = shard.join("results.jsonl");
    let clean = lines(&results);
    for (i, (check, field)) in [(payload, "files"), (probe, "trace")]
        .into_iter()
        .enumerate()
    {
        let mut edited = clean.clone();
        let mut v: serde_json::Value = serde_json::from_str(&edited[1]).unwrap();
        let check = serde_json::to_value(&check).unwrap();
        if field == "files" {
            v["files"].as_array_mut().unwrap().push(check);
        } else {
            v["trace"] = check;
        }
        edited[1] = v.to_string();
        write_lines(&results, &edited);
        let out = dir.join("deep").join(format!("merged-{i}"));
        let err = refused(&["experiment", "merge", s(&out), s(&shard)]);
        assert!(
            err.contains(&format!("{}:2: line 2 names the", results.display())),
            "{err}"
        );
        assert!(
            err.contains("outside its run folder") || err.contains("a record's trace is"),
            "{err}"
        );
        assert!(!out.exists(), "nothing written");
        assert!(
            !dir.join("deep/escaped/PAYLOAD.sh").exists(),
            "nothing outside OUT"
        );
    }
    // A resumed run moves such a record aside and runs it again.
    let said = ok(&["experiment", "run", s(&file), "--out", s(&shard)]);
    assert!(said.starts_with("2 runs (1 kept"), "{said}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_model_config_or_a_bank_that_is_not_one_is_refused_without_quoting_it() {
    let dir = temp("notconfig");
    let secret = dir.join("secret.txt");
    std::fs::write(&secret, "hunter2:x:0:0:root:/root:/bin/bash\n").unwrap();
    let file = dir.join("exp.toml");
    std::fs::write(
        &file,
        "runs = 1\nconditions = [\"harness\"]\n[tasks]\nbank = \"secret.txt\"\n\
         [[models]]\nname = \"m\"\nconfig = \"secret.txt\"\n",
    )
    .unwrap();
    let err = refused(&["experiment", "run", s(&file), "--out", s(&dir.join("a"))]);
    assert!(
        err.contains("`models[0].config`") && err.contains("secret.txt:1:"),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");
    std::fs::write(
        &file,
        "runs = 1\nconditions = [\"harness\"]\n[tasks]\nbank = \"secret.txt\"\n\
         [[models]]\nname = \"m\"\n",
    )
    .unwrap();
    let err = refused(&["experiment", "run", s(&file), "--out", s(&dir.join("b"))]);
    assert!(
        err.contains("secret.txt:1: no word of this line was understood as a brief"),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");
    assert!(!dir.join("b").join("results.jsonl").exists());
    let err = refused(&["bank", s(&secret), "--out", s(&dir.join("c"))]);
    assert!(
        err.contains("is this a bank file?") && !err.contains("hunter2"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn names_longer_than_a_file_name_can_hold_still_run_and_report_whole() {
    let dir = temp("long");
    let long = "m".repeat(300);
    std::fs::write(dir.join("bank.txt"), BANK).unwrap();
    let file = dir.join("exp.toml");
    std::fs::write(
        &file,
        format!(
            "runs = 1\nconditions = [\"harness\"]\nrun_folders = true\n[tasks]\nbank = \"bank.txt\"\n\
             [[models]]\nname = \"{long}\"\n[[models]]\nname = \"{long}x\"\n[metrics]\nresamples = 100\n"
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let said = ok(&["experiment", "run", s(&file), "--out", s(&out)]);
    assert!(said.starts_with("4 runs (0 kept"), "{said}");
    ok(&["experiment", "report", s(&out)]);
    let cells: Vec<_> = std::fs::read_dir(out.join("cells"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(cells.len(), 2, "two models, two pages: {cells:?}");
    let (_, records) = read_whole_results(&out.join("results.jsonl")).unwrap();
    for r in &records {
        assert!(r.whole_in(&out), "{}", r.key);
        assert!(out.join(&r.files[0].path).is_file());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn run_folders_name_their_study_cell() {
    let dir = temp("study");
    let file = experiment(&dir, "\"harness\", \"no-repair\"", 2, "run_folders = true");
    let out = dir.join("out");
    ok(&["experiment", "run", s(&file), "--out", s(&out)]);
    let records = read_results(&out.join("results.jsonl")).unwrap().records;
    assert_eq!(records.len(), 2 * 2 * 2);
    for r in &records {
        let folder = out.join(&r.files[0].path).parent().unwrap().to_owned();
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(folder.join("report.json")).unwrap())
                .unwrap();
        assert_eq!(
            report["study"],
            serde_json::json!({
                "task": r.key.task.0,
                "model": "embedded",
                "condition": r.key.condition.0,
                "run": r.key.run,
            }),
            "{}",
            folder.display()
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn merged_shards_are_byte_for_byte_the_unsharded_run_header_and_report() {
    let dir = temp("bytes");
    // A reference whose distributions are elevenths: floats that the JSON reader
    // must read back exactly for the merged header to be the same bytes.
    let reference = dir.join("reference.txt");
    let notes =
        "C4@1>1 C#4@2>1 D4@3>1 D#4@4>1 E4@5>1 F4@6>1 F#4@7>1 G4@8>1 G#4@9>1 A4@10>1 A#4@11>1";
    std::fs::write(
        &reference,
        format!("KEY: ? | METER: 11/16 | TEMPO: 90 | GRID: 16th | BARS: 1\nVOICES: A\n@1 [-]\n  A: {notes}\n"),
    )
    .unwrap();
    let file = experiment(&dir, "\"harness\", \"no-repair\"", 2, "");
    std::fs::write(
        &file,
        "runs = 2\nconditions = [\"harness\", \"no-repair\"]\n[tasks]\nbank = \"bank.txt\"\n\
         [[models]]\nname = \"embedded\"\n[metrics]\nresamples = 100\nreference = [\"reference.txt\"]\n",
    )
    .unwrap();
    let whole = dir.join("whole");
    ok(&[
        "experiment",
        "run",
        s(&file),
        "--out",
        s(&whole),
        "--jobs",
        "2",
    ]);
    let mut shards = Vec::new();
    for i in 0..3 {
        let out = dir.join(format!("s{i}"));
        ok(&[
            "experiment",
            "run",
            s(&file),
            "--out",
            s(&out),
            "--shard",
            &format!("{i}/3"),
        ]);
        shards.push(out);
    }
    let merged = dir.join("merged");
    let mut args = vec!["experiment", "merge", s(&merged)];
    args.extend(shards.iter().map(|p| s(p)));
    ok(&args);
    let (w, m) = (
        lines(&whole.join("results.jsonl")),
        lines(&merged.join("results.jsonl")),
    );
    assert!(w[0].contains("0.09090909090909091"), "{}", w[0]);
    assert!(
        m[0] == w[0],
        "the merged header is not the one run's, byte for byte:\n{}\n{}",
        m[0],
        w[0]
    );
    // A resumed run rewrites its kept records (in key order): still the same bytes.
    ok(&["experiment", "run", s(&file), "--out", s(&whole)]);
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    let again = lines(&whole.join("results.jsonl"));
    assert!(
        sorted(again) == sorted(w.clone()),
        "the kept records changed when rewritten"
    );
    // The report sums in key order, whatever order the records were written in
    // (completion order with --jobs 2, key order in the merge): timing aside, the
    // same bytes.
    ok(&["experiment", "report", s(&whole)]);
    ok(&["experiment", "report", s(&merged)]);
    let without_timing = |d: &Path| {
        std::fs::read_to_string(d.join("report.json"))
            .unwrap()
            .lines()
            .filter(|l| !l.contains("seconds"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(without_timing(&merged), without_timing(&whole));
    std::fs::remove_dir_all(&dir).unwrap();
}
