//! The model-backed gap filler: the same gap, judge and selection as the
//! embedded proposer, with candidates asked of a [`ModelBackend`].
//!
//! Each candidate is one call. The prompt shows the bars around the gap in the
//! onset-slot grammar (the `prompt` module); from the second call on it also says
//! what was wrong with the previous candidate — the failing gates' feedback
//! (what the axis measures, where the piece sits, which way to move), or why
//! its reply could not be read. With `constrained` the request carries a GBNF
//! grammar for the gap's bars. An unreadable reply or a failed call is a failed
//! candidate with its reason kept; a configuration error stops the fill. The
//! calls stop at the first candidate that passes every gate, or after
//! `candidates` calls; calls, tokens and stop reasons are returned with the kept
//! candidate, or with the explicit failure when none could be judged.

use super::judge::{Gap, Selection};
use super::prompt::{self, Shown};
use super::{FillError, FillRequest, Filled, ModelUsage, constraint, reply};
use crate::calibration::Calibration;
use cantus_framework::{
    AskOptions, Asking, Constraint, ModelBackend, ModelError, ModelRequest, Sampling,
};
use cantus_music::Score;
use serde_json::json;

/// How to ask the model: the framework's [`AskOptions`], as every model-backed
/// proposer is asked, and what is the gap filler's own.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelFillOptions {
    /// Of these the filler reads `constrained` (a GBNF grammar admitting only the
    /// gap's bars of well-formed notes), `temperature` and `max_tokens` (`None`: the
    /// backend's configured values); the request's candidates are its re-asks, and
    /// its seed the sampling seed.
    pub ask: AskOptions,
    /// Bars of context shown on each side of the gap.
    pub context_bars: u32,
    /// What the first request shows as the previous attempt's problems (a
    /// workflow's judge on its last round: `extend`); later requests show the
    /// previous candidate's.
    pub feedback: Vec<String>,
}

impl Default for ModelFillOptions {
    fn default() -> Self {
        ModelFillOptions {
            ask: AskOptions::default(),
            context_bars: 4,
            feedback: Vec::new(),
        }
    }
}

/// Fills bars `first_bar..=last_bar` of `score` with at most `req.candidates`
/// model calls (see the module docs). `req.seed` seeds the sampling (plus the
/// candidate's index).
pub async fn fill_with_model(
    score: &Score,
    req: &FillRequest,
    table: &Calibration,
    backend: &dyn ModelBackend,
    options: &ModelFillOptions,
) -> Result<Filled, FillError> {
    let gap = Gap::new(score, req, table)?;
    let shown = Shown::new(&gap, options.context_bars)?;
    let constraint = options
        .ask
        .constrained
        .then(|| Constraint::Gbnf(constraint::gbnf(&gap, &shown)));
    let name = backend.name();
    let proposer = format!("model:{name}");
    let mut usage = ModelUsage {
        backend: name,
        ..ModelUsage::default()
    };
    let mut selection = Selection::default();
    let mut feedback: Vec<String> = options.feedback.clone();
    // At least 1 and at most MAX_CANDIDATES: checked by Gap::new.
    let candidates = u32::try_from(req.candidates).unwrap_or(u32::MAX);
    let mut asking = Asking::new(backend, candidates - 1);
    while asking.more() {
        let k = asking.attempt();
        let request = ModelRequest {
            messages: prompt::messages(&gap, &shown, &feedback),
            constraint: constraint.clone(),
            sampling: Sampling {
                temperature: options.ask.temperature,
                seed: Some(req.seed.wrapping_add(u64::from(k))),
                max_tokens: options.ask.max_tokens,
            },
            context: json!({
                "domain": "libretto",
                "task": "fill",
                "first_bar": gap.first_bar,
                "last_bar": gap.last_bar,
                "voices": shown.voices,
                "slots_per_bar": shown.slots_per_bar,
                "candidate": k + 1,
            }),
        };
        usage.calls += 1;
        let answer = match asking.call(&request).await {
            Ok(answer) => answer,
            Err(ModelError::Config(why)) => return Err(FillError::Backend(why)),
            Err(e) => {
                selection.fail(format!("the call failed: {e}"));
                continue;
            }
        };
        usage.tokens = asking.tally.usage;
        usage.latency_ms = asking.tally.latency_ms;
        usage
            .stop_reasons
            .push(answer.stop_reason.clone().unwrap_or_else(|| "?".into()));
        let read = match reply::read(&gap, &shown.header, &answer.text, answer.truncated()) {
            Ok(read) => read,
            Err(why) => {
                feedback = vec![format!("your answer could not be used: {why}")];
                selection.fail(format!("unreadable reply: {why}"));
                continue;
            }
        };
        let problems = read.problems.clone();
        let filled = read.into_score(&gap);
        match gap.judge(&filled) {
            Ok(judged) => {
                feedback = judged.feedback();
                feedback.extend(problems);
                selection.offer(&gap, filled, judged, &proposer);
                if selection.passed() {
                    break;
                }
            }
            Err(why) => {
                feedback = vec![why.to_string()];
                selection.fail(why);
            }
        }
    }
    match selection.finish() {
        Ok(mut kept) => {
            kept.usage = Some(usage);
            Ok(kept)
        }
        Err((failures, _)) => Err(FillError::NoCandidate {
            failures,
            usage: Box::new(usage),
        }),
    }
}
