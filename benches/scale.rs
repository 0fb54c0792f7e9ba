//! Scale benchmarks (issue 12): what `--jobs N` buys. Each figure is one run of many
//! seconds, so this is a plain timing harness (`harness = false`, no criterion
//! sampling) that repeats each run and prints medians and ratios:
//!
//!   cargo bench --bench scale -- overhead   the engine's overhead over a model that
//!       answers in a fixed 100 ms (a loopback fake server with keep-alive): wall time of a 40-task
//!       harness run over (requests × 100 ms / concurrency), at concurrency 4 with
//!       --jobs 4 and 8, and over the same requests sent through the same backend
//!       with no engine (what the loopback server and HTTP cost by themselves)
//!   cargo bench --bench scale -- bank       the embedded 40-brief bank at --jobs 2
//!       over --jobs 1 (CPU-bound: on 2 cores the most it can be is 2×)
//!   cargo bench --bench scale -- local      throughput against a llama.cpp server
//!       with 4 slots at CANTUS_LOCAL_MODEL_BENCH_URL (e.g. start one with
//!       `CANTUS_LOCAL_MODEL_PORT=8089 CANTUS_LOCAL_MODEL_PARALLEL=4
//!       scripts/local-model.sh start`): runs and delivered pieces per minute at
//!       --jobs 1, 2, 4 over four 4-bar duets (harness-constrained), as ratios to
//!       --jobs 1; SKIPPED when the variable is unset
//!
//! With no name, `overhead` and `bank` run. Figures depend on the machine and on
//! what else runs on it: quote them with the machine named.

use cantus::bank::BankRun;
use cantus::experiment::Experiment;
use cantus::experiment::jobs::{Jobs, io_runtime};
use cantus::experiment::run::{Plan, read_whole_results, results_path, run};
use cantus::experiment::shard::Shard;
use cantus_fake_server::{FakeServer, Reply, openai_reply};
use cantus_framework::{Message, ModelRequest};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const MODEL_DELAY: Duration = Duration::from_millis(100);
const CONCURRENCY: u32 = 4;

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("cantus-bench-scale-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Runs `file` into a fresh `out` at `jobs`; when it started, and its wall seconds.
fn run_experiment(file: &Path, out: &Path, jobs: usize) -> (Instant, f64) {
    let _ = std::fs::remove_dir_all(out);
    let exp = Experiment::load(file).unwrap_or_else(|e| panic!("{e}"));
    let plan = Plan {
        jobs: Jobs::new(jobs).unwrap(),
        shard: Shard::WHOLE,
    };
    let io = io_runtime().unwrap();
    let started = Instant::now();
    run(&exp, out, plan, io.handle(), &|_, _| {}).unwrap_or_else(|e| panic!("{e}"));
    (started, started.elapsed().as_secs_f64())
}

fn overhead() {
    let dir = scratch("overhead");
    let text = "Soprano: C5@1>4 C#5@2>4 D5@3>4 D#5@4>4\nBass: C3@1>4 C#3@2>4 D3@3>4 D#3@4>4";
    for jobs in [4usize, 8] {
        let (mut ratios, mut engine) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            // Keep-alive, as vLLM, SGLang and llama.cpp serve: the client reuses its
            // connections, and the figure is the engine's, not a handshake's.
            let server = FakeServer::keep_alive(vec![Reply::Delayed(
                MODEL_DELAY,
                Box::new(Reply::json(openai_reply(text))),
            )]);
            std::fs::write(
                dir.join("model.toml"),
                format!(
                    "[backend]\nkind = \"openai\"\nbase_url = \"{}/v1\"\nmodel = \"m\"\n\
                     timeout_s = 30\nretries = 0\nconcurrency = {CONCURRENCY}\n\
                     [harness]\nmax_proposer_calls = 4\nreasks = 0\n",
                    server.url
                ),
            )
            .unwrap();
            let file = dir.join("overhead.toml");
            std::fs::write(
                &file,
                "runs = 1\nconditions = [\"harness\"]\n[tasks.single_factor]\n\
                 [[models]]\nname = \"fake\"\nconfig = \"model.toml\"\n",
            )
            .unwrap();
            let (started, wall) = run_experiment(&file, &dir.join("out"), jobs);
            let seen = server.seen();
            let requests = seen.len();
            // Where the time beyond the ideal goes: before the first request reached
            // the server, and after the last reply was due.
            let first = seen.iter().map(|s| s.received).min().unwrap();
            let last = seen.iter().map(|s| s.received).max().unwrap() + MODEL_DELAY;
            let lead = (first - started).as_secs_f64() * 1e3;
            let tail = (wall - (last - started).as_secs_f64()) * 1e3;
            let ideal = requests as f64 * MODEL_DELAY.as_secs_f64() / f64::from(CONCURRENCY);
            // The same number of requests through the same backend with no engine at
            // all: what the loopback server and HTTP cost on their own.
            let bare = bare_requests(&file, requests);
            println!(
                "overhead --jobs {jobs}: {requests} requests, wall {wall:.3} s, \
                 ideal {ideal:.2} s, ratio {:.4} (first request after {lead:.1} ms, \
                 {tail:.1} ms after the last reply was due); \
                 the requests alone {bare:.3} s, ratio {:.4}",
                wall / ideal,
                wall / bare
            );
            ratios.push(wall / ideal);
            engine.push(wall / bare);
        }
        println!(
            "overhead --jobs {jobs} (concurrency {CONCURRENCY}, 100 ms a reply): median wall/ideal {:.4} ({:+.2}%), \
             median wall/(the requests alone) {:.4} ({:+.2}%)",
            median(ratios.clone()),
            (median(ratios) - 1.0) * 100.0,
            median(engine.clone()),
            (median(engine) - 1.0) * 100.0
        );
    }
}

/// Sends `n` requests through the model of `file`, as many at once as its
/// `concurrency` lets through; wall seconds.
fn bare_requests(file: &Path, n: usize) -> f64 {
    let exp = Experiment::load(file).unwrap_or_else(|e| panic!("{e}"));
    let backend = exp.models[0].configured.as_ref().unwrap().backend.clone();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let started = Instant::now();
    runtime.block_on(async {
        let mut tasks = Vec::new();
        for _ in 0..n {
            let backend = backend.clone();
            tasks.push(tokio::spawn(async move {
                let request = ModelRequest::new(vec![Message::user("go")]);
                backend.complete(&request).await.map(|_| ())
            }));
        }
        for t in tasks {
            t.await.unwrap().unwrap_or_else(|e| panic!("{e}"));
        }
    });
    started.elapsed().as_secs_f64()
}

fn bank() {
    let dir = scratch("bank");
    let bank = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/briefs/bank.txt");
    let exp = cantus::bank::experiment(&bank, 1).unwrap_or_else(|e| panic!("{e}"));
    let mut walls = [Vec::new(), Vec::new()];
    for _ in 0..7 {
        for (slot, jobs) in [1usize, 2].into_iter().enumerate() {
            let out = dir.join(format!("j{jobs}"));
            let _ = std::fs::remove_dir_all(&out);
            let how = BankRun {
                force: true,
                jobs: Jobs::new(jobs).unwrap(),
                shard: Shard::WHOLE,
            };
            let io = io_runtime().unwrap();
            let started = Instant::now();
            let (entries, _) =
                cantus::bank::run(&exp, &out, &how, io.handle(), &|_, _| {}).unwrap();
            let wall = started.elapsed().as_secs_f64();
            println!(
                "bank --jobs {jobs}: {} briefs in {wall:.2} s",
                entries.len()
            );
            walls[slot].push(wall);
        }
    }
    let (one, two) = (median(walls[0].clone()), median(walls[1].clone()));
    println!(
        "bank ({} briefs, seed 0, 7 alternating runs each): median --jobs 1 {one:.2} s, --jobs 2 {two:.2} s, speed-up {:.2}×",
        exp.tasks.len(),
        one / two
    );
}

/// Four short duets for the local model (one harness run of SmolLM2 takes about a
/// minute on 2 busy cores, so four keep the three settings within a quarter hour).
const LOCAL_BANK: &str = "\
[webern] A 4-bar duet in 4/4 on Webern's Op. 21 row
[schoenberg] A 4-bar duet in 4/4 on Schoenberg's Op. 25 row
[berg] A 4-bar duet in 4/4 on Berg's Lyric Suite row
[webern] A 4-bar duet in 3/4 on Webern's Op. 28 row
";

fn local() {
    let Ok(url) = std::env::var("CANTUS_LOCAL_MODEL_BENCH_URL") else {
        println!(
            "SKIPPED local: set CANTUS_LOCAL_MODEL_BENCH_URL to a llama.cpp server with 4 slots"
        );
        return;
    };
    let dir = scratch("local");
    std::fs::write(dir.join("bank.txt"), LOCAL_BANK).unwrap();
    std::fs::write(
        dir.join("model.toml"),
        format!(
            "[backend]\nkind = \"openai\"\nbase_url = \"{url}\"\nmodel = \"smollm2\"\n\
             temperature = 0.0\nseed = 1\nmax_tokens = 512\ntimeout_s = 120\nretries = 1\n\
             concurrency = 4\n[harness]\nconstrained = true\nmax_proposer_calls = 60\n\
             deadline_s = 300.0\n"
        ),
    )
    .unwrap();
    let file = dir.join("local.toml");
    std::fs::write(
        &file,
        "runs = 1\nconditions = [\"harness-constrained\"]\n[tasks]\nbank = \"bank.txt\"\n\
         [[models]]\nname = \"smollm2\"\nconfig = \"model.toml\"\n",
    )
    .unwrap();
    let mut base = None;
    for jobs in [1usize, 2, 4] {
        let out = dir.join(format!("j{jobs}"));
        let (_, wall) = run_experiment(&file, &out, jobs);
        let (_, records) = read_whole_results(&results_path(&out)).unwrap();
        let delivered = records.iter().filter(|r| r.released()).count();
        let calls: u64 = records.iter().map(|r| r.cost.calls).sum();
        let per_minute = |n: f64| n * 60.0 / wall;
        let (runs_pm, delivered_pm) = (
            per_minute(records.len() as f64),
            per_minute(delivered as f64),
        );
        let (runs_1, delivered_1) = *base.get_or_insert((runs_pm, delivered_pm));
        println!(
            "local --jobs {jobs}: {} runs, {delivered} delivered, {calls} calls in {wall:.1} s: \
             {runs_pm:.2} runs/min ({:.2}× --jobs 1), {delivered_pm:.2} delivered/min ({})",
            records.len(),
            runs_pm / runs_1,
            if delivered_1 > 0.0 {
                format!("{:.2}× --jobs 1", delivered_pm / delivered_1)
            } else {
                "none delivered at --jobs 1".to_owned()
            }
        );
    }
}

fn main() {
    let names: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wants = |n: &str| {
        if names.is_empty() {
            n != "local"
        } else {
            names.iter().any(|x| x == n)
        }
    };
    if wants("overhead") {
        overhead();
    }
    if wants("bank") {
        bank();
    }
    if wants("local") {
        local();
    }
}
