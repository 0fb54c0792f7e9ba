//! The model proposer: the same requests as the embedded proposer, answered by any
//! [`ModelBackend`] (a local or hosted LLM, a replayed cassette) through the
//! framework's model types, so the counterpoint domain uses the backends and the
//! `cantus.toml` of the twelve-tone domain unchanged.
//!
//! The model is told the cantus, the mode, the notes accepted so far, the slots to
//! fill and, for a patch, what the rejected note broke; it answers with note names
//! (`A4 C#5`), optionally held to that form by a GBNF grammar. An unreadable answer
//! is asked again (`reasks` times) and then reported as [`ProposerError::BadOutput`];
//! every answer is judged by the verifier like any other proposal.

use super::grammar::{admits, grammar, offer};
use super::request_slots;
use crate::domain::{Counterpoint, CpEvent};
use crate::exercise::{Beat, Exercise, Position};
use cantus_framework::{
    AskOptions, Asking, Constraint, Message, ModelBackend, ModelRequest, Proposal, ProposalRequest,
    Proposer, ProposerError, RequestKind, Sampling, async_trait,
};
use cantus_music::{Pitch, Spelling};
use std::sync::Arc;

/// A proposer backed by a language model.
pub struct ModelProposer {
    backend: Arc<dyn ModelBackend>,
    /// `model:<backend name>`, for traces.
    name: String,
    /// How it asks: re-asks of an unreadable reply, a GBNF grammar for the answer
    /// (`constrained`), sampling.
    options: AskOptions,
}

impl ModelProposer {
    /// A proposer asking `backend` as `options` say.
    pub fn new(backend: Arc<dyn ModelBackend>, options: AskOptions) -> Self {
        ModelProposer {
            name: format!("model:{}", backend.name()),
            backend,
            options,
        }
    }
}

/// Reads a note name (`C#5`, `Bb3`, `e4`) as a MIDI number and its spelling, as the
/// onset-slot grammar reads pitches ([`Pitch::parse`]).
pub fn parse_note(token: &str) -> Option<(u8, Spelling)> {
    let pitch = Pitch::parse(token).ok()?;
    Some((pitch.midi, pitch.spelling?))
}

/// The pitch a patch or rewrite request refused, if it is one.
fn refused(req: &ProposalRequest<'_, Counterpoint>) -> Option<u8> {
    match &req.kind {
        RequestKind::Patch { candidate, .. } | RequestKind::Rewrite { candidate, .. } => {
            Some(candidate.midi)
        }
        _ => None,
    }
}

/// `the upper voice, between C4 and E5`: the counterpoint's side and range, for the prompt.
fn register_line(ex: &Exercise) -> String {
    let (lo, hi) = super::range(ex);
    let side = match ex.position {
        Position::Above => "above the cantus: every note at or over the cantus note of its bar",
        Position::Below => "below the cantus: every note at or under the cantus note of its bar",
    };
    format!(
        "The counterpoint stays {side}, between {} and {}.",
        ex.modality.note(lo),
        ex.modality.note(hi)
    )
}

fn slot_name(bar: usize, beat: Beat) -> String {
    match beat {
        Beat::Down => format!("bar {} downbeat", bar + 1),
        Beat::Up => format!("bar {} upbeat", bar + 1),
    }
}

/// The prompt for `slots` of request `req`.
fn prompt(req: &ProposalRequest<'_, Counterpoint>, slots: &[(usize, Beat)]) -> Vec<Message> {
    let a = req.spec;
    let species = match a.species {
        crate::exercise::Species::First => {
            "first species (one whole note against each cantus note)"
        }
        crate::exercise::Species::Second => {
            "second species (two half notes against each cantus note; one whole note in the last bar)"
        }
    };
    let cantus: Vec<String> = a
        .cantus
        .notes
        .iter()
        .enumerate()
        .map(|(i, n)| format!("{}:{n}", i + 1))
        .collect();
    let mut user = format!(
        "Write Fux {species}, counterpoint {} a {} cantus firmus.\nCantus (bar:note): {}\n{}\n{}\n",
        a.position,
        a.cantus.mode().map_or("modal", |m| m.as_str()),
        cantus.join(" "),
        register_line(&req.state.exercise),
        so_far(&req.state.exercise)
    );
    if let RequestKind::Patch {
        candidate,
        violations,
    }
    | RequestKind::Rewrite {
        candidate,
        violations,
        ..
    } = &req.kind
    {
        user.push_str(&format!(
            "The note {} at {} was rejected: {}\n",
            crate::pitch::Note {
                midi: candidate.midi,
                spelling: candidate.spelling
            },
            slot_name(candidate.bar, candidate.beat),
            violations
                .iter()
                .map(|v| format!("[{}] {}", v.predicate, v.reason))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    for f in req.feedback {
        user.push_str(&format!("Last time: {f}\n"));
    }
    let names: Vec<String> = slots.iter().map(|&(b, beat)| slot_name(b, beat)).collect();
    user.push_str(&format!(
        "Give the counterpoint notes for: {}. Answer with exactly {} note names (like A4 C#5), separated by spaces, nothing else.",
        names.join(", "),
        slots.len()
    ));
    let voice = match a.position {
        Position::Above => "the upper voice",
        Position::Below => "the lower voice",
    };
    vec![
        Message::system(format!(
            "You are a strict teacher of Fux's species counterpoint writing {voice}. Consonances only on downbeats, \
             perfect consonances reached by contrary or oblique motion, no parallel fifths or octaves, stepwise cadence."
        )),
        Message::user(user),
    ]
}

/// The notes of a reply, if it names exactly `n`; a reply cut off at the token
/// limit (`truncated`) keeps the notes before its last, possibly cut, token (at least
/// one): the engine's continue request asks for the rest.
fn read_reply(text: &str, n: usize, truncated: bool) -> Option<Vec<(u8, Spelling)>> {
    let (text, _) = cantus_framework::model::set_aside_cut_token(text, truncated);
    let notes: Vec<(u8, Spelling)> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .map(parse_note)
        .collect::<Option<_>>()?;
    let fits = if truncated {
        (1..=n).contains(&notes.len())
    } else {
        notes.len() == n
    };
    fits.then_some(notes)
}

/// Reply tokens per note name (`C#5 `) for SmolLM2's tokenizer, with room to spare.
const TOKENS_PER_NOTE: u32 = 4;
/// Reply tokens on top of the notes' (end of turn, stray spaces).
const TOKEN_MARGIN: u32 = 8;
/// The most reply tokens asked for when the options set no ceiling.
const DEFAULT_MAX_TOKENS: u32 = 256;

/// The exercise so far, in one line of the prompt.
fn so_far(ex: &crate::exercise::Exercise) -> String {
    let line: Vec<String> = ex
        .moments
        .iter()
        .map(|m| m.counterpoint.to_string())
        .collect();
    let cantus: Vec<String> = ex.cantus.iter().map(ToString::to_string).collect();
    format!(
        "species {} counterpoint {} a {} cantus [{}]; so far: [{}]",
        ex.species.number(),
        ex.position,
        ex.modality.mode().map_or("modal", |m| m.as_str()),
        cantus.join(" "),
        line.join(" ")
    )
}

#[async_trait]
impl Proposer<Counterpoint> for ModelProposer {
    fn name(&self) -> &str {
        &self.name
    }

    async fn propose(
        &self,
        req: ProposalRequest<'_, Counterpoint>,
    ) -> Result<Proposal<CpEvent>, ProposerError> {
        let slots = request_slots(&req)?;
        if slots.is_empty() {
            return Ok(Proposal::new(Vec::new()));
        }
        let offered = self
            .options
            .constrained
            .then(|| offer(&req.state.exercise, &slots, refused(&req)));
        let constraint = offered.as_ref().map(|o| Constraint::Gbnf(grammar(o)));
        let mut request = ModelRequest::new(prompt(&req, &slots));
        request.constraint = constraint.clone();
        request.sampling = Sampling {
            temperature: self.options.temperature,
            seed: Some(self.options.seed.unwrap_or(req.seed) ^ u64::from(req.attempt)),
            // Sized to the notes asked for, within the options' ceiling.
            max_tokens: Some(
                (u32::try_from(slots.len()).unwrap_or(u32::MAX))
                    .saturating_mul(TOKENS_PER_NOTE)
                    .saturating_add(TOKEN_MARGIN)
                    .min(self.options.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)),
            ),
        };
        request.context = serde_json::json!({
            "domain": "counterpoint",
            "request": req.kind.label(),
            "slots": slots.iter().map(|&(b, beat)| slot_name(b, beat)).collect::<Vec<_>>(),
        });
        let mut asking = Asking::new(self.backend.as_ref(), self.options.reasks);
        let mut last = String::new();
        while asking.more() {
            let reply = asking
                .call(&request)
                .await
                .map_err(|e| ProposerError::from_model(&self.backend.name(), e))?;
            if let Some(notes) = read_reply(&reply.text, slots.len(), reply.truncated()) {
                let honoured = offered
                    .as_ref()
                    .map(|o| admits(o, reply.text.trim_end(), reply.truncated()));
                let mut exchange = asking.exchange(constraint.as_ref(), &reply, honoured);
                exchange.choice = offered.as_ref().map(|o| o.choice());
                let events = slots
                    .iter()
                    .zip(notes)
                    .map(|(&(bar, beat), (midi, spelling))| CpEvent {
                        bar,
                        beat,
                        midi,
                        spelling,
                    })
                    .collect();
                return Ok(Proposal {
                    events,
                    cost: asking.tally.usage,
                    exchange: Some(exchange),
                });
            }
            last = reply.text.chars().take(200).collect();
            let why = format!(
                "That answer could not be read. Answer with exactly {} note names like A4 C#5, separated by spaces.",
                slots.len()
            );
            request.messages.push(Message::assistant(reply.text));
            request.messages.push(Message::user(why.clone()));
            asking.refuse(why);
        }
        Err(ProposerError::BadOutput(format!(
            "after {} re-asks the reply still did not name {} notes: {last:?}",
            self.options.reasks,
            slots.len()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cantus_music::Letter;

    #[test]
    fn note_names() {
        let (m, s) = parse_note("C#5").expect("note");
        assert_eq!((m, s.letter, s.alter), (73, Letter::C, 1));
        assert_eq!(parse_note("Bb3").map(|n| n.0), Some(58));
        assert_eq!(parse_note("e4").map(|n| n.0), Some(64));
        assert_eq!(parse_note("H4"), None);
        assert_eq!(parse_note("C99"), None);
        assert_eq!(read_reply("A4, C#5", 2, false).map(|v| v.len()), Some(2));
        assert_eq!(read_reply("A4 C#5 D5", 2, false), None);
        assert_eq!(
            read_reply("A4", 2, false),
            None,
            "a short, whole reply is asked again"
        );
        // Cut off at the token limit: the notes before the cut token are kept.
        assert_eq!(read_reply("A4 C#5 D", 3, true).map(|v| v.len()), Some(2));
        assert_eq!(
            read_reply("A", 3, true),
            None,
            "nothing readable before the cut"
        );
    }

    #[test]
    fn the_register_line_names_the_side() {
        let a = crate::domain::Assignment::new(
            crate::Cantus::fux(crate::pitch::ModeName::Dorian),
            crate::Species::First,
            Position::Below,
        );
        assert!(register_line(&a.empty_exercise()).contains("below the cantus"));
    }
}
