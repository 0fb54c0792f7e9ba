//! Issue 28's smaller findings, as a user meets them on the command line: an output
//! that is a file, score files past their cap, and what each error says.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cantus-bounds-{name}-{}", std::process::id()));
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

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn compose_into_a_file_says_so_plainly_and_leaves_the_file_alone() {
    let dir = temp("compose-file");
    let file = dir.join("taken");
    std::fs::write(&file, "mine\n").unwrap();
    let out = cantus(&["compose", "--brief", "a 4-bar duet", "--out", s(&file)]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        stderr(&out).contains(&format!(
            "{}: is a file, not a run directory; choose another --out",
            file.display()
        )),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_score_file_past_its_cap_is_refused_naming_the_cap_even_a_device() {
    let dir = temp("score-cap");
    let zero = dir.join("zero.mid");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    for command in [["verify", s(&zero)], ["analyze", s(&zero)]] {
        let out = cantus(&command);
        assert_eq!(out.status.code(), Some(2), "{command:?}: {out:?}");
        assert!(
            stderr(&out).contains("larger than 64 MiB, the most a score file may hold"),
            "{command:?}: {}",
            stderr(&out)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A composed run folder at `dir/name` (the embedded proposer: no tools needed).
fn composed(dir: &Path, name: &str) -> PathBuf {
    let run = dir.join(name);
    let out = cantus(&["compose", "--brief", "a 3-bar duet", "--out", s(&run)]);
    assert!(out.status.success(), "{out:?}");
    run
}

/// Issue 28, finding 9: `render --out FILE` said "File exists" and exited 0; now it
/// is refused before anything is rendered, and the file is left alone.
#[test]
fn render_into_a_file_says_so_plainly_and_leaves_the_file_alone() {
    let dir = temp("render-file");
    let run = composed(&dir, "run");
    let file = dir.join("taken");
    std::fs::write(&file, "mine\n").unwrap();
    for what in [&["--to", "svg"][..], &["--html"], &["--audio", "wav"]] {
        let mut args = vec!["render", s(&run), "--out", s(&file)];
        args.extend_from_slice(what);
        let out = cantus(&args);
        assert_eq!(out.status.code(), Some(2), "{what:?}: {out:?}");
        assert!(
            stderr(&out).contains(&format!(
                "{}: is a file, not a directory; choose another --out",
                file.display()
            )),
            "{what:?}: {}",
            stderr(&out)
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine\n");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 28, finding 9: a tempo of a billion beats a minute wrote an empty WAV and
/// exited 0; now no audio is written and the error says why. Needs a SoundFont
/// (scripts/install-music-tools.sh): SKIPPED without one, unless
/// CANTUS_REQUIRE_TOOLS=1.
#[test]
fn a_tempo_too_fast_to_hear_writes_no_audio_and_says_so() {
    if let Err(e) = cantus_render::tools::soundfont(None) {
        assert!(
            std::env::var("CANTUS_REQUIRE_TOOLS").as_deref() != Ok("1"),
            "{e} (CANTUS_REQUIRE_TOOLS=1)"
        );
        eprintln!("SKIPPED: {e}");
        return;
    }
    let dir = temp("tempo");
    let run = composed(&dir, "run");
    let piece = run.join("piece.txt");
    let text = std::fs::read_to_string(&piece).unwrap();
    let tempo = text
        .split(" | ")
        .find(|f| f.starts_with("TEMPO: "))
        .expect("a TEMPO field")
        .to_owned();
    std::fs::write(&piece, text.replacen(&tempo, "TEMPO: 1000000000", 1)).unwrap();
    let audio = dir.join("audio");
    let out = cantus(&["render", s(&piece), "--audio", "wav", "--out", s(&audio)]);
    assert!(!out.status.success(), "{out:?}");
    assert!(
        stderr(&out).contains("cannot synthesise: the score lasts")
            && stderr(&out).contains("at least 0.1 s are rendered (is the tempo right?)"),
        "{}",
        stderr(&out)
    );
    let written: Vec<_> = std::fs::read_dir(&audio)
        .map(|d| d.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(written.is_empty(), "{written:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
