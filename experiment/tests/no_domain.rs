//! The runner belongs to no domain: nothing it depends on, directly or through
//! another crate of the workspace, registers one. A domain's tasks, trials,
//! conditions, gates, reference set and analyser reach it through the registry
//! (`cantus_registry::Trials`); its tests link twelve-tone and counterpoint as
//! dev-dependencies, as a program links the domains it ships.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn manifest(dir: &Path) -> toml::Table {
    let text = std::fs::read_to_string(dir.join("Cargo.toml")).expect("Cargo.toml");
    toml::from_str(&text).expect("Cargo.toml is TOML")
}

/// Each workspace crate's directory, by package name.
fn workspace(root: &Path) -> BTreeMap<String, PathBuf> {
    let root_manifest = manifest(root);
    let deps = root_manifest["workspace"]["dependencies"]
        .as_table()
        .expect("[workspace.dependencies]");
    deps.iter()
        .filter_map(|(name, spec)| {
            let path = spec.get("path")?.as_str()?;
            Some((name.clone(), root.join(path)))
        })
        .collect()
}

/// Whether the crate at `dir` registers a domain (`cantus_registry::register!`).
fn registers(dir: &Path) -> bool {
    let mut stack = vec![dir.join("src")];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && std::fs::read_to_string(&path)
                    .unwrap_or_default()
                    .lines()
                    .any(|l| l.trim_start().starts_with("cantus_registry::register!("))
            {
                return true;
            }
        }
    }
    false
}

#[test]
fn the_runner_depends_on_no_registered_domain() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = here.parent().expect("the workspace root");
    let crates = workspace(root);
    // Every workspace crate the runner's [dependencies] reach.
    let mut reached = BTreeSet::new();
    let mut stack = vec![here.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let m = manifest(&dir);
        let Some(deps) = m.get("dependencies").and_then(|d| d.as_table()) else {
            continue;
        };
        for name in deps.keys() {
            if let Some(path) = crates.get(name)
                && reached.insert(name.clone())
            {
                stack.push(path.clone());
            }
        }
    }
    assert!(reached.contains("cantus-registry"), "{reached:?}");
    let domains: Vec<&String> = reached.iter().filter(|n| registers(&crates[*n])).collect();
    assert!(domains.is_empty(), "the runner depends on {domains:?}");
    // And the check can fail: the domains the workspace ships do register.
    for domain in [
        "cantus-twelve-tone",
        "cantus-counterpoint",
        "cantus-chorale",
    ] {
        assert!(registers(&crates[domain]), "{domain}");
    }
}
