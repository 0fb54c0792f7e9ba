//! `cantus plugins [--config FILE] [--json]`: what this program can compose and
//! propose with.
//!
//! It lists every rule domain registered with `cantus-registry` and the proposers
//! each brings, every backend kind registered with `cantus-backend`'s registry (the
//! HTTP clients, and the plugin host's `dynamic` and `subprocess` kinds), and — with
//! `--config` — each plugin the file names (its `[backend]` when that is a plugin,
//! and every `[[plugins]]` entry), loaded and asked who it is. A plugin that fails
//! to load is listed with its error and the command exits 1, so a user learns at
//! once that a config will not work.

use super::{Exit, bad_input};
use cantus_backend::Config;
use cantus_backend::PluginInfo;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A config file: its `[backend]` (when `dynamic` or `subprocess`) and its
    /// `[[plugins]]` entries are loaded and listed too.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Print a JSON array of {kind, name, version, origin, description}; a plugin that
    /// failed to load appears as {origin, error}.
    #[arg(long)]
    pub json: bool,
}

/// The registered domains, and the proposers each brings (not backends: the
/// embedded ones need no model).
pub fn registered_domains() -> Vec<PluginInfo> {
    let mut out = Vec::new();
    for unit in cantus_registry::domains() {
        let info = |kind: &str, name: String, description: &str| PluginInfo {
            kind: kind.into(),
            name,
            version: unit.version().into(),
            origin: "built-in".into(),
            description: description.into(),
        };
        let mut summary = unit.summary().to_owned();
        if unit.is_default() {
            summary.push_str(" (the default domain)");
        }
        out.push(info("domain", unit.id().to_string(), &summary));
        for p in unit.proposers() {
            out.push(info("proposer", p.name.clone(), p.description));
        }
    }
    out
}

/// One line of the listing: a plugin, or one that could not be loaded.
enum Entry {
    Found(PluginInfo),
    Failed { origin: String, error: String },
}

pub fn run(args: Args) -> Exit {
    let mut entries: Vec<Entry> = registered_domains()
        .into_iter()
        .chain(cantus_backend::infos())
        .map(Entry::Found)
        .collect();
    if let Some(path) = &args.config {
        let settings = match Config::load(path) {
            Ok(settings) => settings,
            Err(e) => return bad_input(e),
        };
        entries.extend(load_named(&settings));
    }
    let failed = entries.iter().any(|e| matches!(e, Entry::Failed { .. }));
    if args.json {
        print_json(&entries);
    } else {
        print_table(&entries);
    }
    for entry in &entries {
        if let Entry::Failed { origin, error } = entry {
            eprintln!("error: {origin}: {error}");
        }
    }
    if failed { Exit::Failed } else { Exit::Ok }
}

/// Loads every plugin `config` names and asks it who it is.
fn load_named(config: &Config) -> Vec<Entry> {
    let runtime = super::runtime();
    cantus_plugin_host::entries(config)
        .iter()
        .map(
            |plugin| match runtime.block_on(cantus_plugin_host::describe(config, plugin)) {
                Ok(info) => Entry::Found(info),
                Err(e) => Entry::Failed {
                    origin: cantus_plugin_host::origin(config, plugin),
                    error: e.to_string(),
                },
            },
        )
        .collect()
}

fn print_json(entries: &[Entry]) {
    let list: Vec<serde_json::Value> = entries
        .iter()
        .map(|entry| match entry {
            Entry::Found(info) => serde_json::json!(info),
            Entry::Failed { origin, error } => {
                serde_json::json!({"origin": origin, "error": error})
            }
        })
        .collect();
    say!("{}", serde_json::Value::Array(list));
}

fn print_table(entries: &[Entry]) {
    let rows: Vec<[String; 5]> = entries
        .iter()
        .map(|entry| match entry {
            Entry::Found(i) => [
                i.kind.clone(),
                i.name.clone(),
                i.version.clone(),
                i.origin.clone(),
                i.description.clone(),
            ],
            Entry::Failed { origin, error } => [
                "-".into(),
                "-".into(),
                "-".into(),
                origin.clone(),
                format!("error: {error}"),
            ],
        })
        .collect();
    let header = ["KIND", "NAME", "VERSION", "ORIGIN", "DESCRIPTION"].map(String::from);
    let mut widths = [0usize; 4];
    for row in std::iter::once(&header).chain(&rows) {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (width, cell) in widths.iter().zip(row) {
            line.push_str(&format!("{cell:<width$}  "));
        }
        line.push_str(&row[4]);
        say!("{line}");
    }
}
