//! Constraint dialects: which request field an OpenAI-compatible server reads a
//! decoding constraint from (`cantus.toml`: `[backend] constraint = "…"`).
//!
//! Every engine copies OpenAI's chat completions API but none agrees on constrained
//! decoding, and a server silently skips a field it does not know, so the dialect must
//! be named, not guessed. What each server documents (checked against its docs):
//!
//! | `constraint`  | grammar (GBNF from the domain)          | JSON schema                      |
//! |---------------|-----------------------------------------|----------------------------------|
//! | `llama.cpp`   | `grammar` (GBNF as generated; default)  | `response_format` (json_schema)  |
//! | `vllm`        | `structured_outputs.grammar` (≥ 0.10.2) | `structured_outputs.json`        |
//! | `vllm-guided` | `guided_grammar` (≤ 0.11; removed 0.12) | `guided_json`                    |
//! | `sglang`      | `ebnf`                                  | `response_format` (json_schema)  |
//! | `json-schema` | — not sent: recorded `unsupported`      | `response_format` (json_schema)  |
//! | `none`        | — not sent: recorded `unsupported`      | — not sent: `unsupported`        |
//!
//! vLLM (xgrammar or guidance backend) and SGLang (xgrammar or llguidance) read
//! grammars in xgrammar's EBNF, which is GBNF with a few constructs spelt differently;
//! [`crate::grammar::to_xgrammar`] rewrites them (for the grammars the domains generate
//! it changes nothing but layout). vLLM's outlines backend takes no grammar at all and
//! answers 400. A grammar the target cannot express is not sent: the call goes
//! unconstrained and is recorded as [`ConstraintUse::Unsupported`]. A field that was
//! sent is recorded as [`ConstraintUse::Sent`] — the server may still ignore it (vLLM
//! ≥ 0.12 ignores `guided_*` with a 200), so the proposer checks the reply against the
//! language and records `constraint_honoured`; the verifier stays the judge.
//!
//! The `json-schema` dialect is for servers that take only `response_format`: the
//! program then asks proposers for a JSON schema where the domain has one (twelve-tone
//! does, `schema.rs`); a domain without one (counterpoint) asks with its grammar, which
//! is not sent and is recorded `unsupported`. No schema is derived from a grammar: the
//! reply would have to be a JSON string, which the domains' readers do not read.

use crate::grammar;
use cantus_framework::{Constraint, ConstraintUse};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// Where an OpenAI-compatible server takes a decoding constraint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConstraintDialect {
    /// llama.cpp's `llama-server`: `grammar` (GBNF) or `response_format`.
    #[default]
    #[serde(rename = "llama.cpp")]
    LlamaCpp,
    /// vLLM ≥ 0.10.2: `structured_outputs: {grammar | json}`.
    #[serde(rename = "vllm")]
    Vllm,
    /// vLLM before 0.12: `guided_grammar` / `guided_json`.
    #[serde(rename = "vllm-guided")]
    VllmGuided,
    /// SGLang: `ebnf` or `response_format`.
    #[serde(rename = "sglang")]
    Sglang,
    /// Only `response_format: {type: json_schema}` (OpenAI and servers copying it).
    #[serde(rename = "json-schema")]
    JsonSchema,
    /// Never send a constraint.
    #[serde(rename = "none")]
    None,
}

impl ConstraintDialect {
    /// Every dialect, in the order the documentation lists them.
    pub const ALL: [ConstraintDialect; 6] = [
        ConstraintDialect::LlamaCpp,
        ConstraintDialect::Vllm,
        ConstraintDialect::VllmGuided,
        ConstraintDialect::Sglang,
        ConstraintDialect::JsonSchema,
        ConstraintDialect::None,
    ];

    /// The name written in `cantus.toml`.
    pub fn name(self) -> &'static str {
        match self {
            ConstraintDialect::LlamaCpp => "llama.cpp",
            ConstraintDialect::Vllm => "vllm",
            ConstraintDialect::VllmGuided => "vllm-guided",
            ConstraintDialect::Sglang => "sglang",
            ConstraintDialect::JsonSchema => "json-schema",
            ConstraintDialect::None => "none",
        }
    }

    /// Adds `constraint` to a chat completions `body` in this dialect's field and says
    /// what became of it. At most one field is ever added.
    pub fn place(
        self,
        constraint: Option<&Constraint>,
        body: &mut Map<String, Value>,
    ) -> ConstraintUse {
        use ConstraintDialect as D;
        let Some(constraint) = constraint else {
            return ConstraintUse::NotRequested;
        };
        let (key, value) = match (self, constraint) {
            (D::None, _) | (D::JsonSchema, Constraint::Gbnf(_)) => {
                return ConstraintUse::Unsupported;
            }
            (D::LlamaCpp, Constraint::Gbnf(g)) => ("grammar", json!(g)),
            (D::Vllm | D::VllmGuided | D::Sglang, Constraint::Gbnf(g)) => {
                let Ok(ebnf) = grammar::to_xgrammar(g) else {
                    return ConstraintUse::Unsupported;
                };
                match self {
                    D::Vllm => ("structured_outputs", json!({ "grammar": ebnf })),
                    D::VllmGuided => ("guided_grammar", json!(ebnf)),
                    _ => ("ebnf", json!(ebnf)),
                }
            }
            (D::Vllm, Constraint::JsonSchema(s)) => ("structured_outputs", json!({ "json": s })),
            (D::VllmGuided, Constraint::JsonSchema(s)) => ("guided_json", s.clone()),
            (D::LlamaCpp | D::Sglang | D::JsonSchema, Constraint::JsonSchema(s)) => (
                "response_format",
                json!({
                    "type": "json_schema",
                    "json_schema": {"name": schema_name(s), "schema": s, "strict": true}
                }),
            ),
        };
        body.insert(key.into(), value);
        ConstraintUse::Sent
    }

    /// Whether a proposer should ask for a JSON schema rather than a grammar: the
    /// dialect takes nothing else.
    pub fn wants_json_schema(self) -> bool {
        self == ConstraintDialect::JsonSchema
    }
}

impl std::fmt::Display for ConstraintDialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The schema's `title` reduced to the characters OpenAI allows in a name, or `reply`.
fn schema_name(schema: &Value) -> String {
    let title = schema.get("title").and_then(Value::as_str).unwrap_or("");
    let name: String = title
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .take(64)
        .collect();
    if name.is_empty() {
        "reply".into()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placed(d: ConstraintDialect, c: Option<&Constraint>) -> (Value, ConstraintUse) {
        let mut body = Map::new();
        let used = d.place(c, &mut body);
        (Value::Object(body), used)
    }

    #[test]
    fn names_round_trip_through_serde() {
        for d in ConstraintDialect::ALL {
            let text = serde_json::to_string(&d).unwrap();
            assert_eq!(text, format!("\"{}\"", d.name()));
            assert_eq!(serde_json::from_str::<ConstraintDialect>(&text).unwrap(), d);
        }
        assert_eq!(ConstraintDialect::default(), ConstraintDialect::LlamaCpp);
    }

    #[test]
    fn each_dialect_puts_a_grammar_in_its_own_field_or_nowhere() {
        let g = Constraint::Gbnf("root ::= \"yes\" | \"no\"\n".into());
        let ebnf = "root ::= \"yes\" | \"no\"\n";
        let cases = [
            (
                ConstraintDialect::LlamaCpp,
                json!({"grammar": "root ::= \"yes\" | \"no\"\n"}),
            ),
            (
                ConstraintDialect::Vllm,
                json!({"structured_outputs": {"grammar": ebnf}}),
            ),
            (
                ConstraintDialect::VllmGuided,
                json!({"guided_grammar": ebnf}),
            ),
            (ConstraintDialect::Sglang, json!({"ebnf": ebnf})),
        ];
        for (d, want) in cases {
            assert_eq!(placed(d, Some(&g)), (want, ConstraintUse::Sent), "{d}");
        }
        for d in [ConstraintDialect::JsonSchema, ConstraintDialect::None] {
            assert_eq!(
                placed(d, Some(&g)),
                (json!({}), ConstraintUse::Unsupported),
                "{d}"
            );
        }
        for d in ConstraintDialect::ALL {
            assert_eq!(
                placed(d, None),
                (json!({}), ConstraintUse::NotRequested),
                "{d}"
            );
        }
    }

    #[test]
    fn a_grammar_the_target_cannot_read_is_not_sent() {
        // A llama.cpp token reference has no xgrammar spelling here.
        let g = Constraint::Gbnf("root ::= <[128010]> \"x\"\n".into());
        assert_eq!(
            placed(ConstraintDialect::Sglang, Some(&g)),
            (json!({}), ConstraintUse::Unsupported)
        );
        // llama.cpp gets the grammar as the domain wrote it.
        assert_eq!(
            placed(ConstraintDialect::LlamaCpp, Some(&g)).1,
            ConstraintUse::Sent
        );
    }

    #[test]
    fn schemas_go_where_each_server_reads_them() {
        let schema = json!({"title": "Row form!", "type": "object"});
        let c = Constraint::JsonSchema(schema.clone());
        let response_format = json!({"response_format": {"type": "json_schema",
            "json_schema": {"name": "Rowform", "schema": schema, "strict": true}}});
        let cases = [
            (ConstraintDialect::LlamaCpp, response_format.clone()),
            (
                ConstraintDialect::Vllm,
                json!({"structured_outputs": {"json": schema}}),
            ),
            (
                ConstraintDialect::VllmGuided,
                json!({"guided_json": schema}),
            ),
            (ConstraintDialect::Sglang, response_format.clone()),
            (ConstraintDialect::JsonSchema, response_format),
        ];
        for (d, want) in cases {
            assert_eq!(placed(d, Some(&c)), (want, ConstraintUse::Sent), "{d}");
        }
        assert_eq!(
            placed(ConstraintDialect::None, Some(&c)),
            (json!({}), ConstraintUse::Unsupported)
        );
    }
}
