//! The workflows end to end: the revise loop's pick-best and stopping rules
//! with a scripted author and judge; a morph between two released serial
//! pieces by the embedded recombiner; an extension by the embedded filler;
//! generation asked of a scripted model (its rounds, calls, tokens and the
//! gate it never met) and refused to the embedded proposers.

use async_trait::async_trait;
use cantus_framework::{
    AskOptions, ModelBackend, ModelError, ModelReply, ModelRequest, Outcome as EngineOutcome,
    Usage, round_seed,
};
use cantus_libretto::workflow::extend::{ExtendJob, ExtendRequest};
use cantus_libretto::workflow::generate::{GenerateJob, GenerateRequest, Style, embedded_author};
use cantus_libretto::workflow::model::ModelAuthor;
use cantus_libretto::workflow::morph::{MorphJob, MorphRequest, Recombiner};
use cantus_libretto::workflow::{
    Ask, Author, AuthorError, Draft, Judge, Outcome, Verdict, Workflow, WorkflowError, refine,
};
use cantus_libretto::{Calibration, GateId, GateOutcome, NoteGrid, copy_risk};
use cantus_music::grammar::{ParseOptions, parse};
use cantus_music::{Score, Time};
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::spec::compile_brief;
use cantus_twelve_tone::{EmbeddedProposer, compose};
use serde_json::json;
use std::sync::Mutex;

/// A piece whose title says which scripted verdict it gets.
fn titled(title: &str) -> Score {
    Score {
        title: Some(title.into()),
        ..Score::default()
    }
}

/// Writes the scripted pieces (or errors) in turn and keeps the feedback asked with.
struct Script {
    drafts: Mutex<Vec<Result<Score, AuthorError>>>,
    asked: Mutex<Vec<Vec<String>>>,
}

impl Script {
    fn new(drafts: Vec<Result<Score, AuthorError>>) -> Self {
        Script {
            drafts: Mutex::new(drafts.into_iter().rev().collect()),
            asked: Mutex::new(Vec::new()),
        }
    }
}

#[async_trait]
impl Author for Script {
    fn name(&self) -> String {
        "script".into()
    }

    async fn write(&self, ask: &Ask<'_>) -> Result<Draft, AuthorError> {
        self.asked.lock().unwrap().push(ask.feedback.to_vec());
        let next = self
            .drafts
            .lock()
            .unwrap()
            .pop()
            .expect("scripted enough rounds")?;
        Ok(Draft {
            score: next,
            notes: Vec::new(),
            usage: None,
        })
    }
}

/// Title "fail:<gate>:<score>" fails that gate with that score; "pass:<score>" passes.
struct ByTitle;

impl Judge for ByTitle {
    fn judge(&self, piece: &Score) -> Verdict {
        let title = piece.title.clone().unwrap_or_default();
        let parts: Vec<&str> = title.split(':').collect();
        let (gate, passed, score) = match parts.as_slice() {
            ["pass", s] => (GateId::Length, true, s.parse().unwrap()),
            ["fail", "copy", s] => (GateId::Copy, false, s.parse().unwrap()),
            ["fail", _, s] => (GateId::Length, false, s.parse().unwrap()),
            _ => panic!("bad title {title}"),
        };
        Verdict {
            gates: vec![GateOutcome {
                gate,
                passed,
                penalty: score,
                feedback: if passed {
                    vec![]
                } else {
                    vec![format!("fix {title}")]
                },
            }],
            score,
            measures: json!({}),
        }
    }
}

#[tokio::test]
async fn the_loop_stops_at_the_first_pass_and_feeds_each_verdict_forward() {
    let author = Script::new(vec![
        Ok(titled("fail:length:5")),
        Ok(titled("fail:copy:3")),
        Ok(titled("pass:9")),
        Ok(titled("pass:1")),
    ]);
    let run = refine(Workflow::Generate, &author, &ByTitle, 6, 0, vec![]).await;
    // Round 3 passes although its score (9) is above round 2's (3): a passing
    // round beats one that fails; the loop stops there.
    assert_eq!(run.rounds.len(), 3);
    assert!(matches!(run.outcome, Outcome::Released { round: 3, .. }));
    // Each round is asked with the previous round's feedback, replaced, not added to.
    let asked = author.asked.lock().unwrap();
    assert_eq!(asked[0], Vec::<String>::new());
    assert_eq!(asked[1], ["fix fail:length:5"]);
    assert_eq!(asked[2], ["fix fail:copy:3"]);
}

#[tokio::test]
async fn without_a_pass_the_lowest_score_is_kept_first_on_a_tie_and_its_gates_named() {
    let author = Script::new(vec![
        Ok(titled("fail:length:4")),
        Ok(titled("fail:copy:2")),
        Ok(titled("fail:length:2")),
    ]);
    let run = refine(Workflow::Morph, &author, &ByTitle, 3, 0, vec![]).await;
    let Outcome::Failed { unmet, best, why } = &run.outcome else {
        panic!("released");
    };
    // Rounds 2 and 3 tie at 2: the first keeps it (the original's strict <).
    assert_eq!(best.as_ref().map(|b| b.1), Some(2));
    assert_eq!(unmet, &[GateId::Copy]);
    assert_eq!(
        why,
        "no round passed every gate; the best (round 2) did not meet LIB-COPY"
    );
    let text = run.text();
    assert!(
        text.contains("round 1: LIB-LENGTH FAIL (score 4.0)"),
        "{text}"
    );
    assert!(
        text.ends_with(
            "FAILED: no round passed every gate; the best (round 2) did not meet LIB-COPY"
        ),
        "{text}"
    );
}

#[tokio::test]
async fn an_unusable_round_is_kept_and_an_unavailable_author_stops_the_run() {
    let author = Script::new(vec![
        Err(AuthorError::Round {
            why: "unreadable reply: no notes".into(),
            usage: None,
        }),
        Err(AuthorError::Unavailable(
            "configuration: no model named x".into(),
        )),
    ]);
    let run = refine(Workflow::Teach, &author, &ByTitle, 5, 0, vec![]).await;
    assert_eq!(run.rounds.len(), 1);
    assert_eq!(run.rounds[0].notes, ["unreadable reply: no notes"]);
    let asked = author.asked.lock().unwrap();
    assert_eq!(
        asked[1],
        ["your last answer could not be used: unreadable reply: no notes"]
    );
    let Outcome::Failed { unmet, best, why } = &run.outcome else {
        panic!("released");
    };
    assert!(unmet.is_empty() && best.is_none());
    assert_eq!(why, "configuration: no model named x");
}

async fn serial(brief: &str, seed: u64) -> Score {
    let spec = compile_brief(brief).unwrap().spec;
    let composed = compose::Composer::new(GateMode::Strict, compose::budget())
        .compose(&spec, seed, &EmbeddedProposer::new())
        .await
        .unwrap();
    match composed.outcome {
        EngineOutcome::Released { artefact, .. } => artefact,
        EngineOutcome::Failure { diagnostics, .. } => panic!("{brief}: {:?}", diagnostics.first()),
    }
}

#[tokio::test]
async fn a_morph_between_two_released_serial_pieces_is_released() {
    // A: two voices, slow; B: four voices — far apart in texture and rhythm.
    let a = serial("a 16-bar piece for two voices in 4/4", 1).await;
    let b = serial("a 16-bar quartet in 4/4 with chords", 2).await;
    let table = Calibration::serial();
    let req = MorphRequest {
        a: &a,
        b: &b,
        segments: 4,
        segment_bars: 8,
        table,
        references: None,
    };
    let job = MorphJob::new(&req).unwrap();
    let author = Recombiner::new(&req).unwrap();
    // About one recombination in six passes LIB-PROGRESS (32 of seeds 0–199), so
    // eight rounds release about three runs in four; run seed 3 is one of them.
    let run = job.run(&author, 8, 3).await;
    let Outcome::Released { piece, round } = &run.outcome else {
        panic!("not released:\n{}", run.text());
    };
    // Judged again: the progress rises, spans, starts near A and ends near B.
    let values: Vec<f64> = job
        .judge
        .progress_of(piece)
        .into_iter()
        .map(Option::unwrap)
        .collect();
    assert_eq!(values.len(), 4);
    assert!(values.windows(2).all(|w| w[1] >= w[0] - 0.05), "{values:?}");
    assert!(
        values[0] < 0.40 && values[3] > 0.60 && values[3] - values[0] >= 0.4,
        "{values:?}"
    );
    // And it copies neither piece.
    let grid = |s: &Score| NoteGrid::of(&cantus_libretto::Layout::from_score(s).unwrap().song());
    let risk = copy_risk(&grid(piece), &[grid(&a), grid(&b)]);
    assert!(risk < 0.30, "copy risk {risk}");
    assert_eq!(piece.bar_count(), 32);
    let last = run.rounds[*round as usize - 1].verdict.as_ref().unwrap();
    let gates: Vec<GateId> = last.gates.iter().map(|g| g.gate).collect();
    assert_eq!(gates, [GateId::Length, GateId::Progress, GateId::Copy]);
    assert_eq!(run.usage().calls, 0);
}

#[tokio::test]
async fn the_embedded_morph_needs_one_meter_and_a_morph_two_segments() {
    let a = serial("an 8-bar piece for two voices in 4/4", 1).await;
    let b = serial("an 8-bar piece for two voices in 3/4", 1).await;
    let req = MorphRequest {
        a: &a,
        b: &b,
        segments: 3,
        segment_bars: 4,
        table: Calibration::serial(),
        references: None,
    };
    let err = Recombiner::new(&req).err().unwrap().to_string();
    assert!(
        err.contains("A is 4/4, B is 3/4") && err.contains("--config"),
        "{err}"
    );
    let one = MorphRequest { segments: 1, ..req };
    assert!(matches!(MorphJob::new(&one), Err(WorkflowError::Input(_))));
}

fn fixture(name: &str) -> Score {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    parse(&text, &ParseOptions::named(name)).unwrap().score
}

#[tokio::test]
async fn an_extension_by_the_embedded_filler_is_judged_against_the_piece() {
    let piece = fixture("round1.txt");
    let req = ExtendRequest {
        piece: &piece,
        bars: 8,
        table: Calibration::original(),
        references: None,
    };
    let job = ExtendJob::new(&req).unwrap();
    assert_eq!((job.first_bar, job.last_bar), (17, 24));
    let run = job.run(&job.embedded(), 3, 0).await;
    let first = run.rounds[0].verdict.as_ref().expect("the fill was judged");
    let gates: Vec<GateId> = first.gates.iter().map(|g| g.gate).collect();
    assert_eq!(gates, [GateId::Length, GateId::Copy, GateId::Degeneracy]);
    let Outcome::Released {
        piece: extended, ..
    } = &run.outcome
    else {
        panic!("not released:\n{}", run.text());
    };
    // The original bars are kept as they were; 8 bars follow them.
    let before = |s: &Score| -> Vec<(Time, Time)> {
        s.voices
            .iter()
            .flat_map(|v| {
                v.events
                    .iter()
                    .filter(|e| s.bar_of(e.onset) <= 16)
                    .map(|e| (e.onset, e.duration))
            })
            .collect()
    };
    assert_eq!(before(extended), before(&piece));
    assert_eq!(
        cantus_libretto::workflow::gates::sounding_bars(extended),
        24
    );
    // Bounds: an extension is 6–40 bars.
    let short = ExtendRequest { bars: 5, ..req };
    let err = ExtendJob::new(&short).err().unwrap().to_string();
    assert_eq!(err, "--bars 5: an extension is 6–40 bars");
}

/// Answers every call with the same text.
struct Parrot(&'static str, Mutex<Vec<ModelRequest>>);

#[tokio::test]
async fn an_extension_by_a_model_is_asked_again_with_the_last_rounds_feedback() {
    let piece = fixture("round1.txt");
    let req = ExtendRequest {
        piece: &piece,
        bars: 8,
        table: Calibration::original(),
        references: None,
    };
    let job = ExtendJob::new(&req).unwrap();
    // One bar where eight are owed: the length gate refuses every round.
    let model = Parrot(
        "@17 [F]\n  Bass: F2@1>4\n  Keys: A3+C4+F4@1>4\n  Horns: F4@1>4\n  Melody: A5@1>4 G5@5>4\n",
        Mutex::new(Vec::new()),
    );
    let filler = job.model(&model, Default::default());
    let run = job.run(&filler, 2, 0).await;
    assert_eq!(run.rounds.len(), 2, "{}", run.text());
    let first = run.rounds[0].verdict.as_ref().expect("judged");
    let length = &first.gates[0];
    assert_eq!(length.gate, GateId::Length);
    assert!(!length.passed);
    assert_eq!(
        length.feedback,
        ["length: the extension has 1 bars; write 6–10 bars"]
    );
    let requests = model.1.lock().unwrap();
    let prompt =
        |r: &ModelRequest| -> String { r.messages.iter().map(|m| m.content.clone()).collect() };
    assert!(!prompt(&requests[0]).contains("length: the extension"));
    let second = prompt(&requests[1]);
    assert!(
        second.contains("- length: the extension has 1 bars; write 6–10 bars"),
        "{second}"
    );
    assert!(matches!(run.outcome, Outcome::Failed { .. }));
}

#[async_trait]
impl ModelBackend for Parrot {
    fn name(&self) -> String {
        "parrot".into()
    }

    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        self.1.lock().unwrap().push(request.clone());
        Ok(ModelReply {
            usage: Usage {
                tokens_in: Some(300),
                tokens_out: Some(120),
                ..Default::default()
            },
            stop_reason: Some("stop".into()),
            ..ModelReply::text(self.0)
        })
    }
}

#[tokio::test]
async fn generation_asked_of_a_model_reports_rounds_calls_tokens_and_the_gate_not_met() {
    let reply = include_str!("fixtures/round1.txt");
    let model = Parrot(reply, Mutex::new(Vec::new()));
    let req = GenerateRequest::new(Style::Genre("jazz".into()), Calibration::original(), None);
    let job = GenerateJob::new(&req).unwrap();
    let author = ModelAuthor::new(&model, job.task.clone(), AskOptions::default());
    let run = job.run(&author, 3, 7).await;
    // The same 16-bar answer three times: never 64–179 bars long.
    assert_eq!(run.rounds.len(), 3);
    let usage = run.usage();
    assert_eq!(
        (usage.calls, usage.tokens.tokens_in, usage.tokens.tokens_out),
        (3, Some(900), Some(360))
    );
    let Outcome::Failed { unmet, .. } = &run.outcome else {
        panic!("released a 16-bar piece");
    };
    assert!(unmet.contains(&GateId::Length), "{unmet:?}");
    let verdict = run.rounds[0].verdict.as_ref().unwrap();
    assert_eq!(
        verdict.gates[0].feedback,
        ["length: the piece has 16 bars; write 64–179 bars"]
    );
    // Round 2 was asked with round 1's feedback, in musical words.
    let requests = model.1.lock().unwrap();
    let second = &requests[1].messages[1].content;
    assert!(
        second.contains("in the style of jazz, 64–179 bars long"),
        "{second}"
    );
    assert!(
        second.contains("- length: the piece has 16 bars; write 64–179 bars"),
        "{second}"
    );
    // Seeded as every revise loop seeds its rounds: the run's seed, then a mix.
    assert_eq!(requests[0].sampling.seed, Some(7));
    assert_eq!(requests[1].sampling.seed, Some(round_seed(7, 2)));
    assert_ne!(round_seed(7, 2), 7);
    assert_eq!(run.json()["calls"], 3);
    // Each round left the revise loop's record, as an engine's trace writes it: the
    // same answer three times, so the first stays the best (ties keep the earlier).
    let trace = run.json()["trace"].clone();
    let records = trace.as_array().unwrap();
    assert_eq!(records.len(), 3);
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r["kind"], "round");
        assert_eq!(r["round"], i + 1);
        assert_eq!(r["call"], i + 1);
        assert_eq!(r["gate_passed"], false);
        assert_eq!(r["best"], i == 0);
    }
    assert_eq!(records[0]["feedback"], json!(verdict.feedback()));
}

#[tokio::test]
async fn a_constrained_model_is_held_to_the_tasks_bars_and_read_under_its_header() {
    let req = GenerateRequest::new(Style::Genre("jazz".into()), Calibration::original(), None);
    let job = GenerateJob::new(&req).unwrap();
    let grammar =
        cantus_libretto::workflow::model::constraint(&job.task.header).expect("a grammar");
    // Every bar of the header's BARS, in order, each with the header's voices.
    let bars = job.task.header.split("BARS: ").nth(1).unwrap();
    let bars: u32 = bars.split_whitespace().next().unwrap().parse().unwrap();
    assert!(grammar.starts_with("root ::= bar1 bar2"), "{grammar}");
    assert!(
        grammar.contains(&format!("bar{bars} ::= \"@{bars} [-]\\n\"")),
        "{grammar}"
    );
    assert!(!grammar.contains(&format!("bar{} ::=", bars + 1)));
    for voice in ["Melody", "Harmony", "Bass"] {
        assert!(
            grammar.contains(&format!("\"  {voice}: \"")),
            "{voice}: {grammar}"
        );
    }
    // A bars-only reply (what the grammar admits) is read under the task's header.
    let model = Parrot(
        "@1 [-]\n  Melody: C5@1>4\n  Harmony: E4+G4@1>8\n  Bass: C3@1>16\n",
        Mutex::new(Vec::new()),
    );
    let options = AskOptions {
        constrained: true,
        ..AskOptions::default()
    };
    let author = ModelAuthor::new(&model, job.task.clone(), options);
    let run = job.run(&author, 1, 0).await;
    let first = model.1.lock().unwrap()[0].clone();
    assert!(
        matches!(&first.constraint, Some(cantus_framework::Constraint::Gbnf(g)) if *g == grammar)
    );
    assert!(
        first.messages[1]
            .content
            .contains("Answer with every bar under it")
    );
    let verdict = run.rounds[0]
        .verdict
        .as_ref()
        .expect("the reply was read and judged");
    assert_eq!(
        verdict.gates[0].feedback,
        [format!(
            "length: the piece has 1 bars; write {bars}–179 bars"
        )]
    );
    // Unconstrained, no grammar is sent.
    let plain = Parrot("", Mutex::new(Vec::new()));
    let author = ModelAuthor::new(&plain, job.task.clone(), AskOptions::default());
    let _ = job.run(&author, 1, 0).await;
    assert!(plain.1.lock().unwrap()[0].constraint.is_none());
}

#[test]
fn the_embedded_proposers_say_plainly_they_cannot_write_a_tonal_style() {
    let err = embedded_author().err().unwrap().to_string();
    assert!(
        err.contains("cannot write a piece in a tonal style"),
        "{err}"
    );
    assert!(err.contains("--config"), "{err}");
    let unknown = GenerateRequest::new(Style::Genre("polka".into()), Calibration::original(), None);
    let err = GenerateJob::new(&unknown).err().unwrap().to_string();
    assert!(
        err.contains("genre `polka`") && err.contains("jazz"),
        "{err}"
    );
}
