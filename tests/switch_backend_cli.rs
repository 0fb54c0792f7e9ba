//! Switching the model backend by config file alone: the same `cantus compose` command
//! run with two configs that differ only in their `[backend]` table — the Python
//! example as a `subprocess` plugin, the Rust example as a `dynamic` cdylib — releases
//! the same piece through the same ladder, each trace naming the backend that answered,
//! and `cantus verify` passes both pieces on their own. Without python3 the dynamic
//! half still runs and the subprocess half prints SKIPPED.

#[path = "../plugins/host/tests/support/mod.rs"]
mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Three voices in two sections: the plugins cannot see every collision from inside
/// one request, so the ladder has work to do.
const BRIEF: &str = "an 8-bar piece for three voices in 3/4";

/// Everything but the `[backend]` table, shared by both configs.
const SHARED: &str =
    "\n[harness]\nreasks = 1\nattempts_per_event = 3\n\n[gate]\nmode = \"strict\"\n";

fn cantus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args(args)
        .output()
        .expect("the cantus binary runs")
}

/// A TOML string for `text` (JSON string syntax is valid TOML).
fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string serialises")
}

fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is JSON: {e}", path.display()))
}

/// What one run left behind.
struct Run {
    out: PathBuf,
    trace: Vec<Value>,
    report: Value,
}

/// `cantus compose --brief BRIEF --config CONFIG --out OUT`, which must release.
fn compose(dir: &Path, label: &str, backend: &str) -> Run {
    let config = dir.join(format!("{label}.toml"));
    std::fs::write(&config, format!("{backend}{SHARED}")).expect("writing a config");
    let out = dir.join(format!("out-{label}"));
    let run = cantus(&[
        "compose",
        "--brief",
        BRIEF,
        "--config",
        &config.display().to_string(),
        "--out",
        &out.display().to_string(),
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{label} run:\n{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.starts_with("released"), "{label}: {stdout}");
    let trace_text =
        std::fs::read_to_string(out.join("trace.jsonl")).expect("the run writes trace.jsonl");
    let trace = trace_text
        .lines()
        .map(|l| serde_json::from_str(l).expect("every trace line is JSON"))
        .collect();
    let report = read_json(&out.join("report.json"));
    Run { out, trace, report }
}

impl Run {
    fn records(&self, kind: &str) -> Vec<&Value> {
        self.trace.iter().filter(|r| r["kind"] == kind).collect()
    }

    /// The proposer named in the trace header.
    fn proposer(&self) -> &str {
        let header = &self.trace[0];
        assert_eq!(header["kind"], "run", "{header}");
        header["proposer"]
            .as_str()
            .expect("the header names its proposer")
    }

    /// Checks that every event went through the verifier and the ladder as the totals
    /// say, and that every call was answered by `backend`.
    fn check_harness(&self, backend: &str) {
        assert_eq!(self.report["released"], true);
        assert_eq!(
            self.report["gate"]["passed"], true,
            "{}",
            self.report["gate"]
        );
        let totals = &self.report["totals"];
        let n = |key: &str| {
            totals[key]
                .as_u64()
                .unwrap_or_else(|| panic!("totals.{key}"))
        };
        let calls = self.records("call");
        assert_eq!(n("proposer_calls"), calls.len() as u64);
        // Two sections of four bars, each asked of the plugin at least once.
        assert!(calls.len() >= 2, "{totals}");
        for call in &calls {
            assert_eq!(call["error"], Value::Null, "{call}");
            assert_eq!(call["model"]["backend"], backend, "{call}");
        }
        // Three voices, one row statement each per section: 72 notes.
        assert_eq!(n("events_proposed"), 72, "{totals}");
        assert_eq!(n("dropped"), 0, "{totals}");
        assert_eq!(n("accepted") + n("repaired"), n("events_proposed"));
        let events = self.records("event");
        assert_eq!(events.len() as u64, n("events_proposed"));
        let repaired: Vec<&&Value> = events
            .iter()
            .filter(|e| e["status"] == "repaired")
            .collect();
        assert_eq!(repaired.len() as u64, n("repaired"));
        // The plugins see no notes outside their request, so some proposals collide;
        // the verifier refused them and a rung of the ladder fixed each one.
        assert!(n("repaired") > 0, "the ladder was never used: {totals}");
        let by_rung: u64 = totals["repairs_by_rung"]
            .as_object()
            .expect("repairs_by_rung")
            .values()
            .filter_map(Value::as_u64)
            .sum();
        assert_eq!(by_rung, n("repaired"));
        for event in repaired {
            let refused = event["verdict"].as_array().expect("a verdict");
            assert!(
                !refused.is_empty(),
                "a repaired event was refused first: {event}"
            );
            let steps = event["steps"].as_array().expect("the ladder's steps");
            assert!(
                steps.iter().any(|s| s["kept"] == true),
                "a rung's result was kept: {event}"
            );
        }
    }

    /// `cantus verify` on the released piece with the run's spec and seed.
    fn verify(&self) {
        let piece = self.out.join("piece.txt");
        let spec = self.out.join("spec.toml");
        let out = cantus(&[
            "verify",
            &piece.display().to_string(),
            "--spec",
            &spec.display().to_string(),
            "--seed",
            "0",
            "--json",
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let verdict: Value = serde_json::from_slice(&out.stdout).expect("verify --json is JSON");
        assert_eq!(verdict["passed"], true, "{verdict}");
        assert_eq!(verdict["violations"], serde_json::json!([]), "{verdict}");
    }
}

#[test]
fn the_same_compose_releases_through_a_subprocess_or_a_dynamic_backend_chosen_by_config() {
    let root = support::workspace_root(env!("CARGO_MANIFEST_DIR"));
    let library = support::example_library(&root);
    let script = support::python_example(&root);
    let dir = support::scratch_dir("switch-backend");

    let dynamic = compose(
        &dir,
        "dynamic",
        &format!(
            "[backend]\nkind = \"dynamic\"\npath = {}\ntimeout_s = 20\n",
            quoted(&library.display().to_string())
        ),
    );
    // The trace header names the backend the run used.
    assert_eq!(dynamic.proposer(), "llm:dynamic:example-serial");
    dynamic.check_harness("dynamic:example-serial");
    dynamic.verify();

    let Some(python) = support::python3("switching backends by config (the subprocess half)")
    else {
        return;
    };
    let subprocess = compose(
        &dir,
        "subprocess",
        &format!(
            "[backend]\nkind = \"subprocess\"\ncommand = [{}, {}]\ntimeout_s = 20\n",
            quoted(&python),
            quoted(&script.display().to_string())
        ),
    );
    assert!(
        subprocess.proposer().starts_with("llm:subprocess:"),
        "{}",
        subprocess.proposer()
    );
    subprocess.check_harness("subprocess:example-serial-py");
    subprocess.verify();

    // Same rules in both languages: the same piece, by the same path through the ladder.
    let piece = |run: &Run| std::fs::read_to_string(run.out.join("piece.txt")).expect("piece.txt");
    assert_eq!(piece(&subprocess), piece(&dynamic));
    assert_eq!(subprocess.report["totals"], dynamic.report["totals"]);
    let _ = std::fs::remove_dir_all(&dir);
}
