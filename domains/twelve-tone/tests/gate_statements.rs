//! `SerialGate::statements`: the statements renderers label are the gate's own —
//! each voice's statements open where the recorded forms begin, say the forms the
//! synthetic piece stated, and agree with the report's `labels` fact.

use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::row::resolve;
use cantus_twelve_tone::synth::{SynthOptions, piece};

#[test]
fn statements_are_the_forms_stated_and_open_on_their_first_note() {
    for seed in 0..12u64 {
        let mut opts = SynthOptions::new(resolve("WebernOp21").unwrap().row, 3, 120, seed);
        opts.tags = seed % 2 == 0;
        let synth = piece(&opts);
        let gate = synth.gate(GateMode::Strict);
        let report = gate.judge_score(&synth.score);
        assert!(report.passed, "seed {seed}: the synthetic piece is valid");
        let statements = gate.statements(&synth.score);
        for (v, forms) in synth.forms.iter().enumerate() {
            let mine: Vec<_> = statements.iter().filter(|s| s.voice == v).collect();
            assert_eq!(mine.len(), forms.len(), "seed {seed}, voice {v}");
            for (st, form) in mine.iter().zip(forms) {
                assert!(st.forms.contains(form), "seed {seed}: {st:?} vs {form}");
                assert_eq!(st.filled, 12);
                assert!(!st.broken);
                let event = &synth.score.voices[v].events[st.first_event];
                assert_eq!(event.onset, st.onset);
            }
            // The first statement opens on the voice's first note; each later one
            // right after the previous one's twelfth position.
            assert_eq!(mine[0].first_event, 0);
            let line: Vec<String> = mine.iter().map(|s| s.label()).collect();
            let fact = &report.facts["labels"][&synth.score.voices[v].name];
            assert_eq!(fact.as_str(), Some(line.join(" ").as_str()), "seed {seed}");
        }
    }
}

#[test]
fn a_broken_statement_is_labelled_as_the_gate_reports_it() {
    let mut opts = SynthOptions::new(resolve("WebernOp21").unwrap().row, 1, 24, 3);
    opts.tags = false;
    let mut synth = piece(&opts);
    // Two pitch classes of the first statement swapped: no form fits any more.
    let events = &mut synth.score.voices[0].events;
    let (a, b) = (events[2].pitches.clone(), events[5].pitches.clone());
    events[2].pitches = b;
    events[5].pitches = a;
    let gate = synth.gate(GateMode::Strict);
    let report = gate.judge_score(&synth.score);
    assert!(!report.passed);
    let statements = gate.statements(&synth.score);
    assert!(statements[0].broken && statements[0].forms.is_empty());
    assert_eq!(statements[0].label(), "?");
    let line: Vec<String> = statements.iter().map(|s| s.label()).collect();
    let name = &synth.score.voices[0].name;
    assert_eq!(
        report.facts["labels"][name].as_str(),
        Some(line.join(" ").as_str())
    );
}
