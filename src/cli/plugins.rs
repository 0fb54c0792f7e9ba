//! `cantus plugins [--config FILE] [--json]`: what this program can propose with.
//!
//! It lists every backend kind registered with `cantus-backend`'s registry (the HTTP
//! clients, and the plugin host's `dynamic` and `subprocess` kinds), the proposers
//! built into the binary, and — with `--config` — each plugin the file names (its
//! `[backend]` when that is a plugin, and every `[[plugins]]` entry), loaded and asked
//! who it is. A plugin that fails to load is listed with its error and the command
//! exits 1, so a user learns at once that a config will not work.

use super::{Exit, bad_input};
use cantus::settings::Settings;
use cantus_backend::Config;
use cantus_framework::PluginInfo;
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

/// The proposers built into this program (not backends: they need no model).
pub fn built_in_proposers() -> Vec<PluginInfo> {
    let proposer = |name: &str, description: &str| PluginInfo {
        kind: "proposer".into(),
        name: name.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        origin: "built-in".into(),
        description: description.into(),
    };
    vec![
        proposer(
            "twelve-tone/embedded",
            "seeded symbolic twelve-tone proposer: sections, patches, segment rewrites, whole pieces; no network",
        ),
        proposer(
            "twelve-tone/llm",
            "asks the configured model backend in the onset-slot grammar; optional GBNF/JSON-schema constrained decoding from the row cursor (compose --config)",
        ),
        proposer(
            "counterpoint/embedded",
            "seeded search for Fux first- and second-species lines against a cantus firmus; no network",
        ),
        proposer(
            "counterpoint/llm",
            "asks the configured model backend for a species line (compose --domain counterpoint --config)",
        ),
    ]
}

/// One line of the listing: a plugin, or one that could not be loaded.
enum Entry {
    Found(PluginInfo),
    Failed { origin: String, error: String },
}

pub fn run(args: Args) -> Exit {
    let mut entries: Vec<Entry> = cantus_backend::infos()
        .into_iter()
        .chain(built_in_proposers())
        .map(Entry::Found)
        .collect();
    if let Some(path) = &args.config {
        let settings = match Settings::load(path) {
            Ok(settings) => settings,
            Err(e) => return bad_input(e),
        };
        entries.extend(load_named(&settings.models()));
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
