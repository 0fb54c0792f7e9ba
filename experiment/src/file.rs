//! The experiment file (TOML): the task set, the models, the conditions, runs per
//! cell, prices and the report's metric settings. `examples/experiments/` holds a
//! commented example of every key.
//!
//! It is read the way `cantus.toml` is (`TomlSource`): an unknown key, a value of the
//! wrong type, a condition no one defined or a model config that is not there is
//! refused with the file, line, column and key before anything runs. Relative paths
//! are relative to the experiment file. Its SHA-256 goes into every result record, so
//! records of different experiment files are never mixed.

use super::conditions::{Condition, ConditionId, shipped};
use super::metrics::degeneracy::Weights;
use super::tasks::Task;
use cantus_backend::{ConfigError, TomlSource};
use cantus_backend::{Configured, ModelSource};
use cantus_registry::DomainId;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The most runs per cell.
pub const MAX_RUNS: u32 = 1_000;
/// The most bootstrap resamples.
pub const MAX_RESAMPLES: u32 = 100_000;

/// The file as written; its `[tasks]` table is a registered domain's (which reads it
/// itself).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw<T> {
    #[serde(default)]
    name: Option<String>,
    runs: u32,
    tasks: T,
    models: Vec<RawModel>,
    conditions: Vec<Spanned<String>>,
    #[serde(default)]
    custom_conditions: Vec<Condition>,
    #[serde(default)]
    metrics: Metrics,
    #[serde(default)]
    run_folders: bool,
}

/// What says whose `[tasks]` table it is: `domain = "<id>"` names a registered
/// domain's task set, and so does a table a domain's trials name
/// ([`cantus_registry::Trials::table_name`], counterpoint's `[tasks.fux]`); a table
/// naming neither is the default domain's (twelve-tone's `bank`, `single_factor`).
#[derive(Debug, Deserialize)]
struct Probe {
    tasks: toml::Table,
}

impl Probe {
    /// The registered task set the `[tasks]` table selects, if it selects one: by
    /// `domain` (`None`), or by the name of a table in it (`Some(name)`), with the id
    /// of the domain whose trials read that table.
    fn registered(&self) -> Option<Option<(&'static str, DomainId)>> {
        if self.tasks.contains_key("domain") {
            return Some(None);
        }
        named_sets()
            .find(|(name, _)| self.tasks.get(*name).is_some_and(toml::Value::is_table))
            .map(Some)
    }
}

/// Every table a registered domain's trials name under `[tasks]`, with the domain.
fn named_sets() -> impl Iterator<Item = (&'static str, DomainId)> {
    cantus_registry::domains().iter().filter_map(|unit| {
        let name = unit.trial_sets().ok()?.table_name()?;
        Some((name, unit.id().clone()))
    })
}

/// The task set, as the file gives it: a registered domain's `[tasks]` table,
/// `domain` included, and the table it was written in, when a domain's named table
/// (`fux`) rather than `[tasks]`.
struct TaskSource(toml::Table, Option<&'static str>);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModel {
    name: String,
    #[serde(default)]
    config: Option<Spanned<PathBuf>>,
    /// Price per million prompt tokens.
    #[serde(default)]
    price_in: Option<f64>,
    /// Price per million reply tokens.
    #[serde(default)]
    price_out: Option<f64>,
    /// The conditions this model runs under (of the file's `conditions`); omitted:
    /// every one. A control is often run under fewer (the embedded planner under the
    /// plain harness only, say).
    #[serde(default)]
    conditions: Option<Vec<Spanned<String>>>,
}

/// What the report computes, and how.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Metrics {
    /// Bootstrap resamples (of task families) per interval.
    pub resamples: u32,
    /// The bootstrap's seed.
    pub seed: u64,
    /// The degeneracy score's weights.
    pub degeneracy: Weights,
    /// Each weight is multiplied by a factor drawn from `[1 - p, 1 + p]` in the
    /// sensitivity analysis.
    pub perturbation: f64,
    /// Weight draws in the sensitivity analysis.
    pub perturbation_draws: u32,
    /// Scores people wrote, for KL and MMD of pitch-class and interval-class
    /// distributions and the share of notes the domain's analyser explains: score files
    /// (any format `cantus convert` reads) or directories of them. `None` (the key
    /// absent): the set the tasks' domain ships ([`super::reference::shipped`]:
    /// twelve-tone's corpus `corpus/second-viennese`, none for counterpoint's
    /// exercises or chorales), none for tasks of several domains; `[]`: none.
    pub reference: Option<Vec<PathBuf>>,
    /// The Gaussian kernel's bandwidth for MMD, on distributions (vectors summing to 1).
    pub mmd_sigma: f64,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            resamples: 1000,
            seed: 2607,
            degeneracy: Weights::default(),
            perturbation: 0.5,
            perturbation_draws: 200,
            reference: None,
            mmd_sigma: 0.25,
        }
    }
}

/// The model a loaded `cantus.toml` configures, as a domain's job or trial takes it:
/// its backend, how to ask it (`[backend]`, `[harness]`), what `[harness]` changes of
/// the budget and `[gate] mode`. `cantus compose` builds its model the same way.
pub fn registry_model(configured: &Configured) -> cantus_registry::Model {
    cantus_registry::Model {
        backend: configured.backend.clone(),
        ask: configured.settings.ask(false),
        budget: configured.settings.harness.overrides(),
        gate: configured.settings.gate.mode,
    }
}

/// One model of the experiment.
pub struct Model {
    pub name: String,
    /// `None`: the embedded proposer.
    pub configured: Option<Configured>,
    pub price_in: Option<f64>,
    pub price_out: Option<f64>,
    /// The conditions it runs under; `None`: every condition of the file.
    pub conditions: Option<Vec<ConditionId>>,
}

impl Model {
    /// Whether the model runs under `condition`.
    pub fn runs_under(&self, condition: &ConditionId) -> bool {
        self.conditions
            .as_ref()
            .is_none_or(|only| only.contains(condition))
    }

    /// Which control the model is: the embedded planner, or a `null` backend (chance
    /// under the same constraint); `None` for a model.
    pub fn control(&self) -> Option<super::record::Control> {
        use super::record::Control;
        match &self.configured {
            None => Some(Control::Plan),
            Some(c) if c.settings.backend.kind == "null" => Some(Control::Null),
            Some(_) => None,
        }
    }
}

/// A read and checked experiment file.
pub struct Experiment {
    pub name: String,
    pub path: PathBuf,
    /// The file's text, kept in the results so the report needs nothing else.
    pub text: String,
    /// SHA-256 of the text, hex.
    pub hash: String,
    pub runs: u32,
    pub tasks: Vec<Task>,
    pub models: Vec<Model>,
    pub conditions: Vec<Condition>,
    pub metrics: Metrics,
    /// Every harness run and every model's whole-piece reply also writes its folder —
    /// the piece in every format, its `report.json`, and the trace or the reply as it
    /// came, as `cantus compose` writes them — to
    /// `DIR/runs/<run>/` (`run_folders = true`; what `cantus bank` asks for).
    pub run_folders: bool,
}

/// Why an experiment file is refused; the message names the file, line and key.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct FileError(pub String);

impl From<ConfigError> for FileError {
    fn from(e: ConfigError) -> Self {
        FileError(e.to_string())
    }
}

impl Experiment {
    /// Reads and checks the experiment file at `path`, opening every model's config.
    pub fn load(path: &Path) -> Result<Experiment, FileError> {
        Experiment::from_text(TomlSource::read(path)?, path)
    }

    /// Reads and checks `text` as the experiment file at `path` (which names it in
    /// messages and anchors its relative paths; it need not exist).
    pub fn from_text(text: String, path: &Path) -> Result<Experiment, FileError> {
        let origin = path.display().to_string();
        let source = TomlSource::new(&text, &origin);
        // A registered domain's `[tasks]` holds its own keys; every other table is
        // read as the runner's own (and a file that does not parse gets its error there).
        let registered = toml::from_str::<Probe>(&text)
            .ok()
            .and_then(|p| p.registered());
        let raw = source.parse::<Raw<toml::Table>>()?;
        let raw: Raw<TaskSource> = match registered {
            Some(None) => raw.map_tasks(|t| TaskSource(t, None)),
            Some(Some((name, domain))) => {
                let tasks = named_table(raw.tasks.clone(), name, &domain)
                    .map_err(|problem| source.error_at(&["tasks"], problem))?;
                raw.map_tasks(|_| TaskSource(tasks, Some(name)))
            }
            None => {
                let domain = cantus_registry::default_domain().ok_or_else(|| {
                    source.error_at(
                        &["tasks"],
                        "names no domain (`domain = \"<id>\"`), and no domain is registered",
                    )
                })?;
                raw.map_tasks(|mut t| {
                    t.insert(
                        "domain".into(),
                        toml::Value::String(domain.id().as_str().into()),
                    );
                    TaskSource(t, None)
                })
            }
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        source.count(&["runs"], raw.runs.into(), 1, MAX_RUNS.into())?;
        let m = &raw.metrics;
        source.count(
            &["metrics", "resamples"],
            m.resamples.into(),
            1,
            MAX_RESAMPLES.into(),
        )?;
        source.count(
            &["metrics", "perturbation_draws"],
            m.perturbation_draws.into(),
            1,
            MAX_RESAMPLES.into(),
        )?;
        if !(m.perturbation.is_finite() && (0.0..1.0).contains(&m.perturbation)) {
            return Err(source
                .error_at(&["metrics", "perturbation"], "must be from 0 to below 1")
                .into());
        }
        if !(m.mmd_sigma.is_finite() && m.mmd_sigma > 0.0) {
            return Err(source
                .error_at(&["metrics", "mmd_sigma"], "must be a positive number")
                .into());
        }
        m.degeneracy
            .check()
            .map_err(|e| source.error_at(&["metrics", "degeneracy"], e))?;

        let mut known = shipped().map_err(FileError)?;
        for c in raw.custom_conditions {
            if known.iter().any(|k| k.name == c.name) {
                return Err(source
                    .error_at(
                        &["custom_conditions"],
                        format!("defines `{}`, which is already a condition", c.name),
                    )
                    .into());
            }
            known.push(c);
        }
        let mut conditions = Vec::new();
        for name in &raw.conditions {
            let id = ConditionId(name.get_ref().clone());
            let Some(c) = known.iter().find(|c| c.name == id) else {
                let names: Vec<&str> = known.iter().map(|c| c.name.0.as_str()).collect();
                return Err(source
                    .error_at_span(
                        name.span(),
                        format!(
                            "`conditions`: unknown condition `{id}`; known: {} (or define it \
                         under [[custom_conditions]])",
                            names.join(", ")
                        ),
                    )
                    .into());
            };
            if conditions.iter().any(|k: &Condition| k.name == id) {
                return Err(source
                    .error_at_span(name.span(), format!("`conditions`: `{id}` is named twice"))
                    .into());
            }
            conditions.push(c.clone());
        }
        if conditions.is_empty() {
            return Err(source
                .error_at(&["conditions"], "must name at least one condition")
                .into());
        }

        let mut models = Vec::new();
        for (i, m) in raw.models.into_iter().enumerate() {
            if models.iter().any(|k: &Model| k.name == m.name) {
                return Err(source
                    .error_at(&["models"], format!("model `{}` is named twice", m.name))
                    .into());
            }
            let configured =
                match &m.config {
                    None => None,
                    Some(config) => {
                        let file = dir.join(config.get_ref());
                        if !file.is_file() {
                            return Err(source
                                .error_at_span(
                                    config.span(),
                                    format!(
                                        "`models[{i}].config`: no model config at {}",
                                        file.display()
                                    ),
                                )
                                .into());
                        }
                        let model = ModelSource {
                            config: Some(file),
                            ..ModelSource::default()
                        };
                        model.open().map_err(|e| {
                            // The problem's place in that file, not its lines: the file is
                            // named here, not written by the user, and may not be a config
                            // at all (`/etc/passwd`) or may hold a secret.
                            let e = e.to_string();
                            let place = e.lines().next().unwrap_or_default();
                            FileError::from(source.error_at_span(
                                config.span(),
                                format!("`models[{i}].config`: {place}"),
                            ))
                        })?
                    }
                };
            for (key, price) in [("price_in", m.price_in), ("price_out", m.price_out)] {
                if price.is_some_and(|p| !(p.is_finite() && p >= 0.0)) {
                    return Err(FileError(format!(
                        "{origin}: `models[{i}].{key}` must be a price of 0 or more"
                    )));
                }
            }
            let only = match &m.conditions {
                None => None,
                Some(names) => {
                    let mut only = Vec::new();
                    for name in names {
                        let id = ConditionId(name.get_ref().clone());
                        if !conditions.iter().any(|c| c.name == id) {
                            return Err(source
                                .error_at_span(
                                    name.span(),
                                    format!(
                                        "`models[{i}].conditions`: `{id}` is not one of the file's `conditions`"
                                    ),
                                )
                                .into());
                        }
                        only.push(id);
                    }
                    Some(only)
                }
            };
            models.push(Model {
                name: m.name,
                configured,
                price_in: m.price_in,
                price_out: m.price_out,
                conditions: only,
            });
        }
        if models.is_empty() {
            return Err(source
                .error_at(&["models"], "must name at least one model")
                .into());
        }

        let TaskSource(table, named) = &raw.tasks;
        let tasks = registered_tasks(table.clone(), *named, &source, dir)?;
        let mut metrics = raw.metrics;
        metrics.reference = metrics
            .reference
            .map(|paths| paths.iter().map(|p| dir.join(p)).collect());
        let hash = format!("{:x}", Sha256::digest(text.as_bytes()));
        Ok(Experiment {
            name: raw.name.unwrap_or_else(|| {
                path.file_stem()
                    .map_or("experiment".into(), |s| s.to_string_lossy().into_owned())
            }),
            path: path.to_owned(),
            text,
            hash,
            runs: raw.runs,
            tasks,
            models,
            conditions,
            metrics,
            run_folders: raw.run_folders,
        })
    }
}

impl<T> Raw<T> {
    /// The file with its task set made into another type.
    fn map_tasks<U>(self, f: impl FnOnce(T) -> U) -> Raw<U> {
        Raw {
            name: self.name,
            runs: self.runs,
            tasks: f(self.tasks),
            models: self.models,
            conditions: self.conditions,
            custom_conditions: self.custom_conditions,
            metrics: self.metrics,
            run_folders: self.run_folders,
        }
    }
}

/// `[tasks]` with the domain's table `name` in it, as a registered domain's
/// `[tasks]`: the named table's keys, `domain` and `[tasks]`'s `limit`.
fn named_table(
    mut tasks: toml::Table,
    name: &str,
    domain: &DomainId,
) -> Result<toml::Table, String> {
    let Some(toml::Value::Table(mut table)) = tasks.remove(name) else {
        return Err(format!("`{name}` must be a table"));
    };
    if let Some(limit) = tasks.remove("limit") {
        table.insert("limit".into(), limit);
    }
    if let Some(other) = tasks.keys().next() {
        return Err(format!(
            "`{name}` (the {domain} domain's task set) cannot be given with `{other}`"
        ));
    }
    table.insert("domain".into(), toml::Value::String(domain.as_str().into()));
    Ok(table)
}

/// The task set of the registered domain `[tasks] domain` names, read by the domain
/// from the rest of the table, with its `limit`; `named`: the table was the domain's
/// own (`[tasks.fux]`), where its keys' errors are placed.
fn registered_tasks(
    mut table: toml::Table,
    named: Option<&str>,
    source: &TomlSource<'_>,
    dir: &Path,
) -> Result<Vec<Task>, FileError> {
    let at = |key: &str, problem: String| {
        let path: Vec<&str> = match (named, key) {
            (Some(name), "domain") => vec!["tasks", name],
            (Some(name), key) if key != "limit" => vec!["tasks", name, key],
            _ => vec!["tasks", key],
        };
        FileError::from(source.error_at(&path, problem))
    };
    let domain = match table.remove("domain") {
        Some(toml::Value::String(id)) => {
            DomainId::parse(&id).map_err(|e| at("domain", e.to_string()))?
        }
        _ => return Err(at("domain", "must be a domain's id (text)".into())),
    };
    let limit = match table.remove("limit") {
        None => None,
        Some(toml::Value::Integer(n)) if n >= 0 => Some(n as usize),
        Some(v) => return Err(at("limit", format!("must be a whole number, not {v}"))),
    };
    let values = match serde_json::to_value(&table) {
        Ok(serde_json::Value::Object(values)) => values,
        _ => return Err(at("domain", "cannot read the rest of `[tasks]`".into())),
    };
    let mut tasks = super::registered::tasks(&domain, values, dir).map_err(|e| match &e.key {
        Some(key) => at(key, e.message.clone()),
        None => FileError::from(source.error_at(&["tasks"], format!("({domain}) {}", e.message))),
    })?;
    if let Some(n) = limit {
        tasks.truncate(n);
    }
    Ok(tasks)
}
