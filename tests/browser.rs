//! The HTML report and the blind package in a real browser: Debian's Chromium,
//! headless, driven over WebDriver (chromedriver, through fantoccini). Pages are
//! opened from disk (file://), as a rater would open them.
//!
//! The runs come from `cantus experiment run` (embedded proposer, two conditions,
//! run folders), the package from `cantus blind` over its output directory as it
//! is, and the key is checked to be nowhere inside the package.
//!
//! Checks: every score image and audio element loads (no broken resource, audio
//! with a positive duration); the report's trace viewer shows an event's
//! certificate when clicked; every rating form of the package is filled by two
//! raters, each exports a CSV (a real download), and `cantus blind score` reads
//! them back with the right counts and the preferences the key implies.
//!
//! Needs chromium, chromedriver, lilypond and a SoundFont (scripts/install-music-tools.sh);
//! without them it says SKIPPED, unless CANTUS_REQUIRE_TOOLS=1. With
//! CANTUS_WRITE_SCREENSHOTS=DIR it saves screenshots of both pages there.

use fantoccini::{ClientBuilder, Locator};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

const CHROMIUM: &str = "/usr/bin/chromium";

fn cantus(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args(args)
        .output()
        .expect("cantus runs");
    assert!(
        out.status.success(),
        "cantus {args:?}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn missing_tools() -> Vec<String> {
    let mut missing = Vec::new();
    let runs = |p: &str| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    for tool in [CHROMIUM, "chromedriver", "lilypond"] {
        if !runs(tool) {
            missing.push(tool.to_string());
        }
    }
    if cantus_render::tools::soundfont(None).is_err() {
        missing.push("a General MIDI SoundFont".into());
    }
    missing
}

fn temp_dir() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!("cantus-browser-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The two conditions compared: the harness, and the same proposer with no repair.
const CONDITIONS: [&str; 2] = ["harness", "no-repair"];

/// An experiment run as a user runs one (`cantus experiment run`, the embedded
/// proposer): two tasks × the two conditions, one run each, with run folders. Its
/// output directory is what `cantus blind` reads, nothing written in by hand.
fn experiment(dir: &Path) -> PathBuf {
    let bank = dir.join("bank.txt");
    std::fs::write(
        &bank,
        "[duo] a 4-bar piece for two voices in 4/4 at 90 bpm\n\
         [trio] a 4-bar piece for three voices in 3/4 at 80 bpm\n",
    )
    .unwrap();
    let file = dir.join("experiment.toml");
    std::fs::write(
        &file,
        format!(
            "runs = 1\nconditions = {CONDITIONS:?}\nrun_folders = true\n[tasks]\nbank = {:?}\n\
             [[models]]\nname = \"embedded\"\n[metrics]\nresamples = 100\n",
            bank.display().to_string()
        ),
    )
    .unwrap();
    let out = dir.join("experiment");
    cantus(&[
        "experiment",
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    out
}

/// Every file under `dir`, hidden ones too.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(at) = todo.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_driver() -> (Driver, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let child = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .arg("--allowed-ips=127.0.0.1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "chromedriver did not listen"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    (Driver(child), port)
}

fn url(path: &Path) -> String {
    format!("file://{}", std::path::absolute(path).unwrap().display())
}

/// Every <img> loaded with a size, every <audio> with a positive duration.
const MEDIA_CHECK: &str = r#"
const done = arguments[arguments.length - 1];
const audios = [...document.querySelectorAll('audio')];
Promise.all(audios.map(a => a.readyState >= 1 ? Promise.resolve() : new Promise(r => {
  a.addEventListener('loadedmetadata', r); a.addEventListener('error', r); a.load();
}))).then(() => done({
  images: [...document.images].map(i => ({src: i.src, ok: i.complete && i.naturalWidth > 0})),
  audios: audios.map(a => ({src: a.src, duration: a.duration, error: a.error ? a.error.code : null})),
  svgs: document.querySelectorAll('.score svg').length,
  events: document.querySelectorAll('svg g.cantus-event').length,
}));
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn report_and_blind_package_work_in_chromium() {
    let missing = missing_tools();
    if !missing.is_empty() {
        let message = format!("browser test: missing {}", missing.join(", "));
        if std::env::var("CANTUS_REQUIRE_TOOLS").as_deref() == Ok("1") {
            panic!("{message} (CANTUS_REQUIRE_TOOLS=1; run scripts/install-music-tools.sh)");
        }
        eprintln!("SKIPPED: {message}");
        return;
    }
    let dir = temp_dir();
    let experiment = experiment(&dir);
    let runs = experiment.join("runs");
    let mut run_names: Vec<String> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    run_names.sort();
    assert_eq!(
        run_names.len(),
        4,
        "two tasks × two conditions: {run_names:?}"
    );
    let report = dir.join("report");
    cantus(&[
        "render",
        runs.to_str().unwrap(),
        "--html",
        "--out",
        report.to_str().unwrap(),
    ]);
    // The experiment's output directory, as it is: its run folders name their cell.
    let pkg = dir.join("pkg");
    cantus(&[
        "blind",
        experiment.to_str().unwrap(),
        "--pairs",
        "24",
        "--conditions",
        &CONDITIONS.join(","),
        "--seed",
        "7",
        "--out",
        pkg.to_str().unwrap(),
    ]);
    let key_path = dir.join("pkg.key.json");
    let key_text = std::fs::read_to_string(&key_path).unwrap();
    let key: Value = serde_json::from_str(&key_text).unwrap();
    let pairs = key["pairs"].as_array().unwrap().clone();
    assert_eq!(pairs.len(), 2, "two tasks, one pair each");
    assert_eq!(key["seed"], 7);
    // The key is nowhere inside the package: no file of it (hidden or not) is the
    // key, names a condition or the key's hash of the manifest.
    let manifest_hash = key["manifest_sha256"].as_str().unwrap();
    for file in files_under(&pkg) {
        let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap()).into_owned();
        assert!(
            text != key_text
                && !text.contains(manifest_hash)
                && !CONDITIONS.iter().any(|c| text.contains(c))
                && !text.contains("\"condition\""),
            "{} gives the key away",
            file.display()
        );
    }
    let check = Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args(["blind", "check", pkg.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(check.status.success(), "{check:?}");

    // The manifest verifies every file of the package.
    let check = Command::new("sha256sum")
        .args(["-c", "--strict", "MANIFEST.sha256"])
        .current_dir(&pkg)
        .output()
        .expect("sha256sum runs");
    let listed = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success(), "{listed}");
    assert_eq!(
        listed.lines().filter(|l| l.ends_with(": OK")).count(),
        1 + 2 * 2 * 2,
        "index + 2 pairs × 2 sides × (svg, ogg)"
    );

    let (_driver, port) = start_driver();
    let profile = dir.join("profile");
    let downloads = dir.join("downloads");
    std::fs::create_dir_all(&downloads).unwrap();
    let mut caps = serde_json::Map::new();
    caps.insert("goog:chromeOptions".into(), json!({
        "binary": CHROMIUM,
        "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--autoplay-policy=no-user-gesture-required", "--window-size=1280,1800",
                 format!("--user-data-dir={}", profile.display())],
        "prefs": {"download.default_directory": downloads.display().to_string(),
                  "download.prompt_for_download": false},
    }));
    let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("a WebDriver session");
    let shots = std::env::var_os("CANTUS_WRITE_SCREENSHOTS").map(PathBuf::from);

    // The index: one row per run, each linking to its piece page.
    client.goto(&url(&report.join("index.html"))).await.unwrap();
    let links = client
        .find_all(Locator::Css("table.index a"))
        .await
        .unwrap();
    assert_eq!(links.len(), 4);
    for run in &run_names {
        let page = report.join(run).join("index.html");
        client.goto(&url(&page)).await.unwrap();
        let media = client.execute_async(MEDIA_CHECK, vec![]).await.unwrap();
        assert_eq!(media["svgs"], 1, "{run}: the engraving is inline");
        assert!(
            media["events"].as_u64().unwrap() > 8,
            "{run}: note heads carry event ids"
        );
        let audios = media["audios"].as_array().unwrap();
        assert_eq!(audios.len(), 1, "{run}");
        assert!(
            audios[0]["duration"].as_f64().unwrap_or(0.0) > 1.0,
            "{run}: {media}"
        );
        // The trace viewer: a click on an event shows its certificate.
        let rows = client
            .find_all(Locator::Css("#trace-table tbody tr"))
            .await
            .unwrap();
        assert!(!rows.is_empty(), "{run}: trace events listed");
        rows[0].click().await.unwrap();
        let detail = client
            .find(Locator::Id("trace-detail"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            detail.contains("proposal") && detail.contains("accepted"),
            "{detail}"
        );
        // Filtering by status narrows the table to that status.
        client.execute("const s = document.getElementById('filter-status'); s.value = 'accepted'; s.dispatchEvent(new Event('change'));", vec![]).await.unwrap();
        let shown = client
            .find_all(Locator::Css("#trace-table tbody tr"))
            .await
            .unwrap()
            .len();
        assert!(shown > 0 && shown <= rows.len());
        if let (Some(shots), true) = (&shots, run == &run_names[0]) {
            std::fs::create_dir_all(shots).unwrap();
            client
                .execute("window.scrollTo(0, 0)", vec![])
                .await
                .unwrap();
            std::fs::write(shots.join("report.png"), client.screenshot().await.unwrap()).unwrap();
        }
    }

    // The package: every image and audio loads; two raters fill every form and export.
    for (rater, answer) in [("r1", "A"), ("r2", "none")] {
        client.goto(&url(&pkg.join("index.html"))).await.unwrap();
        let media = client.execute_async(MEDIA_CHECK, vec![]).await.unwrap();
        let images = media["images"].as_array().unwrap();
        assert_eq!(images.len(), 4, "two sides of two pairs");
        assert!(images.iter().all(|i| i["ok"] == true), "{media}");
        let audios = media["audios"].as_array().unwrap();
        assert_eq!(audios.len(), 4);
        assert!(
            audios
                .iter()
                .all(|a| a["duration"].as_f64().unwrap_or(0.0) > 1.0),
            "{media}"
        );
        let radios = client
            .find_all(Locator::Css(&format!("input[type=radio][value={answer}]")))
            .await
            .unwrap();
        assert_eq!(radios.len(), 2 * 4, "one per pair and criterion");
        for r in radios {
            r.click().await.unwrap();
        }
        let selects = client.find_all(Locator::Css("select")).await.unwrap();
        assert_eq!(selects.len(), 2 * 4 * 2);
        for (i, s) in selects.iter().enumerate() {
            s.select_by_value(&((i % 5) + 1).to_string()).await.unwrap();
        }
        client
            .find(Locator::Id("rater"))
            .await
            .unwrap()
            .send_keys(rater)
            .await
            .unwrap();
        if let (Some(shots), "r1") = (&shots, rater) {
            std::fs::write(
                shots.join("blind-package.png"),
                client.screenshot().await.unwrap(),
            )
            .unwrap();
        }
        client
            .find(Locator::Id("export"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        let file = downloads.join(format!("ratings-{rater}.csv"));
        let start = Instant::now();
        while !file.is_file()
            || std::fs::read_to_string(&file)
                .map(|t| t.lines().count())
                .unwrap_or(0)
                < 9
        {
            assert!(
                start.elapsed() < Duration::from_secs(15),
                "no download of {}",
                file.display()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    client.close().await.unwrap();

    let out = cantus(&[
        "blind",
        "score",
        "--key",
        key_path.to_str().unwrap(),
        "--json",
        downloads.join("ratings-r1.csv").to_str().unwrap(),
        downloads.join("ratings-r2.csv").to_str().unwrap(),
    ]);
    let scores: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(scores["raters"], 2);
    assert_eq!(scores["rows"], 2 * 2 * 4, "raters × pairs × criteria");
    assert_eq!(scores["pairs_rated"], 2);
    // r1 chose A everywhere: the harness count is the number of pairs whose A is harness.
    let harness_as_a = pairs
        .iter()
        .filter(|p| p["A"]["condition"] == "harness")
        .count();
    // The intervals resample the two pairs: r2's "no preference" is half of every
    // pair's answers, so its interval is [50%, 50%]; the harness's share is half of
    // the pairs whose A is the harness, so its interval runs from what the fewest to
    // what the most of those pairs give.
    let interval = |p: &Value| -> (f64, f64) {
        let i = p["interval"].as_array().expect("an interval");
        (i[0].as_f64().unwrap(), i[1].as_f64().unwrap())
    };
    let harness_interval = match harness_as_a {
        0 => (0.0, 0.0),
        1 => (0.0, 0.5),
        _ => (0.5, 0.5),
    };
    assert_eq!(scores["conditions"], json!(CONDITIONS));
    for c in scores["criteria"].as_array().unwrap() {
        assert_eq!(c["answers"], 4);
        let preferences = c["preferences"].as_array().unwrap();
        assert_eq!(preferences[0]["choice"], CONDITIONS[0]);
        assert_eq!(preferences[0]["count"], harness_as_a);
        assert_eq!(preferences[1]["count"], 2 - harness_as_a);
        assert_eq!(preferences[2]["count"], 2, "r2 said no preference");
        assert_eq!(preferences[0]["rate"], harness_as_a as f64 / 4.0);
        assert_eq!(interval(&preferences[0]), harness_interval, "{c}");
        assert_eq!(interval(&preferences[2]), (0.5, 0.5), "{c}");
        assert_eq!(c["kappa_pairs"], 2, "both raters answered both pairs");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
