//! `cantus.toml`, the whole file: the model sections (`[backend]`, `[[plugins]]`, read
//! by `cantus-backend`) and the program's own — `[harness]` (the engine's budgets and
//! how a model is asked) and `[gate]` (the twelve-tone gate mode).
//!
//! This is the one place a `[harness]` becomes a [`Budget`] and [`AskOptions`]: every
//! domain's command gets them from here. Every duration and count has a documented
//! upper bound ([`limits`]), checked with the key's line and column before anything
//! runs, so no value can overflow a `Duration` or make a run retry without end.

use cantus_backend::{BackendConfig, ConfigError, PluginConfig, TomlSource};
use cantus_framework::{AskOptions, Budget, BudgetOverrides, Freedom};
use cantus_twelve_tone::gate::GateMode;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The documented upper bounds of `[harness]`'s durations and counts.
pub mod limits {
    /// Longest `deadline_s` of one run: seven days.
    pub const DEADLINE_S: f64 = 604_800.0;
    /// Most `attempts_per_event`.
    pub const ATTEMPTS_PER_EVENT: u32 = 100;
    /// Most `replans_per_section`.
    pub const REPLANS_PER_SECTION: u32 = 100;
    /// Most `max_proposer_calls`.
    pub const MAX_PROPOSER_CALLS: u64 = 1_000_000;
    /// Most `reasks`.
    pub const REASKS: u32 = 20;
}

/// A whole `cantus.toml`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    #[serde(default)]
    pub backend: BackendConfig,
    #[serde(default)]
    pub harness: HarnessSettings,
    #[serde(default)]
    pub gate: GateSettings,
    /// Extra plugins to load and list (`[[plugins]]`).
    #[serde(default)]
    pub plugins: Vec<PluginConfig>,
    /// The file's directory, for relative plugin paths; not a key.
    #[serde(skip)]
    pub dir: PathBuf,
}

/// `[harness]`: budgets of the propose–verify–repair loop, and how the model is asked.
/// A key left out keeps the domain's own default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HarnessSettings {
    #[serde(default)]
    pub attempts_per_event: Option<u32>,
    #[serde(default)]
    pub replans_per_section: Option<u32>,
    #[serde(default)]
    pub max_proposer_calls: Option<u64>,
    /// Wall-clock limit of a run, in seconds (retries and backoff included).
    #[serde(default)]
    pub deadline_s: Option<f64>,
    /// Send a decoding constraint generated from the domain, where the backend supports one.
    #[serde(default)]
    pub constrained: bool,
    /// With `constrained`: a JSON schema (`response_format`) instead of a GBNF grammar,
    /// for servers that take no grammar.
    #[serde(default)]
    pub json_schema: bool,
    /// Unreadable replies asked again, per request.
    #[serde(default = "default_reasks")]
    pub reasks: u32,
    /// What a constraint holds the model to: `rules` (default; the plan is advice in
    /// the prompt) or `plan` (the grammar also fixes what the domain's plan fixes).
    #[serde(default)]
    pub freedom: Freedom,
}

fn default_reasks() -> u32 {
    AskOptions::default().reasks
}

impl Default for HarnessSettings {
    fn default() -> Self {
        HarnessSettings {
            attempts_per_event: None,
            replans_per_section: None,
            max_proposer_calls: None,
            deadline_s: None,
            constrained: false,
            json_schema: false,
            reasks: default_reasks(),
            freedom: Freedom::default(),
        }
    }
}

/// `[gate]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateSettings {
    /// `strict` (default) or `relaxed`.
    #[serde(default)]
    pub mode: GateMode,
}

impl Settings {
    /// Parses and checks `text`, naming `origin` in errors (`origin:line:column:`, the
    /// problem and the key).
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Settings, ConfigError> {
        let source = TomlSource::new(text, origin);
        let settings: Settings = source.parse()?;
        settings.backend.check(&source)?;
        settings.harness.check(&source)?;
        Ok(settings)
    }

    /// Reads and checks the file at `path`.
    pub fn load(path: &Path) -> Result<Settings, ConfigError> {
        let text = TomlSource::read(path)?;
        let mut settings = Settings::from_toml_str(&text, &path.display().to_string())?;
        settings.dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok(settings)
    }

    /// The model sections, as `cantus-backend` and the plugin host take them.
    pub fn models(&self) -> cantus_backend::Config {
        cantus_backend::Config {
            backend: self.backend.clone(),
            plugins: self.plugins.clone(),
            dir: self.dir.clone(),
        }
    }

    /// How a proposer asks the model: `[harness]` and `[backend]`'s sampling, with the
    /// `--constrained` flag switching constrained decoding on. A backend whose
    /// constraint dialect takes only JSON schemas (`constraint = "json-schema"`) is
    /// asked with a schema wherever the domain has one.
    pub fn ask(&self, constrained_flag: bool) -> AskOptions {
        AskOptions {
            constrained: constrained_flag || self.harness.constrained,
            json_schema: self.harness.json_schema || self.backend.constraint.wants_json_schema(),
            reasks: self.harness.reasks,
            temperature: self.backend.temperature,
            seed: self.backend.seed,
            max_tokens: self.backend.max_tokens,
            freedom: self.harness.freedom,
        }
    }
}

impl HarnessSettings {
    /// `base` (a domain's default budget) with the keys this section sets.
    pub fn budget(&self, base: Budget) -> Budget {
        base.overridden(&self.overrides())
    }

    /// What this section changes of a domain's budget.
    pub fn overrides(&self) -> BudgetOverrides {
        BudgetOverrides {
            attempts_per_event: self.attempts_per_event,
            replans_per_section: self.replans_per_section,
            max_proposer_calls: self.max_proposer_calls,
            // Checked to be finite, positive and bounded when the file was read.
            deadline: self.deadline_s.map(Duration::from_secs_f64),
        }
    }

    fn check(&self, source: &TomlSource<'_>) -> Result<(), ConfigError> {
        fn at(key: &str) -> [&str; 2] {
            ["harness", key]
        }
        if let Some(n) = self.attempts_per_event {
            source.count(
                &at("attempts_per_event"),
                n.into(),
                0,
                limits::ATTEMPTS_PER_EVENT.into(),
            )?;
        }
        if let Some(n) = self.replans_per_section {
            source.count(
                &at("replans_per_section"),
                n.into(),
                0,
                limits::REPLANS_PER_SECTION.into(),
            )?;
        }
        if let Some(n) = self.max_proposer_calls {
            source.count(&at("max_proposer_calls"), n, 1, limits::MAX_PROPOSER_CALLS)?;
        }
        if let Some(d) = self.deadline_s {
            source.seconds(&at("deadline_s"), d, false, limits::DEADLINE_S)?;
        }
        source.count(&at("reasks"), self.reasks.into(), 0, limits::REASKS.into())?;
        Ok(())
    }
}
