//! A program that already runs tokio drives an experiment on its own runtime: the
//! runner takes a handle instead of building a runtime of its own.

use cantus_experiment::jobs::Jobs;
use cantus_experiment::run::{Plan, read_whole_results, results_path, run};
use cantus_experiment::shard::Shard;
use cantus_experiment::{Experiment, RunOutcome};
// Fux's exercises are counterpoint's task set, found in the registry: link it in.
use cantus_counterpoint as _;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_experiment_runs_on_the_programs_own_runtime() {
    let dir = std::env::temp_dir().join(format!("cantus-host-runtime-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("fux.toml");
    std::fs::write(
        &file,
        "runs = 1\nconditions = [\"harness\"]\n[tasks]\nlimit = 2\n[tasks.fux]\nspecies = [1]\n\
         [[models]]\nname = \"embedded\"\n",
    )
    .unwrap();
    let exp = Experiment::load(&file).unwrap();
    let out = dir.join("out");
    let handle = tokio::runtime::Handle::current();
    let plan = Plan {
        jobs: Jobs::new(2).unwrap(),
        shard: Shard::WHOLE,
    };
    let (ran, out) = tokio::task::spawn_blocking(move || {
        let ran = run(&exp, &out, plan, &handle, &|_, _| {});
        (ran, out)
    })
    .await
    .unwrap();
    let ran = ran.unwrap();
    assert_eq!((ran.total, ran.kept), (2, 0));
    assert_eq!(ran.outcomes.get(&RunOutcome::Released), Some(&2));
    let (header, records) = read_whole_results(&results_path(&out)).unwrap();
    assert!(header.is_some());
    assert_eq!(records.len(), 2);
    // The program's runtime is still its own, and still running.
    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    std::fs::remove_dir_all(&dir).unwrap();
}
