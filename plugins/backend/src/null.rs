//! The null model: chance under the same constraint.
//!
//! A backend of kind `null` answers every request with a string drawn uniformly from
//! the GBNF grammar the request carries ([`crate::uniform::Language`]), seeded from the
//! config's `seed` and the request's own seed, with no server and no network. Put in
//! place of a model (a copy of its `cantus.toml` with `kind = "null"`), it shows what a
//! proposer that decides nothing musical does under identical rules and budget — the
//! control every model figure is reported beside. A request without a grammar (an
//! unconstrained or JSON-schema request) has no language to draw from and is refused
//! with a configuration error, so a raw condition records the null model as failed
//! rather than inventing an answer. It is the one `bare` kind: answering in-process at
//! once, it is built without the deadline, retry and concurrency wrappers, so a
//! `--jobs N` run draws on each piece's thread as before.

use crate::config::{BackendConfig, Config};
use crate::registry::BackendFactory;
use crate::uniform::Language;
use cantus_framework::{
    Constraint, ConstraintUse, ModelBackend, ModelError, ModelReply, ModelRequest, Usage,
    async_trait, mix_seed,
};
use std::sync::Arc;
use std::time::Instant;

inventory::submit! {
    BackendFactory::new(
        "null",
        env!("CARGO_PKG_VERSION"),
        "the null model: a uniformly random string of each request's GBNF constraint (no server; the control a model is reported beside)",
        build,
    )
    .bare()
}

fn build(_config: &Config, backend: &BackendConfig) -> Result<Arc<dyn ModelBackend>, ModelError> {
    Ok(Arc::new(NullBackend::new(backend.seed.unwrap_or(0))))
}

/// Answers with uniform draws from each request's grammar.
#[derive(Clone, Debug)]
pub struct NullBackend {
    seed: u64,
}

impl NullBackend {
    /// A null model whose draws are fixed by `seed` and each request's seed.
    pub fn new(seed: u64) -> Self {
        NullBackend { seed }
    }
}

#[async_trait]
impl ModelBackend for NullBackend {
    fn name(&self) -> String {
        "null:uniform".to_owned()
    }

    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        let started = Instant::now();
        let grammar = match &request.constraint {
            Some(Constraint::Gbnf(g)) => g,
            Some(Constraint::JsonSchema(_)) => {
                return Err(ModelError::Config(
                    "the null model draws from a GBNF grammar; this request carries a JSON schema (set json_schema = false)".into(),
                ));
            }
            None => {
                return Err(ModelError::Config(
                    "the null model draws from the request's grammar, and this request has none (run it constrained)".into(),
                ));
            }
        };
        let language = Language::new(grammar)
            .map_err(|e| ModelError::BadReply(format!("the request's grammar: {e}")))?;
        let seed = mix_seed(self.seed, &[request.sampling.seed.unwrap_or(0)]);
        let text = language.sample(&mut fastrand::Rng::with_seed(seed));
        Ok(ModelReply {
            text,
            usage: Usage::default(),
            stop_reason: Some("stop".into()),
            model: Some("uniform".into()),
            constraint: ConstraintUse::Sent,
            retries: 0,
            latency_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cantus_framework::{Message, Sampling};

    fn request(constraint: Option<Constraint>, seed: u64) -> ModelRequest {
        ModelRequest {
            messages: vec![Message::user("anything")],
            constraint,
            sampling: Sampling {
                seed: Some(seed),
                ..Sampling::default()
            },
            context: serde_json::Value::Null,
        }
    }

    #[tokio::test]
    async fn it_answers_inside_the_grammar_and_the_same_seed_gives_the_same_answer() {
        let g = Constraint::Gbnf("root ::= \"V: \" [A-G] [3-5] \"@\" [1-8]\n".into());
        let null = NullBackend::new(5);
        let a = null.complete(&request(Some(g.clone()), 1)).await.unwrap();
        let b = null.complete(&request(Some(g.clone()), 1)).await.unwrap();
        assert_eq!(a.text, b.text);
        let mut distinct = std::collections::BTreeSet::new();
        for seed in 0..64 {
            let r = null
                .complete(&request(Some(g.clone()), seed))
                .await
                .unwrap();
            let t = r.text.strip_prefix("V: ").unwrap();
            let c: Vec<char> = t.chars().collect();
            assert!(('A'..='G').contains(&c[0]) && ('3'..='5').contains(&c[1]) && c[2] == '@');
            distinct.insert(r.text);
        }
        assert!(distinct.len() > 40, "{} distinct of 64", distinct.len());
    }

    #[tokio::test]
    async fn a_request_without_a_grammar_is_refused_plainly() {
        let e = NullBackend::new(0)
            .complete(&request(None, 0))
            .await
            .unwrap_err();
        assert!(e.to_string().contains("has none"), "{e}");
        let e = NullBackend::new(0)
            .complete(&request(
                Some(Constraint::JsonSchema(serde_json::json!({}))),
                0,
            ))
            .await
            .unwrap_err();
        assert!(e.to_string().contains("JSON schema"), "{e}");
    }
}
