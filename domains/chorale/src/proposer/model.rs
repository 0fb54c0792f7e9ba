//! The model proposer: each beat asked of any [`ModelBackend`] (a local or hosted
//! LLM, a replayed cassette) through the framework's model types, so the chorale
//! domain uses the backends and `cantus.toml` of the other domains unchanged.
//!
//! The model is told the key, the phrase's melody, the beats written so far (with
//! their chords), the beat to write and, for a patch, what the rejected voicing
//! broke; it answers with three note names — alto, tenor, bass (`G4 E4 C3`) —
//! optionally held by a GBNF grammar to the voicings the rules admit and from
//! which the phrase can still be finished (the `grammar` module). An unreadable
//! answer is asked again (`reasks` times), then reported as
//! [`ProposerError::BadOutput`]; every answer is judged by the verifier like any
//! other proposal.

use super::grammar::{Offer, admits, grammar, offer};
use super::search::Task;
use super::{asked, horizon};
use crate::analysis::Analysis;
use crate::domain::{ChoraleDomain, Voicing};
use crate::pitch::{Part, Tone};
use crate::rules::Profile;
use cantus_framework::{
    AskOptions, Asking, Constraint, Message, ModelBackend, ModelRequest, Proposal, ProposalRequest,
    Proposer, ProposerError, RequestKind, Sampling, async_trait,
};
use cantus_music::Pitch;
use std::sync::Arc;

/// A proposer backed by a language model.
pub struct ModelProposer {
    backend: Arc<dyn ModelBackend>,
    /// `model:<backend name>`, for traces.
    name: String,
    options: AskOptions,
    /// The profile whose hard rules the grammar keeps.
    profile: Profile,
}

impl ModelProposer {
    /// A proposer asking `backend` as `options` say; its grammar keeps `profile`'s
    /// hard rules.
    pub fn new(backend: Arc<dyn ModelBackend>, options: AskOptions, profile: Profile) -> Self {
        ModelProposer {
            name: format!("model:{}", backend.name()),
            backend,
            options,
            profile,
        }
    }
}

/// Reads a note name (`C#5`, `Bb3`) as a spelled tone.
fn parse_tone(token: &str) -> Option<Tone> {
    let p = Pitch::parse(token).ok()?;
    Some(Tone {
        midi: p.midi,
        spelling: p.spelling?,
    })
}

/// The voicing of a reply for `beat`, if it names three notes (a reply cut off at
/// the token limit cannot: a beat needs all three).
fn read_reply(text: &str, beat: usize) -> Option<Voicing> {
    let tones: Vec<Tone> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .map(parse_tone)
        .collect::<Option<_>>()?;
    match tones[..] {
        [alto, tenor, bass] => Some(Voicing {
            beat,
            alto,
            tenor,
            bass,
        }),
        _ => None,
    }
}

/// `bar 4 beat 2`.
fn place(a: &Analysis, b: usize) -> String {
    let (bar, beat) = a.chorale.bar_beat(a.chorale.beat_start(a.number_of(b)));
    format!("bar {bar} beat {}", cantus_music::time_text::format(beat))
}

/// The soprano sounding at the start of beat `b`.
fn soprano(a: &Analysis, b: usize) -> String {
    let c = &a.chorale;
    c.note_at(Part::Soprano, c.beat_start(a.number_of(b)))
        .map_or("rest".into(), |n| c.parts[0][n].tone.to_string())
}

/// `E5 | G4 C4 C3 | I`: beat `i` as written, soprano | alto tenor bass | numeral.
fn written(a: &Analysis, i: usize) -> String {
    let s = &a.slices[a.beats[i].slices.start];
    let name = |p: Part| s.tone(p).map_or("-".into(), |t| t.to_string());
    format!(
        "{}: {} | {} {} {} | {}",
        i + 1,
        name(Part::Soprano),
        name(Part::Alto),
        name(Part::Tenor),
        name(Part::Bass),
        a.beats[i]
            .chord
            .map_or("-".into(), |c| c.roman(a.chorale.key))
    )
}

/// The prompt for beat `b` of request `req`. Everything that stays the same for
/// the whole chorale comes first, then the beats written so far (which only grow),
/// then what this request asks: a server's prompt cache reuses all but the tail.
fn prompt(req: &ProposalRequest<'_, ChoraleDomain>, b: usize) -> Vec<Message> {
    let a = &req.state.analysis;
    let key = a.chorale.key;
    let melody: Vec<String> = (0..a.total())
        .map(|i| format!("{}:{}", i + 1, soprano(a, i)))
        .collect();
    let cadences = req.spec.cadence_beats();
    let ends: Vec<String> = cadences.iter().map(|c| (c + 1).to_string()).collect();
    let mut user = format!(
        "Key: {key}. Meter: {}.\nSoprano (beat:note): {}\nPhrases end (cadence) at beats {}; the last cadence is V-I in the key.\nWritten so far (beat: soprano | alto tenor bass | chord):\n",
        a.chorale.meter,
        melody.join(" "),
        ends.join(", ")
    );
    for i in 0..a.beats.len() {
        user.push_str(&written(a, i));
        user.push('\n');
    }
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
            "The voicing {} was rejected: {}\n",
            candidate.names(),
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
    let cadence = cadences
        .iter()
        .find(|&&c| c >= b)
        .map(|&c| {
            if c == b {
                " It ends a phrase: make a cadence.".to_owned()
            } else {
                format!(" The phrase ends at beat {}.", c + 1)
            }
        })
        .unwrap_or_default();
    user.push_str(&format!(
        "Write beat {} ({}) under the soprano {}.{cadence} Answer with three note names, alto tenor bass (like G4 E4 C3), nothing else.",
        b + 1,
        place(a, b),
        soprano(a, b)
    ));
    vec![
        Message::system(
            "You write the alto, tenor and bass of a four-part chorale in the style of Bach, under a given soprano, one beat at a time. \
             Each beat is a triad or seventh chord holding the soprano note (or the soprano passes by step). \
             Ranges: alto G3-D5, tenor C3-A4, bass D2-D4; soprano and alto, alto and tenor within an octave; no part crosses another. \
             No parallel fifths or octaves between any two parts; no hidden fifths or octaves between soprano and bass with a leap in the soprano. \
             The leading tone rises to the tonic, a chordal seventh falls by step, the leading tone is never doubled. \
             Double the root of root-position triads; move the inner parts as little as possible; phrases end with a cadence.",
        ),
        Message::user(user),
    ]
}

/// Where no voicing the rules admit at beat `b` can go on from what is written.
pub(crate) fn no_way_on(a: &Analysis, b: usize) -> ProposerError {
    ProposerError::NoWayOn(format!(
        "at {} (beat {}) no voicing the rules admit leads on from the beats written",
        place(a, b),
        b + 1
    ))
}

/// Reply tokens allowed: three note names and a margin.
const MAX_TOKENS: u32 = 16;

#[async_trait]
impl Proposer<ChoraleDomain> for ModelProposer {
    fn name(&self) -> &str {
        &self.name
    }

    async fn propose(
        &self,
        req: ProposalRequest<'_, ChoraleDomain>,
    ) -> Result<Proposal<Voicing>, ProposerError> {
        if matches!(req.kind, RequestKind::Whole) {
            return Err(ProposerError::BadOutput(
                "the chorale model proposer writes one beat at a time".into(),
            ));
        }
        let Some((beat, refused)) = asked(&req)? else {
            return Ok(Proposal::new(Vec::new()));
        };
        let cadences = Arc::new(req.spec.cadence_beats());
        let end = horizon(&cadences, beat);
        let offered: Option<Offer> = if self.options.constrained {
            let task = Task {
                base: &req.state.analysis,
                end,
                cadences: Arc::clone(&cadences),
                profile: self.profile,
            };
            let dead = req.state.dead_at(beat);
            match offer(&task, refused, &dead, self.profile, &req.state.proofs) {
                Some(o) => Some(o).filter(|o| !o.is_empty()),
                None => return Err(no_way_on(&req.state.analysis, beat)),
            }
        } else {
            None
        };
        let constraint = offered.as_ref().map(|o| Constraint::Gbnf(grammar(o)));
        let mut request = ModelRequest::new(prompt(&req, beat));
        request.constraint = constraint.clone();
        request.sampling = Sampling {
            temperature: self.options.temperature,
            seed: Some(self.options.seed.unwrap_or(req.seed) ^ u64::from(req.attempt)),
            max_tokens: Some(MAX_TOKENS.min(self.options.max_tokens.unwrap_or(MAX_TOKENS))),
        };
        request.context = serde_json::json!({
            "domain": crate::domain::DOMAIN,
            "request": req.kind.label(),
            "beat": beat + 1,
            "offered": offered.as_ref().map(Offer::len),
            "undecided": offered.as_ref().map(|o| o.undecided),
        });
        let mut asking = Asking::new(self.backend.as_ref(), self.options.reasks);
        let mut last = String::new();
        while asking.more() {
            let reply = asking
                .call(&request)
                .await
                .map_err(|e| ProposerError::from_model(&self.backend.name(), e))?;
            if let Some(v) = read_reply(&reply.text, beat) {
                let honoured = offered
                    .as_ref()
                    .map(|o| admits(o, reply.text.trim(), reply.truncated()));
                let mut exchange = asking.exchange(constraint.as_ref(), &reply, honoured);
                exchange.choice = offered.as_ref().map(Offer::choice);
                return Ok(Proposal {
                    events: vec![v],
                    cost: asking.tally.usage,
                    exchange: Some(exchange),
                });
            }
            last = reply.text.chars().take(200).collect();
            let why = "That answer could not be read. Answer with exactly three note names, alto tenor bass, like G4 E4 C3.";
            request.messages.push(Message::assistant(reply.text));
            request.messages.push(Message::user(why));
            asking.refuse(why);
        }
        Err(ProposerError::BadOutput(format!(
            "after {} re-asks the reply still did not name three notes: {last:?}",
            self.options.reasks
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_name_three_notes() {
        let v = read_reply("G4 E4 C3", 5).expect("three notes");
        assert_eq!(
            (v.beat, v.alto.midi, v.tenor.midi, v.bass.midi),
            (5, 67, 64, 48)
        );
        assert_eq!(
            read_reply(" Bb3, F3 Bb2 \n", 0).map(|v| v.alto.midi),
            Some(58)
        );
        assert_eq!(read_reply("G4 E4", 0), None);
        assert_eq!(read_reply("G4 E4 C3 C2", 0), None);
        assert_eq!(read_reply("alto G4", 0), None);
    }
}
