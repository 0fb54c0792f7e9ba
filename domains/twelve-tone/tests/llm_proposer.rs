//! The LLM proposer against a scripted backend: good replies become tagged events on
//! the row cursor; prose is asked again and then refused; a reply cut off at the
//! token limit is kept and the rest asked for by a continue request; replies are
//! sized to the notes asked for; junk numbers never panic; a failing backend is
//! reported; violations of a refused note reach the repair prompt.

mod llm_support;

use cantus_framework::AskOptions;
use cantus_framework::{
    Domain, ModelError, Proposal, ProposalRequest, Proposer, ProposerError, RequestKind, Violation,
};
use cantus_music::Time;
use cantus_twelve_tone::proposer::llm::LlmProposer;
use cantus_twelve_tone::spec::Spec;
use cantus_twelve_tone::{Blueprint, Location, ToneEvent, ToneState, TwelveTone};
use llm_support::{Scripted, Step};
use std::sync::Arc;

fn small_spec(voices: usize) -> Spec {
    let mut spec = Spec::with_voice_count(voices);
    spec.bars = 8;
    spec.section_bars = 4;
    spec
}

fn planned(voices: usize, seed: u64) -> (Blueprint, ToneState) {
    let plan = Blueprint::new(&small_spec(voices), seed).expect("plans");
    let mut state = ToneState::new(&plan);
    TwelveTone.begin_section(&mut state, &plan.sections[0]);
    (plan, state)
}

fn proposer(backend: &Arc<Scripted>, options: AskOptions) -> LlmProposer {
    LlmProposer::new(backend.clone(), options)
}

async fn ask(
    p: &LlmProposer,
    plan: &Blueprint,
    state: &ToneState,
    kind: RequestKind<'_, TwelveTone>,
    feedback: &[cantus_framework::Feedback<Location>],
) -> Result<Proposal<ToneEvent>, ProposerError> {
    p.propose(ProposalRequest {
        kind,
        spec: plan,
        plan: &plan.sections,
        section_index: Some(0),
        state,
        feedback,
        attempt: 0,
        seed: 7,
    })
    .await
}

/// Every voice's events state its section-0 form in order, one position each.
fn assert_on_the_row(plan: &Blueprint, events: &[ToneEvent], voices: usize) {
    for v in 0..voices {
        let form = plan.sections[0].forms[v];
        let pcs = plan.table.pcs(form);
        let line: Vec<&ToneEvent> = events.iter().filter(|e| e.voice == v).collect();
        assert_eq!(line.len(), 12, "voice {v} has all twelve notes");
        for (i, e) in line.iter().enumerate() {
            assert_eq!(e.tag.form, form);
            assert_eq!(usize::from(e.tag.start), i);
            assert_eq!(e.pitches.len(), 1);
            assert_eq!(e.pitches[0] % 12, pcs[i], "voice {v} note {i}");
            let section = &plan.sections[0];
            assert!(e.onset >= section.start && e.end() <= section.end);
        }
        for pair in line.windows(2) {
            assert!(pair[0].end() <= pair[1].onset, "notes of voice {v} overlap");
        }
    }
}

#[tokio::test]
async fn a_correct_reply_becomes_tagged_events_with_cost_and_exchange() {
    let (plan, state) = planned(2, 3);
    let backend = Arc::new(Scripted::oracle());
    let p = proposer(&backend, AskOptions::default());
    let got = ask(&p, &plan, &state, RequestKind::Section, &[])
        .await
        .expect("answers");
    assert_on_the_row(&plan, &got.events, 2);
    assert_eq!(backend.calls(), 1);
    assert_eq!(got.cost.tokens_in, Some(100));
    assert_eq!(got.cost.tokens_out, Some(40));
    let ex = got.exchange.expect("an exchange is recorded");
    assert_eq!((ex.backend.as_str(), ex.reasks), ("scripted", 0));
    assert_eq!(ex.constraint, None);
    assert_eq!(ex.constraint_honoured, None);
    assert_eq!(ex.stop_reason.as_deref(), Some("stop"));
    // The prompt states the row from the cursor and each voice's form.
    let prompt = backend.prompt(0);
    for v in 0..2 {
        let form = plan.sections[0].forms[v].to_string();
        assert!(
            prompt.contains(&format!("{form} from position 1")),
            "{prompt}"
        );
    }
    assert!(prompt.contains("bars 1-4 of 4/4"), "{prompt}");
}

#[tokio::test]
async fn prose_is_asked_again_then_refused_as_bad_output() {
    let (plan, state) = planned(2, 3);
    let prose = || Step::Text("Sure! Here is a lovely twelve-tone piece for you.".to_owned());
    let backend = Arc::new(Scripted::new(vec![prose(), prose(), prose()]));
    let p = proposer(&backend, AskOptions::default());
    let err = ask(&p, &plan, &state, RequestKind::Section, &[])
        .await
        .expect_err("prose is not music");
    let ProposerError::BadOutput(message) = err else {
        panic!("expected BadOutput, got {err:?}");
    };
    assert!(message.contains("3 replies"), "{message}");
    assert!(
        message.contains("no line starts with a voice name"),
        "{message}"
    );
    assert_eq!(backend.calls(), 3, "two re-asks after the first reply");
    assert!(!backend.prompt(0).contains("could not be used"));
    assert!(
        backend
            .prompt(1)
            .contains("your last answer could not be used: no line starts with a voice name")
    );
}

#[tokio::test]
async fn prose_then_a_good_reply_is_accepted_with_one_reask() {
    let (plan, state) = planned(2, 5);
    let backend = Arc::new(Scripted::new(vec![Step::Text("I cannot do that.".into())]));
    let p = proposer(&backend, AskOptions::default());
    let got = ask(&p, &plan, &state, RequestKind::Section, &[])
        .await
        .expect("second reply reads");
    assert_on_the_row(&plan, &got.events, 2);
    assert_eq!(got.exchange.unwrap().reasks, 1);
    assert_eq!(
        got.cost.tokens_in,
        Some(200),
        "tokens of both calls are counted"
    );
}

#[tokio::test]
async fn a_reply_cut_off_at_the_token_limit_is_kept_and_the_rest_asked_by_a_continue_request() {
    let (plan, mut state) = planned(2, 3);
    // A first answer cut in the middle of the second voice's line.
    let full = {
        let probe = Arc::new(Scripted::oracle());
        let p = proposer(&probe, AskOptions::default());
        ask(&p, &plan, &state, RequestKind::Section, &[])
            .await
            .unwrap();
        llm_support::oracle(&probe.requests.lock().unwrap()[0], None)
    };
    let cut: String = full.chars().take(full.len() * 3 / 4).collect();
    let backend = Arc::new(Scripted::new(vec![Step::Truncated(cut)]));
    let p = proposer(&backend, AskOptions::default());
    let got = ask(&p, &plan, &state, RequestKind::Section, &[])
        .await
        .expect("the readable part");
    // Kept at once: no re-ask of the whole section.
    assert_eq!(backend.calls(), 1);
    assert_eq!(got.exchange.unwrap().stop_reason.as_deref(), Some("length"));
    assert_eq!(got.events.iter().filter(|e| e.voice == 0).count(), 12);
    let second_voice = got.events.iter().filter(|e| e.voice == 1).count();
    assert!(
        second_voice < 12,
        "the cut line stays short ({second_voice})"
    );
    // The reply was asked for with the tokens its 24 notes need, not a fixed limit.
    let asked = backend.requests.lock().unwrap()[0].sampling.max_tokens;
    assert_eq!(asked, Some((24 * 9 + 2 * 6) * 9 / 8 + 16));

    // The engine accepts what was readable; the domain says what is still owed …
    let section = &plan.sections[0];
    for e in &got.events {
        TwelveTone.accept(&mut state, section, e);
    }
    let owed = TwelveTone.owed(&plan, &state, section);
    assert_eq!(owed.len(), 1, "{owed:?}");
    assert_eq!(owed[0].part, 1);
    let from = u32::try_from(second_voice).unwrap();
    assert_eq!(owed[0].positions, (from..12).collect::<Vec<_>>());
    // … and a continue request asks for exactly that: one voice, from its cursor.
    let backend = Arc::new(Scripted::oracle());
    let p = proposer(&backend, AskOptions::default());
    let rest = ask(
        &p,
        &plan,
        &state,
        RequestKind::Continue { owed: &owed },
        &[],
    )
    .await
    .expect("the rest");
    assert!(rest.events.iter().all(|e| e.voice == 1));
    let starts: Vec<u32> = rest.events.iter().map(|e| u32::from(e.tag.start)).collect();
    assert_eq!(starts, (from..12).collect::<Vec<_>>());
    let prompt = backend.prompt(0);
    assert!(
        prompt.contains(&format!("from position {}", from + 1)),
        "{prompt}"
    );
    for e in &rest.events {
        TwelveTone.accept(&mut state, section, e);
    }
    assert!(
        TwelveTone.owed(&plan, &state, section).is_empty(),
        "complete"
    );
}

#[tokio::test]
async fn a_section_too_big_for_the_token_ceiling_is_asked_for_by_voice() {
    let (plan, state) = planned(3, 4);
    let backend = Arc::new(Scripted::oracle());
    // Room for one voice's twelve notes and a little, not for three voices.
    let p = proposer(
        &backend,
        AskOptions {
            max_tokens: Some(150),
            ..AskOptions::default()
        },
    );
    let got = ask(&p, &plan, &state, RequestKind::Section, &[])
        .await
        .expect("a part");
    let voices: std::collections::BTreeSet<usize> = got.events.iter().map(|e| e.voice).collect();
    assert_eq!(voices.into_iter().collect::<Vec<_>>(), vec![0]);
    assert_eq!(got.events.len(), 12);
    let asked = backend.requests.lock().unwrap()[0].sampling.max_tokens;
    assert!(asked.is_some_and(|n| n <= 150), "{asked:?}");
}

#[tokio::test]
async fn junk_numbers_and_notes_outside_the_section_never_panic() {
    let (plan, state) = planned(2, 3);
    let names: Vec<String> = plan.limits.voices.iter().map(|v| v.name.clone()).collect();
    let junk = format!(
        "{a}: C4@99999999999999999999999>3 C4@1>0 E4@65>2 Zq@1>1 C4@-3>2 E4@1>999999999999 \
         C#4@1>4 D#4@5>4 C99@9>1\n\
         {b}: {}\n",
        "C3@1>1 ".repeat(40),
        a = names[0],
        b = names[1],
    );
    let backend = Arc::new(Scripted::new(vec![
        Step::Text(junk.clone()),
        Step::Text(junk.clone()),
        Step::Text(junk),
    ]));
    let p = proposer(&backend, AskOptions::default());
    let got = ask(&p, &plan, &state, RequestKind::Section, &[])
        .await
        .expect("readable");
    let section = &plan.sections[0];
    for e in &got.events {
        assert!(e.onset >= section.start && e.onset < section.end, "{e:?}");
        assert!(
            e.end() <= section.end && e.duration > Time::from_integer(0),
            "{e:?}"
        );
        assert!(e.tag.end() <= 12);
    }
    // Each voice claims at most its twelve positions; the extra notes were refused.
    for v in 0..2 {
        assert!(got.events.iter().filter(|e| e.voice == v).count() <= 12);
    }
    // The short first voice was asked again, with what went wrong.
    assert_eq!(backend.calls(), 3);
    let prompt = backend.prompt(1);
    assert!(
        prompt.contains("past the 12 pitch classes owed"),
        "{prompt}"
    );
    assert!(prompt.contains("notes short"), "{prompt}");
}

#[tokio::test]
async fn a_failing_backend_is_reported_as_unavailable() {
    let (plan, state) = planned(2, 3);
    let backend = Arc::new(Scripted::new(vec![Step::Fail(ModelError::Timeout(
        "no answer within 30 s".into(),
    ))]));
    let p = proposer(&backend, AskOptions::default());
    let err = ask(&p, &plan, &state, RequestKind::Section, &[])
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ProposerError::Unavailable("scripted: timed out: no answer within 30 s".into())
    );
}

#[tokio::test]
async fn a_patch_prompt_carries_the_violations_and_the_answer_keeps_the_tag() {
    let (plan, state) = planned(2, 3);
    let backend = Arc::new(Scripted::oracle());
    let p = proposer(&backend, AskOptions::default());
    let section = ask(&p, &plan, &state, RequestKind::Section, &[])
        .await
        .unwrap();
    let candidate = section.events[0].clone();
    let violations = vec![Violation::hard(
        cantus_twelve_tone::gate::Rule::Collision,
        Location {
            bar: 1,
            voice: plan.limits.voices[0].name.clone(),
            onset: candidate.onset,
        },
        "shares pitch class E with Bass",
    )];
    let kind = RequestKind::Patch {
        candidate: &candidate,
        violations: &violations,
    };
    let got = ask(&p, &plan, &state, kind, &[]).await.expect("a patch");
    let prompt = backend.prompt(1);
    assert!(prompt.contains("[TT-COLLISION]"), "{prompt}");
    assert!(prompt.contains("This note was refused"), "{prompt}");
    assert_eq!(got.events.len(), 1);
    assert_eq!(got.events[0].tag, candidate.tag);
    assert_eq!(got.events[0].pitches[0] % 12, candidate.pitches[0] % 12);
}

#[tokio::test]
async fn a_rewrite_replaces_the_voice_segment_and_keeps_other_voices_pending() {
    let (plan, state) = planned(2, 3);
    let backend = Arc::new(Scripted::oracle());
    let p = proposer(&backend, AskOptions::default());
    let section = ask(&p, &plan, &state, RequestKind::Section, &[])
        .await
        .unwrap();
    let candidate = section.events[4].clone();
    let pending: Vec<ToneEvent> = section.events[5..].to_vec();
    let kind = RequestKind::Rewrite {
        candidate: &candidate,
        pending: &pending,
        violations: &[],
    };
    let got = ask(&p, &plan, &state, kind, &[]).await.expect("a rewrite");
    let own: Vec<&ToneEvent> = got.events.iter().filter(|e| e.voice == 0).collect();
    assert_eq!(own.len(), 8, "positions 5..=12 of voice 0");
    assert_eq!(own[0].tag.start, 4);
    let others: Vec<&ToneEvent> = got.events.iter().filter(|e| e.voice == 1).collect();
    assert_eq!(
        others.len(),
        12,
        "the other voice's pending events are kept"
    );
    assert!(backend.prompt(1).contains("Rewrite"));
}

#[tokio::test]
async fn a_reply_repeated_until_the_token_limit_is_read_once() {
    let (plan, state) = planned(2, 3);
    let once = {
        let probe = Arc::new(Scripted::oracle());
        let p = proposer(&probe, AskOptions::default());
        ask(&p, &plan, &state, RequestKind::Section, &[])
            .await
            .unwrap();
        llm_support::oracle(&probe.requests.lock().unwrap()[0], None)
    };
    // What SmolLM2 does unconstrained: the answer again and again, cut off.
    let repeated = format!("{once}Note: slots count from 1\n{once}{once}");
    let cut: String = repeated.chars().take(repeated.len() - 7).collect();
    let backend = Arc::new(Scripted::new(vec![Step::Truncated(cut)]));
    let p = proposer(&backend, AskOptions::default());
    let got = ask(&p, &plan, &state, RequestKind::Section, &[])
        .await
        .expect("reads");
    assert_eq!(
        backend.calls(),
        1,
        "the first line of each voice is a complete answer"
    );
    assert_on_the_row(&plan, &got.events, 2);
}

/// Issue 12's prompts that cache: every request of a run — a section, a re-ask with
/// feedback, a patch — starts with the same text (the system message: notation,
/// rules, row, example), and what varies comes after it, so a server's prefix cache
/// can reuse it.
#[tokio::test]
async fn requests_of_one_run_share_their_prefix_up_to_what_varies() {
    let (plan, state) = planned(2, 3);
    let backend = Arc::new(Scripted::new(vec![Step::Text("prose, not notes".into())]));
    let p = proposer(&backend, AskOptions::default());
    let section = ask(&p, &plan, &state, RequestKind::Section, &[])
        .await
        .expect("answers on the re-ask");
    let candidate = section.events[0].clone();
    let violations = vec![Violation::hard(
        cantus_twelve_tone::gate::Rule::Collision,
        Location {
            bar: 1,
            voice: plan.limits.voices[0].name.clone(),
            onset: candidate.onset,
        },
        "shares pitch class E with Bass",
    )];
    let kind = RequestKind::Patch {
        candidate: &candidate,
        violations: &violations,
    };
    ask(&p, &plan, &state, kind, &[]).await.expect("a patch");
    let requests = backend.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 3, "section, its re-ask, the patch");
    let prefix = &requests[0].messages[0].content;
    assert!(
        prefix.contains("Notation:") && prefix.contains("Rules:"),
        "{prefix}"
    );
    assert!(prefix.contains("The row: "), "{prefix}");
    // Nothing that varies is in the prefix.
    for varying in [
        "Section 1",
        "from position",
        "Problems",
        "refused",
        "Answer with exactly",
    ] {
        assert!(
            !prefix.contains(varying),
            "{varying:?} in the prefix: {prefix}"
        );
    }
    for r in &requests {
        assert_eq!(
            &r.messages[0].content, prefix,
            "every request starts the same"
        );
        assert_eq!(r.messages.len(), 2);
    }
    // What varies is what follows: the three user messages all differ.
    let users: Vec<&str> = requests
        .iter()
        .map(|r| r.messages[1].content.as_str())
        .collect();
    assert_ne!(users[0], users[1], "the re-ask says why");
    assert_ne!(users[0], users[2], "the patch asks for one note");
    assert!(users[1].contains("could not be used"), "{}", users[1]);
}

/// A canon's follower is not asked of the model: the request names only the leader
/// (which ends early enough for the follower to finish in the section), and the
/// answer carries the follower derived from it — the leader shifted by the delay,
/// its pitch classes mapped onto the follower's form.
#[tokio::test]
async fn a_canon_follower_is_derived_from_the_leaders_answer_not_asked_for() {
    let brief = cantus_twelve_tone::spec::compile_brief(
        "A 16-bar duo in 2/4 with a canon between voices 1 and 2",
    )
    .expect("the brief compiles");
    let plan = Blueprint::new(&brief.spec, 0).expect("plans");
    let c = plan.canons[0];
    let mut state = ToneState::new(&plan);
    TwelveTone.begin_section(&mut state, &plan.sections[0]);
    let backend = Arc::new(Scripted::oracle());
    let p = proposer(&backend, AskOptions::default());
    let got = ask(&p, &plan, &state, RequestKind::Section, &[])
        .await
        .expect("answers");
    assert_eq!(backend.calls(), 1);
    let prompt = backend.prompt(0);
    let follower_name = &plan.limits.voices[c.follower].name;
    assert!(
        !prompt.contains(&format!("`{follower_name}:`")),
        "the follower is not asked for: {prompt}"
    );
    let section = &plan.sections[0];
    let leader: Vec<&ToneEvent> = got.events.iter().filter(|e| e.voice == c.leader).collect();
    let follower: Vec<&ToneEvent> = got
        .events
        .iter()
        .filter(|e| e.voice == c.follower)
        .collect();
    assert_eq!(leader.len(), 12);
    assert_eq!(follower.len(), 12, "the follower is derived in full");
    let map = c.map.in_section(plan.table.pcs(section.forms[c.leader])[0]);
    for (l, f) in leader.iter().zip(&follower) {
        assert_eq!(f.onset, l.onset + c.delay);
        assert_eq!(f.duration, l.duration);
        assert_eq!(f.pitches[0] % 12, map.apply(l.pitches[0] % 12));
        assert_eq!(
            (f.tag.form, f.tag.start),
            (section.forms[c.follower], l.tag.start)
        );
        assert!(
            f.end() <= section.end,
            "the follower finishes in the section"
        );
    }
}

/// A section asked again after a replan is a different request, not the same one
/// again: the plan it is laid out by is drawn afresh for the attempt (calmer after
/// drops), so under `freedom = "plan"` the grammar's onsets and lengths — and the
/// model's answer — move.
#[tokio::test]
async fn a_replanned_section_is_asked_for_with_a_different_layout() {
    let (plan, state) = planned(2, 3);
    let backend = Arc::new(Scripted::oracle());
    let p = proposer(
        &backend,
        AskOptions {
            constrained: true,
            freedom: cantus_framework::Freedom::Plan,
            ..AskOptions::default()
        },
    );
    let dropped = [cantus_framework::Feedback::Dropped {
        section: 0,
        dropped: 3,
        proposed: 24,
    }];
    for (attempt, feedback) in [(0, &[][..]), (1, &dropped[..])] {
        p.propose(ProposalRequest {
            kind: RequestKind::Section,
            spec: &plan,
            plan: &plan.sections,
            section_index: Some(0),
            state: &state,
            feedback,
            attempt,
            seed: 7,
        })
        .await
        .expect("answers");
    }
    let requests = backend.requests.lock().unwrap().clone();
    let grammar = |i: usize| match &requests[i].constraint {
        Some(cantus_framework::Constraint::Gbnf(g)) => g.clone(),
        other => panic!("a grammar: {other:?}"),
    };
    assert_ne!(grammar(0), grammar(1), "the replan asks for another layout");
    // Both are laid out by a plan: each note has one onset slot.
    for i in 0..2 {
        let g = grammar(i);
        let at = g.lines().find(|l| l.starts_with("v0-n3-at ::= ")).unwrap();
        assert!(!at.contains('|') && !at.contains('['), "{at}");
    }
}

/// Held to the rules only (the default), a replan moves the advice, not the
/// constraint: the grammar of the section asked again is the same language (the
/// rules did not change), while the prompt's suggested layout is the new plan's.
#[tokio::test]
async fn under_the_rules_a_replan_moves_the_advice_and_not_the_grammar() {
    let (plan, state) = planned(2, 3);
    let backend = Arc::new(Scripted::oracle());
    let p = proposer(
        &backend,
        AskOptions {
            constrained: true,
            ..AskOptions::default()
        },
    );
    let dropped = [cantus_framework::Feedback::Dropped {
        section: 0,
        dropped: 3,
        proposed: 24,
    }];
    for (attempt, feedback) in [(0, &[][..]), (1, &dropped[..])] {
        p.propose(ProposalRequest {
            kind: RequestKind::Section,
            spec: &plan,
            plan: &plan.sections,
            section_index: Some(0),
            state: &state,
            feedback,
            attempt,
            seed: 7,
        })
        .await
        .expect("answers");
    }
    let requests = backend.requests.lock().unwrap().clone();
    let grammar = |i: usize| match &requests[i].constraint {
        Some(cantus_framework::Constraint::Gbnf(g)) => g.clone(),
        other => panic!("a grammar: {other:?}"),
    };
    assert_eq!(grammar(0), grammar(1), "the rules did not change");
    // Every note's onset is open: the grammar offers more than one slot for it.
    let at = grammar(0);
    assert!(
        at.lines().filter(|l| l.contains(" | ")).count() > 10,
        "a rules-only grammar offers choices: {at}"
    );
    let prompt = |i: usize| {
        requests[i]
            .messages
            .iter()
            .map(|m| m.content.clone())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let advice = |i: usize| {
        let p = prompt(i);
        let at = p.find("A suggested plan").expect("the plan is advice");
        p[at..]
            .lines()
            .skip(1)
            .take(2)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_ne!(advice(0), advice(1), "the advice is the new plan's");
}
