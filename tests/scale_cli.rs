//! Scale (issue 12) end to end: `--jobs N` gives the records `--jobs 1` gives, with the
//! embedded proposer and with a model server; a backend's `concurrency` caps its
//! requests in flight however many pieces are; `--shard 0/3 … 2/3` merged is the
//! unsharded run, and the report reads it; merge refuses another experiment file and
//! records that disagree; `cantus bank --jobs 2` writes the summary `--jobs 1` writes.

use cantus::experiment::Record;
use cantus::experiment::run::read_whole_results;
use cantus_fake_server::{FakeServer, Reply, openai_reply};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cantus-scale-{name}-{}", std::process::id()));
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

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const BANK: &str = "\
[duo] A 4-bar duet in 4/4 on Webern's Op. 28 row
[duo] An 8-bar two-voice piece in 3/4 at 72 bpm on Schoenberg's Op. 25 row
[trio] A 4-bar trio in 4/4 at 90 bpm
";

/// An experiment over three briefs with the embedded proposer: 3 × 4 × 2 = 24 records.
fn embedded_experiment(dir: &Path, runs: u32) -> PathBuf {
    std::fs::write(dir.join("bank.txt"), BANK).unwrap();
    let file = dir.join("embedded.toml");
    std::fs::write(
        &file,
        format!(
            "runs = {runs}\nconditions = [\"raw\", \"harness\", \"no-repair\", \"soft-rules\"]\n\
             [tasks]\nbank = \"bank.txt\"\n[[models]]\nname = \"embedded\"\n\
             [metrics]\nresamples = 100\n"
        ),
    )
    .unwrap();
    file
}

/// The records of `out` by key, timing zeroed.
fn records(out: &Path) -> BTreeMap<String, Record> {
    let (header, records) = read_whole_results(&out.join("results.jsonl")).unwrap();
    assert!(header.is_some(), "{}: no header", out.display());
    let n = records.len();
    let map: BTreeMap<String, Record> = records
        .into_iter()
        .map(|r| (r.key.to_string(), r.without_timing()))
        .collect();
    assert_eq!(map.len(), n, "{}: a key twice", out.display());
    map
}

#[test]
fn four_jobs_give_the_records_one_job_gives_with_the_embedded_proposer() {
    let dir = temp("embedded");
    let file = embedded_experiment(&dir, 2);
    let (one, four) = (dir.join("one"), dir.join("four"));
    ok(&["experiment", "run", s(&file), "--out", s(&one)]);
    let said = ok(&[
        "experiment",
        "run",
        s(&file),
        "--out",
        s(&four),
        "--jobs",
        "4",
    ]);
    assert!(said.starts_with("24 runs (0 kept"), "{said}");
    let want = records(&one);
    assert_eq!(want.len(), 24);
    assert!(want.values().any(|r| r.released()), "something is released");
    assert_eq!(records(&four), want);
    // Resume works at --jobs 4 too: every record is kept, nothing runs again.
    let again = ok(&[
        "experiment",
        "run",
        s(&file),
        "--out",
        s(&four),
        "--jobs",
        "4",
    ]);
    assert!(again.starts_with("24 runs (24 kept"), "{again}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A model config for the fake server at `url` with `concurrency` requests at most.
fn model_config(dir: &Path, url: &str, concurrency: u32) -> PathBuf {
    let path = dir.join(format!("model-{concurrency}.toml"));
    std::fs::write(
        &path,
        format!(
            "[backend]\nkind = \"openai\"\nbase_url = \"{url}/v1\"\nmodel = \"m\"\n\
             connect_timeout_s = 2\ntimeout_s = 20\nretries = 0\ntemperature = 0.0\nseed = 7\n\
             concurrency = {concurrency}\n\n[harness]\nmax_proposer_calls = 4\nreasks = 0\n"
        ),
    )
    .unwrap();
    path
}

/// A model's fixed answer: a few notes for the voices the briefs name, slow enough
/// that requests overlap.
fn slow_model() -> FakeServer {
    let text = "Soprano: C5@1>4 C#5@2>4 D5@3>4 D#5@4>4\nAlto: E4@1>4 F4@2>4 F#4@3>4 G4@4>4\n\
                Tenor: G#3@1>4 A3@2>4 A#3@3>4 B3@4>4\nBass: C3@1>4 C#3@2>4 D3@3>4 D#3@4>4";
    FakeServer::start(vec![Reply::Delayed(
        Duration::from_millis(40),
        Box::new(Reply::json(openai_reply(text))),
    )])
}

fn model_experiment(dir: &Path, config: &Path) -> PathBuf {
    std::fs::write(dir.join("bank.txt"), BANK).unwrap();
    let file = dir.join(format!(
        "{}.experiment.toml",
        config.file_stem().unwrap().to_string_lossy()
    ));
    std::fs::write(
        &file,
        format!(
            "runs = 2\nconditions = [\"raw\", \"harness\"]\n[tasks]\nbank = \"bank.txt\"\n\
             [[models]]\nname = \"fake\"\nconfig = \"{}\"\n",
            config.file_name().unwrap().to_string_lossy()
        ),
    )
    .unwrap();
    file
}

#[test]
fn a_model_server_sees_the_same_requests_answered_into_the_same_records_and_never_more_than_concurrency_at_once()
 {
    let dir = temp("model");
    let mut got = Vec::new();
    for jobs in ["1", "6"] {
        // A server per run, so its peak is this run's.
        let server = slow_model();
        let config = model_config(&dir, &server.url, 2);
        let file = model_experiment(&dir, &config);
        let out = dir.join(format!("jobs-{jobs}"));
        ok(&[
            "experiment",
            "run",
            s(&file),
            "--out",
            s(&out),
            "--jobs",
            jobs,
        ]);
        assert!(server.count() > 0, "the model was asked");
        assert!(
            server.peak() <= 2,
            "--jobs {jobs}: {} requests in flight, concurrency is 2",
            server.peak()
        );
        if jobs == "6" {
            assert_eq!(server.peak(), 2, "six pieces keep both permits busy");
        }
        got.push((records(&out), server.count()));
    }
    assert_eq!(got[0].0.len(), 3 * 2 * 2);
    assert!(
        got[0].0.values().all(|r| r.cost.calls > 0),
        "every run asked the model"
    );
    // Latency is timing too: it is in the traces, so compare them without it.
    let timeless = |(records, _): &(BTreeMap<String, Record>, usize), out: &Path| {
        records
            .iter()
            .map(|(k, r)| {
                let mut r = r.clone();
                let trace = r.trace.take().map(|t| {
                    let text = std::fs::read_to_string(out.join(&t.path)).unwrap();
                    let mut lines = Vec::new();
                    for line in text.lines() {
                        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
                        strip_keys(&mut v, &["latency_ms"]);
                        if v["kind"] != "timing" {
                            lines.push(v);
                        }
                    }
                    (t.path, lines)
                });
                (k.clone(), (r, trace))
            })
            .collect::<BTreeMap<_, _>>()
    };
    assert_eq!(
        timeless(&got[1], &dir.join("jobs-6")),
        timeless(&got[0], &dir.join("jobs-1")),
        "--jobs 6 records equal --jobs 1 records"
    );
    assert_eq!(got[1].1, got[0].1, "and took as many requests");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn three_shards_merged_equal_one_unsharded_run_and_the_report_reads_them() {
    let dir = temp("shards");
    let file = embedded_experiment(&dir, 2);
    let whole = dir.join("whole");
    ok(&["experiment", "run", s(&file), "--out", s(&whole)]);
    let mut shards = Vec::new();
    let mut sizes = Vec::new();
    for i in 0..3 {
        let out = dir.join(format!("shard-{i}"));
        let shard = format!("{i}/3");
        let said = ok(&[
            "experiment",
            "run",
            s(&file),
            "--out",
            s(&out),
            "--shard",
            &shard,
            "--jobs",
            "2",
        ]);
        assert!(
            said.starts_with(&format!("shard {shard}: 8 runs")),
            "{said}"
        );
        let (header, _) = read_whole_results(&out.join("results.jsonl")).unwrap();
        assert_eq!(header.unwrap().shard.map(|s| s.to_string()), Some(shard));
        sizes.push(records(&out).len());
        shards.push(out);
    }
    assert_eq!(sizes, vec![8, 8, 8], "24 cells in three equal shards");

    // A rerun into a shard's directory must be the same shard.
    let wrong = cantus(&["experiment", "run", s(&file), "--out", s(&shards[0])]);
    assert_eq!(wrong.status.code(), Some(2), "{wrong:?}");
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("shard 0/3"));

    let merged = dir.join("merged");
    let mut args = vec!["experiment", "merge", s(&merged)];
    args.extend(shards.iter().map(|p| s(p)));
    let said = ok(&args);
    assert!(said.starts_with("24 records from 3 directories"), "{said}");
    assert_eq!(records(&merged), records(&whole));
    let (header, _) = read_whole_results(&merged.join("results.jsonl")).unwrap();
    assert_eq!(header.unwrap().shard, None, "the merge is the whole grid");
    for r in records(&merged).values() {
        if let Some(t) = &r.trace {
            assert!(t.holds(&merged), "{}: trace copied whole", t.path);
        }
    }
    // The report of the merge is the report of the unsharded run.
    ok(&["experiment", "report", s(&merged)]);
    ok(&["experiment", "report", s(&whole)]);
    let json = |d: &Path| {
        let text = std::fs::read_to_string(d.join("report.json")).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        // Timing is the only thing two runs of a record may differ in.
        strip_keys(&mut v, &["seconds", "seconds_mean", "seconds_total"]);
        v
    };
    assert_eq!(json(&merged), json(&whole));
    // A resumed unsharded run over the merge has nothing left to do.
    let again = ok(&["experiment", "run", s(&file), "--out", s(&merged)]);
    assert!(again.starts_with("24 runs (24 kept"), "{again}");

    // Two of three shards: merged, with the missing one named, and a run fills it.
    let partial = dir.join("partial");
    let said = ok(&[
        "experiment",
        "merge",
        s(&partial),
        s(&shards[0]),
        s(&shards[2]),
    ]);
    assert!(said.contains("missing shards: 1/3"), "{said}");
    let filled = ok(&["experiment", "run", s(&file), "--out", s(&partial)]);
    assert!(filled.starts_with("24 runs (16 kept"), "{filled}");
    assert_eq!(records(&partial), records(&whole));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Removes every object key named in `keys`, at any depth.
fn strip_keys(v: &mut serde_json::Value, keys: &[&str]) {
    match v {
        serde_json::Value::Object(m) => {
            m.retain(|k, _| !keys.iter().any(|n| k.contains(n)));
            m.values_mut().for_each(|x| strip_keys(x, keys));
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| strip_keys(x, keys)),
        _ => {}
    }
}

#[test]
fn merge_refuses_another_experiment_file_and_records_that_disagree_but_takes_identical_ones() {
    let dir = temp("refuse");
    let file = embedded_experiment(&dir, 1);
    let (a, b) = (dir.join("a"), dir.join("b"));
    ok(&[
        "experiment",
        "run",
        s(&file),
        "--out",
        s(&a),
        "--shard",
        "0/2",
    ]);
    ok(&[
        "experiment",
        "run",
        s(&file),
        "--out",
        s(&b),
        "--shard",
        "1/2",
    ]);

    // The same shard run twice: identical records (timing aside) merge.
    let twice = dir.join("a-again");
    ok(&[
        "experiment",
        "run",
        s(&file),
        "--out",
        s(&twice),
        "--shard",
        "0/2",
    ]);
    let said = ok(&[
        "experiment",
        "merge",
        s(&dir.join("m1")),
        s(&a),
        s(&twice),
        s(&b),
    ]);
    assert!(said.contains("(6 duplicates"), "{said}");

    // Another experiment file (runs = 2): refused, naming both directories.
    let other_dir = dir.join("other");
    std::fs::create_dir_all(&other_dir).unwrap();
    let other = embedded_experiment(&other_dir, 2);
    let c = dir.join("c");
    ok(&[
        "experiment",
        "run",
        s(&other),
        "--out",
        s(&c),
        "--shard",
        "1/2",
    ]);
    let refused = cantus(&["experiment", "merge", s(&dir.join("m2")), s(&a), s(&c)]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("another experiment file") && err.contains(s(&a)) && err.contains(s(&c)),
        "{err}"
    );
    assert!(
        !dir.join("m2").join("results.jsonl").exists(),
        "nothing written"
    );

    // A record changed in one copy: refused, naming the key and both directories.
    let results = twice.join("results.jsonl");
    let text = std::fs::read_to_string(&results).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut v: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
    let key = format!(
        "{}/{}/{}/{}",
        v["task"].as_str().unwrap(),
        v["model"].as_str().unwrap(),
        v["condition"].as_str().unwrap(),
        v["run"]
    );
    v["reason"] = serde_json::json!("edited");
    lines[1] = v.to_string();
    std::fs::write(&results, lines.join("\n") + "\n").unwrap();
    let refused = cantus(&["experiment", "merge", s(&dir.join("m3")), s(&a), s(&twice)]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains(&format!("record {key} differs between"))
            && err.contains(s(&a))
            && err.contains(s(&twice)),
        "{err}"
    );
    assert!(!dir.join("m3").exists(), "nothing written");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_jobs_and_shards_are_refused_saying_why() {
    let dir = temp("flags");
    let file = embedded_experiment(&dir, 1);
    for (flag, value, says) in [
        ("--jobs", "0", "must be at least 1"),
        ("--jobs", "100000", "more than 256"),
        ("--shard", "3/3", "3/3: i must be below N"),
        ("--shard", "1-3", "write i/N"),
    ] {
        let out = cantus(&["experiment", "run", s(&file), "--out", s(&dir), flag, value]);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{flag} {value}: {err}");
        let bank = cantus(&[
            "bank",
            s(&dir.join("bank.txt")),
            "--out",
            s(&dir),
            flag,
            value,
        ]);
        assert_eq!(bank.status.code(), Some(2), "bank {flag} {value}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_bank_at_two_jobs_writes_the_summary_one_job_writes_and_shards_split_it() {
    let dir = temp("bank");
    std::fs::write(dir.join("bank.txt"), BANK).unwrap();
    let bank = dir.join("bank.txt");
    let summary = |out: &Path| std::fs::read_to_string(out.join("summary.json")).unwrap();
    let (one, two) = (dir.join("one"), dir.join("two"));
    let run = |out: &Path, extra: &[&str]| {
        let mut args = vec!["bank", s(&bank), "--seeds", "2", "--out", s(out)];
        args.extend(extra);
        let o = cantus(&args);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{o:?}");
    };
    run(&one, &[]);
    run(&two, &["--jobs", "2"]);
    let want = summary(&one).replace(s(&one), "<out>");
    assert_eq!(summary(&two).replace(s(&two), "<out>"), want);
    // Two shards: each composes its half, and says which half it is.
    let mut entries = 0;
    for i in 0..2 {
        let out = dir.join(format!("shard-{i}"));
        run(&out, &["--shard", &format!("{i}/2"), "--jobs", "2"]);
        let v: serde_json::Value = serde_json::from_str(&summary(&out)).unwrap();
        assert_eq!(v["shard"], format!("{i}/2"));
        entries += v["entries"].as_array().unwrap().len();
    }
    assert_eq!(entries, 3 * 2);
    // The shards merge like any experiment's, run folders and all: a bank run into the
    // merged directory finds every run whole and composes nothing again.
    let merged = dir.join("merged");
    let merge = cantus(&[
        "experiment",
        "merge",
        s(&merged),
        s(&dir.join("shard-0")),
        s(&dir.join("shard-1")),
    ]);
    assert_eq!(merge.status.code(), Some(0), "{merge:?}");
    let folders = std::fs::read_dir(merged.join("runs")).unwrap().count();
    assert_eq!(folders, 3 * 2, "every run's folder is in the merge");
    run(&merged, &[]);
    let v: serde_json::Value = serde_json::from_str(&summary(&merged)).unwrap();
    let entries = v["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 3 * 2);
    assert!(
        entries.iter().all(|e| e["earlier"] == true),
        "nothing composed again: {v}"
    );
    assert_eq!(
        summary(&merged).replace(s(&merged), "<out>"),
        want.replace("\"earlier\": false", "\"earlier\": true")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn run_folders_hold_every_harness_run_and_model_reply_and_a_broken_one_is_run_again() {
    let dir = temp("folders");
    let server = slow_model();
    let config = model_config(&dir, &server.url, 2);
    std::fs::write(dir.join("bank.txt"), BANK).unwrap();
    let file = dir.join("folders.toml");
    std::fs::write(
        &file,
        format!(
            "runs = 1\nconditions = [\"raw\", \"harness\"]\nrun_folders = true\n\
             [tasks]\nbank = \"bank.txt\"\n[[models]]\nname = \"fake\"\nconfig = \"{}\"\n\
             [[models]]\nname = \"embedded\"\n",
            config.file_name().unwrap().to_string_lossy()
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let run = || {
        ok(&[
            "experiment",
            "run",
            s(&file),
            "--out",
            s(&out),
            "--jobs",
            "2",
        ])
    };
    run();
    let made = records(&out);
    assert_eq!(made.len(), 3 * 2 * 2);
    let (_, raw) = read_whole_results(&out.join("results.jsonl")).unwrap();
    let mut folders = 0;
    for r in &raw {
        let folder = out.join("runs").join(r.key.file_stem());
        // Every run writes one, a reply that could not be read too, but the embedded
        // proposer's one-reply baseline, a check of the gate.
        let wanted = !(r.key.condition.0 == "raw" && r.key.model == "embedded");
        assert_eq!(folder.is_dir(), wanted, "{}", r.key);
        assert_eq!(!r.files.is_empty(), wanted, "{}", r.key);
        if wanted {
            folders += 1;
            assert!(folder.join("report.json").is_file(), "{}", r.key);
            let own = if r.key.condition.0 == "raw" {
                "raw-reply.txt"
            } else {
                "trace.jsonl"
            };
            assert!(folder.join(own).is_file(), "{}: no {own}", r.key);
            assert!(r.whole_in(&out), "{}", r.key);
        }
    }
    assert!(folders >= 6, "{folders} run folders");
    // A folder file changed by hand makes that run, and only that run, run again.
    let broken = raw
        .iter()
        .find(|r| !r.files.is_empty() && r.key.condition.0 == "raw")
        .expect("a model reply with a folder");
    std::fs::write(out.join(&broken.files[0].path), "changed by hand").unwrap();
    let said = run();
    assert!(said.contains(&format!("{} kept", 3 * 2 * 2 - 1)), "{said}");
    let (_, again) = read_whole_results(&out.join("results.jsonl")).unwrap();
    assert!(
        again.iter().all(|r| r.whole_in(&out)),
        "the folder is written again"
    );
    // The same outcomes and pieces (the model's latency is in its trace).
    let gist = |m: &BTreeMap<String, Record>| -> Vec<String> {
        m.iter()
            .map(|(k, r)| format!("{k} {:?} {:?}", r.outcome, r.piece))
            .collect()
    };
    assert!(
        gist(&records(&out)) == gist(&made),
        "the same records again"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
