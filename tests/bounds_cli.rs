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
