//! Constrained decoding: the GBNF grammar the proposer sends admits, for each voice,
//! exactly the pitch classes its row cursor allows next, in order, spelled any way
//! inside the voice's register, with bounded slot numbers; the trace says whether a
//! reply stayed inside that language. The grammar's layout is checked here under
//! `freedom = "plan"` (one onset window per planned note); the default, rules-only
//! grammar is checked string for string against the rules in `proposer/llm/line.rs`.

mod llm_support;

use cantus_framework::{AskOptions, Freedom};
use cantus_framework::{Constraint, Domain, ProposalRequest, Proposer, RequestKind};
use cantus_twelve_tone::proposer::llm::LlmProposer;
use cantus_twelve_tone::spec::Spec;
use cantus_twelve_tone::{Blueprint, ToneEvent, ToneState, TwelveTone};
use llm_support::{Scripted, Step};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The grammar's rules by name (right-hand sides as written).
fn rules(gbnf: &str) -> BTreeMap<String, String> {
    gbnf.lines()
        .filter_map(|l| l.split_once(" ::= "))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// The pitch class of a grammar pitch name such as `"C#4"` or `"Bb3"` (quotes included).
fn pc_of(literal: &str) -> (u8, i32) {
    let name = literal.trim_matches('"');
    let mut chars = name.chars();
    let letter = chars.next().unwrap();
    let base: i32 = match letter {
        'C' => 0,
        'D' => 2,
        'E' => 4,
        'F' => 5,
        'G' => 7,
        'A' => 9,
        'B' => 11,
        other => panic!("not a letter: {other}"),
    };
    let rest: String = chars.collect();
    let alter = rest
        .chars()
        .take_while(|c| *c == '#' || *c == 'b')
        .fold(0, |a, c| a + if c == '#' { 1 } else { -1 });
    let octave: i32 = rest.trim_start_matches(['#', 'b']).parse().unwrap();
    let midi = (octave + 1) * 12 + base + alter;
    (u8::try_from((base + alter).rem_euclid(12)).unwrap(), midi)
}

/// Plans 2 voices and accepts `done` single sixteenth notes of voice 0 on its
/// section-0 form, so its cursor stands at position `done`.
async fn cursor_at(done: usize) -> (Blueprint, ToneState) {
    let mut spec = Spec::with_voice_count(2);
    spec.bars = 8;
    spec.section_bars = 4;
    let plan = Blueprint::new(&spec, 11).unwrap();
    let mut state = ToneState::new(&plan);
    TwelveTone.begin_section(&mut state, &plan.sections[0]);
    let form = plan.sections[0].forms[0];
    let voice = &plan.limits.voices[0];
    for (i, &pc) in plan.table.pcs(form).iter().take(done).enumerate() {
        let e = ToneEvent {
            voice: 0,
            onset: cantus_music::Time::new(i as i64, 4),
            duration: cantus_music::Time::new(1, 4),
            pitches: vec![llm_support::middle_pitch(pc, voice.low, voice.high)],
            tag: cantus_twelve_tone::Tag {
                form,
                start: i as u8,
                len: 1,
            },
        };
        TwelveTone.accept(&mut state, &plan.sections[0], &e);
    }
    assert_eq!(usize::from(state.voices[0].cursor.position), done);
    (plan, state)
}

async fn section(p: &LlmProposer, plan: &Blueprint, state: &ToneState) -> Vec<ToneEvent> {
    p.propose(ProposalRequest {
        kind: RequestKind::Section,
        spec: plan,
        plan: &plan.sections,
        section_index: Some(0),
        state,
        feedback: &[],
        attempt: 0,
        seed: 1,
    })
    .await
    .expect("answers")
    .events
}

#[tokio::test]
async fn the_grammar_admits_exactly_the_pitch_classes_the_cursor_allows_next() {
    for done in [0usize, 5, 11] {
        let (plan, state) = cursor_at(done).await;
        let backend = Arc::new(Scripted::oracle());
        let p = LlmProposer::new(
            backend.clone(),
            AskOptions {
                constrained: true,
                freedom: Freedom::Plan,
                ..AskOptions::default()
            },
        );
        let events = section(&p, &plan, &state).await;
        let request = backend.requests.lock().unwrap()[0].clone();
        let Some(Constraint::Gbnf(gbnf)) = request.constraint else {
            panic!("a constrained proposer sends a GBNF grammar");
        };
        let rules = rules(&gbnf);
        assert_eq!(rules["root"], "v0 v1", "both voices still owe notes");
        for (v, owed_from) in [(0usize, done), (1, 0)] {
            let voice = &plan.limits.voices[v];
            let pcs = plan.table.pcs(plan.sections[0].forms[v]);
            let expected = &pcs[owed_from..];
            let line = &rules[&format!("v{v}")];
            assert!(line.starts_with(&format!("\"{}: \"", voice.name)), "{line}");
            // The notes' pitch classes (chords where the plan groups positions),
            // flattened, are exactly the positions owed, in order.
            let notes = line.matches(&format!("v{v}-n")).count();
            let mut owed = Vec::new();
            for i in 0..notes {
                let mut k = 0;
                while let Some(alts) = rules.get(&format!("v{v}-n{i}-p{k}")) {
                    let names: Vec<&str> = alts.split(" | ").collect();
                    let pc = pc_of(names[0]).0;
                    let mut octaves = Vec::new();
                    // Every alternative is that pitch class, inside the register…
                    for name in &names {
                        let (got, midi) = pc_of(name);
                        assert_eq!(got, pc, "voice {v} note {i}: {name}");
                        assert!((i32::from(voice.low)..=i32::from(voice.high)).contains(&midi));
                        octaves.push(midi);
                    }
                    // …and every octave between its lowest and highest, both spellings.
                    octaves.sort_unstable();
                    octaves.dedup();
                    let (lo, hi) = (octaves[0], octaves[octaves.len() - 1]);
                    assert_eq!(octaves.len() as i32, (hi - lo) / 12 + 1, "{alts}");
                    let spellings = if [1, 3, 6, 8, 10].contains(&pc) { 2 } else { 1 };
                    assert_eq!(names.len(), octaves.len() * spellings, "{alts}");
                    owed.push(pc);
                    k += 1;
                }
                assert!(k >= 1, "voice {v} note {i} has a pitch");
                assert!(rules.contains_key(&format!("v{v}-n{i}-at")));
                assert!(rules.contains_key(&format!("v{v}-n{i}-len")));
            }
            assert_eq!(
                owed, expected,
                "voice {v} owes positions {owed_from}.. in order: {line}"
            );
        }
        // The oracle answers inside the language, and the proposer says so.
        let positions: usize = events.iter().map(|e| usize::from(e.tag.len)).sum();
        assert_eq!(positions, 24 - done, "{events:?}");
    }
}

#[tokio::test]
async fn the_trace_records_whether_the_constraint_was_honoured() {
    let (plan, state) = cursor_at(0).await;
    let constrained = AskOptions {
        constrained: true,
        ..AskOptions::default()
    };
    let ask = |backend: Arc<Scripted>| {
        let p = LlmProposer::new(backend, constrained.clone());
        let plan = plan.clone();
        let state = state.clone();
        async move {
            p.propose(ProposalRequest {
                kind: RequestKind::Section,
                spec: &plan,
                plan: &plan.sections,
                section_index: Some(0),
                state: &state,
                feedback: &[],
                attempt: 0,
                seed: 1,
            })
            .await
            .expect("answers")
            .exchange
            .expect("exchange")
        }
    };
    let honoured = ask(Arc::new(Scripted::oracle())).await;
    assert_eq!(honoured.constraint.as_deref(), Some("gbnf"));
    assert_eq!(honoured.constraint_honoured, Some(true));
    // A server that ignored the grammar: the right notes, but with a wrong pitch class
    // the grammar would not have allowed.
    let wrong = Arc::new(Scripted::new(vec![Step::OracleWrongPitch {
        voice: 1,
        note: 3,
    }]));
    let ignored = ask(wrong).await;
    assert_eq!(ignored.constraint_honoured, Some(false));
    assert_eq!(
        ignored.reasks, 0,
        "a complete reply is not asked again: the verifier judges it"
    );
}

#[tokio::test]
async fn slot_numbers_are_bounded_by_digit_classes() {
    let (plan, state) = cursor_at(0).await;
    let backend = Arc::new(Scripted::oracle());
    let p = LlmProposer::new(
        backend.clone(),
        AskOptions {
            constrained: true,
            freedom: Freedom::Plan,
            ..AskOptions::default()
        },
    );
    section(&p, &plan, &state).await;
    let request = backend.requests.lock().unwrap()[0].clone();
    let Some(Constraint::Gbnf(gbnf)) = request.constraint else {
        panic!("no grammar");
    };
    let rules = rules(&gbnf);
    // Onsets and lengths stay inside the section's 64 slots, and each note of a
    // line starts after the one before it may start.
    let bounds = |body: &str| -> (u32, u32) {
        let numbers: Vec<u32> = (1..=4096)
            .filter(|n: &u32| {
                body.split(" | ").any(|alt| {
                    let text = n.to_string();
                    let parts: Vec<&str> = alt.split(' ').collect();
                    let mut chars = text.chars();
                    parts.iter().all(|p| {
                        if let Some(lit) = p.strip_prefix('"') {
                            lit.trim_end_matches('"')
                                .chars()
                                .all(|c| chars.next() == Some(c))
                        } else {
                            let (lo, hi) = (p.as_bytes()[1], p.as_bytes()[3]);
                            chars.next().is_some_and(|c| (lo..=hi).contains(&(c as u8)))
                        }
                    }) && chars.next().is_none()
                })
            })
            .collect();
        (numbers[0], numbers[numbers.len() - 1])
    };
    let mut previous = 0;
    for i in 0.. {
        let Some(at) = rules.get(&format!("v0-n{i}-at")) else {
            assert!(i >= 6, "voice 0 has its notes");
            break;
        };
        let (lo, hi) = bounds(at);
        assert!(lo > previous && hi <= 64, "note {i} starts in {lo}..={hi}");
        previous = lo;
        let (len_lo, len_hi) = bounds(&rules[&format!("v0-n{i}-len")]);
        assert!(
            len_lo >= 1 && len_lo <= len_hi && hi + len_hi <= 65,
            "note {i}"
        );
    }
    for (name, body) in &rules {
        if name.ends_with("-at") || name.ends_with("-len") {
            assert!(
                !body.contains("\"0"),
                "{name} admits a leading zero: {body}"
            );
        }
    }
}

#[tokio::test]
async fn the_json_schema_alternative_holds_each_note_to_the_cursor() {
    let (plan, state) = cursor_at(5).await;
    // What a schema-following server would send: the oracle's notes as JSON arrays.
    let lines = {
        let probe = Arc::new(Scripted::oracle());
        let p = LlmProposer::new(probe.clone(), AskOptions::default());
        section(&p, &plan, &state).await;
        llm_support::oracle(&probe.requests.lock().unwrap()[0], None)
    };
    let object: serde_json::Map<String, serde_json::Value> = lines
        .lines()
        .map(|l| {
            let (name, notes) = l.split_once(": ").unwrap();
            (name.to_owned(), notes.split(' ').collect::<Vec<_>>().into())
        })
        .collect();
    let json = serde_json::Value::Object(object).to_string();
    let options = AskOptions {
        constrained: true,
        json_schema: true,
        ..AskOptions::default()
    };
    for (reply, honoured) in [(json, true), (lines.clone(), false)] {
        let backend = Arc::new(Scripted::new(vec![Step::Text(reply)]));
        let p = LlmProposer::new(backend.clone(), options.clone());
        assert!(p.name().ends_with("+json"));
        let got = p
            .propose(ProposalRequest {
                kind: RequestKind::Section,
                spec: &plan,
                plan: &plan.sections,
                section_index: Some(0),
                state: &state,
                feedback: &[],
                attempt: 0,
                seed: 1,
            })
            .await
            .expect("answers");
        let positions: usize = got.events.iter().map(|e| usize::from(e.tag.len)).sum();
        assert_eq!(positions, 24 - 5, "both forms of answer are read");
        let exchange = got.exchange.unwrap();
        assert_eq!(exchange.constraint.as_deref(), Some("json_schema"));
        assert_eq!(exchange.constraint_honoured, Some(honoured));
        let request = backend.requests.lock().unwrap()[0].clone();
        let Some(Constraint::JsonSchema(schema)) = request.constraint else {
            panic!("a JSON schema is sent");
        };
        let soprano = &schema["properties"][plan.limits.voices[0].name.as_str()];
        let items = soprano["prefixItems"].as_array().unwrap();
        let owed: usize = items
            .iter()
            .map(|i| {
                let p = i["pattern"].as_str().unwrap();
                p[..p.find('@').unwrap()].matches('(').count()
            })
            .sum();
        assert_eq!(owed, 7, "voice 0 owes positions 6..=12");
        let pc = plan.table.pcs(plan.sections[0].forms[0])[5];
        let pattern = items[0]["pattern"].as_str().unwrap();
        let names = &pattern[2..pattern.find(')').unwrap()];
        for name in names.split('|') {
            assert_eq!(pc_of(name).0, pc, "{pattern}");
        }
        assert_eq!(soprano["minItems"], items.len());
        assert!(backend.prompt(0).contains("JSON object"));
    }
}
