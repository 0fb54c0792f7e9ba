//! `examples/cluster/` as a user would run it: the Slurm scripts pass `bash -n`, ask
//! for an array and queue the merge after it; the Kubernetes manifests parse as an
//! Indexed Job whose shard count is its completions, on a shared volume; the example
//! experiment and endpoint config load. Then each one's per-shard command, as
//! written in the file (the whole Slurm script, the pod's `sh -c` line), runs every
//! shard of a small experiment with the embedded proposer, the file's merge step
//! merges them, and the merge holds the records of one unsharded run.

use cantus::experiment::run::read_whole_results;
use cantus::experiment::{Experiment, Record};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const CLUSTER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/cluster");

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cantus-cluster-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A directory whose `cantus` is the binary under test, to put first on `PATH`.
fn bin_dir(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_cantus"), bin.join("cantus")).unwrap();
    bin
}

fn path_with(bin: &Path) -> String {
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// A small experiment with the embedded proposer: 3 tasks × 2 conditions × 2 runs.
fn small_experiment(dir: &Path) -> PathBuf {
    std::fs::write(
        dir.join("bank.txt"),
        "[duo] A 4-bar duet in 4/4 on Webern's Op. 28 row\n\
         [duo] An 8-bar two-voice piece in 3/4 on Schoenberg's Op. 25 row\n\
         [trio] A 4-bar trio in 4/4 at 90 bpm\n",
    )
    .unwrap();
    let file = dir.join("small.toml");
    std::fs::write(
        &file,
        "runs = 2\nconditions = [\"raw\", \"harness\"]\n[tasks]\nbank = \"bank.txt\"\n\
         [[models]]\nname = \"embedded\"\n[metrics]\nresamples = 100\n",
    )
    .unwrap();
    file
}

fn records(out: &Path) -> BTreeMap<String, Record> {
    let (header, records) = read_whole_results(&out.join("results.jsonl")).unwrap();
    assert!(header.is_some(), "{}", out.display());
    records
        .into_iter()
        .map(|r| (r.key.to_string(), r.without_timing()))
        .collect()
}

/// Runs `program args` with `env`, asserting it succeeds.
fn run(program: &str, args: &[&str], env: &[(&str, String)]) {
    let out = Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{program} {args:?}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One unsharded run of `file` into `dir/whole`.
fn unsharded(dir: &Path, file: &Path) -> BTreeMap<String, Record> {
    let whole = dir.join("whole");
    run(
        env!("CARGO_BIN_EXE_cantus"),
        &[
            "experiment",
            "run",
            file.to_str().unwrap(),
            "--out",
            whole.to_str().unwrap(),
        ],
        &[],
    );
    records(&whole)
}

#[test]
fn the_example_experiment_and_endpoint_config_load() {
    let exp = Experiment::load(&Path::new(CLUSTER).join("sweep.toml"))
        .unwrap_or_else(|e| panic!("examples/cluster/sweep.toml: {e}"));
    assert_eq!(exp.tasks.len(), 40);
    assert!(exp.models[0].configured.is_some(), "a configured endpoint");
}

#[test]
fn the_slurm_array_runs_one_shard_per_task_and_its_merge_job_merges_them() {
    let slurm = Path::new(CLUSTER).join("slurm");
    for script in ["shard.sbatch", "merge.sbatch", "submit.sh"] {
        run("bash", &["-n", slurm.join(script).to_str().unwrap()], &[]);
    }
    let shard = std::fs::read_to_string(slurm.join("shard.sbatch")).unwrap();
    assert!(shard.lines().any(|l| l.starts_with("#SBATCH --array=")));
    assert!(shard.contains("--shard \"$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT\""));
    let submit = std::fs::read_to_string(slurm.join("submit.sh")).unwrap();
    assert!(
        submit.contains("--dependency=\"afterok:$array\""),
        "{submit}"
    );

    let dir = temp("slurm");
    let file = small_experiment(&dir);
    let sweep = dir.join("sweep");
    let cantus = env!("CARGO_BIN_EXE_cantus").to_owned();
    let count = 3;
    for task in 0..count {
        run(
            "bash",
            &[slurm.join("shard.sbatch").to_str().unwrap()],
            &[
                ("SLURM_ARRAY_TASK_ID", task.to_string()),
                ("SLURM_ARRAY_TASK_COUNT", count.to_string()),
                ("SLURM_CPUS_PER_TASK", "2".into()),
                ("EXPERIMENT", file.display().to_string()),
                ("SWEEP_DIR", sweep.display().to_string()),
                ("CANTUS", cantus.clone()),
            ],
        );
        assert!(sweep.join(format!("shard-{task}/results.jsonl")).is_file());
    }
    run(
        "bash",
        &[slurm.join("merge.sbatch").to_str().unwrap()],
        &[
            ("SWEEP_DIR", sweep.display().to_string()),
            ("CANTUS", cantus),
        ],
    );
    assert_eq!(records(&sweep.join("merged")), unsharded(&dir, &file));
    assert!(
        sweep.join("merged/report.md").is_file(),
        "the report is written"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The documents of a YAML file.
fn yaml_documents(path: &Path) -> Vec<serde_yaml::Value> {
    let text = std::fs::read_to_string(path).unwrap();
    serde_yaml::Deserializer::from_str(&text)
        .map(|d| {
            serde::Deserialize::deserialize(d).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        })
        .collect()
}

/// The `sh -c` line and the literal environment of a Job's first container.
fn container(job: &serde_yaml::Value) -> (String, Vec<(String, String)>) {
    let c = &job["spec"]["template"]["spec"]["containers"][0];
    let command: Vec<&str> = c["command"]
        .as_sequence()
        .expect("a command")
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(&command[..2], ["/bin/sh", "-c"], "{command:?}");
    let env = c["env"]
        .as_sequence()
        .map(|e| {
            e.iter()
                .filter_map(|v| {
                    Some((
                        v["name"].as_str()?.to_owned(),
                        v["value"].as_str()?.to_owned(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    (command[2].to_owned(), env)
}

#[test]
fn the_kubernetes_indexed_job_runs_one_shard_per_index_and_the_merge_job_merges_them() {
    let k8s = Path::new(CLUSTER).join("kubernetes");
    let docs = yaml_documents(&k8s.join("sweep.yaml"));
    let pvc = docs
        .iter()
        .find(|d| d["kind"] == "PersistentVolumeClaim")
        .expect("a shared volume");
    assert_eq!(pvc["spec"]["accessModes"][0], "ReadWriteMany");
    let claim = pvc["metadata"]["name"].as_str().unwrap();
    let job = docs.iter().find(|d| d["kind"] == "Job").expect("a Job");
    assert_eq!(job["spec"]["completionMode"], "Indexed");
    let completions = job["spec"]["completions"].as_u64().unwrap();
    assert!(job["spec"]["parallelism"].as_u64().is_some());
    let volumes = job["spec"]["template"]["spec"]["volumes"]
        .as_sequence()
        .unwrap();
    assert!(
        volumes
            .iter()
            .any(|v| v["persistentVolumeClaim"]["claimName"] == claim),
        "the pods mount the shared volume"
    );
    let (command, env) = container(job);
    assert!(command.contains("--shard \"$JOB_COMPLETION_INDEX/$SHARDS\""));
    let shards: u64 = env
        .iter()
        .find(|(k, _)| k == "SHARDS")
        .map(|(_, v)| v.parse().unwrap())
        .expect("SHARDS");
    assert_eq!(shards, completions, "SHARDS must equal completions");

    let merge_docs = yaml_documents(&k8s.join("merge.yaml"));
    let merge_job = &merge_docs[0];
    assert_eq!(merge_job["kind"], "Job");
    assert_eq!(
        merge_job["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"],
        claim
    );
    let (merge_command, _) = container(merge_job);

    // Every index's pod, as the manifest says, with the small experiment and a
    // scratch folder for the volume.
    let dir = temp("k8s");
    let file = small_experiment(&dir);
    let sweep = dir.join("sweep");
    std::fs::create_dir_all(&sweep).unwrap();
    let path = path_with(&bin_dir(&dir));
    for index in 0..completions {
        let mut vars: Vec<(&str, String)> =
            env.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        vars.retain(|(k, _)| !["EXPERIMENT", "SWEEP_DIR"].contains(k));
        vars.extend([
            ("EXPERIMENT", file.display().to_string()),
            ("SWEEP_DIR", sweep.display().to_string()),
            ("JOB_COMPLETION_INDEX", index.to_string()),
            ("PATH", path.clone()),
        ]);
        run("/bin/sh", &["-c", &command], &vars);
    }
    run(
        "/bin/sh",
        &["-c", &merge_command],
        &[
            ("SWEEP_DIR", sweep.display().to_string()),
            ("PATH", path.clone()),
        ],
    );
    assert_eq!(records(&sweep.join("merged")), unsharded(&dir, &file));
    assert!(
        sweep.join("merged/report.md").is_file(),
        "the report is written"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
