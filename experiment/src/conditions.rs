//! Conditions as data: what a run of a task does is read from a [`Condition`]'s
//! fields — which proposer mode, which rungs, how many replans, constrained decoding,
//! revise rounds, prompt style and an extra instruction — never from its name. The
//! shipped conditions are one TOML table each (`conditions.toml`, embedded); an
//! experiment file may add its own with the same keys (`[[custom_conditions]]`).
//!
//! A condition can mean nothing for a proposer: the embedded proposer reads no
//! prompt and decodes no tokens, so prompt styles, instructions and constrained
//! decoding do not apply to it. [`Condition::not_applicable`] says why, and that run
//! is recorded as not applicable — never run as something else.

use cantus_framework::{
    AskOptions, Freedom, ModelBackend, ModelError, ModelReply, ModelRequest, RungId, async_trait,
};
use cantus_registry::{DomainId, Form, Prompt, Whole, WholeStyle};
use serde::{Deserialize, Deserializer, Serialize};
use std::fmt;
use std::sync::Arc;

/// A condition's name, e.g. `harness-constrained`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ConditionId(pub String);

impl fmt::Display for ConditionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The condition every other is compared with (paired differences).
pub const BASELINE: &str = "raw";

/// How the proposer is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProposerMode {
    /// Section by section through the propose–verify–repair loop.
    Sections,
    /// The whole piece in one request, judged as it comes.
    Whole,
}

/// Every registered domain's trials, in the registry's order.
fn every_trials() -> impl Iterator<Item = &'static dyn cantus_registry::Trials> {
    cantus_registry::domains()
        .iter()
        .filter_map(|unit| unit.trial_sets().ok())
}

/// Every rung some domain's experiments can climb, in order, each once: those of
/// every registered domain's trials ([`cantus_registry::Trials::rungs`]).
pub fn known_rungs() -> Vec<RungId> {
    let mut known: Vec<RungId> = every_trials().flat_map(|t| t.rungs()).collect();
    let mut seen = std::collections::BTreeSet::new();
    known.retain(|id| seen.insert(id.as_str()));
    known
}

/// A condition's `rungs`, read by id and checked against every rung a domain has
/// ([`known_rungs`]): an unknown id is refused where it is written. Whether the
/// domain of the experiment's tasks has each is asked when a run is made
/// ([`Condition::lacks_rung`]).
fn rung_ids<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<RungId>>, D::Error> {
    let Some(names) = Option::<Vec<String>>::deserialize(d)? else {
        return Ok(None);
    };
    let known = known_rungs();
    names
        .iter()
        .map(|name| {
            known
                .iter()
                .copied()
                .find(|k| k == name.as_str())
                .ok_or_else(|| {
                    let known: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
                    serde::de::Error::custom(format!(
                        "unknown rung `{name}`, expected one of {}",
                        known.join(", ")
                    ))
                })
        })
        .collect::<Result<_, _>>()
        .map(Some)
}

/// Every prompt style some domain's one-reply form asks in, each once: those of
/// every registered domain's trials ([`cantus_registry::Trials::forms`]).
pub fn known_styles() -> Vec<WholeStyle> {
    let mut known: Vec<WholeStyle> = every_trials().flat_map(|t| t.forms().whole).collect();
    let mut seen = std::collections::BTreeSet::new();
    known.retain(|s| seen.insert(s.id));
    known
}

/// A condition's `prompt`, checked against every style a domain has
/// ([`known_styles`]): an unknown style, or rounds where a style takes none, is
/// refused where it is written. Whether the domain of the experiment's tasks has the
/// style is asked when a run is made ([`cantus_registry::Forms::refuses`]).
fn prompt_style<'de, D: Deserializer<'de>>(d: D) -> Result<Prompt, D::Error> {
    let prompt = Prompt::deserialize(d)?;
    prompt
        .check(&known_styles())
        .map_err(serde::de::Error::custom)?;
    Ok(prompt)
}

/// One condition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    pub name: ConditionId,
    /// One line for the report.
    #[serde(default)]
    pub description: String,
    pub proposer: ProposerMode,
    /// The rungs run, in order, by id; `None` is the whole ladder.
    #[serde(default, deserialize_with = "rung_ids")]
    pub rungs: Option<Vec<RungId>>,
    /// Replans per section; `None` keeps the domain's (or `cantus.toml`'s) budget.
    #[serde(default)]
    pub replans: Option<u32>,
    #[serde(default)]
    pub constrained: bool,
    /// Libretto's revise loop with this many rounds (sections mode); 0 is none.
    #[serde(default)]
    pub revise_rounds: u32,
    /// The one-reply form's prompt style (`plain` unless named).
    #[serde(default, deserialize_with = "prompt_style")]
    pub prompt: Prompt,
    /// Added to every request.
    #[serde(default)]
    pub instruction: Option<String>,
    /// What the constraint holds the model to (`rules` or `plan`); `None` keeps the
    /// model's `cantus.toml` (`[harness] freedom`, default `rules`).
    #[serde(default)]
    pub freedom: Option<Freedom>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Shipped {
    conditions: Vec<Condition>,
}

/// The conditions shipped with the program: the runner's own (`conditions.toml`, for
/// every domain), then each registered domain's
/// ([`cantus_registry::Trials::conditions`]), in that order. Each table is part of
/// the program it is built into, so an error here (a table that does not parse, a
/// name shipped twice) is a defect of that program, said as such rather than
/// leaving its conditions out.
pub fn shipped() -> Result<Vec<Condition>, String> {
    gather(cantus_registry::domains().iter().filter_map(|unit| {
        let text = unit.trial_sets().ok()?.conditions()?;
        Some((unit.id(), text))
    }))
}

/// The runner's conditions, then those each of `domains` ships (its id, its table).
fn gather<'a>(
    domains: impl Iterator<Item = (&'a DomainId, &'a str)>,
) -> Result<Vec<Condition>, String> {
    let parse = |origin: &str, text: &str| {
        toml::from_str::<Shipped>(text)
            .map(|s| s.conditions)
            .map_err(|e| format!("{origin} do not parse (a defect of this program): {e}"))
    };
    let mut all = parse(
        "the runner's shipped conditions",
        include_str!("conditions.toml"),
    )?;
    for (id, text) in domains {
        let origin = format!("the conditions the `{id}` domain ships");
        for c in parse(&origin, text)? {
            if all.iter().any(|k| k.name == c.name) {
                return Err(format!(
                    "{origin} name `{}`, which is already a condition (a defect of this program)",
                    c.name
                ));
            }
            all.push(c);
        }
    }
    Ok(all)
}

impl Condition {
    /// Why this condition means nothing for the embedded proposer (`model` is
    /// `false`), if it does not.
    pub fn not_applicable(&self, model: bool) -> Option<String> {
        if model {
            return None;
        }
        let mut why = Vec::new();
        if !self.prompt.is_plain() {
            why.push("a prompt style");
        }
        if self.instruction.is_some() {
            why.push("a prompt instruction");
        }
        if self.constrained {
            why.push("constrained decoding");
        }
        (!why.is_empty()).then(|| {
            format!(
                "the embedded proposer reads no prompt and decodes no tokens; this condition is {}",
                why.join(" and ")
            )
        })
    }

    /// Why this condition cannot run on `domain`, whose rungs are `rungs`: the
    /// first rung it names that the domain does not have.
    pub fn lacks_rung(&self, domain: &str, rungs: &[RungId]) -> Option<String> {
        let missing = self.rungs.as_ref()?.iter().find(|id| !rungs.contains(id))?;
        let list: Vec<String> = rungs.iter().map(|r| format!("`{r}`")).collect();
        Some(if list.is_empty() {
            format!("the {domain} domain has no rung `{missing}`: it has no ladder")
        } else {
            format!(
                "the {domain} domain has no rung `{missing}` (its rungs: {})",
                list.join(", ")
            )
        })
    }

    /// The form this condition asks a trial for.
    pub fn form(&self) -> Form<'_> {
        match self.proposer {
            ProposerMode::Sections => Form::Sections {
                revise_rounds: self.revise_rounds,
            },
            ProposerMode::Whole => Form::Whole(Whole {
                prompt: &self.prompt,
                instruction: self.instruction.as_deref(),
                constrained: self.constrained,
            }),
        }
    }

    /// The model as this condition asks it: with its instruction added to every
    /// request, if it has one.
    pub fn backend(&self, model: &Arc<dyn ModelBackend>) -> Arc<dyn ModelBackend> {
        match &self.instruction {
            Some(i) => Arc::new(Instructed {
                inner: model.clone(),
                instruction: i.clone(),
            }),
            None => model.clone(),
        }
    }

    /// How a model is asked under this condition: the config's options with this
    /// condition's constrained decoding and, if it names one, its freedom.
    pub fn ask(&self, base: &AskOptions) -> AskOptions {
        AskOptions {
            constrained: self.constrained,
            freedom: self.freedom.unwrap_or(base.freedom),
            ..base.clone()
        }
    }
}

/// A backend that adds one instruction to the last user message of every request:
/// the adversarial prompts of the harness conditions, without touching the
/// proposer's own prompts.
pub struct Instructed {
    pub inner: Arc<dyn ModelBackend>,
    pub instruction: String,
}

#[async_trait]
impl ModelBackend for Instructed {
    fn name(&self) -> String {
        self.inner.name()
    }

    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        let mut request = request.clone();
        if let Some(m) = request
            .messages
            .iter_mut()
            .rev()
            .find(|m| m.role == cantus_framework::Role::User)
        {
            m.content.push('\n');
            m.content.push_str(&self.instruction);
        }
        self.inner.complete(&request).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_conditions_parse_and_include_every_one_the_study_needs() {
        let names: Vec<String> = shipped().unwrap().into_iter().map(|c| c.name.0).collect();
        for want in [
            "raw",
            "raw-constrained",
            "soft-rules",
            "self-refine",
            "harness",
            "harness-constrained",
            "no-repair",
            "no-replan",
            "revise",
        ] {
            assert!(names.iter().any(|n| n == want), "{want} missing: {names:?}");
        }
        let adversarial = shipped()
            .unwrap()
            .into_iter()
            .filter(|c| c.instruction.is_some())
            .count();
        assert_eq!(
            adversarial, 10,
            "five adversarial variants of raw and of harness"
        );
    }

    #[test]
    fn the_runners_conditions_need_no_domain_and_a_domains_table_is_held_to_account() {
        // A program linking no domain with prompt styles still has the runner's own.
        let alone = gather(std::iter::empty()).unwrap();
        assert!(alone.iter().any(|c| c.name.0 == "harness"));
        assert!(
            alone.iter().all(|c| c.prompt.is_plain()),
            "no domain's style"
        );
        let id = DomainId::new("echo");
        let again = "[[conditions]]\nname = \"raw\"\nproposer = \"whole\"\n";
        let twice = gather(std::iter::once((&id, again))).unwrap_err();
        assert!(
            twice.contains("the `echo` domain ships name `raw`, which is already a condition"),
            "{twice}"
        );
        let broken = gather(std::iter::once((&id, "[[conditions]]\nname = 3\n"))).unwrap_err();
        assert!(
            broken.starts_with("the conditions the `echo` domain ships do not parse"),
            "{broken}"
        );
        // Each domain's follow the runner's, in registry order.
        let own = "[[conditions]]\nname = \"echo-whole\"\nproposer = \"whole\"\n";
        let with = gather(std::iter::once((&id, own))).unwrap();
        assert_eq!(with.len(), alone.len() + 1);
        assert_eq!(with.last().unwrap().name.0, "echo-whole");
    }

    #[test]
    fn prompt_only_conditions_do_not_apply_to_the_embedded_proposer() {
        let by_name = |n: &str| {
            shipped()
                .unwrap()
                .into_iter()
                .find(|c| c.name.0 == n)
                .unwrap()
        };
        for n in [
            "soft-rules",
            "self-refine",
            "raw-constrained",
            "harness-sparse",
        ] {
            assert!(by_name(n).not_applicable(false).is_some(), "{n}");
            assert!(by_name(n).not_applicable(true).is_none(), "{n}");
        }
        for n in ["raw", "harness", "no-repair", "no-replan", "revise"] {
            assert!(by_name(n).not_applicable(false).is_none(), "{n}");
        }
    }

    #[test]
    fn a_rung_no_domain_has_is_refused_where_it_is_written() {
        let read: Condition = toml::from_str(
            "name = \"x\"\nproposer = \"sections\"\nrungs = [\"octave\", \"model-patch\"]",
        )
        .unwrap();
        let ids: Vec<&str> = read.rungs.iter().flatten().map(|r| r.as_str()).collect();
        assert_eq!(ids, ["octave", "model-patch"], "in the condition's order");
        let unknown = toml::from_str::<Condition>(
            "name = \"x\"\nproposer = \"sections\"\nrungs = [\"trim\", \"shout\"]",
        )
        .unwrap_err()
        .to_string();
        assert!(
            unknown.contains("unknown rung `shout`, expected one of") && unknown.contains("`trim`"),
            "{unknown}"
        );
    }
}
