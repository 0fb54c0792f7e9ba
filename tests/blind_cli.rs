//! A blind package holds nothing that gives its answers away (issue 28, findings 3
//! and 4), as a user meets it on the command line:
//!
//! * the key is never written inside the package, however its path is spelled
//!   (`--out .`, `pkg/../pkg/key.json`, a link to the package, the package itself);
//! * the sides are drawn with a fresh seed unless one is given, and the seed is in
//!   the key, so the same seed draws the same sides again;
//! * the manifest lists every file, and `cantus blind check` refuses a package with
//!   a file missing, changed or added (hidden or not).
//!
//! The runs come from `cantus experiment run` (embedded proposer, two conditions, run
//! folders). Building a package needs lilypond and a SoundFont
//! (scripts/install-music-tools.sh); without them those tests say SKIPPED, unless
//! CANTUS_REQUIRE_TOOLS=1.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cantus-blind-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn cantus_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("cantus runs")
}

fn ok_in(dir: &Path, args: &[&str]) -> String {
    let out = cantus_in(dir, args);
    assert!(out.status.success(), "cantus {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Whether lilypond and a SoundFont are here; SKIPPED (or a panic under
/// CANTUS_REQUIRE_TOOLS=1) when not.
fn tools() -> bool {
    let missing = cantus_render::tools::lilypond()
        .err()
        .map(|e| e.to_string())
        .or_else(|| {
            cantus_render::tools::soundfont(None)
                .err()
                .map(|e| e.to_string())
        });
    match missing {
        None => true,
        Some(e) if std::env::var("CANTUS_REQUIRE_TOOLS").as_deref() == Ok("1") => {
            panic!("{e} (CANTUS_REQUIRE_TOOLS=1; run scripts/install-music-tools.sh)")
        }
        Some(e) => {
            eprintln!("SKIPPED: {e}");
            false
        }
    }
}

/// An experiment's output directory: two tasks × harness and no-repair, one run
/// each, with run folders (so two pairs).
fn runs(dir: &Path) -> PathBuf {
    std::fs::write(
        dir.join("bank.txt"),
        "[duo] A 4-bar duet in 4/4 at 90 bpm\n[trio] A 3-bar trio in 3/4 at 80 bpm\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("exp.toml"),
        "runs = 1\nconditions = [\"harness\", \"no-repair\"]\nrun_folders = true\n\
         [tasks]\nbank = \"bank.txt\"\n[[models]]\nname = \"embedded\"\n\
         [metrics]\nresamples = 100\n",
    )
    .unwrap();
    ok_in(
        dir,
        &["experiment", "run", "exp.toml", "--out", "experiment"],
    );
    dir.join("experiment")
}

const CONDITIONS: &str = "harness,no-repair";

/// Every file under `dir`, hidden ones too, relative to it.
fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(at) = todo.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                out.push(
                    path.strip_prefix(dir)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    out.sort();
    out
}

fn key(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_key_is_never_inside_the_package_however_its_path_is_spelled() {
    let dir = temp("key");
    runs(&dir);
    let pkg = dir.join("pkg");
    std::fs::create_dir(&pkg).unwrap();
    std::os::unix::fs::symlink(&pkg, dir.join("link")).unwrap();
    let here = dir.file_name().unwrap().to_str().unwrap();
    let inside = [
        "pkg/key.json".to_owned(),
        "pkg/.key.json".to_owned(),
        "pkg/../pkg/key.json".to_owned(),
        "./pkg/sub/deeper/key.json".to_owned(),
        format!("../{here}/pkg/key.json"),
        "link/key.json".to_owned(),
        "pkg".to_owned(),
        s(&pkg.join("key.json")).to_owned(),
    ];
    for key in &inside {
        let out = cantus_in(
            &dir,
            &[
                "blind",
                "experiment",
                "--conditions",
                CONDITIONS,
                "--out",
                "pkg",
                "--key",
                key,
            ],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "--key {key}: {out:?}");
        assert!(
            stderr.contains("the key would be inside the package")
                && stderr.contains("give --key a place outside the package"),
            "--key {key}: {stderr}"
        );
        assert!(files(&pkg).is_empty(), "--key {key}: {:?}", files(&pkg));
        assert!(!dir.join("pkg.key.json").exists());
    }
    // A link that leads nowhere yet leads into the package once it is made.
    std::os::unix::fs::symlink(dir.join("later"), dir.join("ahead")).unwrap();
    if !tools() {
        return;
    }
    let out = cantus_in(
        &dir,
        &[
            "blind",
            "experiment",
            "--conditions",
            CONDITIONS,
            "--out",
            "later",
            "--key",
            "ahead/key.json",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        !dir.join("later").exists(),
        "{:?}",
        files(&dir.join("later"))
    );

    // `cd pkg && cantus blind ../experiment --out .`: the key goes beside the package.
    let said = ok_in(
        &pkg,
        &[
            "blind",
            "../experiment",
            "--conditions",
            CONDITIONS,
            "--out",
            ".",
        ],
    );
    let key_path = dir.join("pkg.key.json");
    assert!(
        said.contains(&format!("key {}", key_path.display())),
        "{said}"
    );
    let key = key(&key_path);
    assert_eq!(key["pairs"].as_array().unwrap().len(), 2);
    // Nothing in the package names a condition or holds the key: only what the
    // manifest lists, and the package checks.
    let held = files(&pkg);
    assert_eq!(held.len(), 1 + 1 + 2 * 2 * 2, "{held:?}");
    for file in &held {
        let bytes = std::fs::read(pkg.join(file)).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains("no-repair") && !text.contains("manifest_sha256"),
            "{file} gives the key away"
        );
    }
    ok_in(&dir, &["blind", "check", "pkg"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sides_are_drawn_with_a_fresh_seed_kept_in_the_key_and_a_package_holds_only_its_manifest() {
    if !tools() {
        return;
    }
    let dir = temp("seed");
    let experiment = runs(&dir);
    let mut seeds = Vec::new();
    for name in ["pkg", "two"] {
        let said = ok_in(
            &dir,
            &[
                "blind",
                s(&experiment),
                "--conditions",
                CONDITIONS,
                "--out",
                name,
            ],
        );
        let key = key(&dir.join(format!("{name}.key.json")));
        let seed = key["seed"].as_u64().expect("the seed is in the key");
        assert!(said.contains(&format!("seed {seed}")), "{said}");
        seeds.push((seed, key["pairs"].clone()));
    }
    assert_ne!(
        seeds[0].0, seeds[1].0,
        "two packages drew their sides with one seed"
    );
    // The seed in the key draws the same pairs and sides again.
    let again = seeds[0].0.to_string();
    ok_in(
        &dir,
        &[
            "blind",
            s(&experiment),
            "--conditions",
            CONDITIONS,
            "--seed",
            &again,
            "--out",
            "three",
        ],
    );
    let three = key(&dir.join("three.key.json"));
    assert_eq!(three["seed"].as_u64(), Some(seeds[0].0));
    assert_eq!(three["pairs"], seeds[0].1);
    holds_exactly_its_manifest(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The package `dir/pkg` holds exactly what its manifest lists: `cantus blind
/// check` passes, then refuses a file added (hidden, in a folder, the key), changed
/// or missing.
fn holds_exactly_its_manifest(dir: &Path) {
    let pkg = dir.join("pkg");
    // Every file but the manifest is listed, by its path in the package.
    let listed: Vec<String> = std::fs::read_to_string(pkg.join("MANIFEST.sha256"))
        .unwrap()
        .lines()
        .map(|l| l.split_once("  ").unwrap().1.to_owned())
        .collect();
    let mut held = files(&pkg);
    held.retain(|f| f != "MANIFEST.sha256");
    assert_eq!(listed, held);
    let said = ok_in(dir, &["blind", "check", "pkg"]);
    assert!(
        said.contains(&format!(
            "pkg: {} files, each as MANIFEST.sha256 lists it",
            held.len()
        )),
        "{said}"
    );
    let refused = |want: &str| {
        let out = cantus_in(dir, &["blind", "check", "pkg"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert!(stderr.contains(want), "want {want:?}: {stderr}");
    };
    // A file added, hidden or in a folder, the key among them.
    for added in [".key.json", "notes.txt", "extra/answers.json"] {
        let path = pkg.join(added);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "{}").unwrap();
        refused(&format!(
            "pkg/{added}: in the package but not in MANIFEST.sha256"
        ));
        std::fs::remove_file(&path).unwrap();
        let _ = std::fs::remove_dir(pkg.join("extra"));
    }
    // A file changed, then one missing.
    let index = pkg.join("index.html");
    let page = std::fs::read(&index).unwrap();
    std::fs::write(&index, [page.as_slice(), b"<!-- -->"].concat()).unwrap();
    refused("pkg/index.html: changed since the package was built");
    std::fs::write(&index, &page).unwrap();
    ok_in(dir, &["blind", "check", "pkg"]);
    std::fs::remove_file(pkg.join(&held[0])).unwrap();
    refused(&format!(
        "pkg/{}: listed in MANIFEST.sha256 but missing",
        held[0]
    ));
}
