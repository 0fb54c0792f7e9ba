//! Harmonising melodies end to end with the embedded proposer, and the invariant
//! that makes the online loop and the gate agree: a rule judging beat `b` sees the
//! same thing in a chorale cut off after `b` as in the whole chorale.
//!
//! The Bach parts need `$CANTUS_SHARED` (default `<workspace>/../shared`); without
//! it they print `SKIPPED: ...` and pass, unless `CANTUS_REQUIRE_SHARED=1`.

use cantus_chorale::rules::judge_beat;
use cantus_chorale::{
    Analysis, Chorale, EmbeddedProposer, Harmonisation, HarmonisationGate, PhraseMark, Profile,
    ReadOptions, compose, judge_score, read_chorale,
};
use cantus_framework::Outcome;
use cantus_music::format::read_path;
use std::path::{Path, PathBuf};

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
        .block_on(f)
}

fn shared_chorales(what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("CANTUS_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        PathBuf::from,
    );
    let dir = dir.join("data/corpus/bach_chorales");
    if dir.is_dir() {
        return Some(dir);
    }
    let msg = format!("SKIPPED: {what} (shared data not found; set CANTUS_SHARED)");
    if std::env::var("CANTUS_REQUIRE_SHARED").as_deref() == Ok("1") {
        panic!("{msg}");
    }
    eprintln!("{msg}");
    None
}

fn read(path: &Path, phrases: Option<&str>) -> Chorale {
    let loaded = read_path(path, false).expect("reads");
    let options = ReadOptions {
        phrase_ends: phrases.map(|p| vec![p.parse::<PhraseMark>().expect("a mark")]),
        ..ReadOptions::default()
    };
    read_chorale(&loaded.score, &options)
        .expect("a chorale")
        .chorale
}

/// Harmonises `spec` under the strict profile; the released score, judged again
/// by [`judge_score`] with nothing told but its fermatas, passes too.
fn harmonised(spec: &Harmonisation, seed: u64) -> cantus_music::Score {
    let outcome = block_on(compose(
        spec,
        Profile::Strict,
        seed,
        &EmbeddedProposer::default(),
    ));
    let Outcome::Released { artefact, trace } = outcome else {
        panic!("{}: not released: {:#?}", spec.id, outcome.trace().gate);
    };
    let gate = trace.gate.as_ref().expect("the gate's report");
    assert!(gate.passed && gate.hard().next().is_none());
    let (report, reading, _) = judge_score(&artefact, &ReadOptions::default()).expect("a chorale");
    assert!(report.passed, "{}: {:#?}", spec.id, report.violations);
    assert_eq!(
        reading.chorale.phrase_ends, spec.melody.phrase_ends,
        "fermatas written"
    );
    artefact
}

#[test]
fn a_fixture_melody_is_harmonised_and_released_under_the_strict_profile() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules");
    for name in ["pass.txt", "pass-ornamented.txt"] {
        let spec = Harmonisation::of(name, &read(&dir.join(name), Some("1:4")));
        let a = harmonised(&spec, 1);
        let b = harmonised(&spec, 1);
        assert_eq!(a, b, "{name}: one seed, one harmonisation");
        let other = harmonised(&spec, 2);
        assert_eq!(other.voices[0], a.voices[0], "{name}: the melody is kept");
    }
}

#[test]
fn bach_melodies_are_harmonised_and_released_under_the_strict_profile() {
    let Some(dir) = shared_chorales("harmonising Bach melodies") else {
        return;
    };
    for file in [
        "r001_bwv269.musicxml",
        "r024_bwv415.musicxml",
        "r098_bwv244.15.musicxml",
    ] {
        let chorale = read(&dir.join(file), None);
        let spec = Harmonisation::of(file, &chorale);
        harmonised(&spec, 7);
    }
}

/// `chorale` as the online state holds it after beat `b`: the whole melody (it is
/// given), the lower parts up to the end of `b` (a note sounding past it keeps its
/// length).
fn prefix(chorale: &Chorale, a: &Analysis, b: usize) -> Chorale {
    let horizon = chorale.beat_start(a.number_of(b)) + chorale.beat;
    let mut cut = chorale.clone();
    for part in &mut cut.parts[1..] {
        part.retain(|n| n.onset < horizon);
    }
    cut
}

/// What the online verifier sees at a beat — the melody and the lower parts
/// written up to it — gives the findings the gate gives there, on every beat of
/// real chorales.
fn online_is_the_gate(chorale: &Chorale, what: &str) {
    let whole = Analysis::new(chorale.clone());
    for b in 0..whole.total() {
        let mut part = Analysis::open(prefix(chorale, &whole, b));
        while part.beats.len() <= b && part.beats.len() < part.total() {
            part.push_beat();
        }
        let online = judge_beat(&part, b);
        let gate = judge_beat(&whole, b);
        assert_eq!(online, gate, "{what}: beat {b}");
    }
}

#[test]
fn online_findings_are_the_gates_on_fixtures() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules");
    for entry in std::fs::read_dir(&dir).expect("fixtures") {
        let path = entry.expect("entry").path();
        online_is_the_gate(&read(&path, Some("1:4")), &path.display().to_string());
    }
}

#[test]
fn online_findings_are_the_gates_on_bach() {
    let Some(dir) = shared_chorales("online against gate findings on Bach") else {
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "musicxml"))
        .collect();
    files.sort();
    for path in files.iter().step_by(12) {
        online_is_the_gate(&read(path, None), &path.display().to_string());
    }
}

#[test]
fn the_gate_refuses_an_altered_melody_and_what_is_no_chorale() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules");
    let spec = Harmonisation::of("pass", &read(&dir.join("pass.txt"), Some("1:4")));
    let score = harmonised(&spec, 3);
    let gate = HarmonisationGate(Profile::Strict);
    let mut altered = score.clone();
    altered.voices[0].events[2].pitches[0].midi += 1;
    let report = gate.judge_harmonisation(&spec, &altered);
    assert!(!report.passed);
    assert!(
        report
            .violations
            .iter()
            .any(|v| v.predicate.as_str() == "CH-melody" && v.location.bar == 1),
        "{:#?}",
        report.violations
    );
    let mut three = score.clone();
    three.voices.pop();
    let report = gate.judge_harmonisation(&spec, &three);
    assert!(!report.passed);
    assert_eq!(report.violations[0].predicate.as_str(), "CH-structure");
    assert!(
        report.violations[0].reason.contains("3 voices"),
        "{}",
        report.violations[0].reason
    );
    let mut chords = score;
    chords.voices[1].events[0]
        .pitches
        .push(cantus_music::Pitch::new(40));
    let report = gate.judge_harmonisation(&spec, &chords);
    assert!(report.violations[0].reason.contains("one note at a time"));
}

/// Random four-part scores are judged or refused with an error, never a panic.
#[test]
fn random_scores_never_panic() {
    use cantus_music::{Event, Meter, Pitch, Score, Voice, time};
    let mut rng = fastrand::Rng::with_seed(27);
    for case in 0..200 {
        let voices = (0..rng.usize(1..=5))
            .map(|v| {
                let mut voice = Voice::new(["Soprano", "Alto", "Tenor", "Bass", "X"][v]);
                let mut t = 0i64;
                for _ in 0..rng.usize(0..24) {
                    let len = rng.i64(1..=4);
                    let pitches = (0..rng.usize(1..=2))
                        .map(|_| Pitch::new(rng.u8(30..90)))
                        .collect();
                    voice
                        .events
                        .push(Event::new(time(t, 2), time(len, 2), pitches));
                    t += len + rng.i64(0..=1);
                }
                voice
            })
            .collect();
        let score = Score {
            meter: Meter::new(rng.u32(2..=6), [2, 4, 8][rng.usize(0..3)]),
            voices,
            ..Score::default()
        };
        for profile in Profile::ALL {
            let options = ReadOptions {
                profile,
                ..ReadOptions::default()
            };
            if let Ok((report, _, _)) = judge_score(&score, &options) {
                let _ =
                    serde_json::to_string(&report).unwrap_or_else(|e| panic!("case {case}: {e}"));
            }
        }
    }
}
