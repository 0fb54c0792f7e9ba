//! The raw baseline with a scripted backend: a valid whole piece is released by the
//! strict gate, a piece with a wrong pitch is refused naming the rule, prose is an
//! explicit unreadable failure carrying the reader's diagnostic, a failing backend is
//! reported — and the reply text is always kept.

mod llm_support;

use cantus_framework::AskOptions;
use cantus_framework::ModelError;
use cantus_music::grammar;
use cantus_twelve_tone::raw::{RawVerdict, compose_raw};
use cantus_twelve_tone::spec::Spec;
use cantus_twelve_tone::{Blueprint, synth};
use llm_support::{Scripted, Step};

fn spec() -> Spec {
    let mut spec = Spec::with_voice_count(2);
    spec.bars = 8;
    spec.section_bars = 4;
    spec
}

/// A valid piece for `spec` planned with `seed`, in the grammar.
fn valid_bars(seed: u64) -> String {
    let plan = Blueprint::new(&spec(), seed).unwrap();
    let score = synth::from_plan(&plan, seed).expect("a valid piece");
    grammar::write(&score).expect("writes")
}

#[tokio::test]
async fn a_valid_whole_piece_is_released_by_the_strict_gate() {
    let bars = valid_bars(9);
    let backend = Scripted::new(vec![Step::Text(format!("Here you go:\n{bars}"))]);
    let out = compose_raw(&spec(), 9, &backend, &AskOptions::default())
        .await
        .expect("plans");
    assert!(
        out.is_released(),
        "{}\n{:?}\n{}",
        out.summary(),
        out.report(),
        out.text
    );
    assert_eq!(out.calls, 1);
    assert_eq!(
        (out.tokens.tokens_in, out.tokens.tokens_out),
        (Some(100), Some(40))
    );
    assert!(
        out.text.starts_with("Here you go:"),
        "the raw text is kept as sent"
    );
    assert!(
        out.warnings.iter().any(|w| w.contains("line")),
        "the prose line was skipped with a warning: {:?}",
        out.warnings
    );
    // The prompt gave the header and the row forms of every section.
    let prompt = backend.prompt(0);
    assert!(prompt.contains("METER: 4/4"), "{prompt}");
    assert!(prompt.contains("Bars 5-8:"), "{prompt}");
}

#[tokio::test]
async fn bars_without_a_header_are_read_under_the_planned_header() {
    // The model wrote only the bars (the prompt gave the header): each bar states its
    // grid, since the planned header's grid is 16.
    let text = valid_bars(9);
    let header = text.lines().next().unwrap();
    let grid = header
        .split('|')
        .find_map(|f| f.trim().strip_prefix("GRID: "))
        .unwrap()
        .trim_end_matches("th")
        .to_owned();
    let bars: String = text
        .lines()
        .skip(2)
        .map(|l| {
            if l.starts_with('@') && !l.contains("(grid:") {
                format!("{l} (grid:{grid})\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let backend = Scripted::new(vec![Step::Text(bars)]);
    let out = compose_raw(&spec(), 9, &backend, &AskOptions::default())
        .await
        .expect("plans");
    assert!(out.is_released(), "{}: {:?}", out.summary(), out.report());
}

#[tokio::test]
async fn a_wrong_pitch_is_refused_naming_the_rule() {
    let bars = valid_bars(9);
    // Move the first note of the piece up a semitone (its pitch is the first token).
    let mut broken = String::new();
    let mut done = false;
    for line in bars.lines() {
        if !done && line.starts_with("  ") {
            let (name, rest) = line.split_once(": ").unwrap();
            let (first, tail) = rest.split_once('@').unwrap();
            let letter = &first[..1];
            let raised = match letter {
                _ if first.contains(['#', 'b']) => panic!("unexpected first pitch {first}"),
                "E" => format!("F{}", &first[1..]),
                _ => format!("{letter}#{}", &first[1..]),
            };
            broken.push_str(&format!("{name}: {raised}@{tail}\n"));
            done = true;
        } else {
            broken.push_str(line);
            broken.push('\n');
        }
    }
    let backend = Scripted::new(vec![Step::Text(broken)]);
    let out = compose_raw(&spec(), 9, &backend, &AskOptions::default())
        .await
        .expect("plans");
    let RawVerdict::Refused { report, .. } = &out.verdict else {
        panic!("expected a refusal, got {}", out.summary());
    };
    assert!(!report.passed);
    assert!(
        report
            .violations
            .iter()
            .any(|v| v.predicate.as_str().starts_with("TT-ROW")),
        "{:?}",
        report.violations
    );
    assert!(out.summary().starts_with("refused by the strict gate"));
}

#[tokio::test]
async fn prose_is_an_explicit_unreadable_failure() {
    let backend = Scripted::new(vec![Step::Text(
        "I'm sorry, but I can't write music notation.".into(),
    )]);
    let out = compose_raw(&spec(), 9, &backend, &AskOptions::default())
        .await
        .expect("plans");
    let RawVerdict::Unreadable { diagnostic } = &out.verdict else {
        panic!("expected unreadable, got {}", out.summary());
    };
    assert!(diagnostic.contains("holds no note"), "{diagnostic}");
    assert!(out.report().is_none());
    assert_eq!(out.text, "I'm sorry, but I can't write music notation.");
}

#[tokio::test]
async fn a_failing_backend_is_reported() {
    let backend = Scripted::new(vec![Step::Fail(ModelError::Http {
        status: 503,
        message: "overloaded".into(),
        retry_after: cantus_framework::RetryAfter::Unsaid,
    })]);
    let out = compose_raw(&spec(), 9, &backend, &AskOptions::default())
        .await
        .expect("plans");
    let RawVerdict::ModelFailed { message } = &out.verdict else {
        panic!("expected a model failure, got {}", out.summary());
    };
    assert_eq!(message, "scripted: HTTP 503: overloaded");
    assert!(!out.is_released());
}

#[tokio::test]
async fn a_whole_piece_request_is_tagged_from_the_schedule() {
    use cantus_framework::{Assemble, ProposalRequest, Proposer, RequestKind};
    use cantus_twelve_tone::gate::{GateMode, SerialGate};
    use cantus_twelve_tone::proposer::llm::LlmProposer;
    use cantus_twelve_tone::{ToneState, TwelveTone};
    use std::sync::Arc;

    let plan = Blueprint::new(&spec(), 9).unwrap();
    let state = ToneState::new(&plan);
    let prose = Step::Text("Let me think about it.".into());
    let backend = Arc::new(Scripted::new(vec![prose, Step::Text(valid_bars(9))]));
    let proposer = LlmProposer::new(backend.clone(), AskOptions::default());
    let proposal = proposer
        .propose(ProposalRequest {
            kind: RequestKind::Whole,
            spec: &plan,
            plan: &plan.sections,
            section_index: None,
            state: &state,
            feedback: &[],
            attempt: 0,
            seed: 9,
        })
        .await
        .expect("the second reply reads");
    assert_eq!(
        backend.calls(),
        2,
        "the unreadable first reply was asked again"
    );
    assert!(backend.prompt(1).contains("could not be read"));
    assert_eq!(proposal.exchange.as_ref().map(|e| e.reasks), Some(1));
    let score = TwelveTone.assemble(&plan, proposal.events);
    // The relaxed gate trusts tags: it passes only if the schedule's tags are right.
    for mode in [GateMode::Strict, GateMode::Relaxed] {
        let report = SerialGate::for_plan(&plan, mode).judge_score(&score);
        assert!(report.passed, "{mode:?}: {:?}", report.violations);
    }
}
