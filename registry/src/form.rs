//! The form of an experiment's condition: how a trial asks for its artefact —
//! section by section through the domain's loop (with or without the
//! generate–measure–revise loop around it), or the whole artefact in one reply in a
//! prompt style of the domain's — and which forms a domain's trials run.
//!
//! A condition is data (`proposer = "whole"`, `revise_rounds = 3`, `prompt = { style
//! = "self-refine", rounds = 2 }`); the runner turns it into a [`Form`] and hands it
//! to the trial in its [`Attempt`](crate::Attempt). A domain says which forms it runs
//! ([`Trials::forms`](crate::Trials::forms)); the runner records a condition asking
//! for another as not applicable, in words of its own ([`Forms::refuses`]), so no
//! domain has to word the refusals every domain would share.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How a trial asks for its artefact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form<'a> {
    /// Section by section through the propose–verify–repair loop; with
    /// `revise_rounds` above 0, up to that many whole runs of it in the
    /// generate–measure–revise loop, each judged by the gate and the domain's measure.
    Sections { revise_rounds: u32 },
    /// The whole artefact in one reply, judged as it comes.
    Whole(Whole<'a>),
}

impl Form<'_> {
    /// One pass of the loop, no revise rounds: every domain's form.
    pub const SECTIONS: Form<'static> = Form::Sections { revise_rounds: 0 };
}

/// A one-reply condition: the prompt it asks in, and what it adds.
///
/// The model of a whole-reply [`Attempt`](crate::Attempt) is the configured one,
/// **not** wrapped with the condition's instruction: the prompt is the domain's to
/// write, and `instruction` is for it to place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Whole<'a> {
    pub prompt: &'a Prompt,
    /// An extra sentence for the request ("just fill it with long notes").
    pub instruction: Option<&'a str>,
    /// Whether the reply is held to a grammar of the artefact's notation.
    pub constrained: bool,
}

/// A prompt style of the one-reply form, as a condition names it: `{ style =
/// "soft-rules" }`, `{ style = "self-refine", rounds = 2 }`. The styles are the
/// domains' own ([`WholeStyle`]); `plain` is the default.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prompt {
    pub style: String,
    /// Rounds, for a style that takes them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
}

impl Prompt {
    /// The style every one-reply form has: the domain's own prompt as it is.
    pub const PLAIN: &'static str = "plain";

    /// Whether this is the plain style.
    pub fn is_plain(&self) -> bool {
        self.style == Self::PLAIN
    }

    /// Why this prompt is not one of `styles`, if it is not: the style unknown, or
    /// rounds given to a style without them or missing for one with them.
    pub fn check(&self, styles: &[WholeStyle]) -> Result<(), String> {
        let Some(style) = styles.iter().find(|s| s.id == self.style) else {
            let known: Vec<String> = styles.iter().map(|s| format!("`{}`", s.id)).collect();
            return Err(format!(
                "unknown prompt style `{}`, expected one of {}",
                self.style,
                known.join(", ")
            ));
        };
        match (style.rounds, self.rounds) {
            (true, None) => Err(format!(
                "the prompt style `{}` needs `rounds` (how many)",
                self.style
            )),
            (false, Some(_)) => Err(format!(
                "the prompt style `{}` takes no `rounds`",
                self.style
            )),
            _ => Ok(()),
        }
    }
}

impl Default for Prompt {
    fn default() -> Self {
        Prompt {
            style: Self::PLAIN.to_owned(),
            rounds: None,
        }
    }
}

impl fmt::Display for Prompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.rounds {
            Some(n) => write!(f, "{} ({n} rounds)", self.style),
            None => f.write_str(&self.style),
        }
    }
}

/// A prompt style a domain's one-reply form asks in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WholeStyle {
    /// As a condition names it (`soft-rules`).
    pub id: &'static str,
    /// Whether the condition gives it `rounds`.
    pub rounds: bool,
}

impl WholeStyle {
    /// The domain's own one-reply prompt, as it is.
    pub const PLAIN: WholeStyle = WholeStyle {
        id: Prompt::PLAIN,
        rounds: false,
    };
}

/// Which forms a domain's trials run ([`Trials::forms`](crate::Trials::forms)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Forms {
    /// Whether its trials run the generate–measure–revise loop.
    pub revise: bool,
    /// The prompt styles of its one-reply form; none: it has no one-reply form.
    pub whole: Vec<WholeStyle>,
}

impl Forms {
    /// Why the `domain`'s trials, which run these forms, cannot run `form`, if they
    /// cannot: the runner's words, recorded as the run's not-applicable reason.
    pub fn refuses(&self, domain: &str, form: &Form<'_>) -> Option<String> {
        match form {
            Form::Sections { revise_rounds } if *revise_rounds > 0 && !self.revise => {
                Some(format!(
                    "not for {domain} tasks: this condition is the revise loop, and the {domain} domain runs none"
                ))
            }
            Form::Sections { .. } => None,
            Form::Whole(_) if self.whole.is_empty() => Some(format!(
                "not for {domain} tasks: this condition is a whole-piece reply, and the {domain} domain has no one-reply form"
            )),
            Form::Whole(w) => {
                let known = self.whole.iter().any(|s| s.id == w.prompt.style);
                (!known).then(|| {
                    let styles: Vec<String> =
                        self.whole.iter().map(|s| format!("`{}`", s.id)).collect();
                    format!(
                        "not for {domain} tasks: the {domain} domain has no `{}` prompt (its prompts: {})",
                        w.prompt.style,
                        styles.join(", ")
                    )
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn styles() -> Vec<WholeStyle> {
        vec![
            WholeStyle::PLAIN,
            WholeStyle {
                id: "self-refine",
                rounds: true,
            },
        ]
    }

    #[test]
    fn a_prompt_is_checked_against_the_styles_with_their_rounds() {
        let prompt = |style: &str, rounds| Prompt {
            style: style.into(),
            rounds,
        };
        assert_eq!(prompt("plain", None).check(&styles()), Ok(()));
        assert_eq!(prompt("self-refine", Some(2)).check(&styles()), Ok(()));
        assert_eq!(
            prompt("self-refine", None).check(&styles()),
            Err("the prompt style `self-refine` needs `rounds` (how many)".into())
        );
        assert_eq!(
            prompt("plain", Some(1)).check(&styles()),
            Err("the prompt style `plain` takes no `rounds`".into())
        );
        assert_eq!(
            prompt("soft", None).check(&styles()),
            Err("unknown prompt style `soft`, expected one of `plain`, `self-refine`".into())
        );
    }

    #[test]
    fn the_runner_refuses_what_a_domain_does_not_run_and_says_which() {
        let sections = Forms::default();
        let everything = Forms {
            revise: true,
            whole: styles(),
        };
        let revise = Form::Sections { revise_rounds: 3 };
        let soft = Prompt {
            style: "soft-rules".into(),
            rounds: None,
        };
        let plain = Prompt::default();
        let whole = |prompt| {
            Form::Whole(Whole {
                prompt,
                instruction: None,
                constrained: false,
            })
        };
        assert_eq!(sections.refuses("beads", &Form::SECTIONS), None);
        assert_eq!(
            sections.refuses("beads", &revise).as_deref(),
            Some(
                "not for beads tasks: this condition is the revise loop, and the beads domain runs none"
            )
        );
        assert_eq!(
            sections.refuses("beads", &whole(&plain)).as_deref(),
            Some(
                "not for beads tasks: this condition is a whole-piece reply, and the beads domain has no one-reply form"
            )
        );
        assert_eq!(everything.refuses("beads", &revise), None);
        assert_eq!(everything.refuses("beads", &whole(&plain)), None);
        assert_eq!(
            everything.refuses("beads", &whole(&soft)).as_deref(),
            Some(
                "not for beads tasks: the beads domain has no `soft-rules` prompt (its prompts: `plain`, `self-refine`)"
            )
        );
    }

    #[test]
    fn a_prompt_reads_and_writes_as_conditions_name_it() {
        let p: Prompt = toml::from_str("style = \"self-refine\"\nrounds = 2").unwrap();
        assert_eq!(p.rounds, Some(2));
        assert_eq!(
            serde_json::to_string(&Prompt::default()).unwrap(),
            r#"{"style":"plain"}"#
        );
        assert!(toml::from_str::<Prompt>("style = \"plain\"\nround = 2").is_err());
    }
}
