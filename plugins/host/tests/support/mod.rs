//! Test support shared by the plugin host's tests and the CLI's `tests/plugins_cli.rs`
//! (included there by path): finding the example cdylib, the Python example and
//! `python3`, and writing small inline plugin scripts.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root, from a crate's manifest directory.
pub fn workspace_root(manifest_dir: &str) -> PathBuf {
    let mut dir = PathBuf::from(manifest_dir);
    while !dir.join("plugins").join("abi").is_dir() {
        if !dir.pop() {
            return PathBuf::from(manifest_dir);
        }
    }
    dir
}

/// The example cdylib, built now with `cargo build -p cantus-plugin-example` (a no-op
/// when it is up to date), or taken from `CANTUS_EXAMPLE_PLUGIN` when that is set.
pub fn example_library(root: &Path) -> PathBuf {
    if let Some(path) = std::env::var_os("CANTUS_EXAMPLE_PLUGIN") {
        return PathBuf::from(path);
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--quiet", "-p", "cantus-plugin-example"])
        .current_dir(root)
        .status()
        .expect("running cargo to build the example plugin");
    assert!(
        status.success(),
        "cargo build -p cantus-plugin-example failed"
    );
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let name = format!(
        "{}cantus_plugin_example{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    let path = target.join("debug").join(name);
    assert!(
        path.is_file(),
        "the example plugin is not at {}",
        path.display()
    );
    path
}

/// The Python example plugin script.
pub fn python_example(root: &Path) -> PathBuf {
    root.join("plugins/example-subprocess/cantus_example_plugin.py")
}

/// `python3` when it runs; otherwise prints `SKIPPED: <what> (…)` and returns `None`.
pub fn python3(what: &str) -> Option<String> {
    let found = Command::new("python3")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if found {
        Some("python3".to_string())
    } else {
        eprintln!("SKIPPED: {what} (python3 not found on PATH)");
        None
    }
}

/// A fresh, empty directory for one test.
pub fn scratch_dir(test: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("cantus-plugin-tests-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("creating a scratch directory");
    dir
}
