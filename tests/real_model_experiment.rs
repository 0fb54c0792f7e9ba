//! A small real-model experiment: the local SmolLM2 (llama.cpp server; start it with
//! `scripts/local-model.sh start` and put its URL in `CANTUS_LOCAL_MODEL_URL`) over
//! two short briefs × `raw`, `harness-constrained` and the `soft-rules` baseline × one
//! run, through `cantus experiment run` and `report`. Call budgets and token limits
//! keep it to a few minutes on two cores.
//!
//! Every record must be an outcome (released, refused or an explicit failure with a
//! reason), cost must be counted, and the report must be written. Without
//! `CANTUS_LOCAL_MODEL_URL` it prints `SKIPPED: …` and passes.

use cantus::experiment::run::read_whole_results;
use std::process::Command;

#[test]
fn a_small_experiment_with_the_local_model() {
    let Ok(url) = std::env::var("CANTUS_LOCAL_MODEL_URL") else {
        eprintln!("SKIPPED: CANTUS_LOCAL_MODEL_URL is not set (scripts/local-model.sh start)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("cantus-exp-real-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("bank.txt"),
        "[duo] A 4-bar duet in 4/4 on Webern's Op. 28 row\n[solo] A 4-bar solo piece in 4/4 on Schoenberg's Op. 25 row\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("local.toml"),
        format!(
            "[backend]\nkind = \"openai\"\nbase_url = \"{url}\"\nmodel = \"smollm2\"\n\
             temperature = 0.2\nseed = 1\nmax_tokens = 256\ntimeout_s = 60\nretries = 1\n\
             [harness]\nmax_proposer_calls = 40\ndeadline_s = 120.0\nreasks = 1\n"
        ),
    )
    .unwrap();
    let file = dir.join("real.toml");
    std::fs::write(
        &file,
        "runs = 1\nconditions = [\"raw\", \"harness-constrained\", \"soft-rules\"]\n\
         [tasks]\nbank = \"bank.txt\"\n[[models]]\nname = \"smollm2\"\nconfig = \"local.toml\"\n\
         [metrics]\nresamples = 200\n",
    )
    .unwrap();
    let out = dir.join("out");
    let cantus = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_cantus"))
            .args(args)
            .output()
            .unwrap()
    };
    let run = cantus(&[
        "experiment",
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{run:?}");
    let (_, records) = read_whole_results(&out.join("results.jsonl")).unwrap();
    assert_eq!(records.len(), 6);
    for r in &records {
        assert!(r.applies(), "{}", r.key);
        assert!(r.released() || !r.reason.is_empty(), "{}: no reason", r.key);
        assert!(r.cost.calls >= 1, "{}: no call counted", r.key);
        eprintln!(
            "REAL-MODEL-EXPERIMENT | {:<40} | {:?} | calls {} | tokens {:?}/{:?} | {:.1} s | {}",
            r.key.to_string(),
            r.outcome,
            r.cost.calls,
            r.cost.tokens.tokens_in,
            r.cost.tokens.tokens_out,
            r.cost.seconds,
            r.reason.lines().next().unwrap_or("")
        );
    }
    let report = cantus(&["experiment", "report", out.to_str().unwrap()]);
    assert!(report.status.success(), "{report:?}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("smollm2 | harness-constrained"), "{md}");
    std::fs::remove_dir_all(&dir).unwrap();
}
