//! The prompt-only baselines a harness is measured against: the model writes the
//! whole piece in one reply (the raw baseline of [`crate::raw`]), optionally with the
//! rules stated in the prompt (**soft rules**), with its own critique and revision
//! for N rounds and no verifier (**Self-Refine**), with an extra instruction (the
//! degeneracy-inducing prompts of the harness paper), or held to the notation's
//! grammar by constrained decoding (is the grammar alone enough?).
//!
//! Every variant asks with the same prompt material as the raw baseline (header, row
//! forms, ranges), reads the final reply with the same lenient reader and is judged
//! by the same strict gate: only what is asked differs, so differences in delivery
//! are the prompt's doing.

use crate::blueprint::{Blueprint, BlueprintError};
use crate::gate::{GateMode, Rule, SerialGate};
use crate::proposer::llm::{DEFAULT_MAX_TOKENS, constraint::pitch_name, whole};
use crate::raw::{RawOutcome, RawVerdict};
use crate::spec::Spec;
use cantus_framework::{
    AskOptions, Asking, Constraint, Message, ModelBackend, ModelReply, ModelRequest, Sampling,
    Usage,
};
use cantus_music::Spelling;
use cantus_registry::{Prompt, WholeStyle};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// How the whole piece is asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "style")]
pub enum PromptStyle {
    /// The raw prompt as it is.
    #[default]
    Plain,
    /// The raw prompt with every rule of the gate stated as a sentence.
    SoftRules,
    /// The raw prompt, then `rounds` × (the model critiques its piece against the
    /// rules; the model rewrites it), with no verifier in between.
    SelfRefine { rounds: u32 },
}

impl PromptStyle {
    /// The styles as an experiment's condition names them (`prompt = { style =
    /// "self-refine", rounds = 2 }`): the domain's one-reply form.
    pub const STYLES: &'static [WholeStyle] = &[
        WholeStyle::PLAIN,
        WholeStyle {
            id: "soft-rules",
            rounds: false,
        },
        WholeStyle {
            id: "self-refine",
            rounds: true,
        },
    ];

    /// The style a condition's `prompt` names, if it is one of [`PromptStyle::STYLES`].
    pub fn of(prompt: &Prompt) -> Option<PromptStyle> {
        prompt.check(Self::STYLES).ok()?;
        match (prompt.style.as_str(), prompt.rounds) {
            ("plain", None) => Some(PromptStyle::Plain),
            ("soft-rules", None) => Some(PromptStyle::SoftRules),
            ("self-refine", Some(rounds)) => Some(PromptStyle::SelfRefine { rounds }),
            _ => None,
        }
    }
}

/// One prompt-only baseline: its style, an extra instruction, and whether the reply
/// is held to the notation's grammar.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    pub style: PromptStyle,
    /// Appended to the request, e.g. "just fill it with long notes".
    pub instruction: Option<String>,
    /// Send a GBNF grammar of the whole-piece notation ([`whole_grammar`]).
    pub constrained: bool,
}

/// The rules of the gate, one sentence each, as the soft-rules prompt states them.
pub fn rules_text() -> String {
    let mut text = String::from("Rules every piece must follow:\n");
    for rule in Rule::ALL {
        let _ = writeln!(text, "- {}: {}", rule.id(), rule.description());
    }
    text
}

/// A GBNF grammar admitting only whole-piece replies in the onset-slot notation:
/// bars `@N [-]`, each with one line per planned voice, in the plan's order, of
/// notes `PITCH@SLOT>LENGTH` within the voice's range. It holds the syntax, not the
/// rows: what the grammar alone buys.
pub fn whole_grammar(plan: &Blueprint) -> String {
    let mut g = String::from("root ::= bar+\nbar ::= \"@\" num \" [-]\\n\"");
    for v in 0..plan.limits.voices.len() {
        let _ = write!(g, " v{v}");
    }
    g.push('\n');
    for (v, voice) in plan.limits.voices.iter().enumerate() {
        let names: Vec<String> = (voice.low..=voice.high)
            .map(|m| format!("\"{}\"", pitch_name(m, Spelling::sharp_default(m % 12))))
            .collect();
        let name = voice.name.replace('\\', "\\\\").replace('"', "\\\"");
        let _ = writeln!(
            g,
            "v{v} ::= \"  {name}: \" n{v} (\" \" n{v})* \"\\n\"\nn{v} ::= p{v} \"@\" num \">\" num\np{v} ::= {}",
            names.join(" | ")
        );
    }
    g.push_str("num ::= [1-9] [0-9]? [0-9]? [0-9]?\n");
    g
}

const CRITIQUE: &str = "Check the piece you wrote against every rule above, voice by voice and \
section by section. List each problem you find (bar, voice, what is wrong); do not rewrite \
the piece yet.";
const REWRITE: &str = "Now write the whole corrected piece, fixing every problem you listed. \
Answer with the bars only.";

/// Plans `spec` with `seed`, asks `backend` for the whole piece the way `baseline`
/// says, reads the last reply leniently and judges it with the strict gate. Only
/// planning errors are `Err`; a failed call or an unreadable reply is a
/// [`RawVerdict`].
pub async fn compose_baseline(
    spec: &Spec,
    seed: u64,
    backend: &dyn ModelBackend,
    options: &AskOptions,
    baseline: &Baseline,
) -> Result<RawOutcome, BlueprintError> {
    let plan = Blueprint::new(spec, seed)?;
    let started = Instant::now();
    let mut messages = whole::messages(&plan, &[]);
    if let Some(user) = messages.last_mut() {
        if matches!(
            baseline.style,
            PromptStyle::SoftRules | PromptStyle::SelfRefine { .. }
        ) {
            user.content = format!("{}\n{}", rules_text(), user.content);
        }
        if let Some(instruction) = &baseline.instruction {
            let _ = write!(user.content, "\n{instruction}");
        }
    }
    let constraint = baseline
        .constrained
        .then(|| Constraint::Gbnf(whole_grammar(&plan)));
    let request_name = match baseline.style {
        PromptStyle::Plain if baseline.instruction.is_none() && !baseline.constrained => "raw",
        _ => "baseline",
    };
    let request = |messages: Vec<Message>, constraint: Option<Constraint>| ModelRequest {
        messages,
        constraint,
        sampling: Sampling {
            temperature: options.temperature,
            seed: Some(options.seed.unwrap_or(seed)),
            max_tokens: options.max_tokens.or(Some(DEFAULT_MAX_TOKENS)),
        },
        context: serde_json::json!({"domain": "twelve-tone", "request": request_name, "bars": plan.bars}),
    };
    let mut outcome = RawOutcome {
        plan: plan.clone(),
        verdict: RawVerdict::ModelFailed {
            message: String::new(),
        },
        text: String::new(),
        warnings: Vec::new(),
        calls: 1,
        tokens: Usage::default(),
        wall: Duration::ZERO,
        exchange: None,
    };
    let rounds = match baseline.style {
        PromptStyle::SelfRefine { rounds } => rounds,
        _ => 0,
    };
    // One reply per step, no re-ask: a baseline gets no help the prompt does not give.
    let mut asking = Asking::new(backend, rounds.saturating_mul(2));
    let first = request(messages.clone(), constraint.clone());
    let mut reply = match ask(&mut asking, &first, backend, &mut outcome).await {
        Some(reply) => reply,
        None => {
            outcome.wall = started.elapsed();
            return Ok(outcome);
        }
    };
    for _ in 0..rounds {
        messages.push(Message::assistant(reply.text.clone()));
        messages.push(Message::user(CRITIQUE));
        let Some(critique) = ask(
            &mut asking,
            &request(messages.clone(), None),
            backend,
            &mut outcome,
        )
        .await
        else {
            outcome.wall = started.elapsed();
            return Ok(outcome);
        };
        messages.push(Message::assistant(critique.text));
        messages.push(Message::user(REWRITE));
        let rewrite = request(messages.clone(), constraint.clone());
        match ask(&mut asking, &rewrite, backend, &mut outcome).await {
            Some(r) => reply = r,
            None => {
                outcome.wall = started.elapsed();
                return Ok(outcome);
            }
        }
    }
    outcome.calls = asking.tally.calls;
    outcome.exchange = Some(asking.tally.exchange(
        backend.name(),
        constraint.as_ref(),
        &reply,
        None,
    ));
    outcome.text.clone_from(&reply.text);
    outcome.verdict = judge(&plan, &reply, &mut outcome.warnings);
    outcome.wall = started.elapsed();
    Ok(outcome)
}

/// One call; on failure the outcome says so (and counts the calls made) and `None`.
async fn ask(
    asking: &mut Asking<'_>,
    request: &ModelRequest,
    backend: &dyn ModelBackend,
    outcome: &mut RawOutcome,
) -> Option<ModelReply> {
    let result = asking.call(request).await;
    outcome.tokens = asking.tally.usage;
    match result {
        Ok(reply) => Some(reply),
        Err(e) => {
            outcome.calls = asking.tally.calls + 1;
            outcome.verdict = RawVerdict::ModelFailed {
                message: format!("{}: {e}", backend.name()),
            };
            None
        }
    }
}

/// The strict gate's verdict on the reply's piece, or why it could not be read.
fn judge(plan: &Blueprint, reply: &ModelReply, warnings: &mut Vec<String>) -> RawVerdict {
    match whole::read(plan, &reply.text) {
        Err(diagnostic) => RawVerdict::Unreadable {
            diagnostic: if reply.truncated() {
                format!("{diagnostic}\n(the reply was cut off at the token limit)")
            } else {
                diagnostic
            },
        },
        Ok(piece) => {
            *warnings = piece.warnings;
            let gate = SerialGate::for_plan(plan, GateMode::Strict);
            let report = gate.judge_score(&piece.score);
            if report.passed {
                RawVerdict::Released {
                    score: piece.score,
                    report,
                }
            } else {
                RawVerdict::Refused {
                    score: piece.score,
                    report,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::compile_brief;
    use cantus_framework::{ModelError, async_trait};
    use std::sync::Mutex;

    #[test]
    fn a_condition_names_each_style_as_the_style_itself_is_written() {
        for (written, style) in [
            (r#"{"style":"plain"}"#, PromptStyle::Plain),
            (r#"{"style":"soft-rules"}"#, PromptStyle::SoftRules),
            (
                r#"{"style":"self-refine","rounds":2}"#,
                PromptStyle::SelfRefine { rounds: 2 },
            ),
        ] {
            let prompt: Prompt = serde_json::from_str(written).unwrap();
            assert_eq!(PromptStyle::of(&prompt), Some(style), "{written}");
            assert_eq!(serde_json::to_string(&style).unwrap(), written);
            assert_eq!(serde_json::to_string(&prompt).unwrap(), written);
        }
        let unknown = Prompt {
            style: "terse".into(),
            rounds: None,
        };
        assert_eq!(PromptStyle::of(&unknown), None);
        let no_rounds = Prompt {
            style: "self-refine".into(),
            rounds: None,
        };
        assert_eq!(PromptStyle::of(&no_rounds), None);
    }

    /// Answers from a script and keeps every request.
    struct Scripted {
        replies: Mutex<Vec<String>>,
        seen: Mutex<Vec<ModelRequest>>,
    }

    #[async_trait]
    impl ModelBackend for Scripted {
        fn name(&self) -> String {
            "scripted".into()
        }
        async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
            self.seen.lock().unwrap().push(request.clone());
            let mut replies = self.replies.lock().unwrap();
            if replies.is_empty() {
                return Err(ModelError::Connection("script ended".into()));
            }
            Ok(ModelReply::text(replies.remove(0)))
        }
    }

    fn scripted(replies: &[&str]) -> Scripted {
        Scripted {
            replies: Mutex::new(replies.iter().map(|s| (*s).to_owned()).collect()),
            seen: Mutex::new(Vec::new()),
        }
    }

    fn run(backend: &Scripted, baseline: &Baseline) -> RawOutcome {
        let spec = compile_brief("A 4-bar solo piece in 4/4 on Schoenberg's Op. 25 row")
            .unwrap()
            .spec;
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(compose_baseline(
                &spec,
                0,
                backend,
                &AskOptions::default(),
                baseline,
            ))
            .unwrap()
    }

    #[test]
    fn soft_rules_state_every_rule_and_the_instruction_comes_last() {
        let backend = scripted(&["@1 [-]\n  Voice: C4@1>4\n"]);
        let baseline = Baseline {
            style: PromptStyle::SoftRules,
            instruction: Some("Just fill it with long notes.".into()),
            constrained: false,
        };
        let outcome = run(&backend, &baseline);
        let seen = backend.seen.lock().unwrap();
        let prompt = &seen[0].messages.last().unwrap().content;
        for rule in Rule::ALL {
            assert!(prompt.contains(rule.id()), "{}", rule.id());
        }
        assert!(prompt.trim_end().ends_with("Just fill it with long notes."));
        assert_eq!(outcome.calls, 1);
        assert!(!outcome.is_released());
    }

    #[test]
    fn self_refine_critiques_and_rewrites_each_round_and_judges_the_last_piece() {
        let backend = scripted(&["not music", "bar 1 is wrong", "also not music"]);
        let baseline = Baseline {
            style: PromptStyle::SelfRefine { rounds: 1 },
            ..Baseline::default()
        };
        let outcome = run(&backend, &baseline);
        let seen = backend.seen.lock().unwrap();
        assert_eq!(seen.len(), 3);
        assert!(
            seen[1]
                .messages
                .last()
                .unwrap()
                .content
                .contains("List each problem")
        );
        assert_eq!(
            seen[2].messages[seen[2].messages.len() - 2].content,
            "bar 1 is wrong"
        );
        assert_eq!(outcome.calls, 3);
        assert_eq!(outcome.text, "also not music");
        assert!(matches!(outcome.verdict, RawVerdict::Unreadable { .. }));
    }

    #[test]
    fn a_failed_call_is_the_outcome_not_an_error() {
        let backend = scripted(&[]);
        let outcome = run(&backend, &Baseline::default());
        assert!(matches!(outcome.verdict, RawVerdict::ModelFailed { .. }));
    }

    #[test]
    fn the_constrained_baseline_sends_a_grammar_naming_every_voice() {
        let backend = scripted(&["@1 [-]\n"]);
        let baseline = Baseline {
            constrained: true,
            ..Baseline::default()
        };
        run(&backend, &baseline);
        let seen = backend.seen.lock().unwrap();
        let Some(Constraint::Gbnf(g)) = &seen[0].constraint else {
            panic!("no grammar sent");
        };
        assert!(g.starts_with("root ::= bar+"), "{g}");
        assert!(g.contains("v0 ::= \"  "), "{g}");
    }
}
