//! `cantus experiment run` and `report` end to end: an interrupted run resumed gives
//! the same records as an uninterrupted one (timing aside), bad experiment files are
//! refused with file, line and key, an unreachable model makes its runs explicit
//! failures, prompt-only conditions are recorded as not applicable to the embedded
//! proposer, and the report is written from the records alone.

use cantus::experiment::Record;
use cantus::experiment::run::{read_results, read_whole_results};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cantus-exp-{name}-{}", std::process::id()));
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

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const BANK: &str = "\
# four short briefs, two families
[duo] A 4-bar duet in 4/4 on Webern's Op. 28 row
[duo] An 8-bar two-voice piece in 3/4 at 72 bpm on Schoenberg's Op. 25 row
[trio] A 4-bar trio in 4/4 at 90 bpm
[trio] An 8-bar trio in 2/4 on Schoenberg's Op. 33a row
";

/// An experiment over the four briefs with the embedded proposer.
fn small_experiment(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("bank.txt"), BANK).unwrap();
    let file = dir.join("small.toml");
    std::fs::write(
        &file,
        "runs = 2\nconditions = [\"raw\", \"harness\", \"no-repair\", \"no-replan\", \"soft-rules\"]\n\
         [tasks]\nbank = \"bank.txt\"\n[[models]]\nname = \"embedded\"\n\
         [metrics]\nresamples = 200\n",
    )
    .unwrap();
    file
}

fn records(out: &Path) -> BTreeMap<String, Record> {
    let (header, records) = read_whole_results(&out.join("results.jsonl")).unwrap();
    assert!(header.is_some());
    records
        .into_iter()
        .map(|r| (r.key.to_string(), r.without_timing()))
        .collect()
}

#[test]
fn an_interrupted_run_resumed_gives_the_same_records_as_an_uninterrupted_one() {
    let dir = temp("resume");
    let file = small_experiment(&dir);
    let whole = dir.join("whole");
    let run = cantus(&["experiment", "run", s(&file), "--out", s(&whole)]);
    assert!(run.status.success(), "{run:?}");
    let want = records(&whole);
    assert_eq!(want.len(), 4 * 5 * 2);

    // Kill a run once a few records are written, leave a half-written line behind,
    // and run again.
    let cut = dir.join("cut");
    let mut child = Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args(["experiment", "run", s(&file), "--out", s(&cut)])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let results = cut.join("results.jsonl");
    let started = Instant::now();
    loop {
        let lines = std::fs::read_to_string(&results).map_or(0, |t| t.lines().count());
        if lines >= 4 || started.elapsed() > Duration::from_secs(120) {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let _ = child.kill();
    let _ = child.wait();
    // The kill may cut a line: read what is whole without asking for every line.
    let kept_before = read_results(&results).unwrap().records.len();
    assert!(kept_before < want.len(), "the run was not interrupted");
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&results)
        .unwrap();
    f.write_all(b"{\"kind\":\"run\",\"task\":\"L00").unwrap();
    drop(f);

    let again = cantus(&["experiment", "run", s(&file), "--out", s(&cut)]);
    assert!(again.status.success(), "{again:?}");
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert!(stdout.contains("kept from an earlier run"), "{stdout}");
    assert_eq!(records(&cut), want);

    // A trace that was changed after its record was written is not trusted: that
    // record runs again (and comes out the same).
    let victim = want.values().find_map(|r| r.trace.clone()).unwrap();
    std::fs::write(cut.join(&victim.path), b"changed").unwrap();
    let third = cantus(&["experiment", "run", s(&file), "--out", s(&cut)]);
    let stdout = String::from_utf8_lossy(&third.stdout);
    assert!(
        stdout.contains(&format!("({} kept", want.len() - 1)),
        "{stdout}"
    );
    assert_eq!(records(&cut), want);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn prompt_only_conditions_are_not_applicable_to_the_embedded_proposer_and_the_report_says_so() {
    let dir = temp("report");
    let file = small_experiment(&dir);
    let out = dir.join("out");
    assert!(
        cantus(&["experiment", "run", s(&file), "--out", s(&out)])
            .status
            .success()
    );
    let got = records(&out);
    for (key, r) in &got {
        let applies = !key.contains("/soft-rules/");
        assert_eq!(r.applies(), applies, "{key}");
        if applies {
            assert!(r.piece.is_some() || !r.reason.is_empty(), "{key}");
        } else {
            assert!(r.reason.contains("embedded proposer"), "{}", r.reason);
            assert!(r.piece.is_none() && r.cost.calls == 0);
        }
    }
    let report = cantus(&["experiment", "report", s(&out)]);
    assert!(report.status.success(), "{report:?}");
    for name in [
        "report.md",
        "report.json",
        "report.html",
        "delivery.csv",
        "predicates.csv",
        "cost.csv",
        "paired.csv",
        "delivery.svg",
        "cost.svg",
        "predicates.svg",
    ] {
        assert!(out.join(name).is_file(), "{name}");
    }
    // The HTML report's rows lead to each cell's runs, and those to their pieces:
    // every link resolves to a file, and every piece made is reachable.
    let hrefs = |page: &Path| -> Vec<PathBuf> {
        let html = std::fs::read_to_string(page).unwrap();
        html.split("href=\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .filter(|h| !h.starts_with('#') && !h.starts_with("http"))
            .map(|h| page.parent().unwrap().join(h))
            .collect()
    };
    let cells = hrefs(&out.join("report.html"));
    assert_eq!(
        cells.len(),
        4,
        "raw, harness, no-repair, no-replan: {cells:?}"
    );
    let mut pieces = 0;
    for cell in &cells {
        assert!(cell.is_file(), "{}", cell.display());
        for piece in hrefs(cell) {
            let text = std::fs::read_to_string(&piece)
                .unwrap_or_else(|e| panic!("{}: {e}", piece.display()));
            assert!(text.starts_with("KEY:"), "{text}");
            pieces += 1;
        }
    }
    let made = got.values().filter(|r| r.piece.is_some()).count();
    assert_eq!(pieces, made);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("### Not applicable"), "{md}");
    assert!(md.contains("embedded / soft-rules: 8 runs"), "{md}");
    // The harness delivers every one of these short briefs; the report's strict
    // delivery for it is the records' share.
    let harness: Vec<&Record> = got
        .iter()
        .filter(|(k, _)| k.contains("/harness/"))
        .map(|(_, r)| r)
        .collect();
    let released = harness.iter().filter(|r| r.released()).count();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let cell = json["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["condition"] == "harness")
        .unwrap();
    assert_eq!(
        cell["delivery_strict"]["estimate"].as_f64().unwrap(),
        released as f64 / harness.len() as f64
    );
    // What the harness releases is serial through and through: the analyser, given
    // no row, explains (nearly) every note.
    let share = cell["analysis_share"]["estimate"].as_f64().unwrap();
    assert!(share > 0.95, "{share}");
    assert!(md.contains("## Serial analysis"), "{md}");
    // No `metrics.reference` key: the shipped corpus, its numbers built in.
    assert!(
        md.contains("Against corpus/second-viennese/ (21 pieces)."),
        "{md}"
    );
    assert!(
        md.contains("The reference set's pieces: 89.0% on average."),
        "{md}"
    );

    // Another reference set, given to the report: a directory of scores.
    let refs = dir.join("refs");
    std::fs::create_dir_all(&refs).unwrap();
    let op21 = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("domains/twelve-tone/tests/fixtures/webern_op21/symphonie_i_bars_1-25.txt");
    std::fs::copy(&op21, refs.join("a-op21.txt")).unwrap();
    let first_piece = got.values().find_map(|r| r.piece.clone()).unwrap();
    std::fs::write(refs.join("b-generated.txt"), first_piece).unwrap();
    std::fs::write(refs.join("notes.md"), "not a score").unwrap();
    let report = cantus(&["experiment", "report", s(&out), "--reference", s(&refs)]);
    assert!(report.status.success(), "{report:?}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("given to `cantus experiment report --reference`"),
        "{md}"
    );
    assert!(md.contains("(2 pieces)"), "{md}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let names = json["references"].as_array().unwrap();
    assert!(
        names[0].as_str().unwrap().ends_with("a-op21.txt"),
        "{names:?}"
    );
    // Webern's opening is 96% explained, the generated piece wholly.
    let share = json["reference_analysis_share"].as_f64().unwrap();
    assert!(share > 0.9 && share <= 1.0, "{share}");
    // A reference directory without scores is refused, naming it.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let report = cantus(&["experiment", "report", s(&out), "--reference", s(&empty)]);
    assert_eq!(report.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&report.stderr).contains("holds no score file"),
        "{report:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_experiment_files_are_refused_with_file_line_and_key() {
    let dir = temp("bad");
    small_experiment(&dir);
    let cases = [
        (
            "typo.toml",
            "runs = 2\nconditions = [\"raw\"]\nrusn = 3\n[tasks]\nbank = \"bank.txt\"\n[[models]]\nname = \"e\"\n",
            ":3:1",
            "rusn",
        ),
        (
            "condition.toml",
            "runs = 2\nconditions = [\"raw\",\n  \"harnes\"]\n[tasks]\nbank = \"bank.txt\"\n[[models]]\nname = \"e\"\n",
            ":3:3",
            "harnes",
        ),
        (
            "model.toml",
            "runs = 2\nconditions = [\"raw\"]\n[tasks]\nbank = \"bank.txt\"\n[[models]]\nname = \"m\"\nconfig = \"nowhere.toml\"\n",
            ":7:10",
            "models[0].config",
        ),
    ];
    for (name, text, place, key) in cases {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        let out = cantus(&["experiment", "run", s(&file), "--out", s(&dir.join("o"))]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains(&format!("{name}{place}")) && err.contains(key),
            "{name}: {err}"
        );
    }
    assert!(!dir.join("o").exists(), "nothing ran");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unreachable_model_makes_its_runs_explicit_failures() {
    let dir = temp("unreachable");
    std::fs::write(
        dir.join("bank.txt"),
        "A 4-bar duet in 4/4 on Webern's Op. 28 row\n",
    )
    .unwrap();
    // Port 9 (discard) has no listener here: every connection is refused.
    std::fs::write(
        dir.join("down.toml"),
        "[backend]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\n\
         connect_timeout_s = 1\ntimeout_s = 2\nretries = 0\n[harness]\nmax_proposer_calls = 5\n",
    )
    .unwrap();
    let file = dir.join("down-exp.toml");
    std::fs::write(
        &file,
        "runs = 1\nconditions = [\"raw\", \"harness\", \"self-refine\"]\n[tasks]\nbank = \"bank.txt\"\n\
         [[models]]\nname = \"down\"\nconfig = \"down.toml\"\n",
    )
    .unwrap();
    let out = dir.join("out");
    let run = cantus(&["experiment", "run", s(&file), "--out", s(&out)]);
    assert!(run.status.success(), "{run:?}");
    let got = records(&out);
    assert_eq!(got.len(), 3);
    for (key, r) in &got {
        assert_eq!(r.outcome, cantus::experiment::RunOutcome::Failed, "{key}");
        assert!(!r.reason.is_empty(), "{key}: no reason");
    }
    let raw = got.values().find(|r| r.key.condition.0 == "raw").unwrap();
    assert!(raw.reason.contains("model call failed"), "{}", raw.reason);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The second task set: Fux exercises with the embedded search — counterpoint's
/// registered trials, selected by the table it names (`[tasks.fux]`). Whole-piece
/// conditions are not applicable (and say why), the harness releases species-1
/// exercises judged by the species gate (its rules are the verdict's keys), and the
/// report leaves the twelve-tone-only columns empty rather than filling them. A
/// species the domain does not write is refused before anything runs, at its line
/// and key; so is the table beside another task set.
#[test]
fn counterpoint_exercises_run_as_a_second_task_set() {
    let dir = temp("fux");
    let file = dir.join("fux.toml");
    std::fs::write(
        &file,
        "runs = 1\nconditions = [\"raw\", \"harness\", \"no-repair\", \"revise\"]\n\
         [tasks]\nlimit = 4\n[tasks.fux]\nspecies = [1]\n\
         [[models]]\nname = \"embedded\"\n[metrics]\nresamples = 200\n",
    )
    .unwrap();
    let out = dir.join("out");
    let run = cantus(&["experiment", "run", s(&file), "--out", s(&out)]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let got = records(&out);
    assert_eq!(got.len(), 4 * 4);
    let tasks: std::collections::BTreeSet<String> =
        got.values().map(|r| r.key.task.0.clone()).collect();
    assert_eq!(
        tasks.into_iter().collect::<Vec<_>>(),
        [
            "fux-dorian-above-s1",
            "fux-dorian-below-s1",
            "fux-phrygian-above-s1",
            "fux-phrygian-below-s1"
        ]
    );
    for (key, r) in &got {
        let condition = r.key.condition.0.as_str();
        match condition {
            "raw" | "revise" => {
                assert!(!r.applies(), "{key}");
                assert!(
                    r.reason.contains("not for counterpoint tasks"),
                    "{}",
                    r.reason
                );
            }
            _ => {
                assert!(r.applies(), "{key}");
                let strict = r.strict.as_ref().expect("a verdict");
                assert!(
                    strict.violations.contains_key("FS-P-parallel-perfect"),
                    "{key}: {:?}",
                    strict.violations.keys()
                );
                assert!(r.relaxed.is_none() && !r.released_relaxed, "{key}");
                assert_eq!(r.voices, 2);
            }
        }
        if condition == "harness" {
            assert!(r.released(), "{key}: {}", r.reason);
            assert_eq!(r.strict.as_ref().map(|v| v.passed), Some(true));
        }
    }
    for (tasks, at, says) in [
        (
            "[tasks.fux]\nspecies = [1, 3]\n",
            "refused.toml:4:1",
            "`tasks.fux.species` must be a whole number from 1 to 2, not 3",
        ),
        (
            "[tasks]\nbank = \"b.txt\"\n[tasks.fux]\nspecies = [1]\n",
            "refused.toml:",
            "`fux` (the counterpoint domain's task set) cannot be given with `bank`",
        ),
    ] {
        let refused = dir.join("refused.toml");
        std::fs::write(
            &refused,
            format!(
                "runs = 1\nconditions = [\"harness\"]\n{tasks}[[models]]\nname = \"embedded\"\n"
            ),
        )
        .unwrap();
        let o = cantus(&[
            "experiment",
            "run",
            s(&refused),
            "--out",
            s(&dir.join("no")),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(at) && err.contains(says), "{err}");
        assert!(!dir.join("no").exists(), "nothing ran");
    }
    // Both dorian exercises share a family (their cantus firmus).
    let families: std::collections::BTreeSet<String> =
        got.values().map(|r| r.family.0.clone()).collect();
    assert_eq!(families.len(), 2, "{families:?}");

    let report = cantus(&["experiment", "report", s(&out)]);
    assert!(report.status.success(), "{report:?}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let harness = json["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["condition"] == "harness")
        .unwrap();
    assert_eq!(harness["delivery_strict"]["estimate"].as_f64(), Some(1.0));
    assert!(harness["delivery_relaxed"].is_null(), "{harness}");
    assert!(harness["collision_only_pass"].is_null(), "{harness}");
    assert!(harness["collision_rate"].is_null(), "{harness}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("embedded / raw: 4 runs"), "{md}");
    // The shipped corpus is serial music: an exercise is measured against none.
    assert!(
        md.contains("No reference set named (`metrics.reference`): not computed."),
        "{md}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The shipped counterpoint experiment file parses: 24 exercises, and a run of it
/// limited to one exercise works (the file is not run whole here).
#[test]
fn the_shipped_counterpoint_experiment_file_is_valid() {
    let shipped =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/experiments/counterpoint.toml");
    let exp = cantus::experiment::file::Experiment::load(&shipped).expect("parses");
    assert_eq!(exp.tasks.len(), 24);
    assert_eq!(exp.conditions.len(), 5);
}

/// A registered domain's task set (`[tasks] domain = "chorale"`), run by the domain's
/// own trials through the same grid, records, resume and report: two Bach chorale
/// melodies harmonised by the embedded search, judged by the chorale gate's rules
/// (shared corpus; SKIPPED without it), measured against Bach's harmonisations by
/// the domain's own measures.
#[test]
fn a_registered_domains_task_set_runs_through_the_same_runner() {
    let shared = std::env::var_os("CANTUS_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"),
        PathBuf::from,
    );
    let corpus = shared.join("data/corpus/bach_chorales");
    let names = ["r001_bwv269.musicxml", "r004_bwv86.6.musicxml"];
    if !names.iter().all(|n| corpus.join(n).is_file()) {
        let msg = format!(
            "SKIPPED: the chorale task set ({} not found; set CANTUS_SHARED)",
            corpus.display()
        );
        assert!(
            std::env::var("CANTUS_REQUIRE_SHARED").as_deref() != Ok("1"),
            "{msg}"
        );
        eprintln!("{msg}");
        return;
    }
    let dir = temp("chorale");
    std::fs::create_dir_all(dir.join("melodies")).unwrap();
    for n in names {
        std::fs::copy(corpus.join(n), dir.join("melodies").join(n)).unwrap();
    }
    let file = dir.join("chorale.toml");
    std::fs::write(
        &file,
        "runs = 1\nconditions = [\"raw\", \"harness\"]\n\
         [tasks]\ndomain = \"chorale\"\nchorales = \"melodies\"\n\
         [[models]]\nname = \"embedded\"\n[metrics]\nresamples = 200\n",
    )
    .unwrap();
    let out = dir.join("out");
    let run = cantus(&["experiment", "run", s(&file), "--out", s(&out)]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(
        said.starts_with("4 runs (0 kept from an earlier run): 2 released"),
        "{said}"
    );
    let all = records(&out);
    assert_eq!(all.len(), 4);
    for r in all.values() {
        assert_eq!(r.domain.as_str(), "chorale");
        if r.key.condition.0 == "raw" {
            assert!(!r.applies(), "{r:?}");
            continue;
        }
        assert!(r.released(), "{r:?}");
        // The artefact is a score: kept in the text grammar, its four voices counted.
        assert_eq!(r.voices, 4, "{r:?}");
        let piece = r.piece.as_deref().unwrap();
        assert!(cantus_music::grammar::parse(piece, &Default::default()).is_ok());
        let strict = r.strict.as_ref().unwrap();
        assert!(strict.passed);
        assert_eq!(
            strict.violations.get("CH-parallel-fifths"),
            Some(&0),
            "{r:?}"
        );
        assert!(r.counts.as_ref().is_some_and(|c| c.sections > 0), "{r:?}");
        // The domain's own measures: agreement with Bach's harmonisation, per beat.
        let bass = r.measures.get("bass = Bach").copied();
        assert!(bass.is_some_and(|b| (0.0..=1.0).contains(&b)), "{r:?}");
        assert!(r.measures.contains_key("chord variety"), "{r:?}");
    }
    let report = cantus(&["experiment", "report", s(&out)]);
    assert!(report.status.success(), "{report:?}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("| embedded | harness | 2 | 100.0%"), "{md}");
    assert!(md.contains("not for chorale tasks"), "{md}");
    assert!(md.contains("## The domain's measures"), "{md}");
    assert!(md.contains("| bass = Bach |"), "{md}");
    let csv = std::fs::read_to_string(out.join("measures.csv")).unwrap();
    assert!(csv.contains("\nembedded,harness,bass = Bach,"), "{csv}");
    // report.html shows them too, a column per measure.
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<h2>The domain&#39;s measures"), "{html}");
    assert!(html.contains("<th>bass = Bach</th>"), "{html}");
    let again = cantus(&["experiment", "run", s(&file), "--out", s(&out)]);
    assert!(
        String::from_utf8_lossy(&again.stdout).starts_with("4 runs (4 kept"),
        "{again:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
