//! `cantus.toml`'s sections for the engine: `[harness]` (the propose–verify–repair
//! loop's budgets and how a model is asked) and `[gate]` (the release gate's mode).
//!
//! This is the one place a `[harness]` becomes a [`Budget`] and [`AskOptions`]
//! ([`Config::ask`](crate::Config::ask)): every domain's command gets them from here.
//! Every duration and count has a documented upper bound ([`limits`]), checked with
//! the key's line and column before anything runs, so no value can overflow a
//! `Duration` or make a run retry without end.

use crate::config::ConfigError;
use crate::validate::{TomlSource, limits};
use cantus_framework::{AskOptions, Budget, BudgetOverrides, Freedom, GateMode};
use serde::{Deserialize, Serialize};
use std::time::Duration;

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

    /// Checks every value against its bound ([`limits`]), naming the key and its
    /// place in `source`; the first problem found.
    pub fn check(&self, source: &TomlSource<'_>) -> Result<(), ConfigError> {
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
