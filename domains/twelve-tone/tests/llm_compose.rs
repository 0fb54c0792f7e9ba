//! Whole compositions with the LLM proposer and a scripted backend, through the real
//! engine, ladder and strict gate: a wrong pitch is dropped and asked for again in a
//! continue request naming the rule it broke (or, on a ladder that names it, repaired
//! by the model-patch rung with the violation in the patch prompt); a backend talking
//! prose ends in an explicit failure; every released piece passes the strict gate when
//! judged again, and every failure names its cause.

mod llm_support;

use cantus_framework::AskOptions;
use cantus_framework::{CallRecord, Entry, Outcome, RequestType, SectionOutcome, Status};
use cantus_twelve_tone::compose::{self, Composer, Composition};
use cantus_twelve_tone::gate::{GateMode, SerialGate};
use cantus_twelve_tone::proposer::llm::LlmProposer;
use cantus_twelve_tone::rungs;
use cantus_twelve_tone::spec::Spec;
use llm_support::{Scripted, Step};
use std::sync::Arc;

fn spec(voices: usize, bars: u32) -> Spec {
    let mut spec = Spec::with_voice_count(voices);
    spec.bars = bars;
    spec.section_bars = 4;
    spec
}

async fn run(spec: &Spec, seed: u64, backend: Arc<Scripted>, options: AskOptions) -> Composition {
    let proposer = LlmProposer::new(backend, options);
    Composer::for_model(GateMode::Strict, compose::model_budget(compose::budget()))
        .compose(spec, seed, &proposer)
        .await
        .expect("plans")
}

/// Released ⇒ the strict gate passes it again; Failure ⇒ at least one diagnostic.
fn assert_honest(c: &Composition, context: &str) {
    match &c.outcome {
        Outcome::Released { artefact, .. } => {
            let report = SerialGate::for_plan(&c.plan, GateMode::Strict).judge_score(artefact);
            assert!(
                report.passed,
                "{context}: a released piece fails the strict gate: {report:?}"
            );
        }
        Outcome::Failure { diagnostics, .. } => {
            assert!(
                !diagnostics.is_empty(),
                "{context}: a failure with no diagnostic"
            );
        }
    }
}

#[tokio::test]
async fn oracle_replies_compose_released_pieces_constrained_or_not() {
    for constrained in [false, true] {
        for (voices, seed) in [(2, 1), (2, 2), (3, 3), (3, 4), (3, 6)] {
            let backend = Arc::new(Scripted::oracle());
            let options = AskOptions {
                constrained,
                ..AskOptions::default()
            };
            let c = run(&spec(voices, 8), seed, backend.clone(), options).await;
            let context = format!("{voices} voices, seed {seed}, constrained {constrained}");
            assert_honest(&c, &context);
            let totals = &c.outcome.trace().totals;
            eprintln!(
                "{context}: released {} calls {} proposed {} repaired {} dropped {}",
                c.outcome.is_released(),
                totals.proposer_calls,
                totals.events_proposed,
                totals.repaired,
                totals.dropped
            );
            if let Outcome::Failure { diagnostics, .. } = &c.outcome {
                for d in diagnostics.iter().take(3) {
                    eprintln!("  {d}");
                }
                assert!(
                    diagnostics.iter().any(|d| d.predicate.is_some()),
                    "{context}: the failure names a rule"
                );
            }
            if voices == 2 {
                // Two voices on hexachordally combinatorial forms never collide.
                assert!(c.outcome.is_released(), "{context}: the piece is refused");
            }
            // Every call is in the trace with its model exchange and tokens.
            for entry in &c.outcome.trace().entries {
                if let Entry::Call(call) = entry {
                    let model = call.model.as_ref().expect("a model exchange per call");
                    assert_eq!(model.constraint_honoured, constrained.then_some(true));
                    assert_eq!(call.cost.tokens_in, Some(100));
                }
            }
            assert_eq!(backend.calls() as u64, totals.proposer_calls);
        }
    }
}

#[tokio::test]
async fn a_wrong_pitch_is_asked_for_again_with_the_rule_it_broke() {
    // A model run's ladder asks the model nothing: the wrong pitch is dropped, and
    // the one continue request after the section names the rule it broke.
    let backend = Arc::new(Scripted::new(vec![Step::OracleWrongPitch {
        voice: 0,
        note: 2,
    }]));
    let c = run(&spec(2, 4), 4, backend.clone(), AskOptions::default()).await;
    assert_honest(&c, "wrong pitch");
    assert!(c.outcome.is_released(), "the continue request places it");
    let trace = c.outcome.trace();
    let dropped_for_row = trace.entries.iter().any(|e| {
        matches!(e, Entry::Event(cert)
            if cert.status == Status::Dropped
            && cert.verdict.iter().any(|v| v.predicate == "TT-ROW"))
    });
    assert!(dropped_for_row, "the TT-ROW violation is dropped");
    assert!(
        calls(&c, RequestType::Patch).is_empty() && calls(&c, RequestType::Rewrite).is_empty(),
        "no rung asks the model"
    );
    assert_eq!(calls(&c, RequestType::Continue).len(), 1);
    // The second request is the continue: it names the rule the first reply broke.
    let continue_prompt = backend.prompt(1);
    assert!(continue_prompt.contains("[TT-ROW]"), "{continue_prompt}");
}

#[tokio::test]
async fn a_wrong_pitch_is_patched_with_the_violation_in_the_prompt() {
    // A ladder that names the model-patch rung (as an experiment condition may).
    let backend = Arc::new(Scripted::new(vec![Step::OracleWrongPitch {
        voice: 0,
        note: 2,
    }]));
    let proposer = LlmProposer::new(backend.clone(), AskOptions::default());
    let c = Composer::with_ladder(
        GateMode::Strict,
        compose::model_budget(compose::budget()),
        rungs::every_rung(),
    )
    .compose(&spec(2, 4), 4, &proposer)
    .await
    .expect("plans");
    assert_honest(&c, "wrong pitch, patched");
    assert!(
        c.outcome.is_released(),
        "the ladder repairs the wrong pitch"
    );
    let repaired_by_patch = c.outcome.trace().entries.iter().any(|e| {
        matches!(e, Entry::Event(cert)
            if matches!(&cert.status, Status::Repaired { rung } if rung == "model-patch")
            && cert.verdict.iter().any(|v| v.predicate == "TT-ROW"))
    });
    assert!(
        repaired_by_patch,
        "the model-patch rung repaired the TT-ROW violation"
    );
    // The second request is the patch: it names the rule the first reply broke.
    let patch_prompt = backend.prompt(1);
    assert!(patch_prompt.contains("[TT-ROW]"), "{patch_prompt}");
    assert!(
        patch_prompt.contains("This note was refused"),
        "{patch_prompt}"
    );
}

/// The calls of type `request` in `c`'s trace, in order.
fn calls(c: &Composition, request: RequestType) -> Vec<&CallRecord> {
    c.outcome
        .trace()
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Call(call) if call.request == request => Some(call),
            _ => None,
        })
        .collect()
}

/// How many calls of type `request` the trace records for `section`.
fn section_calls(c: &Composition, section: usize, request: RequestType) -> usize {
    calls(c, request)
        .iter()
        .filter(|call| call.section == Some(section))
        .count()
}

#[tokio::test]
async fn a_dropped_last_note_is_asked_for_again_not_the_whole_section() {
    // The first reply's last soprano note breaks the row and no repair is offered:
    // the note is dropped. Nothing follows it, so it is owed again and one continue
    // request asks the soprano for it; the section is not proposed again.
    let backend = Arc::new(Scripted::new(vec![
        Step::OracleWrongLastPitch { voice: 0 },
        Step::RepairsInProse,
    ]));
    let c = run(&spec(2, 4), 4, backend.clone(), AskOptions::default()).await;
    assert_honest(&c, "dropped last note");
    assert!(c.outcome.is_released(), "the continue request places it");
    let trace = c.outcome.trace();
    assert_eq!(trace.totals.dropped, 1, "{:?}", trace.totals);
    assert_eq!(trace.totals.replans, 0, "no replan for a note owed again");
    assert_eq!(section_calls(&c, 0, RequestType::Section), 1);
    let continues = calls(&c, RequestType::Continue);
    assert_eq!(continues.len(), 1, "one continue request");
    assert_eq!(continues[0].owed.len(), 1, "{:?}", continues[0].owed);
    assert_eq!(continues[0].owed[0].part, 0, "only the soprano owes a note");
    assert_eq!(continues[0].owed[0].positions.len(), 1);
    let kept = trace.entries.iter().find_map(|e| match e {
        Entry::Section(s) if s.section == 0 => Some(s),
        _ => None,
    });
    let kept = kept.expect("section 1 is recorded");
    assert_eq!((kept.dropped, kept.reopened), (1, 1));
    assert_eq!(kept.outcome, SectionOutcome::Kept);
}

#[tokio::test]
async fn without_reopened_drops_a_dropped_last_note_replans_the_section() {
    // The budget the embedded planner runs with: a replan costs it nothing.
    let backend = Arc::new(Scripted::new(vec![
        Step::OracleWrongLastPitch { voice: 0 },
        Step::RepairsInProse,
    ]));
    let proposer = LlmProposer::new(backend, AskOptions::default());
    let c = Composer::new(GateMode::Strict, compose::budget())
        .compose(&spec(2, 4), 4, &proposer)
        .await
        .expect("plans");
    assert_honest(&c, "dropped last note, not reopened");
    assert_eq!(c.outcome.trace().totals.replans, 1);
    assert_eq!(section_calls(&c, 0, RequestType::Section), 2);
}

#[tokio::test]
async fn a_dropped_note_before_accepted_ones_is_asked_for_again_with_them() {
    // The soprano's third note breaks the row and no repair is offered. The notes
    // after it sit at later row positions, so they are withdrawn with it and one
    // continue request asks the soprano for the rest of its row, in order; the
    // section is not proposed again.
    let backend = Arc::new(Scripted::new(vec![
        Step::OracleWrongPitch { voice: 0, note: 2 },
        Step::RepairsInProse,
    ]));
    let c = run(&spec(2, 4), 4, backend.clone(), AskOptions::default()).await;
    assert_honest(&c, "dropped inner note");
    assert!(c.outcome.is_released(), "the continue request places them");
    let trace = c.outcome.trace();
    assert_eq!(trace.totals.replans, 0, "{:?}", trace.totals);
    assert_eq!(section_calls(&c, 0, RequestType::Section), 1);
    let continues = calls(&c, RequestType::Continue);
    assert_eq!(continues.len(), 1, "one continue request");
    assert_eq!(continues[0].owed.len(), 1, "{:?}", continues[0].owed);
    assert_eq!(continues[0].owed[0].part, 0, "only the soprano owes notes");
    let section = trace.entries.iter().find_map(|e| match e {
        Entry::Section(s) if s.section == 0 => Some(s),
        _ => None,
    });
    let section = section.expect("section 1 is recorded");
    assert_eq!((section.dropped, section.reopened), (1, 1));
    assert!(section.withdrawn > 0, "{section:?}");
    assert_eq!(section.outcome, SectionOutcome::Kept);
    // The owed positions are the dropped note's and those of the notes withdrawn.
    assert_eq!(continues[0].owed[0].positions.len(), 1 + section.withdrawn);
    let withdrawn: Vec<_> = trace
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Event(cert) if cert.withdrawn => Some(cert),
            _ => None,
        })
        .collect();
    assert_eq!(withdrawn.len(), section.withdrawn);
    assert_eq!(trace.totals.withdrawn, section.withdrawn as u64);
    assert!(
        withdrawn
            .iter()
            .all(|cert| cert.accepted.as_ref().is_some_and(|e| e.voice == 0)),
        "only the soprano's notes after the drop are withdrawn"
    );
}

#[tokio::test]
async fn without_reopened_drops_a_dropped_inner_note_replans_the_section() {
    let backend = Arc::new(Scripted::new(vec![
        Step::OracleWrongPitch { voice: 0, note: 2 },
        Step::RepairsInProse,
    ]));
    let proposer = LlmProposer::new(backend, AskOptions::default());
    let c = Composer::new(GateMode::Strict, compose::budget())
        .compose(&spec(2, 4), 4, &proposer)
        .await
        .expect("plans");
    assert_honest(&c, "dropped inner note, not reopened");
    assert!(c.outcome.is_released(), "the replan places it");
    let trace = c.outcome.trace();
    assert_eq!(trace.totals.replans, 1, "{:?}", trace.totals);
    assert_eq!(trace.totals.withdrawn, 0);
    assert_eq!(section_calls(&c, 0, RequestType::Section), 2);
}

#[tokio::test]
async fn five_voices_are_asked_three_then_two_the_later_held_clear_of_the_earlier() {
    let backend = Arc::new(Scripted::oracle());
    let c = run(&spec(5, 4), 3, backend.clone(), AskOptions::default()).await;
    assert_honest(&c, "five voices");
    let requests = backend.requests.lock().unwrap().clone();
    let names = |i: usize| -> Vec<String> {
        requests[i].context["voices"]
            .as_array()
            .expect("voices")
            .iter()
            .map(|v| v["name"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let plan_names: Vec<String> = c.plan.sections[0].voice_names[..3].to_vec();
    assert_eq!(
        names(0),
        plan_names,
        "the section request asks the first three voices"
    );
    let continues = calls(&c, RequestType::Continue);
    let first_continue = continues.first().expect("the other voices are asked next");
    let owed: Vec<usize> = first_continue.owed.iter().map(|o| o.part).collect();
    assert!(
        owed.contains(&3) && owed.contains(&4),
        "the fourth and fifth voices are owed: {owed:?}"
    );
}

#[tokio::test]
async fn a_backend_talking_prose_ends_in_an_explicit_failure() {
    let prose: Vec<Step> = (0..20)
        .map(|_| Step::Text("As an AI language model I love music.".into()))
        .collect();
    let backend = Arc::new(Scripted::new(prose));
    let c = run(&spec(2, 4), 5, backend, AskOptions::default()).await;
    assert_honest(&c, "prose");
    let Outcome::Failure { diagnostics, .. } = &c.outcome else {
        panic!("prose cannot be released");
    };
    let text = diagnostics[0].to_string();
    assert!(text.contains("output unreadable"), "{text}");
    assert!(text.contains("no line starts with a voice name"), "{text}");
}

#[tokio::test]
async fn wrong_pitches_everywhere_never_release_an_invalid_piece() {
    // Every section reply and every patch has a wrong pitch somewhere.
    for seed in 0..4 {
        let steps = || -> Vec<Step> {
            (0..200)
                .map(|i| Step::OracleWrongPitch {
                    voice: i % 2,
                    note: (i * 7 + seed as usize) % 5,
                })
                .collect()
        };
        let mut budget = compose::budget();
        budget.max_proposer_calls = Some(60);
        // With the planner's budget, and with a model run's: drops reopened (and the
        // notes after them withdrawn), crossings moved by octaves.
        for model in [false, true] {
            let backend = Arc::new(Scripted::new(steps()));
            let proposer = LlmProposer::new(backend, AskOptions::default());
            let composer = if model {
                Composer::for_model(GateMode::Strict, compose::model_budget(budget.clone()))
            } else {
                Composer::new(GateMode::Strict, budget.clone())
            };
            let c = composer
                .compose(&spec(2, 8), seed, &proposer)
                .await
                .expect("plans");
            assert_honest(&c, &format!("seed {seed}, model budget {model}"));
            if let Outcome::Failure { diagnostics, .. } = &c.outcome {
                eprintln!("seed {seed}, model budget {model}: {}", diagnostics[0]);
            }
        }
    }
}
