//! Shared helpers for the LLM-proposer tests: a scripted [`ModelBackend`] that plays
//! canned replies (good and bad) and records every request, and an "oracle" that
//! answers from the request's structured context the way a perfect model would.
#![allow(dead_code)]

use cantus_framework::{ModelBackend, ModelError, ModelReply, ModelRequest, Usage, async_trait};
use std::collections::VecDeque;
use std::sync::Mutex;

/// A scripted reply step.
pub enum Step {
    /// This reply text, as the server would send it.
    Text(String),
    /// This reply text, cut off at the token limit (`stop_reason = length`).
    Truncated(String),
    /// This error.
    Fail(ModelError),
    /// The oracle's answer to the request.
    Oracle,
    /// The oracle's answer with voice `voice`'s note `note` moved up a semitone.
    OracleWrongPitch { voice: usize, note: usize },
    /// The oracle's answer with the last note of voice `voice` moved up a semitone.
    OracleWrongLastPitch { voice: usize },
    /// Prose to every patch and rewrite request, until a section or continue request
    /// comes (answered by the oracle): a model that cannot repair.
    RepairsInProse,
}

/// Plays `steps` in order, then answers with the oracle; records every request.
pub struct Scripted {
    steps: Mutex<VecDeque<Step>>,
    pub requests: Mutex<Vec<ModelRequest>>,
}

impl Scripted {
    pub fn new(steps: Vec<Step>) -> Self {
        Scripted {
            steps: Mutex::new(steps.into()),
            requests: Mutex::new(Vec::new()),
        }
    }

    /// Only oracle answers.
    pub fn oracle() -> Self {
        Scripted::new(Vec::new())
    }

    /// The user prompt of request `i`.
    pub fn prompt(&self, i: usize) -> String {
        let requests = self.requests.lock().unwrap();
        requests[i]
            .messages
            .iter()
            .map(|m| m.content.clone())
            .collect::<Vec<_>>()
            .join("\n")
    }

    pub fn calls(&self) -> usize {
        self.requests.lock().unwrap().len()
    }
}

fn reply(text: String, stop: &str) -> ModelReply {
    let mut r = ModelReply::text(text);
    r.usage = Usage {
        tokens_in: Some(100),
        tokens_out: Some(40),
        ..Default::default()
    };
    r.stop_reason = Some(stop.to_owned());
    r.model = Some("scripted".to_owned());
    r.latency_ms = 5;
    r
}

#[async_trait]
impl ModelBackend for Scripted {
    fn name(&self) -> String {
        "scripted".to_owned()
    }

    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        self.requests.lock().unwrap().push(request.clone());
        let repair = matches!(
            request.context["request"].as_str(),
            Some("patch" | "rewrite")
        );
        let step = {
            let mut steps = self.steps.lock().unwrap();
            match steps.front() {
                Some(Step::RepairsInProse) if repair => {
                    return Ok(reply(
                        "I am sorry, I cannot fix that note.".to_owned(),
                        "stop",
                    ));
                }
                Some(Step::RepairsInProse) => {
                    steps.pop_front();
                    Step::Oracle
                }
                _ => steps.pop_front().unwrap_or(Step::Oracle),
            }
        };
        match step {
            Step::Text(t) => Ok(reply(t, "stop")),
            Step::Truncated(t) => Ok(reply(t, "length")),
            Step::Fail(e) => Err(e),
            Step::Oracle => Ok(reply(oracle(request, None), "stop")),
            Step::OracleWrongPitch { voice, note } => {
                Ok(reply(oracle(request, Some((voice, note))), "stop"))
            }
            Step::OracleWrongLastPitch { voice } => {
                let last = request.context["voices"][voice]["notes"]
                    .as_array()
                    .map_or(0, |n| n.len().saturating_sub(1));
                Ok(reply(oracle(request, Some((voice, last))), "stop"))
            }
            Step::RepairsInProse => Ok(reply(oracle(request, None), "stop")),
        }
    }
}

/// Sharp names of pitch classes.
const NAMES: [&str; 12] = [
    "C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B",
];

/// `midi` as a grammar pitch (`C#4`).
pub fn pitch(midi: u8) -> String {
    format!(
        "{}{}",
        NAMES[usize::from(midi % 12)],
        i32::from(midi / 12) - 1
    )
}

/// The pitch of class `pc` nearest the middle of `low..=high`.
pub fn middle_pitch(pc: u8, low: u8, high: u8) -> u8 {
    let mid = (u16::from(low) + u16::from(high)) / 2;
    (low..=high)
        .filter(|m| m % 12 == pc)
        .min_by_key(|&m| (i32::from(m) - i32::from(mid as u8)).abs())
        .expect("a register holds every pitch class")
}

/// What a model that follows the row answers: for every voice in the context, every
/// owed note somewhere in its onset window (chosen by the request's seed, so a repair
/// asked again lands elsewhere), as long as the window allows, in an octave of the
/// note's register (the middle one, or another chosen by the seed). `wrong` moves one note
/// up a semitone.
pub fn oracle(request: &ModelRequest, wrong: Option<(usize, usize)>) -> String {
    let ctx = &request.context;
    let mut rng = fastrand::Rng::with_seed(request.sampling.seed.unwrap_or(0));
    // Held to the rules only, the grammar is the whole of what a rule-following model
    // may answer: the oracle answers as such a model would, any string of it (the
    // null model's draw, seeded by the request).
    let rules = ctx["voices"]
        .as_array()
        .is_some_and(|vs| vs.iter().all(|v| v["rules"] == true));
    if let (true, None, Some(cantus_framework::Constraint::Gbnf(g))) =
        (rules, wrong, &request.constraint)
    {
        let language = cantus_backend::uniform::Language::new(g).expect("a finite grammar");
        return language.sample(&mut rng);
    }
    let first_try = ctx["attempt"].as_u64() == Some(0) && ctx["request"] == "section";
    let mut out = String::new();
    for (v, voice) in ctx["voices"].as_array().expect("voices").iter().enumerate() {
        let mut tokens = Vec::new();
        for (i, note) in voice["notes"].as_array().unwrap().iter().enumerate() {
            // The note's own range (the register plan's), else the voice's.
            let register = note.get("register").unwrap_or(&voice["register"]);
            let low = register[0].as_u64().unwrap() as u8;
            let high = register[1].as_u64().unwrap() as u8;
            let chord: Vec<String> = note["pcs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|pc| {
                    let mut pc = pc.as_u64().unwrap() as u8;
                    if wrong == Some((v, i)) {
                        pc = (pc + 1) % 12;
                    }
                    let mid = middle_pitch(pc, low, high);
                    let shifted = if first_try || rng.bool() {
                        mid
                    } else if mid >= low + 12 && rng.bool() {
                        mid - 12
                    } else if mid + 12 <= high {
                        mid + 12
                    } else {
                        mid
                    };
                    pitch(shifted)
                })
                .collect();
            let lo = note["onset_slots"][0].as_u64().unwrap();
            let hi = note["onset_slots"][1].as_u64().unwrap();
            let (at, len) = if voice["rules"] == true {
                // Held to the rules only, every note is open over the voice's whole
                // room: lay them out evenly in it, as a model would choose to.
                let n = voice["notes"].as_array().unwrap().len() as u64;
                let share = (note["max_length"].as_u64().unwrap() / n).max(1);
                let start = lo + i as u64 * share;
                let off = if first_try {
                    0
                } else {
                    rng.u64(0..share.div_ceil(2))
                };
                (start + off, share - off)
            } else {
                let at = if first_try { lo } else { rng.u64(lo..=hi) };
                (at, note["max_length"].as_u64().unwrap())
            };
            tokens.push(format!("{}@{at}>{len}", chord.join("+")));
        }
        out.push_str(&format!(
            "{}: {}\n",
            voice["name"].as_str().unwrap(),
            tokens.join(" ")
        ));
    }
    out
}
