//! Language models as the framework sees them: messages in, text out.
//!
//! A domain's LLM proposer turns a [`crate::ProposalRequest`] into a [`ModelRequest`]
//! (prompt, optional decoding [`Constraint`], structured `context`) and reads the
//! [`ModelReply`] text back into events. Backends — OpenAI-compatible servers,
//! Anthropic, Ollama, a cassette, a dynamic or subprocess plugin — implement
//! [`ModelBackend`] and live outside the framework (`plugins/`), so neither the
//! framework nor any domain depends on HTTP. The exchange is recorded in the trace as a
//! [`ModelExchange`]: usage, stop reason, latency, retries and what became of the
//! constraint. Nothing here may carry a secret: backends read keys from the
//! environment and keep them out of every message, reply and error.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

mod error;
pub use error::{ModelError, RetryAfter};

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

/// One chat message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Message {
            role: Role::System,
            content: content.into(),
        }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: content.into(),
        }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Message {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// A restriction on what the model may emit, generated from the domain (constrained
/// decoding). Servers that do not support a kind skip it, sometimes silently; the
/// verifier stays the judge either way.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Constraint {
    /// A GBNF grammar (llama.cpp's format). A backend sends it in the field its server
    /// reads, rewritten where that server spells grammars differently (`cantus-backend`'s
    /// constraint dialects: llama.cpp `grammar`, vLLM `structured_outputs`, SGLang `ebnf`).
    Gbnf(String),
    /// A JSON schema (`response_format: json_schema`, or the server's own field).
    JsonSchema(serde_json::Value),
}

impl Constraint {
    /// `gbnf` or `json_schema`, for traces.
    pub fn label(&self) -> &'static str {
        match self {
            Constraint::Gbnf(_) => "gbnf",
            Constraint::JsonSchema(_) => "json_schema",
        }
    }
}

/// `text` as a GBNF string literal (quotes, backslashes and newlines escaped), for
/// domains writing [`Constraint::Gbnf`] grammars.
pub fn gbnf_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Sampling settings a request may override; `None` means "the backend's configured value".
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Sampling {
    pub temperature: Option<f64>,
    pub seed: Option<u64>,
    pub max_tokens: Option<u32>,
}

/// What a model-backed proposer's constraint holds the model to.
///
/// A constraint encodes the rules, never the answer: under [`Freedom::Rules`] (the
/// default) the grammar admits every choice from which the work can still be finished
/// cleanly and nothing narrower, and the domain's plan (targets, a suggested line) goes
/// into the prompt as advice the model may take or leave. [`Freedom::Plan`] also fixes
/// in the grammar what the domain's plan fixes, leaving the model only what the plan
/// leaves open — kept so the two can be compared, never chosen silently.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Freedom {
    /// The rules only; the plan is advice.
    #[default]
    Rules,
    /// The rules and the plan.
    Plan,
}

impl Freedom {
    /// `rules` or `plan`, as `cantus.toml` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Freedom::Rules => "rules",
            Freedom::Plan => "plan",
        }
    }
}

impl std::fmt::Display for Freedom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How a domain's model-backed proposer asks — the same knobs for every domain, set
/// from `cantus.toml`'s `[backend]` and `[harness]`.
#[derive(Clone, Debug, PartialEq)]
pub struct AskOptions {
    /// Send a decoding constraint generated from the domain (a GBNF grammar, or a JSON
    /// schema with `json_schema`) where the proposer can make one.
    pub constrained: bool,
    /// With `constrained`, a JSON schema (`response_format`) instead of a grammar, for
    /// servers that take no grammar.
    pub json_schema: bool,
    /// How many times an unreadable or short reply is asked again.
    pub reasks: u32,
    /// Sampling temperature; `None` keeps the backend's configured value.
    pub temperature: Option<f64>,
    /// Base seed; `None` uses the run's seed.
    pub seed: Option<u64>,
    /// The most tokens a reply may be asked for: a ceiling, under which a proposer
    /// asks for what its request needs; `None` lets the proposer choose its own.
    pub max_tokens: Option<u32>,
    /// What the constraint holds the model to (`[harness] freedom`).
    pub freedom: Freedom,
}

impl Default for AskOptions {
    /// Unconstrained, two re-asks, everything else the backend's or the proposer's.
    fn default() -> Self {
        AskOptions {
            constrained: false,
            json_schema: false,
            reasks: 2,
            temperature: None,
            seed: None,
            max_tokens: None,
            freedom: Freedom::default(),
        }
    }
}

/// One request to a model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelRequest {
    pub messages: Vec<Message>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraint: Option<Constraint>,
    #[serde(default)]
    pub sampling: Sampling,
    /// Structured data about the request (domain, request kind, section, allowed
    /// symbols …) for symbolic plugins that would rather not parse the prompt. HTTP
    /// backends do not send it.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub context: serde_json::Value,
}

impl ModelRequest {
    /// A request with these messages and nothing else set.
    pub fn new(messages: Vec<Message>) -> Self {
        ModelRequest {
            messages,
            constraint: None,
            sampling: Sampling::default(),
            context: serde_json::Value::Null,
        }
    }
}

/// What became of a request's constraint at the backend.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConstraintUse {
    /// The request had none.
    #[default]
    NotRequested,
    /// Sent to the server in the field it documents (it may still ignore it).
    Sent,
    /// This backend has no way to send this kind; the request went without it.
    Unsupported,
}

/// Tokens counted by the server, when it says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    /// Prompt tokens the server read from its prefix cache instead of computing them,
    /// when it reports them (OpenAI, vLLM, SGLang and llama.cpp count them inside
    /// `tokens_in`; Anthropic counts cache reads apart from its `input_tokens`).
    /// Left out of JSON when unknown, so records of servers that never say are unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_cached: Option<u64>,
}

impl Usage {
    /// Both counts together: a count either side knows is summed (a side that does
    /// not know it adds nothing); a count neither knows stays unknown, never 0.
    pub fn plus(self, other: Usage) -> Usage {
        let sum = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
        };
        Usage {
            tokens_in: sum(self.tokens_in, other.tokens_in),
            tokens_out: sum(self.tokens_out, other.tokens_out),
            tokens_cached: sum(self.tokens_cached, other.tokens_cached),
        }
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        *self = self.plus(other);
    }
}

/// `1700 tokens in, 300 out`; `?` for a count the server did not give, and `tokens
/// not reported` when it gave neither.
impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = |n: Option<u64>| n.map_or_else(|| "?".to_owned(), |n| n.to_string());
        if self.tokens_in.is_none() && self.tokens_out.is_none() {
            return f.write_str("tokens not reported");
        }
        write!(
            f,
            "{} tokens in, {} out",
            count(self.tokens_in),
            count(self.tokens_out)
        )
    }
}

/// A model's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelReply {
    pub text: String,
    #[serde(default)]
    pub usage: Usage,
    /// As the server said it (`stop`, `length`, `end_turn`, `max_tokens` …).
    #[serde(default)]
    pub stop_reason: Option<String>,
    /// The model that answered, as the server named it.
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub constraint: ConstraintUse,
    /// Attempts beyond the first (retried 429/5xx/connection errors).
    #[serde(default)]
    pub retries: u32,
    /// Wall time of the call, retries included.
    #[serde(default)]
    pub latency_ms: u64,
}

impl ModelReply {
    /// A reply carrying only text (tests, symbolic plugins).
    pub fn text(text: impl Into<String>) -> Self {
        ModelReply {
            text: text.into(),
            usage: Usage::default(),
            stop_reason: None,
            model: None,
            constraint: ConstraintUse::NotRequested,
            retries: 0,
            latency_ms: 0,
        }
    }

    /// `true` when the server stopped because it ran out of tokens: the text is a prefix.
    pub fn truncated(&self) -> bool {
        matches!(
            self.stop_reason.as_deref(),
            Some("length" | "max_tokens" | "max_output_tokens")
        )
    }
}

/// A reply's text ready to read: trailing white space trimmed and, when the server ran
/// out of tokens (`truncated`), its last token set aside, since it may be cut short.
/// The second value says what was set aside, in words a reader's problems can quote.
pub fn set_aside_cut_token(text: &str, truncated: bool) -> (String, Option<String>) {
    let mut text = text.trim_end().to_owned();
    if !truncated {
        return (text, None);
    }
    let cut = text
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    if cut >= text.len() {
        return (text, None);
    }
    let note = format!(
        "the answer was cut off at the token limit; `{}` was set aside",
        &text[cut..]
    );
    text.truncate(cut);
    (text, Some(note))
}

/// Anything that answers chat requests with text.
///
/// One small trait, and behaviour by wrapping: a backend answers one attempt, and the
/// deadline, retries and concurrency limit of `cantus.toml` are backends that wrap
/// another (`cantus-backend`'s `Deadline`, `Retry` and `Concurrency`), so every kind —
/// HTTP, dynamic library, subprocess — gets them alike.
#[async_trait]
pub trait ModelBackend: Send + Sync {
    /// Short name for traces, e.g. `"openai:smollm2"`; never a key or full URL with credentials.
    fn name(&self) -> String;
    /// Answers one request. Cancel-safe: a caller may stop waiting (drop the future)
    /// at any point and the backend stays usable for the next call.
    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError>;
}

/// The one re-ask loop of every model-backed proposer: up to `1 + reasks` calls to a
/// backend, each answer read by the caller, who either stops or says why the answer
/// could not be used ([`Asking::refuse`]), which the next request can tell the model.
/// The calls' tokens, latency and retries are summed in [`Asking::tally`].
///
/// ```
/// # use cantus_framework::model::*;
/// # async fn demo(backend: &dyn ModelBackend) -> Result<String, ModelError> {
/// let mut asking = Asking::new(backend, 2);
/// while asking.more() {
///     let mut messages = vec![Message::user("Name a note.")];
///     if let Some(why) = asking.why() {
///         messages.push(Message::user(format!("Your last answer could not be used: {why}")));
///     }
///     let reply = asking.call(&ModelRequest::new(messages)).await?;
///     if reply.text.trim().len() == 2 {
///         return Ok(reply.text);
///     }
///     asking.refuse("answer with one note name such as C4");
/// }
/// Err(ModelError::BadReply(asking.why().unwrap_or_default().to_owned()))
/// # }
/// ```
pub struct Asking<'b> {
    backend: &'b dyn ModelBackend,
    attempts: u32,
    made: u32,
    why: Option<String>,
    /// What the calls made so far cost.
    pub tally: Tally,
}

/// What the calls behind one answer cost.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    pub calls: u32,
    pub usage: Usage,
    /// Wall time of the calls, retries included.
    pub latency_ms: u64,
    /// Attempts beyond the first inside the backend (429/5xx/connection errors).
    pub retries: u32,
}

impl Tally {
    /// Adds one reply's cost.
    pub fn add(&mut self, reply: &ModelReply) {
        self.calls += 1;
        self.usage += reply.usage;
        self.latency_ms = self.latency_ms.saturating_add(reply.latency_ms);
        self.retries = self.retries.saturating_add(reply.retries);
    }

    /// The trace's record of the exchange whose last reply is `last`, from `backend`,
    /// for a request with `constraint`: latency and retries summed over every call,
    /// `reasks` the calls beyond the first.
    pub fn exchange(
        &self,
        backend: String,
        constraint: Option<&Constraint>,
        last: &ModelReply,
        honoured: Option<bool>,
    ) -> ModelExchange {
        let mut ex = ModelExchange::of(backend, constraint, last);
        ex.latency_ms = self.latency_ms;
        ex.retries = self.retries;
        ex.constraint_honoured = honoured;
        ex.reasks = self.calls.saturating_sub(1);
        ex
    }
}

impl<'b> Asking<'b> {
    /// The trace's record of the exchange whose last reply is `last`, naming the
    /// backend as it calls itself now (a plugin names itself only once started).
    pub fn exchange(
        &self,
        constraint: Option<&Constraint>,
        last: &ModelReply,
        honoured: Option<bool>,
    ) -> ModelExchange {
        self.tally
            .exchange(self.backend.name(), constraint, last, honoured)
    }

    /// Asking `backend` at most `1 + reasks` times.
    pub fn new(backend: &'b dyn ModelBackend, reasks: u32) -> Self {
        Asking {
            backend,
            attempts: reasks.saturating_add(1),
            made: 0,
            why: None,
            tally: Tally::default(),
        }
    }

    /// Whether another call may be made.
    pub fn more(&self) -> bool {
        self.made < self.attempts
    }

    /// The attempt about to be made, from 0.
    pub fn attempt(&self) -> u32 {
        self.made
    }

    /// Why the last answer was refused, if it was.
    pub fn why(&self) -> Option<&str> {
        self.why.as_deref()
    }

    /// Makes one call with `request` and adds its cost to the tally. A failed call
    /// is returned as it is (the caller decides whether it ends the asking).
    pub async fn call(&mut self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        self.made += 1;
        let reply = self.backend.complete(request).await?;
        self.tally.add(&reply);
        Ok(reply)
    }

    /// The last answer could not be used, for this reason (the next request may say so).
    pub fn refuse(&mut self, why: impl Into<String>) {
        self.why = Some(why.into());
    }
}

/// What the trace keeps of one model exchange (attached to a proposer call).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelExchange {
    /// The backend's [`ModelBackend::name`].
    pub backend: String,
    pub model: Option<String>,
    pub stop_reason: Option<String>,
    pub latency_ms: u64,
    pub retries: u32,
    /// `gbnf` or `json_schema` when the request carried a constraint.
    pub constraint: Option<String>,
    pub constraint_use: ConstraintUse,
    /// Whether the reply conformed to the constraint, as the proposer checked it.
    pub constraint_honoured: Option<bool>,
    /// Replies that could not be read and were asked again within budget.
    pub reasks: u32,
    /// How much choice the request's constraint left the model, where the domain
    /// counts it (absent without a constraint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<Choice>,
}

/// How much choice a constraint left a model in one request: log₂ of the number of
/// distinct answers it admitted (a pitch counted once however it is spelled; for a
/// section, the product over its voices), over the notes asked for. A model that
/// decides nothing is offered 0 bits; `bits / notes` is the figure reports compare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// Notes (row positions, moments …) the request asked for.
    pub notes: u32,
    /// log₂ of the answers the constraint admitted.
    pub bits: f64,
    /// Of the notes asked, those the answer wrote as the domain's plan has them (same
    /// voice, onset and pitch) — the plan sent as advice, or as the constraint under
    /// `freedom = "plan"`. `None` where the domain has no plan (counterpoint), or the
    /// record predates the count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub as_planned: Option<u32>,
}

impl Choice {
    /// The share of the notes asked that the answers wrote otherwise than the plan:
    /// what the proposer decided (`None` without a plan or when no note was asked).
    pub fn decided(self) -> Option<f64> {
        let kept = self.as_planned?.min(self.notes);
        (self.notes > 0).then(|| 1.0 - f64::from(kept) / f64::from(self.notes))
    }
}

/// The choice of two requests together: their notes and their bits add (and what was
/// as planned, while both requests count it).
impl std::ops::Add for Choice {
    type Output = Choice;

    fn add(self, other: Choice) -> Choice {
        Choice {
            notes: self.notes + other.notes,
            bits: self.bits + other.bits,
            as_planned: self.as_planned.zip(other.as_planned).map(|(a, b)| a + b),
        }
    }
}

impl ModelExchange {
    /// The record of `reply` from `backend`, for a request with `constraint`.
    pub fn of(backend: String, constraint: Option<&Constraint>, reply: &ModelReply) -> Self {
        ModelExchange {
            backend,
            model: reply.model.clone(),
            stop_reason: reply.stop_reason.clone(),
            latency_ms: reply.latency_ms,
            retries: reply.retries,
            constraint: constraint.map(|c| c.label().to_string()),
            constraint_use: reply.constraint,
            constraint_honoured: None,
            reasks: 0,
            choice: None,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn what_was_decided_is_counted_while_every_request_counts_it() {
        let asked = |notes, as_planned| super::Choice {
            notes,
            bits: 1.0,
            as_planned,
        };
        // Three of twelve notes as planned: three quarters decided.
        assert_eq!(asked(12, Some(3)).decided(), Some(0.75));
        let both = asked(12, Some(3)) + asked(4, Some(4));
        assert_eq!((both.notes, both.as_planned, both.bits), (16, Some(7), 2.0));
        // A request that does not count it (no plan) leaves the sum uncounted, not 0.
        assert_eq!((asked(12, Some(3)) + asked(4, None)).decided(), None);
        assert_eq!(asked(0, Some(0)).decided(), None);
    }

    #[test]
    fn a_cut_off_reply_sets_its_last_token_aside() {
        let (text, note) = super::set_aside_cut_token("A: C4@1>2 D4@3>2 E4@5\n", true);
        assert_eq!(text, "A: C4@1>2 D4@3>2 ");
        assert_eq!(
            note.as_deref(),
            Some("the answer was cut off at the token limit; `E4@5` was set aside")
        );
        let (whole, none) = super::set_aside_cut_token("A: C4@1>2  \n", false);
        assert_eq!((whole.as_str(), none), ("A: C4@1>2", None));
        // A cut-off reply of one token: it may be cut short too, so nothing is kept.
        let (nothing, note) = super::set_aside_cut_token("C4@1", true);
        assert_eq!(nothing, "");
        assert!(note.is_some_and(|n| n.contains("`C4@1` was set aside")));
    }

    #[test]
    fn a_tally_sums_what_the_server_said_and_keeps_unknown_unknown() {
        use super::{ModelReply, Tally, Usage};
        let reply = |tokens_in, tokens_cached| ModelReply {
            usage: Usage {
                tokens_in,
                tokens_out: Some(2),
                tokens_cached,
            },
            ..ModelReply::text("x")
        };
        let mut tally = Tally::default();
        tally.add(&reply(Some(100), None));
        assert_eq!(
            tally.usage.tokens_cached, None,
            "no server said: unknown, not 0"
        );
        tally.add(&reply(Some(100), Some(96)));
        tally.add(&reply(None, Some(4)));
        assert_eq!(
            tally.usage,
            Usage {
                tokens_in: Some(200),
                tokens_out: Some(6),
                tokens_cached: Some(100),
            }
        );
        // Records of servers that never report cache hits keep their old JSON.
        let json = serde_json::to_value(Usage::default()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"tokens_in": null, "tokens_out": null})
        );
    }

    #[test]
    fn an_http_error_says_in_json_what_the_server_said_only_when_it_said_something() {
        use super::{ModelError, RetryAfter};
        let recorded = r#"{"kind":"http","message":{"status":503,"message":"busy"}}"#;
        let read: ModelError = serde_json::from_str(recorded).unwrap();
        assert_eq!(
            read,
            ModelError::Http {
                status: 503,
                message: "busy".into(),
                retry_after: RetryAfter::Unsaid,
            }
        );
        assert!(read.is_transient());
        assert_eq!(serde_json::to_string(&read).unwrap(), recorded);
        let spent = ModelError::Http {
            status: 429,
            message: "quota".into(),
            retry_after: RetryAfter::Never,
        };
        assert!(!spent.is_transient());
        let json = serde_json::to_string(&spent).unwrap();
        assert_eq!(serde_json::from_str::<ModelError>(&json).unwrap(), spent);
    }

    #[test]
    fn gbnf_literals_escape_quotes_backslashes_and_newlines() {
        assert_eq!(super::gbnf_literal("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
        assert_eq!(super::gbnf_literal("C#4@1>2"), "\"C#4@1>2\"");
    }
}
