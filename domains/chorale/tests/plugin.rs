//! The chorale domain as the program finds it in the registry: verified with its
//! flags, composed into a run folder that verifies again, and reviewed for the
//! renderer (verdict, Roman numerals under the bass, a bare SATB score recognised).

// Links the crate, whose `register!` makes the domain known.
use cantus_chorale as _;
use cantus_registry::{Analysis, Args, Reviewed, Run, RunDir, View, find, layout};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules")
        .join(name)
}

fn args(table: &'static [cantus_registry::Opt], given: &[(&str, &str)]) -> Result<Args, String> {
    let given = given
        .iter()
        .map(|(k, v)| ((*k).to_owned(), Some(OsString::from(v))));
    Args::parse(table, "chorale", given, &[]).map_err(|e| e.to_string())
}

#[test]
fn the_registry_knows_the_chorale_domain_and_its_proposers() {
    let unit = find("chorale").expect("registered");
    let names: Vec<&str> = unit.proposers().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["chorale/embedded", "chorale/llm"]);
    assert!(unit.composer().is_ok() && unit.verifier().is_ok() && unit.reviewer().is_ok());
}

#[test]
fn verify_passes_the_base_and_names_the_rule_a_fixture_breaks() {
    let verifier = find("chorale").unwrap().verifier().unwrap();
    let table = verifier.options();
    let phrases = args(table, &[("phrase-ends", "1:4")]).unwrap();
    let ok = verifier
        .verify(&fixture("pass.txt"), false, &phrases)
        .unwrap();
    assert!(ok.passed, "{:?}", ok.lines);
    assert!(ok.lines[0].starts_with("PASSED "), "{:?}", ok.lines);
    let bad = verifier
        .verify(&fixture("ch-parallel-fifths.txt"), false, &phrases)
        .unwrap();
    assert!(!bad.passed);
    assert!(
        bad.lines.iter().any(|l| l.contains("CH-parallel-fifths")),
        "{:?}",
        bad.lines
    );
    assert_eq!(bad.json["gate"], "chorale/strict");
    let e = args(table, &[("profile", "harsh")]).unwrap_err();
    assert!(e.contains("--profile"), "{e}");
    let e = verifier
        .verify(
            &fixture("pass.txt"),
            false,
            &args(table, &[("phrase-ends", "x:y")]).unwrap(),
        )
        .unwrap_err();
    assert!(e.to_string().contains("--phrase-ends"), "{e}");
}

#[test]
fn compose_writes_a_run_folder_whose_chorale_verifies_and_is_reviewed() {
    let unit = find("chorale").unwrap();
    let composer = unit.composer().unwrap();
    let melody = fixture("pass.txt");
    let given = args(
        composer.options(),
        &[("melody", melody.to_str().unwrap()), ("phrase-ends", "1:4")],
    )
    .unwrap();
    let job = composer
        .prepare(&given, Default::default())
        .expect("prepared");
    let none = args(composer.options(), &[]).unwrap();
    let e = composer
        .prepare(&none, Default::default())
        .err()
        .expect("no melody");
    assert!(e.to_string().contains("--melody"), "{e}");

    let dir = std::env::temp_dir().join(format!("cantus-chorale-plugin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let folder = RunDir::create(&dir, false).expect("a run folder");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let composed = runtime
        .block_on(job.run(Run {
            seed: 1,
            folder,
            progress: None,
        }))
        .expect("ran");
    assert!(composed.released, "{:?}", composed.lines);
    assert!(
        composed.lines[0].starts_with("released (chorale/strict): "),
        "{:?}",
        composed.lines
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(layout::REPORT)).unwrap()).unwrap();
    assert_eq!(report["domain"], "chorale");
    assert_eq!(report["released"], true);
    let written = dir.join(layout::artefact_file(true, "musicxml"));
    let verifier = unit.verifier().unwrap();
    let again = verifier
        .verify(&written, false, &args(verifier.options(), &[]).unwrap())
        .unwrap();
    assert!(again.passed, "{:?}", again.lines);

    let score = cantus_music::format::read_path(&written, false)
        .unwrap()
        .score;
    let reviewer = unit.reviewer().unwrap();
    let view = View::Score(score.clone());
    let piece = Reviewed {
        view: &view,
        report: Some(&report),
    };
    let verdict = reviewer.judge(piece);
    assert!(verdict.passed, "{:?}", verdict.findings);
    let marks = reviewer.annotate(
        piece,
        &score,
        Analysis {
            labels: true,
            positions: false,
        },
    );
    let bass = score.voice_index("Bass").expect("a bass voice");
    assert!(!marks.is_empty() && marks.marks.iter().all(|m| m.at.voice == bass));
    assert!(reviewer.recognises(&score));
    let mut two = score.clone();
    two.voices.truncate(2);
    assert!(!reviewer.recognises(&two));
    let _ = std::fs::remove_dir_all(&dir);
}
