//! Gap filling with a model backend, driven by a scripted fake model: a good
//! reply is accepted and passes the gates; prose fails candidates with the
//! reader's diagnostic kept; bars outside the gap are ignored; the previous
//! candidate's gate feedback reaches the next prompt; the GBNF constraint
//! admits exactly the gap's bars.

use async_trait::async_trait;
use cantus_framework::{Constraint, ModelBackend, ModelError, ModelReply, ModelRequest, Usage};
use cantus_libretto::fill::{
    FillError, FillRequest, Filled, ModelFillOptions, fill, fill_with_model,
};
use cantus_libretto::{Calibration, GateId};
use cantus_music::grammar::{ParseOptions, parse, write};
use cantus_music::{Event, Score, Time};
use std::collections::VecDeque;
use std::sync::Mutex;

/// Answers each call with the next scripted reply and keeps every request.
struct Scripted {
    replies: Mutex<VecDeque<Result<String, ModelError>>>,
    requests: Mutex<Vec<ModelRequest>>,
    /// The stop reason every reply reports (`length`: cut off at the token limit).
    stop: &'static str,
}

impl Scripted {
    fn new(replies: &[&str]) -> Self {
        Scripted {
            replies: Mutex::new(replies.iter().map(|r| Ok(r.to_string())).collect()),
            requests: Mutex::new(Vec::new()),
            stop: "stop",
        }
    }

    fn prompts(&self) -> Vec<String> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .map(|r| r.messages.iter().map(|m| m.content.clone()).collect())
            .collect()
    }
}

#[async_trait]
impl ModelBackend for Scripted {
    fn name(&self) -> String {
        "scripted".into()
    }

    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        self.requests.lock().unwrap().push(request.clone());
        let text = self
            .replies
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or_else(|| Err(ModelError::BadReply("script exhausted".into())))?;
        Ok(ModelReply {
            usage: Usage {
                tokens_in: Some(100),
                tokens_out: Some(40),
                ..Default::default()
            },
            stop_reason: Some(self.stop.into()),
            ..ModelReply::text(text)
        })
    }
}

fn round1() -> Score {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/round1.txt");
    let text = std::fs::read_to_string(path).unwrap();
    parse(&text, &ParseOptions::named("round1.txt"))
        .unwrap()
        .score
}

fn request(candidates: usize) -> FillRequest {
    FillRequest {
        first_bar: 5,
        last_bar: 8,
        candidates,
        seed: 3,
    }
}

fn events_in(score: &Score, first: u32, last: u32) -> Vec<(usize, Event)> {
    score
        .voices
        .iter()
        .enumerate()
        .flat_map(|(vi, v)| v.events.iter().map(move |e| (vi, e.clone())))
        .filter(|(_, e)| (first..=last).contains(&score.bar_of(e.onset)))
        .collect()
}

/// `(voice, onset, duration, MIDI pitches)` of the events starting in `first..=last`
/// (spelling aside: the embedded proposer writes unspelled pitches, the reader spells them).
fn notes_in(score: &Score, first: u32, last: u32) -> Vec<(usize, Time, Time, Vec<u8>)> {
    events_in(score, first, last)
        .into_iter()
        .map(|(vi, e)| {
            (
                vi,
                e.onset,
                e.duration,
                e.pitches.iter().map(|p| p.midi).collect(),
            )
        })
        .collect()
}

/// The bar and voice lines of `score`'s bars `first..=last`, as a model would write them.
fn bars_text(score: &Score, first: u32, last: u32) -> String {
    let text = write(score).unwrap();
    let mut out = String::new();
    let mut keep = false;
    for line in text.lines().skip(2) {
        if let Some(rest) = line.strip_prefix('@') {
            let bar: u32 = rest.split(' ').next().unwrap().parse().unwrap();
            keep = (first..=last).contains(&bar);
        }
        if keep {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// A reply that passes: the embedded filler's bars 5-8 (known to pass).
fn good_reply(piece: &Score) -> (String, Filled) {
    let embedded = fill(piece, &request(24), Calibration::original()).unwrap();
    assert!(embedded.passed);
    (bars_text(&embedded.score, 5, 8), embedded)
}

fn run(
    piece: &Score,
    model: &Scripted,
    candidates: usize,
    constrained: bool,
) -> Result<Filled, FillError> {
    let options = ModelFillOptions {
        ask: cantus_framework::AskOptions {
            constrained,
            ..Default::default()
        },
        ..ModelFillOptions::default()
    };
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(fill_with_model(
            piece,
            &request(candidates),
            Calibration::original(),
            model,
            &options,
        ))
}

const PROSE: &str = "Sure! Here is a lovely continuation of your piece, full of feeling.";

#[test]
fn a_good_reply_is_accepted_and_passes_the_gates() {
    let piece = round1();
    let (reply, embedded) = good_reply(&piece);
    let model = Scripted::new(&[&format!("Here are the bars:\n```\n{reply}```\n")]);
    let filled = run(&piece, &model, 4, false).unwrap();
    assert!(filled.passed, "{:?}", filled.gates);
    assert_eq!(filled.proposer, "model:scripted");
    assert!(notes_in(&filled.score, 5, 8) == notes_in(&embedded.score, 5, 8));
    assert_eq!(events_in(&filled.score, 1, 4), events_in(&piece, 1, 4));
    assert_eq!(events_in(&filled.score, 9, 16), events_in(&piece, 9, 16));
    // The first passing candidate ends the calls.
    let usage = filled.usage.as_ref().unwrap();
    assert_eq!(
        (usage.calls, usage.tokens.tokens_in, usage.tokens.tokens_out),
        (1, Some(100), Some(40))
    );
    assert_eq!(usage.stop_reasons, ["stop"]);
    assert_eq!(filled.tried, 1);
    let gates: Vec<(&str, bool)> = filled
        .gates
        .iter()
        .map(|g| (g.gate.id(), g.passed))
        .collect();
    assert_eq!(gates, [("LIB-COPY", true), ("LIB-DEGENERACY", true)]);
    // The prompt shows the header, the bars around the gap (not the gap's own
    // bars) and asks for bars 5-8.
    let prompt = &model.prompts()[0];
    assert!(prompt.contains("METER: 4/4"), "{prompt}");
    assert!(prompt.contains("bars 5-8 are missing"), "{prompt}");
    assert!(
        prompt.contains("Bars 1-4 and 9-12 (around the gap)"),
        "{prompt}"
    );
    assert!(
        prompt.contains("@4 [-]") && prompt.contains("@9 [-]"),
        "{prompt}"
    );
    assert!(!prompt.contains("@5 [-]\n  Bass"), "{prompt}");
    assert!(
        !prompt.contains("@13 [-]"),
        "the context is bounded: {prompt}"
    );
}

#[test]
fn prose_fails_every_candidate_with_the_readers_diagnostic() {
    let piece = round1();
    let model = Scripted::new(&[PROSE, PROSE, PROSE]);
    let Err(FillError::NoCandidate { failures, usage }) = run(&piece, &model, 3, false) else {
        panic!("prose cannot fill a gap");
    };
    assert_eq!(failures.len(), 3);
    assert!(
        failures[0].starts_with("candidate 1: unreadable reply"),
        "{failures:?}"
    );
    assert!(failures[0].contains("G-PROSE"), "{failures:?}");
    assert_eq!((usage.calls, usage.tokens.tokens_out), (3, Some(120)));
    // The next prompt says why the last answer could not be used.
    let prompts = model.prompts();
    assert!(!prompts[0].contains("could not be used"));
    assert!(
        prompts[1].contains("your answer could not be used"),
        "{}",
        prompts[1]
    );
}

#[test]
fn a_copied_reply_is_a_best_effort_failure_with_the_copy_gate_failing() {
    let piece = round1();
    // Bars 5-8 of round1 repeat bars 1-4 almost note for note.
    let copied = bars_text(&piece, 5, 8);
    let model = Scripted::new(&[PROSE, &copied]);
    let filled = run(&piece, &model, 2, false).unwrap();
    assert!(!filled.passed);
    assert_eq!(filled.tried, 2);
    assert_eq!(filled.failures.len(), 1);
    let copy = filled
        .gates
        .iter()
        .find(|g| g.gate == GateId::Copy)
        .unwrap();
    assert!(
        !copy.passed && filled.copy_risk >= 0.30,
        "{}",
        filled.copy_risk
    );
}

#[test]
fn bars_outside_the_gap_and_unknown_voices_are_ignored() {
    let piece = round1();
    let (good, embedded) = good_reply(&piece);
    let reply = format!(
        "@1 [-]\n  Bass: C2@1>16\n{good}@9 [-]\n  Melody: C6@1>4\n@6 [-]\n  Kazoo: C4@1>4\n"
    );
    let model = Scripted::new(&[&reply]);
    let filled = run(&piece, &model, 1, false).unwrap();
    assert_eq!(events_in(&filled.score, 1, 4), events_in(&piece, 1, 4));
    assert_eq!(events_in(&filled.score, 9, 16), events_in(&piece, 9, 16));
    assert!(notes_in(&filled.score, 5, 8) == notes_in(&embedded.score, 5, 8));
}

#[test]
fn the_previous_candidates_gate_feedback_reaches_the_next_prompt() {
    let piece = round1();
    let copied = bars_text(&piece, 5, 8);
    let (good, _) = good_reply(&piece);
    let model = Scripted::new(&[&copied, &good]);
    let filled = run(&piece, &model, 4, false).unwrap();
    assert!(filled.passed);
    assert_eq!(filled.usage.as_ref().unwrap().calls, 2);
    let prompts = model.prompts();
    let feedback =
        "that share of the notes repeats a reference piece at the same bar position and pitch";
    assert!(!prompts[0].contains(feedback));
    assert!(
        prompts[1].contains("Your last answer had these problems"),
        "{}",
        prompts[1]
    );
    assert!(prompts[1].contains(feedback), "{}", prompts[1]);
}

#[test]
fn hostile_replies_never_panic() {
    let piece = round1();
    let replies = [
        "@5 [-]\n  Bass: C4@99999999999999999999>99999999999999999999 C99@1>1 Cb-1@1>1 G9@1>0\n",
        "@5 [-] (grid:0)\n  Melody: C4@1>4\n@4294967295 [-]\n  Bass: C2@1>1\n",
        "@5 [-]\n  Melody: C4@1>9999999 D#4+Fb4@16>1 H4@2>1\n",
        "KEY: C major | METER: 7/8 | GRID: 96th | BARS: 2\nVOICES: Bass\n@5 [-]\n  Bass: C2@1>4\n",
        "@5\n\u{0}\u{7f}\u{feff}é@1>1\n",
        "",
    ];
    let model = Scripted::new(&replies);
    match run(&piece, &model, replies.len(), false) {
        Ok(filled) => {
            // Whatever was read lies inside the gap: the context is untouched.
            assert_eq!(events_in(&filled.score, 1, 4), events_in(&piece, 1, 4));
            let end = piece.bar_start(9);
            assert!(
                events_in(&filled.score, 5, 8)
                    .iter()
                    .all(|(_, e)| e.end() <= end)
            );
        }
        Err(FillError::NoCandidate { failures, .. }) => assert_eq!(failures.len(), replies.len()),
        Err(e) => panic!("unexpected error {e}"),
    }
}

#[test]
fn the_constraint_admits_exactly_the_gap_bars() {
    let piece = round1();
    let (good, _) = good_reply(&piece);
    let model = Scripted::new(&[&good]);
    run(&piece, &model, 1, true).unwrap();
    let requests = model.requests.lock().unwrap();
    let Some(Constraint::Gbnf(grammar)) = &requests[0].constraint else {
        panic!("a GBNF constraint was sent");
    };
    assert!(
        grammar.starts_with("root ::= bar5 bar6 bar7 bar8\n"),
        "{grammar}"
    );
    assert!(
        grammar.contains("bar8 ::= \"@8 [-]\\n\" voice0 voice1 voice2 voice3\n"),
        "{grammar}"
    );
    assert!(!grammar.contains("@9"), "{grammar}");
    assert!(
        grammar.contains("voice3 ::= \"  Melody: \" note (\" \" note){0,15} \"\\n\""),
        "{grammar}"
    );
    assert!(
        grammar.contains("slot ::= \"16\" | "),
        "16 slots per bar: {grammar}"
    );
    // Without --constrained nothing is sent.
    let plain = Scripted::new(&[&good]);
    run(&piece, &plain, 1, false).unwrap();
    assert!(plain.requests.lock().unwrap()[0].constraint.is_none());
}

#[test]
fn a_reply_cut_off_at_the_token_limit_loses_only_its_last_token() {
    let piece = round1();
    let (good, embedded) = good_reply(&piece);
    // The cut token `C5@1>1` would read as a real (wrong) note; it is dropped.
    let model = Scripted {
        stop: "length",
        ..Scripted::new(&[&format!("{good}  Melody: C5@1>1")])
    };
    let filled = run(&piece, &model, 1, false).unwrap();
    assert!(notes_in(&filled.score, 5, 8) == notes_in(&embedded.score, 5, 8));
    assert_eq!(filled.usage.unwrap().stop_reasons, ["length"]);
}

#[test]
fn a_failed_call_is_a_failed_candidate_and_a_configuration_error_stops_the_fill() {
    let piece = round1();
    let (good, _) = good_reply(&piece);
    let model = Scripted::new(&[&good]);
    model
        .replies
        .lock()
        .unwrap()
        .push_front(Err(ModelError::Timeout("30 s".into())));
    let filled = run(&piece, &model, 2, false).unwrap();
    assert!(filled.passed);
    assert_eq!(
        filled.failures,
        ["candidate 1: the call failed: timed out: 30 s"]
    );
    assert_eq!(filled.usage.unwrap().calls, 2);
    let broken = Scripted::new(&[]);
    broken
        .replies
        .lock()
        .unwrap()
        .push_back(Err(ModelError::Config("no such model".into())));
    assert_eq!(
        run(&piece, &broken, 3, false).unwrap_err(),
        FillError::Backend("no such model".into())
    );
    assert_eq!(broken.prompts().len(), 1);
}
