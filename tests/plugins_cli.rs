//! `cantus plugins` end to end: built-in backends and proposers, and with `--config`
//! the example cdylib (dynamic) and the Python example (subprocess), each loaded and
//! asked who it is; a plugin that fails to load is listed with its error (exit 1).

#[path = "../plugins/host/tests/support/mod.rs"]
mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cantus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cantus"))
        .args(args)
        .output()
        .expect("the cantus binary runs")
}

fn root() -> PathBuf {
    support::workspace_root(env!("CARGO_MANIFEST_DIR"))
}

/// A TOML string for `text` (JSON string syntax is valid TOML).
fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string serialises")
}

fn write_config(dir: &Path, text: &str) -> String {
    let path = dir.join("cantus.toml");
    std::fs::write(&path, text).expect("writing the config");
    path.display().to_string()
}

#[test]
fn without_a_config_it_lists_the_registered_backends_and_built_in_proposers() {
    let out = cantus(&["plugins"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let header = lines.next().expect("a header line");
    assert!(header.starts_with("KIND"), "{header}");
    assert!(
        header.contains("NAME") && header.contains("ORIGIN") && header.ends_with("DESCRIPTION")
    );
    let row = |kind: &str, name: &str| {
        text.lines().find(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            cells.first() == Some(&kind) && cells.get(1) == Some(&name)
        })
    };
    for backend in ["dynamic", "subprocess"] {
        let line = row("backend", backend).unwrap_or_else(|| panic!("no {backend} row in\n{text}"));
        assert!(line.contains("built-in"), "{line}");
    }
    let embedded =
        row("proposer", "twelve-tone/embedded").expect("the embedded proposer is listed");
    assert!(
        embedded.contains(&format!(" {} ", env!("CARGO_PKG_VERSION"))),
        "{embedded}"
    );

    let out = cantus(&["plugins", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let list: Vec<Value> = serde_json::from_slice(&out.stdout).expect("a JSON array");
    assert!(list.iter().all(|e| e["origin"] == "built-in"), "{list:?}");
    assert!(
        list.iter()
            .any(|e| e["kind"] == "proposer" && e["name"] == "twelve-tone/embedded")
    );
}

#[test]
fn a_config_naming_the_example_cdylib_and_the_python_plugin_lists_both() {
    let Some(python) = support::python3("`cantus plugins` with a subprocess plugin") else {
        return;
    };
    let library = support::example_library(&root());
    let script = support::python_example(&root());
    let dir = support::scratch_dir("cli-both");
    let config = write_config(
        &dir,
        &format!(
            "[backend]\nkind = \"dynamic\"\npath = {}\ntimeout_s = 20\n\n\
             [[plugins]]\nkind = \"subprocess\"\ncommand = [{}, {}]\n",
            quoted(&library.display().to_string()),
            quoted(&python),
            quoted(&script.display().to_string()),
        ),
    );
    let out = cantus(&["plugins", "--config", &config, "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list: Vec<Value> = serde_json::from_slice(&out.stdout).expect("a JSON array");
    let loaded: Vec<&Value> = list.iter().filter(|e| e["origin"] != "built-in").collect();
    assert_eq!(loaded.len(), 2, "{loaded:?}");
    assert_eq!(loaded[0]["kind"], "proposer");
    assert_eq!(loaded[0]["name"], "example-serial");
    assert_eq!(loaded[0]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        loaded[0]["origin"],
        format!("dynamic: {}", library.display())
    );
    assert_eq!(loaded[1]["name"], "example-serial-py");
    assert_eq!(loaded[1]["version"], "0.1.0");
    assert_eq!(
        loaded[1]["origin"],
        format!("subprocess: {python} {}", script.display())
    );
    assert!(
        loaded[1]["description"]
            .as_str()
            .is_some_and(|d| d.contains("Python"))
    );

    let out = cantus(&["plugins", "--config", &config]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("example-serial-py"))
        .expect("the Python plugin has a row");
    assert!(line.starts_with("proposer"), "{line}");
    assert!(
        line.contains(&format!("subprocess: {python} {}", script.display())),
        "{line}"
    );
}

#[test]
fn a_plugin_that_fails_to_load_is_listed_with_its_error_and_the_exit_is_1() {
    let dir = support::scratch_dir("cli-broken");
    let config = write_config(
        &dir,
        "[[plugins]]\nkind = \"dynamic\"\npath = \"missing/libnothing.so\"\n\n\
         [[plugins]]\nkind = \"subprocess\"\ncommand = [\"/nonexistent/plugin-program\"]\n",
    );
    let out = cantus(&["plugins", "--config", &config, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let list: Vec<Value> = serde_json::from_slice(&out.stdout).expect("a JSON array");
    let failed: Vec<&Value> = list.iter().filter(|e| e.get("error").is_some()).collect();
    assert_eq!(failed.len(), 2, "{list:?}");
    let library = dir.join("missing/libnothing.so");
    assert_eq!(
        failed[0]["origin"],
        format!("dynamic: {}", library.display())
    );
    let error = failed[0]["error"].as_str().expect("an error message");
    assert!(
        error.starts_with(&format!(
            "plugin: cannot load dynamic plugin {}:",
            library.display()
        )),
        "{error}"
    );
    assert_eq!(
        failed[1]["origin"],
        "subprocess: /nonexistent/plugin-program"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "error: subprocess: /nonexistent/plugin-program: plugin: cannot start subprocess plugin"
        ),
        "{stderr}"
    );
}

#[test]
fn an_unreadable_config_is_bad_input() {
    let dir = support::scratch_dir("cli-bad-config");
    let config = write_config(
        &dir,
        "[[plugins]]\nkind = \"dynamic\"\nlibrary = \"x.so\"\n",
    );
    let out = cantus(&["plugins", "--config", &config]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("library"), "{stderr}");
    assert!(stderr.contains(&config), "{stderr}");
}

#[test]
fn the_shipped_example_config_runs_the_python_plugin_beside_it() {
    if support::python3("the shipped subprocess example config").is_none() {
        return;
    }
    let config = root().join("plugins/example-subprocess/cantus.toml");
    let out = cantus(&[
        "plugins",
        "--config",
        &config.display().to_string(),
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list: Vec<Value> = serde_json::from_slice(&out.stdout).expect("a JSON array");
    let last = list.last().expect("entries");
    assert_eq!(last["name"], "example-serial-py");
    // The command is shown as written; it runs in the config file's directory.
    assert_eq!(
        last["origin"],
        "subprocess: python3 cantus_example_plugin.py"
    );
}
